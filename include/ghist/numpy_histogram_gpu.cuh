// NumPy-compatible even-bin histograms of device arrays (needs nvcc): numpy.histogram(a, bins=<int>, range=...,
// weights=..., density=...) with the options, semantics, result and error messages of the CPU version,
// ghist::cpu::numpy_histogram (ghist/numpy_histogram.hpp), which is the reference it is tested against.
//
//   ghist::cpu::numpy_result r = ghist::numpy_histogram_gpu(d_a, n, bins);                 // range from the data
//   auto r = ghist::numpy_histogram_gpu(d_a, n, bins, std::make_pair(0.0, 3.0), d_w, /*density=*/true, stream);
//
// The edges are made on the host exactly as the CPU version makes them (NumPy's linspace, float32 edges for float
// samples) and every sample is binned on the device with NumPy's estimate-and-correct rule against those edges (last
// bin closed; NaN and samples outside the edges ignored).
// - Counts are exact and equal the CPU version's (and NumPy's).
// - Weighted sums: integer weights are summed exactly in int64 (then converted to Weight); floating-point weights
//   are summed in double with atomics, so the summation order is not NumPy's (NumPy sums blocks of 65,536 in input
//   order): results agree with the CPU version to rounding, not bit for bit. density uses those sums.
// - Range from the data: a min/max/NaN reduction on the device; the detected range and its errors are NumPy's
//   ("autodetected range of [nan, nan] is not finite").
// Synchronizes `stream` (the result is returned in host memory). Errors: ghist::error with the CPU version's message
// for bad arguments, plus a null or host pointer where device memory is expected, before any histogram work.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/workspace_pool.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "ghist/numpy_histogram.hpp"
#include "ghist/operators.hpp"

namespace ghist {

namespace detail::numpy_gpu {

/// The device side of cpu::detail::numpy_bins: NumPy's index estimate, one correction step, then a binary search
/// over the edges should the step not be enough.
struct edge_bins {
  const double* edges;
  double lo, hi;
  std::int64_t bins;

  __device__ std::int64_t operator()(double x) const {
    if (!(x >= edges[0] && x <= edges[bins])) return no_bin;  // also drops NaN
    const double f = ((x - lo) / (hi - lo)) * static_cast<double>(bins);
    std::int64_t b;
    if (!(f >= 0)) b = 0;
    else if (!(f < static_cast<double>(bins))) b = bins - 1;
    else b = static_cast<std::int64_t>(f);
    if (x < edges[b]) --b;
    else if (b != bins - 1 && x >= edges[b + 1]) ++b;
    if (b >= 0 && b < bins && edges[b] <= x && (x < edges[b + 1] || b == bins - 1)) return b;
    std::int64_t l = 0, h = bins;  // the last b with edges[b] <= x, among [0, bins)
    while (h - l > 1) {
      const std::int64_t m = l + (h - l) / 2;
      if (edges[m] <= x) l = m;
      else h = m;
    }
    return l;
  }
};

template <class Sample, class Acc>
struct count_fn {
  const Sample* a;
  edge_bins to_bin;
  __device__ bin_update<Acc> operator()(std::int64_t i) const {
    return {to_bin(static_cast<double>(a[i])), Acc(1)};
  }
};

template <class Sample, class Weight, class Acc>
struct weight_fn {
  const Sample* a;
  const Weight* w;
  edge_bins to_bin;
  __device__ bin_update<Acc> operator()(std::int64_t i) const {
    return {to_bin(static_cast<double>(a[i])), static_cast<Acc>(w[i])};
  }
};

/// Index 3i+k of the min/max/NaN reduction: k = 0 folds x into bin 0 (min), k = 1 folds -x into bin 1 (so bin 1
/// holds -max), k = 2 folds -1 into bin 2 when x is NaN (bin 2 stays +inf otherwise).
template <class Sample>
struct extrema_fn {
  const Sample* a;
  __device__ bin_update<double> operator()(std::int64_t i) const {
    const double x = static_cast<double>(a[i / 3]);
    const int k = static_cast<int>(i % 3);
    const bool nan = x != x;
    if (k == 2) return {nan ? 2 : no_bin, -1.0};
    if (nan) return {no_bin, 0.0};
    return {k, k == 0 ? x : -x};
  }
};

/// Device scratch from ghist's pool that frees itself (stream-ordered).
template <class T>
struct device_array {
  T* ptr = nullptr;
  cudaStream_t stream;
  device_array(std::size_t count, cudaStream_t s) : stream(s) {
    ptr = static_cast<T*>(ghist::detail::workspace_malloc_async(count * sizeof(T), s));
  }
  ~device_array() { (void)cudaFreeAsync(ptr, stream); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
};

}  // namespace detail::numpy_gpu

/// numpy.histogram of the device array a[0..n) (see the header comment). weights: n device values or nullptr.
/// Synchronizes `stream`; the result is in host memory, as cpu::numpy_histogram's.
template <class Sample, class Weight = double>
cpu::numpy_result numpy_histogram_gpu(const Sample* a, std::int64_t n, std::int64_t bins,
                                      std::optional<std::pair<double, double>> range = std::nullopt,
                                      const Weight* weights = nullptr, bool density = false,
                                      cudaStream_t stream = 0) {
  static_assert(std::is_arithmetic_v<Weight> && !std::is_same_v<Weight, bool>,
                "numpy_histogram_gpu needs arithmetic weights");
  namespace ng = detail::numpy_gpu;
  // The CPU version's checks, in its order and with its messages.
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (a == nullptr && n > 0) throw error("a is null with n = " + std::to_string(n) + " > 0");
  if (bins <= 0) throw error("`bins` must be positive, when an integer");
  detail::check_device_range(a, static_cast<std::size_t>(n) * sizeof(Sample), "a");
  if (weights != nullptr) detail::check_device_range(weights, static_cast<std::size_t>(n) * sizeof(Weight), "weights");

  if (!range && n > 0) {
    // NumPy's a.min(), a.max() (a NaN makes both NaN), then its checks and its +-0.5 for an empty range.
    ng::device_array<double> ext(3, stream);
    generalized_histogram_indexed_async(3 * n, ng::extrema_fn<Sample>{a}, ghist::min<double>{}, ext.ptr, 3, stream);
    double h[3];
    GHIST_CUDA_CHECK(cudaMemcpyAsync(h, ext.ptr, sizeof h, cudaMemcpyDeviceToHost, stream));
    GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
    const bool has_nan = h[2] < 0;
    double lo = has_nan ? std::nan("") : h[0], hi = has_nan ? std::nan("") : -h[1];
    if (!std::isfinite(lo) || !std::isfinite(hi))
      throw error("autodetected range of [" + cpu::detail::python_float(lo) + ", " + cpu::detail::python_float(hi) +
                  "] is not finite");
    if (lo == hi) {
      if constexpr (std::is_same_v<Sample, float>) {
        lo = static_cast<double>(static_cast<float>(lo) - 0.5f);
        hi = static_cast<double>(static_cast<float>(hi) + 0.5f);
      } else {
        lo -= 0.5;
        hi += 0.5;
      }
    }
    range = std::make_pair(lo, hi);
  }
  // With a range (given or detected) the CPU helper only checks it and makes the edges; it never reads `a`.
  const cpu::detail::numpy_bins nb = cpu::detail::make_numpy_bins(a, n, bins, range, 1);

  cpu::numpy_result r;
  r.edges = nb.edges;
  const std::size_t H = static_cast<std::size_t>(bins);
  ng::device_array<double> d_edges(H + 1, stream);
  GHIST_CUDA_CHECK(cudaMemcpyAsync(d_edges.ptr, nb.edges.data(), (H + 1) * sizeof(double), cudaMemcpyHostToDevice,
                                   stream));
  const ng::edge_bins to_bin{d_edges.ptr, nb.lo, nb.hi, bins};
  auto width = [&](std::size_t b) {  // in the edges' type, as numpy.diff
    if constexpr (std::is_same_v<Sample, float>)
      return static_cast<double>(static_cast<float>(nb.edges[b + 1]) - static_cast<float>(nb.edges[b]));
    else
      return nb.edges[b + 1] - nb.edges[b];
  };
  r.values.resize(H);

  if (weights == nullptr) {
    using Acc = unsigned long long;
    ng::device_array<Acc> d_counts(H, stream);
    generalized_histogram_indexed_async(n, ng::count_fn<Sample, Acc>{a, to_bin}, ghist::plus<Acc>{}, d_counts.ptr,
                                        bins, stream);
    std::vector<Acc> counts(H);
    GHIST_CUDA_CHECK(cudaMemcpyAsync(counts.data(), d_counts.ptr, H * sizeof(Acc), cudaMemcpyDeviceToHost, stream));
    GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
    r.counts.assign(counts.begin(), counts.end());
    const std::int64_t total = cpu::detail::numpy_sum(r.counts);
    for (std::size_t b = 0; b < H; ++b)
      r.values[b] = density ? static_cast<double>(r.counts[b]) / width(b) / static_cast<double>(total)
                            : static_cast<double>(r.counts[b]);
    return r;
  }

  using Acc = std::conditional_t<std::is_integral_v<Weight>, long long, double>;
  ng::device_array<Acc> d_sums(H, stream);
  generalized_histogram_indexed_async(n, ng::weight_fn<Sample, Weight, Acc>{a, weights, to_bin}, ghist::plus<Acc>{},
                                      d_sums.ptr, bins, stream);
  std::vector<Acc> sums(H);
  GHIST_CUDA_CHECK(cudaMemcpyAsync(sums.data(), d_sums.ptr, H * sizeof(Acc), cudaMemcpyDeviceToHost, stream));
  GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<Weight> hist(H);
  for (std::size_t b = 0; b < H; ++b) hist[b] = static_cast<Weight>(sums[b]);
  const Weight total = density ? cpu::detail::numpy_sum(hist) : Weight(0);
  for (std::size_t b = 0; b < H; ++b)
    r.values[b] = density ? static_cast<double>(hist[b]) / width(b) / static_cast<double>(total)
                          : static_cast<double>(hist[b]);
  return r;
}

}  // namespace ghist
