// Interleaved 8-bit channels (RGB, RGBA pixels: byte i of the image belongs to channel i % Channels) counted in one
// pass: 256 raw counts per active channel, then folded into each channel's bins through its own 256-entry table.
// The single-channel kernels (shared_atomics.cuh, pair_counters.cuh, packed8_counters.cuh) have no notion of a
// byte's position; here every byte's channel follows from its offset from the image start, so a 16-byte vector's
// channel phase is (offset of its first byte) % Channels: the same for every vector when Channels divides 16 (2, 4),
// rotating from vector to vector for 3. Bytes of inactive channels are read and skipped.
//
// Per warp, R interleaved copies of a 256 x Active sub-histogram in shared memory (bin k of copy c at k * R + c,
// lane l on copy l % R, as the single-channel shared_atomics kernel: lanes of different copies never share a bank),
// a vector of 16 equal bytes added as one atomic per channel. When Channels divides 16 every vector starts on the
// same channel, so the byte -> channel map is compiled for that phase. H100, 2^26 RGBA pixels (3 channels active),
// uniform, 256 bins: one copy per warp and the phase at run time 177 us, CUB 129 us.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/byte_histogram.hpp"
#include "ghist/config.hpp"
#include "ghist/detail/byte_histogram/common.cuh"
#include "ghist/detail/byte_histogram/row_gaps.cuh"
#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/launch_attributes.hpp"

namespace ghist::detail::bytes {

inline constexpr int max_byte_channels = 4;

/// One launch's share of an interleaved image (the counting half) and the fold (its last block, when finish).
struct channel_job {
  const uint4* vectors = nullptr;  ///< 16-byte aligned
  std::int64_t num_vectors = 0;
  int phase = 0;                   ///< channel of vectors[0]'s first byte
  const std::uint8_t* head = nullptr;  ///< the unaligned head; its first byte is the image's first (channel 0)
  int head_bytes = 0;
  const std::uint8_t* tail = nullptr;
  int tail_bytes = 0;
  int tail_phase = 0;                    ///< channel of tail[0]
  unsigned long long* totals = nullptr;  ///< Active x 256 counts (channel a, value v at a * 256 + v), zeroed
  unsigned* blocks_done = nullptr;       ///< zeroed with the totals
  bool finish = true;
  /// Set (rows without gaps): every block adds its counts straight into the channels' bins through the tables, and
  /// the totals, the ticket and the last block's fold are not used (as byte_job::direct).
  bool direct = false;
  const std::int32_t* tables = nullptr;  ///< Active x 256 bins (device memory), -1 for none
  void* hist[max_byte_channels] = {};    ///< each active channel's counters, cleared before the launch
  int hist_word_bytes = 4;
};

/// Device scratch of the channel counts: Active x 256 totals and the blocks-done counter.
constexpr std::size_t channel_totals_bytes(int active) {
  return std::size_t(active) * byte_values * sizeof(unsigned long long) + 16;
}

/// One block of 12 warps per SM, 8 vectors per thread per tile (48 KiB of loads in flight per SM). Lent H100,
/// 2026-11-28, 2^28 bytes of RGBA pixels, 3 channels into 256 bins, uniform / image-like
/// (bench/experiments/channel_tuning_probe.cu; bench/results/2026-11-28-h100-issue4-close.txt, section 3): 112.5-117.2
/// / 111.0-115.0 us in two runs, where two blocks of 8 warps with 4 vectors took 116.1-122.2 / 113.1-119.2 (CUB
/// 125-128 / 128-131, the read floor 92-94); 1-2.5% in a third, with the blocks adding into the bins. 10 or 14 warps,
/// 6 to 12 vectors and 2 copies per warp were within 1-2%; 16 warps, or 24 to 64 warps in blocks of 8, mostly slower.
struct channel_tuning {
  static constexpr int block = 384;
  static constexpr int unroll = 8;
  static constexpr int min_blocks_per_sm = 1;
  /// Copies per warp: at most 12 KiB per warp (144 KiB per block).
  template <int Active>
  static constexpr int replicas = Active == 1 ? 8 : (Active <= 3 ? 4 : 2);
};

/// The fallback where a block cannot have channel_tuning's shared memory (144 KiB with 3 active channels: more than
/// a Volta or Turing block may opt in to): one histogram per warp, 4 blocks per SM.
struct channel_fallback_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 4;
  template <int Active>
  static constexpr int replicas = 1;
};

/// Dynamic shared memory of count_channels.
template <int Active, class Tuning = channel_tuning>
constexpr std::size_t channel_shared_bytes() {
  return std::size_t(Tuning::block / 32) * Active * byte_values * Tuning::template replicas<Active> * sizeof(unsigned);
}

/// How many bytes of a 16-byte vector whose first byte is channel `phase` belong to channel c: the k in [0, 16)
/// with (phase + k) % Channels == c, i.e. every Channels-th from the first such k.
template <int Channels>
GHIST_HD constexpr unsigned channel_share(int c, int phase) {
  const int first = (c - phase + Channels) % Channels;
  return static_cast<unsigned>((vector_bytes - first + Channels - 1) / Channels);
}

/// The channel of vector i's first byte when vector 0 starts on channel `phase`: (phase + 16 i) % Channels,
/// without a 64-bit product that could overflow (16 % Channels is a constant).
template <int Channels>
GHIST_HD constexpr int vector_phase(int phase, std::int64_t i) {
  return static_cast<int>((phase + static_cast<std::int64_t>(vector_bytes % Channels) * (i % Channels)) % Channels);
}

/// The 16 bytes of v, the first of channel `phase` (Phase when >= 0: known at compile time), into this lane's copy
/// h of its warp's histogram (channel a, value x at h[(a * 256 + x) * R]).
template <int Channels, int Active, int R, int Phase>
__device__ __forceinline__ void add_channel_vector(unsigned* h, uint4 v, int phase) {
  if constexpr (Phase >= 0) phase = Phase;
  const unsigned w[4] = {v.x, v.y, v.z, v.w};
  if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0x0000)) {
#pragma unroll
    for (int c = 0; c < Active; ++c)
      atomicAdd(&h[(c * byte_values + (v.x & 0xffu)) * R], channel_share<Channels>(c, phase));
    return;
  }
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    const int c = (phase + k) % Channels;
    if (c < Active) atomicAdd(&h[(c * byte_values + ((w[k / 4] >> (8 * (k % 4))) & 0xffu)) * R], 1u);
  }
}

/// Adds c counts of channel k / 256's raw value k % 256 to its bin through the tables (none when it has no bin).
__device__ __forceinline__ void add_channel_count(const channel_job& job, int k, unsigned long long c) {
  const int b = job.tables[k];
  if (b < 0) return;
  const int a = k / byte_values;  // a constant index per case, so that job stays in parameter space
  void* dest = a == 0 ? job.hist[0] : a == 1 ? job.hist[1] : a == 2 ? job.hist[2] : job.hist[3];
  add_to_counter(dest, job.hist_word_bytes, b, c);
}

/// The full tiles and the partial one, for vectors whose phase is Phase (>= 0) or computed per vector (-1).
template <int Channels, int Active, class Tuning, int Phase>
__device__ __forceinline__ void count_channel_tiles(const channel_job& job, unsigned* h) {
  constexpr int Block = Tuning::block, Unroll = Tuning::unroll, R = Tuning::template replicas<Active>;
  using tiles = tiling<Block, Unroll>;
  const tiles t(job.num_vectors);
  auto phase_of = [&](std::int64_t i) { return Phase >= 0 ? Phase : vector_phase<Channels>(job.phase, i); };
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t tile) {
    const std::int64_t first = tile * tiles::tile_vectors + threadIdx.x;
#pragma unroll
    for (int j = 0; j < Unroll; ++j)
      add_channel_vector<Channels, Active, R, Phase>(h, v[j], phase_of(first + std::int64_t(j) * Block));
  });
  if (t.has_tail())
    t.for_each_tail_vector(job.vectors, [&](const uint4& v, std::int64_t i) {
      add_channel_vector<Channels, Active, R, Phase>(h, v, phase_of(i));
    });
}

template <int Channels, int Active, class Tuning = channel_tuning>
__global__ void __launch_bounds__(Tuning::block, Tuning::min_blocks_per_sm) count_channels(channel_job job) {
  constexpr int Block = Tuning::block, R = Tuning::template replicas<Active>;
  constexpr int warps = Block / 32;
  constexpr int bins = Active * byte_values;
  static_assert(Active >= 1 && Active <= Channels && Channels <= max_byte_channels, "1 <= Active <= Channels <= 4");
  static_assert(32 % R == 0, "replicas divide the warp");
  extern __shared__ unsigned hist[];  // warps x bins x R: warp w's copies at w * bins * R
  for (int k = threadIdx.x; k < warps * bins * R; k += Block) hist[k] = 0;
  __syncthreads();
  unsigned* h = hist + (threadIdx.x / 32) * bins * R + threadIdx.x % R;
  if (blockIdx.x == 0) {
    if (threadIdx.x < job.head_bytes && static_cast<int>(threadIdx.x) % Channels < Active)
      atomicAdd(&h[((threadIdx.x % Channels) * byte_values + job.head[threadIdx.x]) * R], 1u);
    const int tc = (job.tail_phase + static_cast<int>(threadIdx.x)) % Channels;
    if (threadIdx.x < job.tail_bytes && tc < Active)
      atomicAdd(&h[(tc * byte_values + job.tail[threadIdx.x]) * R], 1u);
  }

  if constexpr (vector_bytes % Channels == 0) {  // one phase for every vector: compile it
    switch (job.phase) {
      case 0: count_channel_tiles<Channels, Active, Tuning, 0>(job, h); break;
      case 1: count_channel_tiles<Channels, Active, Tuning, 1 % Channels>(job, h); break;
      case 2: count_channel_tiles<Channels, Active, Tuning, 2 % Channels>(job, h); break;
      default: count_channel_tiles<Channels, Active, Tuning, 3 % Channels>(job, h); break;
    }
  } else {
    count_channel_tiles<Channels, Active, Tuning, -1>(job, h);
  }
  __syncthreads();

  for (int k = threadIdx.x; k < bins; k += Block) {
    unsigned sum = 0;
    for (int w = 0; w < warps; ++w)
#pragma unroll
      for (int c = 0; c < R; ++c) sum += hist[(w * bins + k) * R + c];
    if (sum == 0) continue;
    if (job.direct) add_channel_count(job, k, sum);
    else atomicAdd(&job.totals[k], static_cast<unsigned long long>(sum));
  }

  // The last block folds the totals into the channels' bins (histograms cleared before the launch).
  if (job.direct || !job.finish) return;
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(job.blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int k = threadIdx.x; k < bins; k += Block) {
    const unsigned long long c = __ldcg(&job.totals[k]);
    if (c != 0) add_channel_count(job, k, c);
  }
}

/// count_channels may use more than the default 48 KiB of dynamic shared memory. Asked before every launch: each
/// translation unit has its own instance of the kernel (see launch.cuh), which allow_dynamic_shared tells apart.
template <int Channels, int Active, class Tuning>
void allow_channel_shared_memory() {
  allow_dynamic_shared(count_channels<Channels, Active, Tuning>, channel_shared_bytes<Active, Tuning>());
}

/// The persistent grid of count_channels on `device` (blocks that fit at once), made once per device.
template <int Channels, int Active, class Tuning>
int channel_grid(int device) {
  static std::atomic<int> cache[max_cached_devices] = {};
  return grid_once_per_device(cache, device, [](int d) {
    int sms = 0, per_sm = 0;
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    allow_channel_shared_memory<Channels, Active, Tuning>();
    GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, count_channels<Channels, Active, Tuning>, Tuning::block, channel_shared_bytes<Active, Tuning>()));
    return std::max(1, sms * per_sm);
  });
}

/// The counting launches of enqueue_channels (for_each_counting_launch): the head and tail go with the first, the
/// fold with the last.
template <int Channels, int Active, class Tuning>
void launch_channel_counting(const channel_job& job, std::int64_t num_vectors, std::int64_t head, int device,
                             cudaStream_t stream) {
  const uint4* vectors = reinterpret_cast<const uint4*>(job.head + head);  // job.head: the span's first byte
  for_each_counting_launch(channel_grid<Channels, Active, Tuning>(device), std::int64_t(Tuning::block) * Tuning::unroll,
                           num_vectors, [&](std::int64_t first, std::int64_t count, int grid) {
                             channel_job part = job;
                             part.vectors = vectors + first;
                             part.num_vectors = count;
                             part.phase = static_cast<int>((head + first * vector_bytes) % Channels);
                             if (first > 0) part.head_bytes = part.tail_bytes = 0;
                             part.finish = first + count == num_vectors;
                             allow_channel_shared_memory<Channels, Active, Tuning>();
                             count_channels<Channels, Active, Tuning>
                                 <<<grid, Tuning::block, channel_shared_bytes<Active, Tuning>(), stream>>>(part);
                             GHIST_CUDA_CHECK(cudaGetLastError());
                           });
}

/// Enqueues the channel histograms of rows of interleaved pixels (row_bytes = pixels x Channels bytes per row,
/// stride_bytes >= row_bytes apart, stride_bytes a multiple of Channels so that every row starts on channel 0):
/// clears the Active histograms (bins[a] counters of hist_word_bytes bytes) and counts the span into them through
/// `tables` (Active x 256 entries in device memory, written earlier on `stream`): each block adds its own counts when
/// the rows have no gaps (`totals` unused), else `totals` (channel_totals_bytes(Active)) is cleared, the gaps between
/// rows are subtracted from it (row_gaps.cuh) and the last block folds it. Asynchronous. Tuning: channel_tuning
/// where a block may have its shared memory, else channel_fallback_tuning (another only for probes of the tuning).
template <int Channels, int Active, class Tuning = channel_tuning>
void enqueue_channels(const std::uint8_t* base, std::int64_t row_bytes, std::int64_t rows, std::int64_t stride_bytes,
                      const std::int32_t* tables, void* const* hist, const std::int64_t* bins, int hist_word_bytes,
                      unsigned long long* totals, cudaStream_t stream) {
  for (int a = 0; a < Active; ++a)
    GHIST_CUDA_CHECK(cudaMemsetAsync(hist[a], 0, static_cast<std::size_t>(bins[a]) * hist_word_bytes, stream));
  const bool has_gaps = rows > 1 && stride_bytes != row_bytes;
  if (has_gaps) GHIST_CUDA_CHECK(cudaMemsetAsync(totals, 0, channel_totals_bytes(Active), stream));
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  if (has_gaps) {
    int sms = 0;
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    constexpr int block = 256;
    const std::int64_t gaps = rows - 1;
    const std::int64_t wanted = (gaps + block / 32 - 1) / (block / 32);
    const int grid = static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, std::int64_t(sms) * gap_blocks_per_sm)));
    subtract_row_gaps<block, Channels, Active><<<grid, block, 0, stream>>>(base + row_bytes, gaps,
                                                                           stride_bytes - row_bytes, stride_bytes,
                                                                           totals);
    GHIST_CUDA_CHECK(cudaGetLastError());
  }
  const std::int64_t n = rows == 0 ? 0 : (rows - 1) * stride_bytes + row_bytes;
  const auto address = reinterpret_cast<std::uintptr_t>(base);
  const std::int64_t head = std::min<std::int64_t>(n, (vector_bytes - address % vector_bytes) % vector_bytes);
  const std::int64_t num_vectors = (n - head) / vector_bytes;
  channel_job job;
  job.head = base;
  job.head_bytes = static_cast<int>(head);
  job.tail = base + head + num_vectors * vector_bytes;
  job.tail_bytes = static_cast<int>(n - head - num_vectors * vector_bytes);
  job.tail_phase = static_cast<int>((head + num_vectors * vector_bytes) % Channels);
  job.direct = !has_gaps;
  job.totals = totals;
  job.blocks_done = reinterpret_cast<unsigned*>(totals + std::size_t(Active) * byte_values);
  job.tables = tables;
  for (int a = 0; a < Active; ++a) job.hist[a] = hist[a];
  job.hist_word_bytes = hist_word_bytes;

  int optin = 0;
  GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  // The tuning's copies where a block may have them (16 bytes left for the static last-block flag).
  if (channel_shared_bytes<Active, Tuning>() + 16 <= static_cast<std::size_t>(optin))
    launch_channel_counting<Channels, Active, Tuning>(job, num_vectors, head, device, stream);
  else
    launch_channel_counting<Channels, Active, channel_fallback_tuning>(job, num_vectors, head, device, stream);
}

}  // namespace ghist::detail::bytes
