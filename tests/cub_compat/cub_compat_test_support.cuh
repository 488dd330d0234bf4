// Helpers of the cub_compat GPU tests: random samples of every type, the image layouts (one channel; four channels
// with three active; rows with padding), one runner templated on the histogram class so that the very same calls go
// to ghist::cub_compat::DeviceHistogram and to cub::DeviceHistogram, and the CPU reference.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>
#include <gtest/gtest.h>

#include "ghist/cub_compat.cuh"
#include "test_support.cuh"

namespace cub_compat_test {

using ghist::cub_compat::detail::is_half_like_v;
using ghist_test::device_buffer;

/// Rows x row_pixels interleaved pixels of `channels` samples, `pad` samples of padding after each row.
struct layout {
  int channels;
  int active;
  std::int64_t row_pixels;
  std::int64_t rows;
  std::int64_t pad;  ///< 0 = the flat 1-D overloads
  std::int64_t row_stride() const { return row_pixels * channels + pad; }
  std::int64_t total_samples() const { return rows == 0 ? 0 : (rows - 1) * row_stride() + row_pixels * channels; }
  std::string name() const {
    return std::to_string(channels) + "ch/" + std::to_string(active) + "active " + std::to_string(rows) + "x" +
           std::to_string(row_pixels) + (pad ? " pad " + std::to_string(pad) : "");
  }
};

template <class T>
T from_double(double v) {
  if constexpr (ghist::cub_compat::detail::is_half_v<T>) return __double2half(v);
  else if constexpr (ghist::cub_compat::detail::is_bfloat16_v<T>) return __double2bfloat16(v);
  else if constexpr (std::is_integral_v<T>) {
    const long double lo = static_cast<long double>(std::numeric_limits<T>::min());
    const long double hi = static_cast<long double>(std::numeric_limits<T>::max());
    long double x = std::floor(static_cast<long double>(v));
    return static_cast<T>(x < lo ? lo : (x > hi ? hi : x));
  } else {
    return static_cast<T>(v);
  }
}

enum class dist { uniform, one_value, ramp, with_specials };
inline const dist all_dists[] = {dist::uniform, dist::one_value, dist::ramp, dist::with_specials};
inline const char* to_string(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::one_value: return "one_value";
    case dist::ramp: return "ramp";
    case dist::with_specials: return "with_specials";
  }
  return "?";
}

/// n samples spread over [lo - 10%, hi + 10%) (so some fall outside), one repeated value, a sorted ramp, or uniform
/// with NaN, infinities and the exact levels mixed in (floating types) / the type's extremes (integers).
template <class T>
std::vector<T> make_samples(dist d, std::int64_t n, double lo, double hi, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  const double span = hi - lo;
  std::uniform_real_distribution<double> u(lo - span / 10, hi + span / 10);
  const double one = u(rng);
  for (std::int64_t i = 0; i < n; ++i) {
    double x = u(rng);
    if (d == dist::one_value) x = one;
    if (d == dist::ramp) x = lo - span / 20 + span * 1.1 * static_cast<double>(i) / static_cast<double>(n);
    v[static_cast<std::size_t>(i)] = from_double<T>(x);
    if (d == dist::with_specials && rng() % 8 == 0) {
      const double specials_f[] = {NAN, INFINITY, -INFINITY, lo, hi};
      const double x2 = specials_f[rng() % 5];
      if constexpr (std::is_integral_v<T>) {
        const T ext[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), from_double<T>(lo),
                         from_double<T>(hi)};
        v[static_cast<std::size_t>(i)] = ext[rng() % 4];
      } else {
        v[static_cast<std::size_t>(i)] = from_double<T>(x2);
      }
    }
  }
  return v;
}

/// A two-phase call of any DeviceHistogram-like class: query, allocate, run, synchronize. `call(temp, bytes)`.
template <class Call>
cudaError_t two_phase(Call&& call) {
  std::size_t bytes = 0;
  cudaError_t e = call(nullptr, bytes);
  if (e != cudaSuccess) return e;
  void* temp = nullptr;
  if (cudaMalloc(&temp, bytes) != cudaSuccess) return cudaErrorMemoryAllocation;
  e = call(temp, bytes);
  const cudaError_t s = cudaDeviceSynchronize();
  cudaFree(temp);
  return e != cudaSuccess ? e : s;
}

/// Even histograms of the active channels through Hist (ghist::cub_compat::DeviceHistogram or cub::DeviceHistogram),
/// with the overload the layout calls for. Returns the counts as uint64 per channel.
template <class Hist, int Channels, int Active, class CounterT, class SampleT, class LevelT>
cudaError_t run_even(const layout& lay, const SampleT* d_samples, const std::array<int, Active>& num_levels,
                     const std::array<LevelT, Active>& lo, const std::array<LevelT, Active>& hi,
                     std::array<std::vector<std::uint64_t>, Active>& out) {
  std::array<std::unique_ptr<device_buffer<CounterT>>, Active> bufs;
  ::cuda::std::array<CounterT*, Active> hist{};
  ::cuda::std::array<int, Active> nl{};
  ::cuda::std::array<LevelT, Active> l{}, h{};
  for (int c = 0; c < Active; ++c) {
    bufs[c] = std::make_unique<device_buffer<CounterT>>(static_cast<std::size_t>(num_levels[c] - 1));
    cudaMemset(bufs[c]->get(), 0xab, bufs[c]->size() * sizeof(CounterT));  // the call must overwrite it
    hist[c] = bufs[c]->get();
    nl[c] = num_levels[c];
    l[c] = lo[c];
    h[c] = hi[c];
  }
  const std::size_t stride_bytes = static_cast<std::size_t>(lay.row_stride()) * sizeof(SampleT);
  cudaError_t e = two_phase([&](void* temp, std::size_t& bytes) {
    if constexpr (Channels == 1 && Active == 1) {
      if (lay.pad == 0)
        return Hist::HistogramEven(temp, bytes, d_samples, hist[0], nl[0], l[0], h[0], lay.row_pixels * lay.rows);
      return Hist::HistogramEven(temp, bytes, d_samples, hist[0], nl[0], l[0], h[0], static_cast<int>(lay.row_pixels),
                                 static_cast<int>(lay.rows), stride_bytes);
    } else {
      if (lay.pad == 0)
        return Hist::template MultiHistogramEven<Channels, Active>(temp, bytes, d_samples, hist, nl, l, h,
                                                                   lay.row_pixels * lay.rows);
      return Hist::template MultiHistogramEven<Channels, Active>(temp, bytes, d_samples, hist, nl, l, h,
                                                                 static_cast<int>(lay.row_pixels),
                                                                 static_cast<int>(lay.rows), stride_bytes);
    }
  });
  if (e != cudaSuccess) return e;
  for (int c = 0; c < Active; ++c) {
    auto host = bufs[c]->download();
    out[c].assign(host.size(), 0);
    for (std::size_t b = 0; b < host.size(); ++b)
      out[c][b] = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<CounterT>>(host[b]));
  }
  return cudaSuccess;
}

/// Range histograms through Hist; levels[c] are host arrays, copied to the device here.
template <class Hist, int Channels, int Active, class CounterT, class SampleT, class LevelT>
cudaError_t run_range(const layout& lay, const SampleT* d_samples,
                      const std::array<std::vector<LevelT>, Active>& levels,
                      std::array<std::vector<std::uint64_t>, Active>& out) {
  std::array<std::unique_ptr<device_buffer<CounterT>>, Active> bufs;
  std::array<std::unique_ptr<device_buffer<LevelT>>, Active> lbufs;
  ::cuda::std::array<CounterT*, Active> hist{};
  ::cuda::std::array<int, Active> nl{};
  ::cuda::std::array<const LevelT*, Active> lv{};
  for (int c = 0; c < Active; ++c) {
    bufs[c] = std::make_unique<device_buffer<CounterT>>(levels[c].size() - 1);
    cudaMemset(bufs[c]->get(), 0xab, bufs[c]->size() * sizeof(CounterT));
    lbufs[c] = std::make_unique<device_buffer<LevelT>>(levels[c]);
    hist[c] = bufs[c]->get();
    nl[c] = static_cast<int>(levels[c].size());
    lv[c] = lbufs[c]->get();
  }
  const std::size_t stride_bytes = static_cast<std::size_t>(lay.row_stride()) * sizeof(SampleT);
  cudaError_t e = two_phase([&](void* temp, std::size_t& bytes) {
    if constexpr (Channels == 1 && Active == 1) {
      if (lay.pad == 0)
        return Hist::HistogramRange(temp, bytes, d_samples, hist[0], nl[0], lv[0], lay.row_pixels * lay.rows);
      return Hist::HistogramRange(temp, bytes, d_samples, hist[0], nl[0], lv[0], static_cast<int>(lay.row_pixels),
                                  static_cast<int>(lay.rows), stride_bytes);
    } else {
      if (lay.pad == 0)
        return Hist::template MultiHistogramRange<Channels, Active>(temp, bytes, d_samples, hist, nl, lv,
                                                                    lay.row_pixels * lay.rows);
      return Hist::template MultiHistogramRange<Channels, Active>(temp, bytes, d_samples, hist, nl, lv,
                                                                  static_cast<int>(lay.row_pixels),
                                                                  static_cast<int>(lay.rows), stride_bytes);
    }
  });
  if (e != cudaSuccess) return e;
  for (int c = 0; c < Active; ++c) {
    auto host = bufs[c]->download();
    out[c].assign(host.size(), 0);
    for (std::size_t b = 0; b < host.size(); ++b)
      out[c][b] = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<CounterT>>(host[b]));
  }
  return cudaSuccess;
}

/// The CPU reference: bin(sample) for every sample of every active channel, over the padded layout.
template <int Active, class SampleT, class Transform>
std::array<std::vector<std::uint64_t>, Active> reference(const layout& lay, const std::vector<SampleT>& samples,
                                                         const std::array<Transform, Active>& to_bin,
                                                         const std::array<std::int64_t, Active>& bins) {
  std::array<std::vector<std::uint64_t>, Active> out;
  for (int c = 0; c < Active; ++c) out[c].assign(static_cast<std::size_t>(bins[c]), 0);
  for (std::int64_t r = 0; r < lay.rows; ++r)
    for (std::int64_t p = 0; p < lay.row_pixels; ++p)
      for (int c = 0; c < Active; ++c) {
        const std::int64_t b =
            to_bin[c](samples[static_cast<std::size_t>(r * lay.row_stride() + p * lay.channels + c)]);
        if (b >= 0) ++out[c][static_cast<std::size_t>(b)];
      }
  return out;
}

/// The sizes every test runs: empty, one pixel, odd and prime counts, 2^k +- 1, a few million samples.
inline const std::int64_t pixel_counts[] = {0, 1, 31, 4099, 65537, 1000003};

}  // namespace cub_compat_test
