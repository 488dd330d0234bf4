// How the CUB-compatible entry points run on ghist's engine: one generalized histogram per active channel, counting
// with plus<> on the counter's unsigned word (same bits as CUB's atomicAdd on CounterT), the caller's temporary
// storage as the engine's workspace, and every ghist::error turned into the cudaError_t a CUB caller checks.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <new>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "ghist/config.hpp"
#include "ghist/detail/cub_compat/byte_path.cuh"
#include "ghist/detail/cub_compat/small_even_path.cuh"
#include "ghist/detail/cub_compat/range_transform.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "ghist/histogram.hpp"
#include "ghist/operators.hpp"
#include "ghist/options.hpp"
#include "ghist/update.hpp"

namespace ghist::cub_compat::detail {

/// The counter types CUB users pass (int, unsigned, long long, unsigned long long and the <cstdint> names): 4- or
/// 8-byte integers. Counts are added in the unsigned word of the same size, whose wrap-around equals CUB's.
template <class CounterT>
inline constexpr bool is_counter_v = std::is_integral_v<CounterT> && !std::is_same_v<CounterT, bool> &&
                                     (sizeof(CounterT) == 4 || sizeof(CounterT) == 8);
template <class CounterT>
using counter_word_t = std::conditional_t<sizeof(CounterT) == 4, std::uint32_t, std::uint64_t>;

/// Sample (pixel, channel) of rows of interleaved pixels, `stride` samples apart (one row when rows are contiguous:
/// then pixel indexes the whole image and no division is needed).
template <class SampleIt>
struct pitched_reader {
  SampleIt base;
  std::int64_t row_pixels;   ///< pixels per row; 0 = contiguous rows
  std::int64_t row_stride;   ///< samples from one row's start to the next
  int channels;

  __device__ __forceinline__ auto operator()(std::int64_t pixel, int channel) const {
    if (row_pixels == 0) return base[pixel * channels + channel];
    const std::int64_t row = pixel / row_pixels;
    const std::int64_t col = pixel - row * row_pixels;
    return base[row * row_stride + col * channels + channel];
  }
};

/// Bin function over pixel indices for one channel.
template <class Reader, class Transform, class Word>
struct channel_bins {
  Reader read;
  Transform to_bin;
  int channel;
  static constexpr bool counts = true;  // ghist::is_counting: one copy per block (see element_bins)
  __device__ __forceinline__ ghist::bin_update<Word> operator()(std::int64_t pixel) const {
    return {to_bin(read(pixel, channel)), Word(1)};
  }
};

/// Bin function over the elements of a contiguous single-channel array (the engine's vector-load path).
template <class SampleT, class Transform, class Word>
struct element_bins {
  Transform to_bin;
  // ghist::is_counting: with 32-bit counters the planner keeps one copy per block in shared memory, which also leaves
  // the L1 to a Range call's levels and bucket index (H100, 2^28 float samples, 2048 levels: 14 copies filled the
  // shared memory and the search took 1815 us, 256 levels 810 us).
  static constexpr bool counts = true;
  __device__ __forceinline__ ghist::bin_update<Word> operator()(const SampleT& s) const {
    return {to_bin(s), Word(1)};
  }
};

/// The geometry of a call: row_pixels pixels per row, rows rows, row_stride_bytes between row starts.
struct geometry {
  std::int64_t pixels = 0;      ///< row_pixels * rows
  std::int64_t row_pixels = 0;
  std::int64_t row_stride = 0;  ///< in samples
  bool contiguous = true;       ///< rows follow each other without padding (or there is one row)
};

/// Samples from the first to the last one read: (rows - 1) * stride + row_pixels * channels (whole pixels of the
/// last row). For g.pixels > 0.
inline std::size_t sample_span(const geometry& g, int channels) {
  if (g.contiguous) return static_cast<std::size_t>(g.pixels * channels);
  const std::int64_t rows = g.pixels / g.row_pixels;
  return static_cast<std::size_t>((rows - 1) * g.row_stride + g.row_pixels * channels);
}

/// cudaErrorInvalidValue unless the geometry is valid: counts >= 0, their product fits int64, the stride a
/// multiple of the sample size.
template <class SampleT, class OffsetT>
cudaError_t make_geometry(OffsetT row_pixels, OffsetT rows, std::size_t row_stride_bytes, int channels,
                          geometry& g) {
  static_assert(std::is_integral_v<OffsetT>, "ghist::cub_compat: OffsetT must be an integer type");
  if (row_pixels < 0 || rows < 0) return cudaErrorInvalidValue;
  const auto p = static_cast<std::uint64_t>(row_pixels), r = static_cast<std::uint64_t>(rows);
  if (r != 0 && p > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / r)
    return cudaErrorInvalidValue;
  if (row_stride_bytes % sizeof(SampleT) != 0) return cudaErrorInvalidValue;
  g.pixels = static_cast<std::int64_t>(p * r);
  g.row_pixels = static_cast<std::int64_t>(p);
  g.row_stride = static_cast<std::int64_t>(row_stride_bytes / sizeof(SampleT));
  g.contiguous = r <= 1 || static_cast<std::uint64_t>(g.row_stride) == p * static_cast<std::uint64_t>(channels);
  return cudaSuccess;
}

/// Range transforms read their levels from device memory: on the byte path their table is made on the device.
template <class Transform>
inline constexpr bool reads_device_levels_v = false;
template <class SampleT, class LevelT, class Levels>
inline constexpr bool reads_device_levels_v<range_transform<SampleT, LevelT, Levels>> = true;

/// Range calls on the engine search their levels through a bucket index (range_transform.hpp) made on the device,
/// stream-ordered before the histogram, in the caller's temporary storage; from 4 levels (fewer search in a step or
/// two anyway).
template <class Transform>
bool uses_range_buckets(const Transform& t) {
  if constexpr (reads_device_levels_v<Transform>) return t.num_levels >= 4;
  else return (void)t, false;
}
template <class Transform>
std::size_t range_buckets_bytes(const Transform& t) {
  if constexpr (reads_device_levels_v<Transform>) {
    if (!uses_range_buckets(t)) return 0;
    using V = typename Transform::value;
    return (range_buckets::bytes_for<V>(range_buckets::count_for(t.num_levels)) + 255) / 256 * 256;
  } else {
    return (void)t, 0;
  }
}

template <class Transform>
__global__ void fill_range_buckets_kernel(Transform t, range_buckets* out, std::int32_t count) {
  const std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (k < count) fill_range_bucket(t, out, count, k);
}

/// Makes t's index at `at` (range_buckets_bytes(t) bytes) and points t at it.
template <class Transform>
void make_range_buckets(Transform& t, void* at, cudaStream_t stream) {
  auto* index = static_cast<range_buckets*>(at);
  const auto count = static_cast<std::int32_t>(range_buckets::count_for(t.num_levels));
  constexpr int block = 256;
  fill_range_buckets_kernel<<<static_cast<unsigned>((count + block - 1) / block), block, 0, stream>>>(t, index, count);
  GHIST_CUDA_CHECK(cudaGetLastError());
  t.buckets = index;
}

/// Whether a call runs on the byte kernels (byte_path.cuh): uint8/int8 samples behind a pointer, one channel or 2 to
/// 4 interleaved ones, rows contiguous or with gaps no wider than the rows (and, for channels, strides a multiple of
/// the channel count). Depends only on what the size query sees as well.
template <int Channels, class SampleIt>
bool takes_byte_path(const geometry& g) {
  using SampleT = typename std::iterator_traits<SampleIt>::value_type;
  if constexpr (Channels <= ghist::detail::bytes::max_byte_channels && std::is_pointer_v<SampleIt> &&
                is_byte_sample_v<SampleT>) {
    if (g.contiguous || g.row_pixels == 0) return true;
    const std::int64_t rows = g.pixels / g.row_pixels;
    const std::int64_t row_bytes = g.row_pixels * Channels;  // 1-byte samples
    if constexpr (Channels == 1) return byte_rows_supported(row_bytes, rows, g.row_stride);
    else return channel_rows_supported<Channels>(row_bytes, rows, g.row_stride);
  } else {
    (void)g;
    return false;
  }
}

/// Temporary storage of the byte kernels for Active channels.
template <int Channels, int Active>
constexpr std::size_t byte_kernels_temp_bytes() {
  return Channels == 1 ? byte_path_temp_bytes : channel_path_temp_bytes(Active);
}

/// The engine's options for every call: a race factor of 1 so that the engine never samples the input and
/// waits on the stream (CUB calls are fully asynchronous and may be captured in CUDA graphs).
inline ghist::options engine_options(void* temp, std::size_t temp_bytes) {
  ghist::options o;
  o.race_factor = 1.0;
  o.scratch.data = temp;
  o.scratch.bytes = temp != nullptr ? temp_bytes : 0;
  return o;
}

/// Runs `body` and turns what it throws into a CUDA error: ghist::error (bad argument, checked before anything is
/// enqueued) -> cudaErrorInvalidValue, or the CUDA error pending when a CUDA call failed; bad_alloc ->
/// cudaErrorMemoryAllocation. Nothing escapes.
template <class Body>
cudaError_t guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const ghist::error&) {
    const cudaError_t pending = cudaGetLastError();
    return pending != cudaSuccess ? pending : cudaErrorInvalidValue;
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  } catch (...) {
    return cudaErrorUnknown;
  }
}

/// The multi-channel driver: transforms[c] maps a sample of active channel c to its bin (or no_bin); bins[c] is
/// the bin count; empty[c] says the histogram is all zero without reading the input.
template <int Channels, int Active, class SampleIt, class CounterT, class Transform>
cudaError_t run_channels(void* d_temp, std::size_t& temp_bytes, SampleIt d_samples,
                         const std::array<CounterT*, Active>& d_hist, const std::array<Transform, Active>& transforms,
                         const std::array<std::int64_t, Active>& bins, const std::array<bool, Active>& empty,
                         const geometry& g, cudaStream_t stream) {
  static_assert(Channels >= 1 && Active >= 1 && Active <= Channels,
                "ghist::cub_compat: need 1 <= NUM_ACTIVE_CHANNELS <= NUM_CHANNELS");
  static_assert(is_counter_v<CounterT>, "ghist::cub_compat: CounterT must be a 4- or 8-byte integer type");
  using SampleT = typename std::iterator_traits<SampleIt>::value_type;
  using Word = counter_word_t<CounterT>;
  using Op = ghist::plus<Word>;
  return guarded([&]() -> cudaError_t {
    std::size_t needed = 1;  // never 0: a caller's cudaMalloc(0) would give back null, the "query" pointer
    std::size_t index_bytes = 0;  // the range bucket indexes, at the start of the temporary storage
    const bool bytes = takes_byte_path<Channels, SampleIt>(g);
    // (Active is 1 whenever the small-even path is taken: it needs one channel.)
    const bool small_even = !bytes && takes_small_even_path<Channels, SampleIt>(g.contiguous, transforms[0]);
    if (bytes) {
      needed = byte_kernels_temp_bytes<Channels, Active>();
    } else if (!small_even) {  // the small-even path's blocks add into the caller's bins: it needs none
      for (int c = 0; c < Active; ++c) {
        needed = std::max(needed, ghist::plan_for<Op>(g.pixels, bins[c], engine_options(nullptr, 0)).temp_bytes);
        if (!empty[c]) index_bytes += range_buckets_bytes(transforms[c]);
      }
      needed += index_bytes;
    }
    if (d_temp == nullptr) {
      temp_bytes = needed;
      return cudaSuccess;
    }
    if (temp_bytes < needed) return cudaErrorInvalidValue;
    if constexpr (Channels > 1 && std::is_pointer_v<SampleIt> && is_byte_sample_v<SampleT>) {
      if (bytes && g.pixels > 0) {
        const std::int64_t rows = g.contiguous ? 1 : g.pixels / g.row_pixels;
        const std::int64_t row_bytes = (g.contiguous ? g.pixels : g.row_pixels) * Channels;
        const std::int64_t stride = g.contiguous ? row_bytes : g.row_stride;
        ghist::detail::check_device_range(d_samples, static_cast<std::size_t>((rows - 1) * stride + row_bytes),
                                          "d_samples");
        std::array<Word*, Active> dests{};
        for (int c = 0; c < Active; ++c) {
          dests[c] = reinterpret_cast<Word*>(d_hist[c]);
          ghist::detail::check_device_range(dests[c], static_cast<std::size_t>(bins[c]) * sizeof(Word),
                                            "d_histogram");
        }
        run_channel_byte_path<Channels, Active>(static_cast<const SampleT*>(d_samples), row_bytes, rows, stride,
                                                transforms, dests, bins, d_temp, stream);
        return cudaSuccess;
      }
    }
    const ghist::options opts = engine_options(static_cast<char*>(d_temp) + index_bytes, temp_bytes - index_bytes);
    // Every pointer checked before the first launch (the engine checks its own as each channel is called, after
    // Range's index kernels and earlier channels), so that a call with a bad pointer enqueues nothing.
    if (g.pixels > 0 && !bytes && !small_even) {
      if constexpr (std::is_pointer_v<SampleIt>)
        ghist::detail::check_device_range(d_samples, sample_span(g, Channels) * sizeof(SampleT), "d_samples");
      for (int c = 0; c < Active; ++c)
        ghist::detail::check_device_range(d_hist[c], static_cast<std::size_t>(bins[c]) * sizeof(Word), "d_histogram");
    }
    std::array<Transform, Active> indexed = transforms;
    if constexpr (reads_device_levels_v<Transform>) {
      std::size_t offset = 0;
      for (int c = 0; c < Active && g.pixels > 0 && !bytes; ++c)
        if (!empty[c] && uses_range_buckets(indexed[c])) {
          make_range_buckets(indexed[c], static_cast<char*>(d_temp) + offset, stream);
          offset += range_buckets_bytes(indexed[c]);
        }
    }
    for (int c = 0; c < Active; ++c) {
      Word* dest = reinterpret_cast<Word*>(d_hist[c]);
      if (empty[c] || g.pixels == 0) {
        ghist::detail::check_device_range(dest, static_cast<std::size_t>(bins[c]) * sizeof(Word), "d_histogram");
        const cudaError_t e = cudaMemsetAsync(dest, 0, static_cast<std::size_t>(bins[c]) * sizeof(Word), stream);
        if (e != cudaSuccess) return e;
        continue;
      }
      if constexpr (Channels == 1 && std::is_pointer_v<SampleIt> && is_byte_sample_v<SampleT>) {
        if (bytes) {
          const std::int64_t rows = g.contiguous ? 1 : g.pixels / g.row_pixels;
          const std::int64_t row_bytes = g.contiguous ? g.pixels : g.row_pixels;
          const std::int64_t stride = g.contiguous ? g.pixels : g.row_stride;
          ghist::detail::check_device_range(d_samples, static_cast<std::size_t>((rows - 1) * stride + row_bytes),
                                            "d_samples");
          ghist::detail::check_device_range(dest, static_cast<std::size_t>(bins[c]) * sizeof(Word), "d_histogram");
          run_byte_path<reads_device_levels_v<Transform>>(static_cast<const SampleT*>(d_samples), row_bytes, rows,
                                                          stride, transforms[c], dest, bins[c], d_temp, stream);
          continue;
        }
      }
      if constexpr (Channels == 1 && std::is_pointer_v<SampleIt> &&
                    (is_half_even_transform_v<Transform> || is_float_even_transform_v<Transform>)) {
        if (small_even) {
          ghist::detail::check_device_range(d_samples, static_cast<std::size_t>(g.pixels) * sizeof(SampleT),
                                            "d_samples");
          ghist::detail::check_device_range(dest, static_cast<std::size_t>(bins[c]) * sizeof(Word), "d_histogram");
          run_small_even_path(static_cast<const std::remove_cv_t<SampleT>*>(d_samples), g.pixels, transforms[c], dest,
                              stream);
          continue;
        }
      }
      if constexpr (Channels == 1 && std::is_pointer_v<SampleIt>) {
        if (g.contiguous) {
          ghist::generalized_histogram_async(static_cast<const SampleT*>(d_samples), g.pixels,
                                             element_bins<SampleT, Transform, Word>{indexed[c]}, Op{}, dest,
                                             bins[c], stream, opts);
          continue;
        }
      }
      using Reader = pitched_reader<SampleIt>;
      const Reader read{d_samples, g.contiguous ? 0 : g.row_pixels, g.row_stride, Channels};
      const channel_bins<Reader, Transform, Word> f{read, indexed[c], c};
      ghist::generalized_histogram_indexed_async(g.pixels, f, Op{}, dest, bins[c], stream, opts);
    }
    return cudaSuccess;  // the engine checked every launch
  });
}

}  // namespace ghist::cub_compat::detail
