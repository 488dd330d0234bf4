// Definitions of ghist::byte_histogram_even_async (ghist/byte_histogram.hpp): argument checks, the split of the
// input into an unaligned head, 16-byte vectors and a tail, persistent grids sized to the device, and how the 256
// raw counts reach the caller's bins (each block's straight through the table, or for rows with gaps the call's
// totals folded by the last block).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "ghist/byte_histogram.hpp"
#include "ghist/detail/byte_histogram/common.cuh"
#include "ghist/detail/byte_histogram/packed8_counters.cuh"
#include "ghist/detail/byte_histogram/pair_counters.cuh"
#include "ghist/detail/byte_histogram/row_gaps.cuh"
#include "ghist/detail/byte_histogram/shared_atomics.cuh"
#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/launch_attributes.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/error.hpp"

namespace ghist::detail::bytes {

/// Static shared memory of the kernels besides their dynamic part (finish_if_last's flag), rounded up.
inline constexpr std::size_t fixed_shared_bytes = 64;
/// The kernel a tuning belongs to, by the tuning it derives from.
enum class byte_kernel { pair_counters, packed8, shared_atomics };
template <class Tuning>
constexpr byte_kernel kernel_of() {
  if constexpr (std::is_base_of_v<pair_counters_tuning, Tuning>) return byte_kernel::pair_counters;
  else if constexpr (std::is_base_of_v<packed8_tuning, Tuning>) return byte_kernel::packed8;
  else return byte_kernel::shared_atomics;
}

/// A counting kernel and its launch set-up on each device: the opt-in to more than 48 KiB of shared memory and the
/// persistent grid (blocks that fit on the device at once), made once per device (grid_once_per_device). grid()
/// returns 0 when a block does not fit on this device at all.
template <class Tuning>
struct counting_kernel {
  static constexpr int block = Tuning::block;
  static constexpr std::int64_t tile_vectors = std::int64_t(Tuning::block) * Tuning::unroll;
  static constexpr std::size_t shared_bytes() {
    if constexpr (kernel_of<Tuning>() == byte_kernel::pair_counters) return pair_counters_shared_bytes<Tuning>();
    else if constexpr (kernel_of<Tuning>() == byte_kernel::packed8) return packed8_shared_bytes<Tuning>();
    else return shared_atomics_shared_bytes<Tuning>();
  }
  static constexpr auto kernel() {
    if constexpr (kernel_of<Tuning>() == byte_kernel::pair_counters) return count_bytes_pair_counters<Tuning>;
    else if constexpr (kernel_of<Tuning>() == byte_kernel::packed8) return count_bytes_packed8<Tuning>;
    else return count_bytes_shared_atomics<Tuning>;
  }
  static void launch(int grid, const byte_job& job, cudaStream_t stream) {
    // The opt-in is not cached with the grid: each translation unit that instantiates this kernel template gets a
    // kernel of its own (no relocatable device code), while the host-side cache below is one per program, so an
    // opt-in cached there would reach only the first unit's kernel (the others then fail to launch).
    // allow_dynamic_shared keys its cache by the kernel's own address.
    if (shared_bytes() > 48 * 1024) allow_dynamic_shared(kernel(), shared_bytes());
    kernel()<<<grid, block, shared_bytes(), stream>>>(job);
  }

  static int grid(int device) {
    static std::atomic<int> cache[max_cached_devices] = {};
    return grid_once_per_device(cache, device, set_up);
  }

 private:
  static int set_up(int device) {
    int optin = 0, sms = 0, per_sm = 0;
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (shared_bytes() + fixed_shared_bytes > static_cast<std::size_t>(optin)) return 0;
    if (shared_bytes() > 48 * 1024) allow_dynamic_shared(kernel(), shared_bytes());
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel(), block, shared_bytes()));
    return per_sm > 0 ? sms * per_sm : 0;
  }
};

/// Enqueues job's vectors (and its head and tail) in launches of for_each_counting_launch: launch(grid, part) with
/// part the job's share of each.
template <class Launch>
void launch_job_parts(int max_grid, std::int64_t tile_vectors, const byte_job& job, Launch&& launch) {
  for_each_counting_launch(max_grid, tile_vectors, job.num_vectors, [&](std::int64_t first, std::int64_t count,
                                                                        int grid) {
    byte_job part = job;
    part.vectors = job.vectors + first;
    part.num_vectors = count;
    if (first > 0) part.head_bytes = part.tail_bytes = 0;
    part.finish = job.finish && first + count == job.num_vectors;
    launch(grid, part);
    GHIST_CUDA_CHECK(cudaGetLastError());
  });
}

/// Enqueues counting kernel K over job (launch_job_parts).
template <class K>
void launch_counting(int max_grid, const byte_job& job, cudaStream_t stream) {
  launch_job_parts(max_grid, K::tile_vectors, job,
                   [&](int grid, const byte_job& part) { K::launch(grid, part, stream); });
}

/// Enqueues the counting kernel of `method` over the bytes [p, p + n); `job` holds the totals (already zeroed)
/// and what the last block needs to fold them into the caller's bins. The tunings are parameters so that the
/// benchmark can compare others with the library's defaults. A tuning whose block does not fit the device (the
/// pair counters need 193 KiB of shared memory, the benchmark's atomics copy per lane 224 KiB) falls back to a
/// smaller kernel of the same method: the 8-bit packed counters (65 KiB) or the default atomics (16 KiB).
template <class PackedTuning, class AtomicsTuning>
void count_bytes_async(const std::uint8_t* p, std::int64_t n, byte_method method, byte_job job, cudaStream_t stream) {
  split_into_vectors(p, n, job);
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  const bool packed = method == byte_method::packed_counters;
  if (packed) {
    using K = counting_kernel<PackedTuning>;
    if (const int grid = K::grid(device); grid > 0) return launch_counting<K>(grid, job, stream);
  } else {
    using K = counting_kernel<AtomicsTuning>;
    if (const int grid = K::grid(device); grid > 0) return launch_counting<K>(grid, job, stream);
  }
  if (packed) {
    using fallback = counting_kernel<packed8_tuning>;
    const int grid = fallback::grid(device);
    if (grid == 0) throw error("byte_histogram: the packed-counters kernel does not fit this device's shared memory");
    return launch_counting<fallback>(grid, job, stream);
  }
  using fallback = counting_kernel<shared_atomics_tuning>;
  const int grid = fallback::grid(device);
  if (grid == 0) throw error("byte_histogram: the shared-atomics kernel does not fit this device's shared memory");
  launch_counting<fallback>(grid, job, stream);
}

/// Rows of bytes: `rows` rows of row_bytes bytes, stride_bytes (>= row_bytes) apart; one row for an array.
struct byte_rows {
  const std::uint8_t* base = nullptr;
  std::int64_t row_bytes = 0;
  std::int64_t rows = 0;
  std::int64_t stride_bytes = 0;
  /// From the first row's start to the last row's end.
  std::int64_t span() const { return rows == 0 ? 0 : (rows - 1) * stride_bytes + row_bytes; }
  bool has_gaps() const { return rows > 1 && stride_bytes != row_bytes; }
};

/// Above this many bins the caller's histogram is cleared by a memset before counting rather than by the last
/// block (one block clearing millions of bins would serialise the end of the call).
inline constexpr int fold_clear_limit = 4096;

/// Enqueues a byte histogram whose arguments have been checked. `job` carries hist, hist_word_bytes, num_bins,
/// accumulate and the table (job.map, or job.device_map); the rest is set here. Asynchronous on `stream`.
///
/// Rows without gaps (one run of bytes): the caller's bins are cleared unless the call accumulates, and every block
/// adds its counts straight into them through the table (byte_job::direct); `totals` is not used and may be null.
/// Rows with gaps between them: the totals (byte_histogram_workspace_bytes() at `totals`) are zeroed, the gaps are
/// subtracted from them (row_gaps.cuh), the span is counted into them as one run of bytes, and the last block folds
/// them into the bins, so the cost is one launch more, not one launch per row.
template <class PackedTuning = pair_counters_tuning, class AtomicsTuning = shared_atomics_tuning>
void enqueue_mapped(const byte_rows& in, byte_job job, unsigned long long* totals, cudaStream_t stream,
                    byte_method method) {
  const std::size_t hist_bytes = static_cast<std::size_t>(job.num_bins) * static_cast<std::size_t>(job.hist_word_bytes);
  job.direct = !in.has_gaps();
  if (job.direct) {
    if (!job.accumulate) GHIST_CUDA_CHECK(cudaMemsetAsync(job.hist, 0, hist_bytes, stream));
    return count_bytes_async<PackedTuning, AtomicsTuning>(in.base, in.span(), resolve_byte_method(method, in.span()),
                                                          job, stream);
  }
  if (!job.accumulate && job.num_bins > fold_clear_limit) {
    GHIST_CUDA_CHECK(cudaMemsetAsync(job.hist, 0, hist_bytes, stream));
    job.accumulate = true;
  }
  GHIST_CUDA_CHECK(cudaMemsetAsync(totals, 0, byte_histogram_workspace_bytes(), stream));
  job.totals = totals;
  job.blocks_done = reinterpret_cast<unsigned*>(totals + byte_values);
  if (in.has_gaps()) {
    int device = 0, sms = 0;
    GHIST_CUDA_CHECK(cudaGetDevice(&device));
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    constexpr int block = 256;
    const std::int64_t gaps = in.rows - 1;
    const std::int64_t wanted = (gaps + block / 32 - 1) / (block / 32);
    const int grid = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, std::int64_t(sms) * gap_blocks_per_sm)));
    subtract_row_gaps<block><<<grid, block, 0, stream>>>(in.base + in.row_bytes, gaps,
                                                         in.stride_bytes - in.row_bytes, in.stride_bytes, totals);
    GHIST_CUDA_CHECK(cudaGetLastError());
  }
  count_bytes_async<PackedTuning, AtomicsTuning>(in.base, in.span(), resolve_byte_method(method, in.span()), job,
                                                 stream);
}

template <class Count, class PackedTuning = pair_counters_tuning, class AtomicsTuning = shared_atomics_tuning>
void byte_histogram(const std::uint8_t* samples, bool signed_samples, std::int64_t n, Count* hist, int num_bins,
                    int lower, int upper, cudaStream_t stream, const options& opts, byte_method method) {
  static_assert(std::is_integral_v<Count> && (sizeof(Count) == 4 || sizeof(Count) == 8),
                "Count must be a 32- or 64-bit integer");
  // Every check before anything is enqueued.
  const std::array<std::int16_t, byte_values> table = byte_bin_table(signed_samples, num_bins, lower, upper);
  check_non_negative(n, "n");
  if (method != byte_method::automatic && method != byte_method::packed_counters &&
      method != byte_method::shared_atomics)
    throw error("method must be automatic, packed_counters or shared_atomics, got " +
                std::to_string(static_cast<int>(method)));
  if (opts.how != mode::overwrite && opts.how != mode::accumulate)
    throw error("options.how must be overwrite or accumulate, got " + std::to_string(static_cast<int>(opts.how)));
  check_device_range(samples, static_cast<std::size_t>(n), "samples");
  check_device_range(hist, static_cast<std::size_t>(num_bins) * sizeof(Count), "hist");
  if (opts.scratch.data == nullptr && opts.scratch.bytes > 0)
    throw error("options.scratch.data is null but options.scratch.bytes = " + std::to_string(opts.scratch.bytes));
  if (opts.scratch.data != nullptr) {
    if (opts.scratch.bytes < byte_histogram_workspace_bytes())
      throw error("options.scratch is too small: a byte histogram needs " +
                  std::to_string(byte_histogram_workspace_bytes()) + " bytes, the workspace has " +
                  std::to_string(opts.scratch.bytes));
    check_device_range(opts.scratch.data, opts.scratch.bytes, "options.scratch");
  }
  const bool accumulate = opts.how == mode::accumulate;
  if (n == 0) {
    if (!accumulate)
      GHIST_CUDA_CHECK(cudaMemsetAsync(hist, 0, static_cast<std::size_t>(num_bins) * sizeof(Count), stream));
    return;
  }

  byte_job job;
  job.hist = hist;
  job.hist_word_bytes = static_cast<int>(sizeof(Count));
  job.num_bins = num_bins;
  job.accumulate = accumulate;
  std::copy(table.begin(), table.end(), job.map.bin);
  // One run of bytes: the blocks add into the bins themselves, without the workspace (enqueue_mapped).
  enqueue_mapped<PackedTuning, AtomicsTuning>(byte_rows{samples, n, 1, n}, job, nullptr, stream, method);
}

}  // namespace ghist::detail::bytes

namespace ghist {

template <class Count>
void byte_histogram_even_async(const std::uint8_t* samples, std::int64_t n, Count* hist, int num_bins, int lower,
                               int upper, cudaStream_t stream, const options& opts, byte_method method) {
  detail::bytes::byte_histogram(samples, false, n, hist, num_bins, lower, upper, stream, opts, method);
}

template <class Count>
void byte_histogram_even_async(const std::int8_t* samples, std::int64_t n, Count* hist, int num_bins, int lower,
                               int upper, cudaStream_t stream, const options& opts, byte_method method) {
  detail::bytes::byte_histogram(reinterpret_cast<const std::uint8_t*>(samples), true, n, hist, num_bins, lower,
                                upper, stream, opts, method);
}

}  // namespace ghist
