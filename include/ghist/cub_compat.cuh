// A drop-in replacement for cub::DeviceHistogram on ghist's engine (needs nvcc): a CUB user switches by writing
// ghist::cub_compat::DeviceHistogram where they wrote cub::DeviceHistogram; every entry point, overload, template
// parameter and argument is CUB's.
//
//   HistogramEven, HistogramRange                       one channel, 1-D (num_samples) or 2-D pitched
//   MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>  interleaved pixels, the first NUM_ACTIVE_CHANNELS
//   MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS> histogrammed (cuda::std::array or C-array arguments)
//
// Protocol (as CUB): call once with d_temp_storage == nullptr to get temp_storage_bytes (never 0), allocate, call
// again. The histogram is overwritten (zeroed, then counted). Calls are asynchronous on `stream`, never wait on it,
// and may be captured in a CUDA graph.
//
// Semantics (as CUB): bins are half-open, the last one included ([lower, upper) for Even, [levels[b], levels[b+1])
// for Range); NaN and samples outside the levels are dropped. Even bins of integer samples are the exact
// floor((s - lower) * bins / (upper - lower)) for every range of every integer width; floating Even bins use CUB's
// own formula, so they equal CUB's. Details and where ghist deliberately differs from CUB (its bugs
// NVIDIA/cccl#10975, #10976, #11121, NVIDIA/cub#619): detail/cub_compat/even_transform.hpp and range_transform.hpp.
//
// Speed: uint8 and int8 samples behind a pointer (one channel, or 2 to 4 interleaved channels such as RGBA) run on
// the byte kernels whatever the levels: the 256 raw byte values are counted, then folded into the bins through a
// table made with the same bin arithmetic as every other path (detail/cub_compat/byte_path.cuh says which layouts
// qualify). HistogramEven of contiguous __half or float samples (levels of the same type) into at most 256 bins runs
// a kernel of its own, __half two samples per instruction with the same roundings
// (detail/cub_compat/small_even_path.cuh). Every other call runs on ghist's generic engine; Range calls there
// search their levels through a bucket index that a small kernel makes from the device levels into the temporary
// storage first (32 bytes per bin for samples and levels of up to 4 bytes, 64 for 8-byte ones, at most 2^21
// buckets; detail/cub_compat/range_transform.hpp), so a sample costs about one load instead of log2(num_levels).
//
// Types: SampleT (the value type of SampleIteratorT, a pointer or any random-access iterator usable on the device)
// int8..int64, uint8..uint64, __half, __nv_bfloat16, float, double; CounterT int32, uint32, int64 (CUB cannot),
// uint64; OffsetT any integer type (64-bit counts work); LevelT any type with a common type with SampleT.
//
// Errors: returned, never thrown. cudaErrorInvalidValue for num_levels < 2, a non-finite floating-point Even level,
// a negative count, num_row_samples * num_rows beyond int64, a row stride that is not a multiple of sizeof(SampleT),
// temp_storage_bytes smaller than asked for, and a histogram, level or sample pointer the device cannot use (checked
// before anything is enqueued, so the histogram is untouched). A failed CUDA call returns its error.
// Deliberate differences from CUB, all documented above: lower >= upper gives an all-zero histogram (CUB: the same
// for floats, an error or garbage for integers); no product of range and bins is ever rejected.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include <cuda/std/array>
#include <cuda_runtime_api.h>

#include "ghist/detail/cub_compat/dispatch.cuh"
#include "ghist/detail/cub_compat/even_transform.hpp"
#include "ghist/detail/cub_compat/range_transform.hpp"

namespace ghist::cub_compat {

struct DeviceHistogram {
  // ---- Even: evenly spaced bins -------------------------------------------------------------------------------

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                        ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> lower_level,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> upper_level,
                                        OffsetT num_row_pixels, OffsetT num_rows, size_t row_stride_bytes,
                                        cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    using Transform = detail::even_transform<SampleT, LevelT>;
    detail::geometry g;
    cudaError_t e = detail::make_geometry<SampleT>(num_row_pixels, num_rows, row_stride_bytes, NUM_CHANNELS, g);
    if (e != cudaSuccess) return e;
    std::array<CounterT*, NUM_ACTIVE_CHANNELS> hist{};
    std::array<Transform, NUM_ACTIVE_CHANNELS> transforms{};
    std::array<std::int64_t, NUM_ACTIVE_CHANNELS> bins{};
    std::array<bool, NUM_ACTIVE_CHANNELS> empty{};
    for (int c = 0; c < NUM_ACTIVE_CHANNELS; ++c) {
      if (detail::make_even_transform(num_levels[c], lower_level[c], upper_level[c], transforms[c]) !=
          detail::even_status::ok)
        return cudaErrorInvalidValue;
      hist[c] = d_histogram[c];
      bins[c] = num_levels[c] - 1;
      empty[c] = transforms[c].kind == detail::even_kind::empty;
    }
    return detail::run_channels<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples,
                                                                   hist, transforms, bins, empty, g, stream);
  }

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                        ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> lower_level,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> upper_level,
                                        OffsetT num_pixels, cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level, upper_level, num_pixels,
        static_cast<OffsetT>(1), row_bytes<SampleT, NUM_CHANNELS>(num_pixels), stream);
  }

  /// CUB's C-array overloads (deprecated in CUB in favour of cuda::std::array, still accepted).
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        CounterT* d_histogram[NUM_ACTIVE_CHANNELS],
                                        const int num_levels[NUM_ACTIVE_CHANNELS],
                                        const LevelT lower_level[NUM_ACTIVE_CHANNELS],
                                        const LevelT upper_level[NUM_ACTIVE_CHANNELS], OffsetT num_row_pixels,
                                        OffsetT num_rows, size_t row_stride_bytes, cudaStream_t stream = 0) {
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, to_array<NUM_ACTIVE_CHANNELS>(d_histogram),
        to_array<NUM_ACTIVE_CHANNELS>(num_levels), to_array<NUM_ACTIVE_CHANNELS>(lower_level),
        to_array<NUM_ACTIVE_CHANNELS>(upper_level), num_row_pixels, num_rows, row_stride_bytes, stream);
  }

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        CounterT* d_histogram[NUM_ACTIVE_CHANNELS],
                                        const int num_levels[NUM_ACTIVE_CHANNELS],
                                        const LevelT lower_level[NUM_ACTIVE_CHANNELS],
                                        const LevelT upper_level[NUM_ACTIVE_CHANNELS], OffsetT num_pixels,
                                        cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels, lower_level, upper_level, num_pixels,
        static_cast<OffsetT>(1), row_bytes<SampleT, NUM_CHANNELS>(num_pixels), stream);
  }

  template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
  static cudaError_t HistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                   CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                   OffsetT num_samples, cudaStream_t stream = 0) {
    return MultiHistogramEven<1, 1>(d_temp_storage, temp_storage_bytes, d_samples,
                                    ::cuda::std::array<CounterT*, 1>{d_histogram},
                                    ::cuda::std::array<int, 1>{num_levels},
                                    ::cuda::std::array<LevelT, 1>{lower_level},
                                    ::cuda::std::array<LevelT, 1>{upper_level}, num_samples, stream);
  }

  template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
  static cudaError_t HistogramEven(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                   CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                   OffsetT num_row_samples, OffsetT num_rows, size_t row_stride_bytes,
                                   cudaStream_t stream = 0) {
    return MultiHistogramEven<1, 1>(d_temp_storage, temp_storage_bytes, d_samples,
                                    ::cuda::std::array<CounterT*, 1>{d_histogram},
                                    ::cuda::std::array<int, 1>{num_levels},
                                    ::cuda::std::array<LevelT, 1>{lower_level},
                                    ::cuda::std::array<LevelT, 1>{upper_level}, num_row_samples, num_rows,
                                    row_stride_bytes, stream);
  }

  // ---- Range: bins between the levels of a device array --------------------------------------------------------

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                         ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                         ::cuda::std::array<const LevelT*, NUM_ACTIVE_CHANNELS> d_levels,
                                         OffsetT num_row_pixels, OffsetT num_rows, size_t row_stride_bytes,
                                         cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    using Transform = detail::range_transform<SampleT, LevelT>;
    detail::geometry g;
    cudaError_t e = detail::make_geometry<SampleT>(num_row_pixels, num_rows, row_stride_bytes, NUM_CHANNELS, g);
    if (e != cudaSuccess) return e;
    std::array<CounterT*, NUM_ACTIVE_CHANNELS> hist{};
    std::array<Transform, NUM_ACTIVE_CHANNELS> transforms{};
    std::array<std::int64_t, NUM_ACTIVE_CHANNELS> bins{};
    std::array<bool, NUM_ACTIVE_CHANNELS> empty{};
    for (int c = 0; c < NUM_ACTIVE_CHANNELS; ++c) {
      if (num_levels[c] < 2) return cudaErrorInvalidValue;
      if (d_temp_storage != nullptr) {
        e = detail::guarded([&] {
          ghist::detail::check_device_range(d_levels[c], static_cast<std::size_t>(num_levels[c]) * sizeof(LevelT),
                                            "d_levels");
          return cudaSuccess;
        });
        if (e != cudaSuccess) return e;
      }
      hist[c] = d_histogram[c];
      transforms[c] = Transform{d_levels[c], num_levels[c]};
      bins[c] = num_levels[c] - 1;
    }
    return detail::run_channels<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples,
                                                                   hist, transforms, bins, empty, g, stream);
  }

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                         ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                         ::cuda::std::array<const LevelT*, NUM_ACTIVE_CHANNELS> d_levels,
                                         OffsetT num_pixels, cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels, num_pixels,
        static_cast<OffsetT>(1), row_bytes<SampleT, NUM_CHANNELS>(num_pixels), stream);
  }

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         CounterT* d_histogram[NUM_ACTIVE_CHANNELS],
                                         const int num_levels[NUM_ACTIVE_CHANNELS],
                                         const LevelT* const d_levels[NUM_ACTIVE_CHANNELS], OffsetT num_row_pixels,
                                         OffsetT num_rows, size_t row_stride_bytes, cudaStream_t stream = 0) {
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, to_array<NUM_ACTIVE_CHANNELS>(d_histogram),
        to_array<NUM_ACTIVE_CHANNELS>(num_levels), to_array<NUM_ACTIVE_CHANNELS>(d_levels), num_row_pixels, num_rows,
        row_stride_bytes, stream);
  }

  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, typename SampleIteratorT, typename CounterT, typename LevelT,
            typename OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         CounterT* d_histogram[NUM_ACTIVE_CHANNELS],
                                         const int num_levels[NUM_ACTIVE_CHANNELS],
                                         const LevelT* const d_levels[NUM_ACTIVE_CHANNELS], OffsetT num_pixels,
                                         cudaStream_t stream = 0) {
    using SampleT = typename std::iterator_traits<SampleIteratorT>::value_type;
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, d_histogram, num_levels, d_levels, num_pixels,
        static_cast<OffsetT>(1), row_bytes<SampleT, NUM_CHANNELS>(num_pixels), stream);
  }

  template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
  static cudaError_t HistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                    CounterT* d_histogram, int num_levels, const LevelT* d_levels, OffsetT num_samples,
                                    cudaStream_t stream = 0) {
    return MultiHistogramRange<1, 1>(d_temp_storage, temp_storage_bytes, d_samples,
                                     ::cuda::std::array<CounterT*, 1>{d_histogram},
                                     ::cuda::std::array<int, 1>{num_levels},
                                     ::cuda::std::array<const LevelT*, 1>{d_levels}, num_samples, stream);
  }

  template <typename SampleIteratorT, typename CounterT, typename LevelT, typename OffsetT>
  static cudaError_t HistogramRange(void* d_temp_storage, size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                    CounterT* d_histogram, int num_levels, const LevelT* d_levels,
                                    OffsetT num_row_samples, OffsetT num_rows, size_t row_stride_bytes,
                                    cudaStream_t stream = 0) {
    return MultiHistogramRange<1, 1>(d_temp_storage, temp_storage_bytes, d_samples,
                                     ::cuda::std::array<CounterT*, 1>{d_histogram},
                                     ::cuda::std::array<int, 1>{num_levels},
                                     ::cuda::std::array<const LevelT*, 1>{d_levels}, num_row_samples, num_rows,
                                     row_stride_bytes, stream);
  }

 private:
  /// Bytes of one row of num_pixels pixels; a negative count gives 0 (the geometry check rejects it).
  template <typename SampleT, int Channels, typename OffsetT>
  static size_t row_bytes(OffsetT num_pixels) {
    return num_pixels < 0 ? 0 : sizeof(SampleT) * Channels * static_cast<size_t>(num_pixels);
  }

  template <int N, typename T>
  static ::cuda::std::array<std::remove_const_t<T>, N> to_array(T* values) {
    ::cuda::std::array<std::remove_const_t<T>, N> a{};
    for (int i = 0; i < N; ++i) a[i] = values[i];
    return a;
  }
};

}  // namespace ghist::cub_compat
