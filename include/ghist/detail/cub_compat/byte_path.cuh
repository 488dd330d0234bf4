// 8-bit samples in the CUB-compatible API on the byte kernels (ghist/byte_histogram.hpp): count the 256 raw byte
// values, then fold them into the caller's bins through a 256-entry table, raw byte -> bin or -1. The table is the
// CUB-compatible bin arithmetic itself applied to each of the 256 values, so any level type (int, float, double,
// fractional levels) keeps exactly the bins of the engine path and of CUB:
//   Even   the table is made on the host with even_transform (every argument is on the host already);
//   Range  the levels are in device memory, so a one-block kernel applies range_transform to the 256 values and
//          writes the table into the temporary storage, stream-ordered before the counting kernel (no host sync,
//          nothing copied back; capturable in a CUDA graph).
//
// Which calls take it (decided from the arguments the size query sees too, so the query asks for enough): a pointer
// to uint8_t or int8_t samples (not an arbitrary iterator), one channel, and rows that are contiguous, or pitched
// with gaps no wider than the rows. Pitched rows are counted as one span from the first row's start to the last
// row's end, after a small kernel has subtracted the gaps' bytes (detail/byte_histogram/row_gaps.cuh), so that
// the cost does not grow with the number of rows (a launch per row would dominate for images of short rows);
// reading the gaps is wasted work, bounded to the rows' own size by the width rule. Wider gaps (a narrow crop of
// a wide image) and rows that overlap (stride < row) go to the engine.
// Interleaved channels (MultiHistogram*, 2 to 4 channels, e.g. RGBA with 3 active) take the channel kernel
// (detail/byte_histogram/channels.cuh): one pass counting 256 raw values per active channel, then each channel
// folded through its own table, made on the device for Even and Range alike (Active tables of 1 KiB would not fit
// a kernel's parameters); pitched rows need a stride that is a multiple of the channel count (every row then starts
// on channel 0), besides the width rule. More than 4 channels go to the engine.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "ghist/byte_histogram.hpp"
#include "ghist/detail/byte_histogram/channels.cuh"
#include "ghist/detail/byte_histogram/launch.cuh"

namespace ghist::cub_compat::detail {

/// uint8_t or int8_t (signed char, unsigned char): the byte kernels' samples. Plain char is left to the engine.
template <class SampleT>
inline constexpr bool is_byte_sample_v = std::is_same_v<std::remove_cv_t<SampleT>, std::uint8_t> ||
                                         std::is_same_v<std::remove_cv_t<SampleT>, std::int8_t>;

/// Temporary storage of the byte path: the 256 totals and the blocks-done counter, then (at a 256-byte aligned
/// offset, for Range) the device table.
inline constexpr std::size_t byte_table_offset =
    (ghist::byte_histogram_workspace_bytes() + 255) / 256 * 256;
inline constexpr std::size_t byte_path_temp_bytes =
    byte_table_offset + ghist::detail::bytes::byte_values * sizeof(std::int32_t);

/// Whether a call with these rows takes the byte path (the rows rule above): row_bytes per row, rows rows,
/// stride_bytes between row starts.
inline bool byte_rows_supported(std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes) {
  if (rows <= 1 || stride_bytes == row_bytes) return true;
  return stride_bytes > row_bytes && stride_bytes - row_bytes <= row_bytes;
}

/// The sample a raw byte value stands for.
template <class SampleT>
GHIST_HD inline SampleT byte_sample(unsigned raw) {
  if constexpr (std::is_signed_v<SampleT>) return static_cast<SampleT>(static_cast<std::int8_t>(raw & 0xffu));
  else return static_cast<SampleT>(raw & 0xffu);
}

/// Maps a transform's bin (or no_bin) to a table entry.
GHIST_HD inline std::int32_t table_entry(std::int64_t bin) { return bin < 0 ? -1 : static_cast<std::int32_t>(bin); }

/// The table of a transform callable on the host (Even).
template <class SampleT, class Transform>
void fill_byte_table(const Transform& to_bin, ghist::detail::bytes::byte_bin_map& map) {
  for (unsigned raw = 0; raw < ghist::detail::bytes::byte_values; ++raw)
    map.bin[raw] = table_entry(to_bin(byte_sample<SampleT>(raw)));
}

/// The table of a transform that reads device memory (Range): thread v writes entry v.
template <class SampleT, class Transform>
__global__ void __launch_bounds__(ghist::detail::bytes::byte_values) byte_table_kernel(Transform to_bin,
                                                                                      std::int32_t* table) {
  const unsigned raw = threadIdx.x;
  table[raw] = table_entry(to_bin(byte_sample<SampleT>(raw)));
}

/// Enqueues the byte path for one channel: hist (Word = 4- or 8-byte counters) gets bins bins, overwritten.
/// DeviceTable: build the table on the device from `to_bin` (Range); otherwise on the host (Even). `temp` holds
/// byte_path_temp_bytes. Throws ghist::error on a failed CUDA call (the caller turns it into its cudaError_t).
template <bool DeviceTable, class SampleT, class Word, class Transform>
void run_byte_path(const SampleT* samples, std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes,
                   const Transform& to_bin, Word* hist, std::int64_t bins, void* temp, cudaStream_t stream) {
  static_assert(is_byte_sample_v<SampleT>, "byte path: uint8 or int8 samples");
  namespace bytes = ghist::detail::bytes;
  bytes::byte_job job;
  job.hist = hist;
  job.hist_word_bytes = static_cast<int>(sizeof(Word));
  job.num_bins = static_cast<int>(bins);  // CUB's num_levels is an int, so bins < 2^31
  job.accumulate = false;
  auto* totals = static_cast<unsigned long long*>(temp);
  if constexpr (DeviceTable) {
    auto* table = reinterpret_cast<std::int32_t*>(static_cast<unsigned char*>(temp) + byte_table_offset);
    byte_table_kernel<SampleT><<<1, bytes::byte_values, 0, stream>>>(to_bin, table);
    GHIST_CUDA_CHECK(cudaGetLastError());
    job.device_map = table;
  } else {
    fill_byte_table<SampleT>(to_bin, job.map);
  }
  const bytes::byte_rows in{reinterpret_cast<const std::uint8_t*>(samples), row_bytes, rows, stride_bytes};
  bytes::enqueue_mapped(in, job, totals, stream, ghist::byte_method::automatic);
}

/// Whether interleaved rows (row_bytes = pixels x Channels) take the channel kernel: the rows rule, and every row
/// starting on channel 0.
template <int Channels>
bool channel_rows_supported(std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes) {
  return byte_rows_supported(row_bytes, rows, stride_bytes) && (rows <= 1 || stride_bytes % Channels == 0);
}

/// Temporary storage of the channel path: its totals, then (256-byte aligned) the Active tables.
constexpr std::size_t channel_tables_offset(int active) {
  return (ghist::detail::bytes::channel_totals_bytes(active) + 255) / 256 * 256;
}
constexpr std::size_t channel_path_temp_bytes(int active) {
  return channel_tables_offset(active) + std::size_t(active) * ghist::detail::bytes::byte_values * sizeof(std::int32_t);
}

/// The transforms of the active channels as one kernel parameter.
template <class Transform, int Active>
struct channel_transforms {
  Transform to_bin[Active];
};

/// Block a writes channel a's table: thread v, entry v.
template <class SampleT, class Transform, int Active>
__global__ void __launch_bounds__(ghist::detail::bytes::byte_values)
    channel_tables_kernel(channel_transforms<Transform, Active> t, std::int32_t* tables) {
  const unsigned raw = threadIdx.x;
  tables[blockIdx.x * ghist::detail::bytes::byte_values + raw] =
      table_entry(t.to_bin[blockIdx.x](byte_sample<SampleT>(raw)));
}

/// Enqueues the channel path: the Active histograms hist[a] (bins[a] counters, overwritten) of rows of interleaved
/// pixels. `temp` holds channel_path_temp_bytes(Active). Throws ghist::error on a failed CUDA call.
template <int Channels, int Active, class SampleT, class Word, class Transform>
void run_channel_byte_path(const SampleT* samples, std::int64_t row_bytes, std::int64_t rows,
                           std::int64_t stride_bytes, const std::array<Transform, Active>& to_bin,
                           const std::array<Word*, Active>& hist, const std::array<std::int64_t, Active>& bins,
                           void* temp, cudaStream_t stream) {
  static_assert(is_byte_sample_v<SampleT>, "byte path: uint8 or int8 samples");
  namespace bytes = ghist::detail::bytes;
  channel_transforms<Transform, Active> t;
  void* dests[Active];
  for (int a = 0; a < Active; ++a) {
    t.to_bin[a] = to_bin[a];
    dests[a] = hist[a];
  }
  auto* tables = reinterpret_cast<std::int32_t*>(static_cast<unsigned char*>(temp) + channel_tables_offset(Active));
  channel_tables_kernel<SampleT, Transform, Active><<<Active, bytes::byte_values, 0, stream>>>(t, tables);
  GHIST_CUDA_CHECK(cudaGetLastError());
  bytes::enqueue_channels<Channels, Active>(reinterpret_cast<const std::uint8_t*>(samples), row_bytes, rows,
                                            stride_bytes, tables, dests, bins.data(), static_cast<int>(sizeof(Word)),
                                            static_cast<unsigned long long*>(temp), stream);
}

}  // namespace ghist::cub_compat::detail
