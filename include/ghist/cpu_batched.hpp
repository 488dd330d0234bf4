// Batched generalized histograms on the CPU: num_segments segments of the input, each producing its own
// num_bins-bin histogram, in one call. This is the CPU reference of the GPU version to come (same semantics).
//
//   for s in [0, num_segments), j in [0, length of s): u = f(s, j); if 0 <= u.bin < num_bins:
//       dest[s * num_bins + u.bin] = op(dest[s * num_bins + u.bin], u.value)
//
// dest holds num_segments x num_bins values, row-major (row s is segment s's histogram). f receives the segment and
// the index within it (for the offsets form, the global index of the input is offsets[s] + j).
//
// Parallelism: segments too short to use several threads in cpu::generalized_histogram_indexed (fewer than
// 2 x min_inputs_per_thread inputs) are folded sequentially, many segments at once on different threads; a longer
// segment is folded by cpu.hpp's engine with every thread. Row s is therefore exactly what
// cpu::generalized_histogram_indexed(length of s, [&](j) { return f(s, j); }, op, row s, num_bins, how, threads)
// gives, for every operator: deterministic for a given thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ghist/cpu.hpp"

namespace ghist::cpu {

namespace detail {

// start(s) is where segment s begins in a global count of inputs (start(num_segments) is the total).
template <class Start, class BinFn, class Op>
void run_batched(std::int64_t num_segments, Start start, BinFn& f, Op op, typename Op::value_type* dest,
                 std::int64_t num_bins, mode how, int threads) {
  using T = typename Op::value_type;
  if (how == mode::overwrite) std::fill(dest, dest + num_segments * num_bins, Op::identity());
  if (num_segments == 0) return;
  const int t_req = threads == 0 ? default_threads() : threads;

  auto fold_segment = [&](std::int64_t s) {  // sequential: equals run() with one thread
    T* row = dest + s * num_bins;
    const std::int64_t len = start(s + 1) - start(s);
    for (std::int64_t j = 0; j < len; ++j) {
      bin_update<T> u = f(s, j);
      if (u.bin >= 0 && u.bin < num_bins) row[u.bin] = op(row[u.bin], u.value);
    }
  };
  // Segments [s0, s1), all short: parts of about equal numbers of inputs, each part a contiguous range of segments.
  auto fold_short = [&](std::int64_t s0, std::int64_t s1) {
    if (s0 == s1) return;
    const std::int64_t base = start(s0), total = start(s1) - base;
    const int p = static_cast<int>(std::max<std::int64_t>(
        1, std::min<std::int64_t>({std::int64_t(t_req), s1 - s0, total / min_inputs_per_thread})));
    if (p == 1) {
      for (std::int64_t s = s0; s < s1; ++s) fold_segment(s);
      return;
    }
    // Part k takes the segments that begin in [total * k / p, total * (k + 1) / p) (relative to base).
    std::vector<std::int64_t> first(static_cast<std::size_t>(p) + 1);
    std::int64_t s = s0;
    for (int k = 0; k <= p; ++k) {
      const std::int64_t at = k == p ? total : total * k / p;
      while (s < s1 && start(s) - base < at) ++s;
      first[static_cast<std::size_t>(k)] = k == p ? s1 : s;
    }
    run_parts(p, [&](int k) {
      for (std::int64_t q = first[static_cast<std::size_t>(k)]; q < first[static_cast<std::size_t>(k) + 1]; ++q)
        fold_segment(q);
    });
  };

  std::int64_t pending = 0;  // first short segment not yet folded
  for (std::int64_t s = 0; s < num_segments; ++s) {
    const std::int64_t len = start(s + 1) - start(s);
    if (threads_for(len, threads) > 1) {
      fold_short(pending, s);
      pending = s + 1;
      run(len, [&](std::int64_t j) { return f(s, j); }, op, dest + s * num_bins, num_bins, mode::accumulate,
          threads);
    }
  }
  fold_short(pending, num_segments);
}

inline void check_batched_common(std::int64_t num_segments, std::int64_t num_bins, const void* dest, int threads) {
  if (num_segments < 0) throw error("num_segments must be >= 0, got " + std::to_string(num_segments));
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  if (num_segments > std::numeric_limits<std::int64_t>::max() / num_bins)
    throw error("num_segments * num_bins overflows: num_segments = " + std::to_string(num_segments) +
                ", num_bins = " + std::to_string(num_bins));
  if (dest == nullptr && num_segments > 0) throw error("dest is null with num_segments > 0");
  if (threads < 0) throw error("threads must be >= 0, got " + std::to_string(threads));
}

}  // namespace detail

/// Equal segments: segment s is the inputs j in [0, segment_length). f: (std::int64_t s, std::int64_t j) ->
/// bin_update<T>, T = Op::value_type (for inputs stored back to back, input s * segment_length + j). f must have no
/// side effects (it may be called from several threads at once). dest: num_segments * num_bins values, row-major.
/// mode::overwrite starts every row from Op::identity(); mode::accumulate folds into what dest holds. threads = 0
/// uses default_threads(). Throws ghist::error naming the argument when num_segments < 0, segment_length < 0,
/// num_bins <= 0, num_segments * num_bins or num_segments * segment_length overflows, dest is null with
/// num_segments > 0 (with none, dest may be null) or threads < 0;
/// dest is then untouched. An exception thrown by f is rethrown once every worker thread has finished (dest is
/// then unspecified).
template <class BinFn, class Op>
void batched_histogram(std::int64_t num_segments, std::int64_t segment_length, BinFn f, Op op,
                       typename Op::value_type* dest, std::int64_t num_bins, mode how = mode::overwrite,
                       int threads = 0) {
  detail::check_batched_common(num_segments, num_bins, dest, threads);
  if (segment_length < 0) throw error("segment_length must be >= 0, got " + std::to_string(segment_length));
  if (segment_length > 0 && num_segments > std::numeric_limits<std::int64_t>::max() / segment_length)
    throw error("num_segments * segment_length overflows: num_segments = " + std::to_string(num_segments) +
                ", segment_length = " + std::to_string(segment_length));
  detail::run_batched(
      num_segments, [segment_length](std::int64_t s) { return s * segment_length; }, f, op, dest, num_bins, how,
      threads);
}

/// Variable segments: segment s is the inputs j in [0, offsets[s + 1] - offsets[s]); offsets has num_segments + 1
/// entries (any integer type), offsets[0] == 0 and non-decreasing (for inputs stored back to back, input
/// offsets[s] + j). f, dest, mode and threads as in batched_histogram. Throws ghist::error naming the argument when
/// num_segments < 0, offsets is null, offsets[0] != 0, offsets decreases anywhere (the message gives the index),
/// num_bins <= 0, num_segments * num_bins overflows, dest is null with num_segments > 0 or threads < 0; dest is
/// then untouched.
template <class Offset, class BinFn, class Op>
void batched_histogram_offsets(const Offset* offsets, std::int64_t num_segments, BinFn f, Op op,
                               typename Op::value_type* dest, std::int64_t num_bins, mode how = mode::overwrite,
                               int threads = 0) {
  static_assert(std::is_integral_v<Offset>, "offsets must be of an integer type");
  detail::check_batched_common(num_segments, num_bins, dest, threads);
  if (offsets == nullptr) throw error("offsets is null");
  if (offsets[0] != 0) throw error("offsets[0] must be 0, got " + std::to_string(offsets[0]));
  for (std::int64_t s = 0; s < num_segments; ++s)
    if (offsets[s + 1] < offsets[s])
      throw error("offsets must be non-decreasing: offsets[" + std::to_string(s + 1) + "] = " +
                  std::to_string(offsets[s + 1]) + " < offsets[" + std::to_string(s) + "] = " +
                  std::to_string(offsets[s]));
  detail::run_batched(
      num_segments, [offsets](std::int64_t s) { return static_cast<std::int64_t>(offsets[s]); }, f, op, dest,
      num_bins, how, threads);
}

}  // namespace ghist::cpu
