// Vector-valued generalized histograms on the CPU: each bin holds d values (d known at run time) and a scalar
// operator is applied per component. This is the CPU reference of the GPU version to come (same semantics).
//
//   for i in [0, n): b = f(i, v) writes v[0 .. d); if 0 <= b < num_bins:
//       dest[b * d + c] = op(dest[b * d + c], v[c]) for c in [0, d)
//
// dest holds num_bins * d values, bin-major (the d components of bin b are dest[b * d .. b * d + d)). Example: the
// k-means centroid sum, bin = nearest centroid, components = the point's coordinates, op = plus<float>.
//
// Parallelism and determinism are those of cpu.hpp (the same engine): threads split the input into equal contiguous
// parts with private sub-histograms folded in thread order, or, when threads x num_bins x d values would exceed the
// memory budget, each thread owns a range of bins. The result is the same for a given thread count for every
// operator, and the same for every thread count for integer and bitwise operators.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ghist/cpu.hpp"

namespace ghist::cpu {

namespace detail {

template <class BinFn, class Op>
void run_vector(std::int64_t n, std::int64_t d, BinFn& f, Op op, typename Op::value_type* dest,
                std::int64_t num_bins, mode how, int threads, std::size_t budget_bytes) {
  using T = typename Op::value_type;
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (d <= 0) throw error("d must be > 0, got " + std::to_string(d));
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  if (num_bins > std::numeric_limits<std::int64_t>::max() / d)
    throw error("num_bins * d overflows: num_bins = " + std::to_string(num_bins) + ", d = " + std::to_string(d));
  if (dest == nullptr) throw error("dest is null");
  if (threads < 0) throw error("threads must be >= 0, got " + std::to_string(threads));
  if (how == mode::overwrite) std::fill(dest, dest + num_bins * d, Op::identity());
  if (n == 0) return;

  // Each fold keeps its own component buffer (f writes it; the folds of different threads run at once).
  auto fold = [&](std::int64_t begin, std::int64_t end, T* hist, std::int64_t bin_lo, std::int64_t bin_hi) {
    std::vector<T> v(static_cast<std::size_t>(d), Op::identity());
    for (std::int64_t i = begin; i < end; ++i) {
      std::int64_t b = f(i, v.data());
      if (b >= bin_lo && b < bin_hi) {
        T* row = hist + (b - bin_lo) * d;
        for (std::int64_t c = 0; c < d; ++c) row[c] = op(row[c], v[c]);
      }
    }
  };
  run_rows(n, threads_for(n, threads), dest, num_bins, d, fold, op, budget_bytes);
}

}  // namespace detail

/// Vector-valued histogram over the indices [0, n). f: (std::int64_t i, T* v) -> std::int64_t; f writes the d
/// components of input i to v[0 .. d) and returns its bin (a bin outside [0, num_bins), e.g. ghist::no_bin, skips
/// the input; what f wrote to v is then ignored). f may be called more than once for the same i and from several
/// threads at once (each with its own v), so it must not have side effects beyond writing v. op is a scalar
/// operator (operators.hpp) on T = Op::value_type applied per component; dest has num_bins * d values, bin-major.
/// mode::overwrite starts every component from Op::identity(); mode::accumulate folds into what dest holds.
/// threads = 0 uses default_threads(). Throws ghist::error naming the argument when n < 0, d <= 0, num_bins <= 0,
/// num_bins * d overflows, dest is null or threads < 0; dest is then untouched. An exception thrown by f is
/// rethrown once every worker thread has finished (dest is then unspecified).
template <class BinFn, class Op>
void vector_histogram(std::int64_t n, std::int64_t d, BinFn f, Op op, typename Op::value_type* dest,
                      std::int64_t num_bins, mode how = mode::overwrite, int threads = 0) {
  detail::run_vector(n, d, f, op, dest, num_bins, how, threads, detail::sub_histogram_budget_bytes);
}

/// Element form: input has n records of d components each (record i is input[i * d .. i * d + d)), and
/// bin_of(const T* record) -> std::int64_t gives the bin of a record; the record's components are folded in.
/// Throws ghist::error, as vector_histogram does, and also when input is null with n > 0.
template <class BinOfRecord, class Op>
void vector_histogram_records(const typename Op::value_type* input, std::int64_t n, std::int64_t d,
                              BinOfRecord bin_of, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                              mode how = mode::overwrite, int threads = 0) {
  using T = typename Op::value_type;
  if (input == nullptr && n > 0) throw error("input is null with n = " + std::to_string(n) + " > 0");
  auto f = [&](std::int64_t i, T* v) {
    const T* rec = input + i * d;
    std::copy(rec, rec + d, v);
    return static_cast<std::int64_t>(bin_of(rec));
  };
  detail::run_vector(n, d, f, op, dest, num_bins, how, threads, detail::sub_histogram_budget_bytes);
}

}  // namespace ghist::cpu
