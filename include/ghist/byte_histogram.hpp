// Byte histograms at the read-bandwidth limit: uint8 or int8 samples into at most 256 even bins, callable from any
// C++17 compiler (no nvcc needed); compiled in src/instantiate_byte_histogram.cu.
//
// Both GPU methods count the 256 raw byte values of the input (so their speed does not depend on num_bins or the
// range), and every block adds its 256 counts into the caller's bins through byte_bin_table below. Counts are
// integers added in any order, so results are exact and deterministic.
//   packed_counters  per-lane counters in shared memory, so that the speed does not depend on the data: each lane
//                    counts in its own column, two values per 32-bit word, half of its bytes with plain loads and
//                    stores and half with atomics on its own words, and flushes the column every 32 KB. 0.95-0.96
//                    of the read floor at 1 GiB on the lent H100 for uniform, all-zero, linear and image-like bytes
//                    (bench/results/2026-11-28-h100-bytes-pair-atomics.txt); seed 001's 8-bit counters, 4 per word,
//                    which the block flushes every 240 bytes, reach 0.59 there and remain as a fallback for GPUs
//                    with less shared memory per block. Each block clears 193 KiB of counters first and sums them
//                    at the end, so below ~256 MiB the fixed costs show (16 MiB: 0.43-0.46, 256 MiB 0.87-0.91).
//   shared_atomics   one sub-histogram per warp in shared memory updated with atomics, its slots swizzled against
//                    bank conflicts; runs of equal bytes (a 4-byte word, a 16-byte vector or a whole warp's
//                    vectors of one value) become one atomic. 0.96-0.99 of the read floor for all-zero, linear and
//                    smooth image-like bytes at 1 GiB, 0.75 for uniformly random bytes.
//   automatic        packed_counters from 256 MiB on, shared_atomics below: the rule and its measurements are at
//                    resolve_byte_method.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "ghist/binning.hpp"
#include "ghist/error.hpp"
#include "ghist/options.hpp"

namespace ghist {

enum class byte_method { automatic, packed_counters, shared_atomics };

inline const char* to_string(byte_method m) {
  switch (m) {
    case byte_method::automatic: return "automatic";
    case byte_method::packed_counters: return "packed_counters";
    case byte_method::shared_atomics: return "shared_atomics";
  }
  return "?";
}

/// hist[b] = number of samples in the b-th of num_bins even bins over [lower, upper) (half-open, as even_bins and
/// CUB's HistogramEven; samples outside are dropped). num_bins in [1, 256]; lower < upper, any int values (e.g.
/// [0, 256) for one bin per byte value). Any n >= 0 and any alignment of `samples`. options.how selects overwrite
/// or accumulate. The call needs no device scratch; options.scratch, when given, is still checked (it must hold
/// byte_histogram_workspace_bytes()) so that code written for earlier versions keeps its errors. Asynchronous on
/// `stream`. Throws ghist::error naming the argument (before anything is enqueued) for bad arguments or host
/// memory where device memory is expected. Count: int32_t, uint32_t, int64_t, uint64_t (counts wrap as unsigned
/// integers of Count's width).
template <class Count>
void byte_histogram_even_async(const std::uint8_t* samples, std::int64_t n, Count* hist, int num_bins, int lower,
                               int upper, cudaStream_t stream = 0, const options& opts = {},
                               byte_method method = byte_method::automatic);

/// The same for int8 samples (bins over their signed values, e.g. [-128, 128)).
template <class Count>
void byte_histogram_even_async(const std::int8_t* samples, std::int64_t n, Count* hist, int num_bins, int lower,
                               int upper, cudaStream_t stream = 0, const options& opts = {},
                               byte_method method = byte_method::automatic);

/// Device scratch of a byte count that sums its blocks in 64-bit totals (the CUB-compatible API's pitched rows; the
/// native call above needs none): the 256 raw counts and a counter of finished blocks.
inline constexpr std::size_t byte_histogram_workspace_bytes() { return 256 * sizeof(unsigned long long) + 16; }

/// The bin of each raw byte value (index: the byte as unsigned; for int8 samples the byte of the signed value), or
/// -1 when that value falls in no bin. Checks the arguments: throws ghist::error naming num_bins, or the range.
inline std::array<std::int16_t, 256> byte_bin_table(bool signed_samples, int num_bins, int lower, int upper) {
  if (num_bins < 1 || num_bins > 256)
    throw error("num_bins must be in [1, 256] for byte histograms, got " + std::to_string(num_bins));
  // int bins give the same mapping as even_bins<uint8_t / int8_t> wherever those can express the range, and also
  // the ranges they cannot (upper = 256 for one bin per uint8 value).
  const even_bins<int> bins = make_even_bins<int>(lower, upper, num_bins);
  std::array<std::int16_t, 256> table{};
  for (int raw = 0; raw < 256; ++raw) {
    const int value = signed_samples ? static_cast<int>(static_cast<std::int8_t>(static_cast<std::uint8_t>(raw))) : raw;
    table[static_cast<std::size_t>(raw)] = static_cast<std::int16_t>(bins(value));
  }
  return table;
}

/// Inputs from this size on take packed_counters under `automatic` (see resolve_byte_method).
inline constexpr std::int64_t packed_counters_min_bytes = std::int64_t(256) << 20;

/// What `automatic` runs for n bytes; other methods are returned unchanged. A call cannot tell uniformly random
/// bytes from the others without reading them, so it judges a method by its slowest data set. Lent H100,
/// 2026-11-28, fraction of the read floor, 256 bins, for uniform / zero / linear / image bytes, and each method's
/// worst ratio to CUB over the four (bench/results/2026-11-28-h100-bytes-pair-atomics.txt; 32, 128 and 256 MiB:
/// 2026-11-28-h100-issue4-close.txt):
///   1 GiB    packed 0.96 / 0.96 / 0.96 / 0.96 (1.07x)   atomics 0.75 / 0.99 / 0.97 / 0.97 (1.08x)
///   256 MiB  packed 0.87 / 0.91 / 0.87 / 0.87 (1.01x)   atomics 0.73 / 0.95 / 0.92 / 0.91 (1.06x)
///   128 MiB  packed 0.79 / 0.82 / 0.78 / 0.80 (0.97x)   atomics 0.70 / 0.92 / 0.84 / 0.86 (1.04x)
///   64 MiB   packed 0.69 / 0.71 / 0.69 / 0.70 (0.95x)   atomics 0.66 / 0.82 / 0.77 / 0.79 (1.06x)
///   32 MiB   packed 0.47 / 0.52 / 0.44 / 0.48 (0.78x)   atomics 0.44 / 0.68 / 0.52 / 0.57 (0.93x)
///   16 MiB   packed 0.43 / 0.46 / 0.41 / 0.43 (0.78x)   atomics 0.46 / 0.62 / 0.48 / 0.48 (0.88x)
///   4 MiB    packed 0.42 / 0.46 / 0.43 / 0.40 (0.79x)   atomics 0.51 / 0.66 / 0.53 / 0.49 (0.98x)
/// packed_counters has the faster slowest data set from 64 MiB on, but CUB is fast on low-entropy bytes: at 64 and
/// 128 MiB packed_counters fell behind it on image bytes, while shared_atomics stayed ahead on all four. The rule:
/// of the methods that were ahead of CUB on every data set at that size, the one whose slowest is fastest; where
/// neither was (32 MiB and less), the one whose slowest is fastest. Sizes between 128 and 256 MiB were not measured.
inline byte_method resolve_byte_method(byte_method requested, std::int64_t n) {
  if (requested != byte_method::automatic) return requested;
  return n >= packed_counters_min_bytes ? byte_method::packed_counters : byte_method::shared_atomics;
}

}  // namespace ghist
