// The CPU backend: the same generalized histogram on host memory, multi-threaded. It is the reference of every GPU
// test and the CLI's fallback when no GPU is present.
//
// Threads split the input into equal contiguous parts, each folds its part into a private sub-histogram (or, when
// threads x H sub-histograms would not fit the memory budget, each thread owns a range of bins and scans the whole
// input), and the sub-histograms are folded in thread order. The result is therefore the same for a given thread
// count for every operator, and the same for every thread count for integer and bitwise operators.
//
// Memory: beyond dest, at most detail::sub_histogram_budget_bytes (1 GiB) whatever the thread count and H (huge
// histograms, H = 100M bins and more, take the bin-range split once threads x H no longer fits). Inputs too few for
// several threads (n < 2 x detail::min_inputs_per_thread, e.g. H > N on small inputs) are folded by one thread
// straight into dest. cpu_fused.hpp, cpu_batched.hpp and cpu_vector.hpp build on the same engine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "ghist/binning.hpp"
#include "ghist/error.hpp"
#include "ghist/operators.hpp"
#include "ghist/options.hpp"
#include "ghist/update.hpp"

namespace ghist::cpu {

/// Threads used when the caller passes 0: the hardware's, at most 64.
inline int default_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw == 0 ? 1u : hw, 1u, 64u));
}

namespace detail {

// Private sub-histograms beyond this many bytes in total switch to the bin-range split (no extra memory).
inline constexpr std::size_t sub_histogram_budget_bytes = std::size_t(1) << 30;
// Below this many inputs per thread, threads cost more than they save.
inline constexpr std::int64_t min_inputs_per_thread = 1 << 16;

// Runs body(0) ... body(t - 1), each on its own thread, and returns when all are done. A part whose thread cannot
// be started runs on the calling thread. The first exception (in part order) of any part is rethrown here, after
// every part has finished, so that an exception never escapes a std::thread (which would call std::terminate).
template <class Body>
void run_parts(int t, Body&& body) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(t));
  auto guarded = [&](int k) {
    try {
      body(k);
    } catch (...) {
      errors[static_cast<std::size_t>(k)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(t));
  for (int k = 0; k < t; ++k) {
    try {
      pool.emplace_back(guarded, k);
    } catch (const std::system_error&) {
      guarded(k);
    }
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Threads that a fold over n inputs uses when the caller asks for `threads` (0: default_threads()): at most one per
// min_inputs_per_thread inputs, at least 1.
inline int threads_for(std::int64_t n, int threads) {
  int t = threads == 0 ? default_threads() : threads;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(t, n / min_inputs_per_thread)));
}

// Whether t private copies of `bytes_per_copy` bytes fit in budget_bytes (t * bytes_per_copy <= budget_bytes, written
// so that it cannot overflow).
inline bool sub_histograms_fit(std::size_t bytes_per_copy, int t, std::size_t budget_bytes) {
  return bytes_per_copy == 0 || bytes_per_copy <= budget_bytes / static_cast<std::size_t>(t);
}

// The engine shared by the scalar and the vector-valued entry points: folds the updates of inputs [0, n) into dest,
// num_bins rows of `width` values of T (row-major), with t threads (threads_for). fold(begin, end, hist, lo, hi)
// must apply, in input order, the updates of inputs [begin, end) whose bin b lies in [lo, hi) to row b - lo of hist.
// With one thread it folds straight into dest; otherwise into t private sub-histograms merged in thread order, or,
// when those would exceed budget_bytes, with each thread owning bins [num_bins * k / t, num_bins * (k + 1) / t) and
// scanning every input (no extra memory: memory stays bounded whatever the thread count and H).
template <class T, class Fold, class Op>
void run_rows(std::int64_t n, int t, T* dest, std::int64_t num_bins, std::int64_t width, Fold& fold, Op& op,
              std::size_t budget_bytes) {
  if (n == 0) return;
  if (t == 1) {
    fold(0, n, dest, 0, num_bins);
    return;
  }
  const std::size_t row_count = static_cast<std::size_t>(num_bins), w = static_cast<std::size_t>(width);
  const bool fits = row_count <= budget_bytes / sizeof(T) / w / static_cast<std::size_t>(t);
  if (fits) {
    const std::size_t size = row_count * w;
    std::vector<std::vector<T>> subs(t);
    run_parts(t, [&](int k) {
      subs[k].assign(size, Op::identity());
      fold(n * k / t, n * (k + 1) / t, subs[k].data(), 0, num_bins);
    });
    for (int k = 0; k < t; ++k)
      for (std::size_t b = 0; b < size; ++b) dest[b] = op(dest[b], subs[k][b]);
  } else {
    // Each thread owns a range of bins and applies, in input order, only the updates that fall in it.
    run_parts(t, [&](int k) {
      std::int64_t lo = num_bins * k / t, hi = num_bins * (k + 1) / t;
      fold(0, n, dest + lo * width, lo, hi);
    });
  }
}

// budget_bytes: the most memory the private sub-histograms may take in total before the bin-range split is used
// (a parameter so that tests can exercise both paths on small inputs).
template <class UpdateAt, class Op>
void run(std::int64_t n, UpdateAt update_at, Op op, typename Op::value_type* dest, std::int64_t num_bins, mode how,
         int threads, std::size_t budget_bytes = sub_histogram_budget_bytes) {
  using T = typename Op::value_type;
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (dest == nullptr) throw error("dest is null");
  if (threads < 0) throw error("threads must be >= 0, got " + std::to_string(threads));
  if (how == mode::overwrite) std::fill(dest, dest + num_bins, Op::identity());
  if (n == 0) return;

  auto fold = [&](std::int64_t begin, std::int64_t end, T* hist, std::int64_t bin_lo, std::int64_t bin_hi) {
    for (std::int64_t i = begin; i < end; ++i) {
      bin_update<T> u = update_at(i);
      if (u.bin >= bin_lo && u.bin < bin_hi) hist[u.bin - bin_lo] = op(hist[u.bin - bin_lo], u.value);
    }
  };
  run_rows(n, threads_for(n, threads), dest, num_bins, std::int64_t(1), fold, op, budget_bytes);
}

}  // namespace detail

/// dest[f(input[i]).bin] (+)= f(input[i]).value for i in [0, n). f: (const In&) -> bin_update<T>.
/// Out-of-range bins are ignored. threads = 0 uses default_threads(). Throws ghist::error on bad arguments; an
/// exception thrown by f is rethrown here once every worker thread has finished (dest is then unspecified).
template <class In, class BinFn, class Op>
void generalized_histogram(const In* input, std::int64_t n, BinFn f, Op op, typename Op::value_type* dest,
                           std::int64_t num_bins, mode how = mode::overwrite, int threads = 0) {
  if (input == nullptr && n > 0) throw error("input is null with n = " + std::to_string(n) + " > 0");
  detail::run(n, [&](std::int64_t i) { return f(input[i]); }, op, dest, num_bins, how, threads);
}

/// dest[f(i).bin] (+)= f(i).value for i in [0, n). f: (std::int64_t) -> bin_update<T>.
template <class BinFn, class Op>
void generalized_histogram_indexed(std::int64_t n, BinFn f, Op op, typename Op::value_type* dest,
                                   std::int64_t num_bins, mode how = mode::overwrite, int threads = 0) {
  detail::run(n, f, op, dest, num_bins, how, threads);
}

/// Counts of samples in num_bins even bins over [lower, upper) (binning.hpp gives the exact semantics).
template <class Sample, class Count>
void histogram_even(const Sample* samples, std::int64_t n, Count* hist, std::int64_t num_bins, Sample lower,
                    Sample upper, mode how = mode::overwrite, int threads = 0) {
  even_bins<Sample> bins = make_even_bins(lower, upper, num_bins);
  generalized_histogram(
      samples, n, [bins](Sample x) { return bin_update<Count>{bins(x), Count(1)}; }, plus<Count>{}, hist, num_bins,
      how, threads);
}

/// Per-bin fold (op: plus, min, max, ...) of weights[i] over the even bin of samples[i].
template <class Sample, class Weight, class Op = plus<Weight>>
void weighted_histogram_even(const Sample* samples, const Weight* weights, std::int64_t n, Weight* hist,
                             std::int64_t num_bins, Sample lower, Sample upper, Op op = {},
                             mode how = mode::overwrite, int threads = 0) {
  even_bins<Sample> bins = make_even_bins(lower, upper, num_bins);
  if (n > 0 && (samples == nullptr || weights == nullptr)) throw error("samples or weights is null with n > 0");
  generalized_histogram_indexed(
      n, [=](std::int64_t i) { return bin_update<Weight>{bins(samples[i]), weights[i]}; }, op, hist, num_bins, how,
      threads);
}

/// counts[k] = number of keys equal to k, for k in [0, num_bins); other keys are ignored.
template <class Key, class Count>
void bincount(const Key* keys, std::int64_t n, Count* counts, std::int64_t num_bins, mode how = mode::overwrite,
              int threads = 0) {
  key_bins<Key> bins{num_bins};
  generalized_histogram(
      keys, n, [bins](Key k) { return bin_update<Count>{bins(k), Count(1)}; }, plus<Count>{}, counts, num_bins, how,
      threads);
}

/// out[k] = op-fold of weights[i] over the i with keys[i] == k.
template <class Key, class Weight, class Op = plus<Weight>>
void weighted_bincount(const Key* keys, const Weight* weights, std::int64_t n, Weight* out, std::int64_t num_bins,
                       Op op = {}, mode how = mode::overwrite, int threads = 0) {
  key_bins<Key> bins{num_bins};
  if (n > 0 && (keys == nullptr || weights == nullptr)) throw error("keys or weights is null with n > 0");
  generalized_histogram_indexed(
      n, [=](std::int64_t i) { return bin_update<Weight>{bins(keys[i]), weights[i]}; }, op, out, num_bins, how,
      threads);
}

}  // namespace ghist::cpu
