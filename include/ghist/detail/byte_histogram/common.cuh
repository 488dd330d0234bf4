// What the byte-counting kernels share: the job they run (aligned 16-byte vectors plus an unaligned head and tail),
// how the vectors are cut into tiles for persistent blocks, and the last step (finish_block): every block adds its
// 256 counts straight into the caller's bins through the table, or, where the call must subtract row gaps first, to
// the call's 64-bit totals, which the block that finishes last folds into the bins (no separate kernel either way,
// so a call is one memset and one launch).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include <cuda_runtime.h>

namespace ghist::detail::bytes {

inline constexpr int byte_values = 256;
inline constexpr int vector_bytes = 16;

/// Bin of each raw byte value, or -1; passed by value as a kernel parameter (1 KiB). 32-bit entries: the
/// CUB-compatible API maps bytes into up to 2^31 - 1 bins.
struct byte_bin_map {
  std::int32_t bin[byte_values];
};

/// One launch's share of the input. The kernels count raw byte values; binning happens in finish_block.
struct byte_job {
  const uint4* vectors = nullptr;  ///< 16-byte aligned
  std::int64_t num_vectors = 0;
  const std::uint8_t* head = nullptr;  ///< bytes counted one by one (the unaligned head and tail of the input)
  int head_bytes = 0;
  const std::uint8_t* tail = nullptr;
  int tail_bytes = 0;
  unsigned long long* totals = nullptr;  ///< 256 counts, added to with atomics (zeroed before the first launch)
  // The fold into the caller's bins, by the last block of the job's last launch (launch_counting clears it on the
  // others); a job with finish cleared leaves its counts in the totals, unfolded.
  bool finish = true;
  unsigned* blocks_done = nullptr;  ///< zeroed with the totals
  /// Set: every block adds its counts straight into the caller's bins through the table (finish_block), which the
  /// host cleared first unless the call accumulates; the totals, the blocks-done counter and the fold are not used.
  bool direct = false;
  void* hist = nullptr;             ///< num_bins unsigned words of hist_word_bytes (4 or 8) bytes
  int hist_word_bytes = 4;
  int num_bins = 0;
  bool accumulate = false;
  byte_bin_map map;
  /// When set, the table is read from here (device memory, 256 entries, written by an earlier kernel of the same
  /// stream: the CUB-compatible Range path builds it from the caller's device levels) instead of from `map`.
  const std::int32_t* device_map = nullptr;
};

/// A block counts in 32-bit words; one launch gives each block at most this many bytes so that they cannot
/// overflow (the host splits larger inputs over several launches, which only happens beyond ~280 GB on an H100).
inline constexpr std::int64_t max_block_bytes = std::int64_t(1) << 31;

/// Cuts `bytes` bytes at p into job's unaligned head, 16-byte vectors and tail. Samples wider than a byte stay whole:
/// p is aligned to the sample size and bytes is a multiple of it, so the head and tail are whole samples too.
inline void split_into_vectors(const std::uint8_t* p, std::int64_t bytes, byte_job& job) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const std::int64_t head = std::min<std::int64_t>(bytes, (vector_bytes - address % vector_bytes) % vector_bytes);
  job.num_vectors = (bytes - head) / vector_bytes;
  job.vectors = reinterpret_cast<const uint4*>(p + head);
  job.head = p;
  job.head_bytes = static_cast<int>(head);
  job.tail = p + head + job.num_vectors * vector_bytes;
  job.tail_bytes = static_cast<int>(bytes - head - job.num_vectors * vector_bytes);
}

/// A job's vectors cut into launches of at most max_grid x max_block_bytes bytes, so that no block's 32-bit counts
/// can overflow (more than one launch only beyond ~280 GB on an H100): launch(first, count, grid) for each, first
/// and count in vectors, grid the blocks it needs (at most max_grid). The head and tail belong with the first launch
/// (first == 0), the fold into the caller's bins with the last (first + count == num_vectors). At least one launch,
/// even without vectors: the head, the tail and the fold still need it.
template <class Launch>
void for_each_counting_launch(int max_grid, std::int64_t tile_vectors, std::int64_t num_vectors, Launch&& launch) {
  const std::int64_t launch_vectors = std::int64_t(max_grid) * (max_block_bytes / vector_bytes);
  std::int64_t done = 0;
  do {
    const std::int64_t count = std::min(launch_vectors, num_vectors - done);
    const std::int64_t tiles = (count + tile_vectors - 1) / tile_vectors;
    launch(done, count, static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(max_grid, tiles))));
    done += count;
  } while (done < num_vectors);
}

/// Devices whose launch set-up is cached (others are set up on every call).
inline constexpr int max_cached_devices = 64;

/// make(device), a kernel's persistent grid on `device` (> 0, or 0 when a block does not fit), made once per device
/// and cached: every microsecond the host spends between a call's first and last enqueue can leave the GPU idle (a
/// 1 GiB call takes only ~350 us). One cache per kernel instantiation.
template <class Make>
int grid_once_per_device(std::atomic<int> (&cache)[max_cached_devices], int device, Make&& make) {
  const bool cached = device >= 0 && device < max_cached_devices;
  if (cached)
    if (const int g = cache[device].load(std::memory_order_relaxed); g != 0) return g < 0 ? 0 : g;  // -1: no fit
  const int g = make(device);
  if (cached) cache[device].store(g == 0 ? -1 : g, std::memory_order_relaxed);
  return g;
}

/// Tiles of Block * Unroll vectors go round-robin to the blocks, in whole rounds (every block takes as many); in a
/// tile, thread t reads vectors t, t + Block, ... so that each warp load is 512 contiguous bytes. What is left after
/// the last whole round (fewer than gridDim.x tiles' worth) is split evenly: each block takes one run of at most a
/// tile's vectors, so the call does not end with some blocks counting one more tile while the rest wait (a tile's
/// time: ~3 us of the ~360 that 1 GiB takes with the pair counters' 72 KiB tiles), nor with one block reading its
/// partial tile one vector at a time. Every thread of a block walks the same tiles (block-uniform trip counts, so
/// kernels may synchronise inside the loop).
template <int Block, int Unroll>
struct tiling {
  static constexpr std::int64_t tile_vectors = std::int64_t(Block) * Unroll;
  std::int64_t full_tiles;  // the tiles of the whole rounds
  std::int64_t tail_begin;  // this block's run of the vectors after them: [tail_begin, tail_end)
  std::int64_t tail_end;
  __device__ explicit tiling(std::int64_t num_vectors) {
    const std::int64_t tiles = num_vectors / tile_vectors, grid = gridDim.x;
    full_tiles = tiles - tiles % grid;
    const std::int64_t first = full_tiles * tile_vectors;
    // At most a tile per block (fewer than grid tiles are left), in whole warps' 512-byte runs.
    const std::int64_t share = ((num_vectors - first + grid - 1) / grid + 31) / 32 * 32;
    tail_begin = first + blockIdx.x * share < num_vectors ? first + blockIdx.x * share : num_vectors;
    tail_end = tail_begin + share < num_vectors ? tail_begin + share : num_vectors;
  }

  __device__ static void load(const uint4* __restrict__ vectors, std::int64_t tile, uint4 (&v)[Unroll]) {
    const uint4* p = vectors + tile * tile_vectors + threadIdx.x;
#pragma unroll
    for (int j = 0; j < Unroll; ++j) v[j] = p[j * Block];
  }
  /// Whether this block has vectors after the whole rounds (block-uniform).
  __device__ bool has_tail() const { return tail_begin < tail_end; }

  /// count(v, tile) on each of this block's full tiles in turn (v: this thread's Unroll vectors of the tile), with the
  /// next tile's loads issued before the current one is counted, so that memory stays busy while the block counts.
  /// Every thread of the block makes the same calls.
  template <class Count>
  __device__ void for_each_full_tile(const uint4* __restrict__ vectors, Count&& count) const {
    uint4 cur[Unroll], next[Unroll];
    std::int64_t tile = blockIdx.x;
    if (tile < full_tiles) load(vectors, tile, cur);
    for (; tile < full_tiles; tile += gridDim.x) {
      if (tile + gridDim.x < full_tiles) load(vectors, tile + gridDim.x, next);
      count(cur, tile);
#pragma unroll
      for (int j = 0; j < Unroll; ++j) cur[j] = next[j];
    }
  }

  /// count(v, i) on each vector v = vectors[i] of this block's run after the whole rounds that is this thread's (at
  /// most Unroll, like one tile), all loaded before the first is counted.
  template <class CountOne>
  __device__ void for_each_tail_vector(const uint4* __restrict__ vectors, CountOne&& count) const {
    uint4 v[Unroll];
    const std::int64_t first = tail_begin + threadIdx.x;
#pragma unroll
    for (int j = 0; j < Unroll; ++j)
      if (first + std::int64_t(j) * Block < tail_end) v[j] = vectors[first + std::int64_t(j) * Block];
#pragma unroll
    for (int j = 0; j < Unroll; ++j)
      if (first + std::int64_t(j) * Block < tail_end) count(v[j], first + std::int64_t(j) * Block);
  }
};

/// Where byte value v lies in a histogram copy that has `Replicas` interleaved copies (v's copy c at
/// slot(v) * Replicas + c). Unswizzled, slot(v) = v and v's bank is (v % (32 / Replicas)) * Replicas + c, so values
/// that differ by a multiple of 32 / Replicas meet in one bank. Swizzled, the low bits are XORed with the next ones
/// (a permutation of the 256 slots), so that such values usually get different banks: with one copy per warp, the
/// values 16 l + k of linear data (lane l) fall in 16 banks instead of 2; with 8 copies, values 4 apart (image data,
/// lanes 8 apart) no longer share a bank.
///
/// byte_slots gives the slots of the 4 bytes of a word in two instructions: the shift brings each byte's high bits
/// down, and the mask keeps only those (v >> bits has 8 - bits of them), not the low bits of the byte above.
template <int Replicas, bool Swizzle>
__device__ __forceinline__ unsigned byte_slots(unsigned w) {
  constexpr unsigned banks = 32 / Replicas;  // banks per copy: a power of two
  constexpr unsigned bits = banks >= 32 ? 5 : banks >= 16 ? 4 : banks >= 8 ? 3 : banks >= 4 ? 2 : banks >= 2 ? 1 : 0;
  if constexpr (!Swizzle || bits == 0) {
    return w;
  } else {
    constexpr unsigned mask = (banks - 1) & ((1u << (8 - bits)) - 1);
    return w ^ ((w >> bits) & (mask * 0x01010101u));
  }
}

/// The slot of one byte value v < 256 (a word whose other bytes are 0).
template <int Replicas, bool Swizzle>
__device__ __forceinline__ unsigned byte_slot(unsigned v) {
  return byte_slots<Replicas, Swizzle>(v);
}

/// Head and tail bytes (fewer than 32 in all), counted by block 0 into its block counts (value v at
/// block_counts[byte_slot(v) * Stride]) with shared atomics.
template <int Stride = 1, bool Swizzle = false>
__device__ void count_head_and_tail(const byte_job& job, unsigned* block_counts) {
  if (blockIdx.x != 0) return;
  if (threadIdx.x < job.head_bytes)
    atomicAdd(&block_counts[byte_slot<Stride, Swizzle>(job.head[threadIdx.x]) * Stride], 1u);
  if (threadIdx.x < job.tail_bytes)
    atomicAdd(&block_counts[byte_slot<Stride, Swizzle>(job.tail[threadIdx.x]) * Stride], 1u);
}

/// Adds a block's 256 counts (value v at block_counts[byte_slot(v) * Stride], final after a __syncthreads) to the
/// totals.
template <int Block, int Stride = 1, bool Swizzle = false>
__device__ void add_block_counts(const unsigned* block_counts, unsigned long long* totals) {
  for (int v = threadIdx.x; v < byte_values; v += Block) {
    const unsigned c = block_counts[byte_slot<Stride, Swizzle>(v) * Stride];
    if (c != 0) atomicAdd(&totals[v], static_cast<unsigned long long>(c));
  }
}

/// The bin of raw byte value v through job's table, or -1.
__device__ __forceinline__ int byte_bin(const byte_job& job, int v) {
  return job.device_map != nullptr ? job.device_map[v] : job.map.bin[v];
}

/// Adds c to counter b of `hist`, whose counters are word_bytes (4 or 8) wide; 32-bit ones wrap as unsigned words
/// (two's complement gives signed counts the same bits).
__device__ __forceinline__ void add_to_counter(void* hist, int word_bytes, int b, unsigned long long c) {
  if (word_bytes == 8) atomicAdd(static_cast<unsigned long long*>(hist) + b, c);
  else atomicAdd(static_cast<unsigned*>(hist) + b, static_cast<unsigned>(c));
}

/// Adds c to the caller's bin b.
__device__ __forceinline__ void add_to_bin(const byte_job& job, int b, unsigned long long c) {
  add_to_counter(job.hist, job.hist_word_bytes, b, c);
}

/// job.direct: a block's 256 counts (value v at block_counts[byte_slot(v) * Stride], final after a __syncthreads)
/// straight into the caller's bins. A warp takes 32 values at a time and adds the counts of the values that share a
/// bin with one atomic (with 32 bins, 8 values to a bin, a block makes 32 atomics instead of 256).
template <int Block, int Stride = 1, bool Swizzle = false>
__device__ void add_block_counts_to_bins(const unsigned* block_counts, const byte_job& job) {
  constexpr int warps = Block / 32;
  const int lane = threadIdx.x % 32;
  for (int chunk = threadIdx.x / 32; chunk < byte_values / 32; chunk += warps) {  // warp-uniform
    const int v = chunk * 32 + lane;
    const unsigned c = block_counts[byte_slot<Stride, Swizzle>(v) * Stride];
    const int b = c == 0 ? -1 : byte_bin(job, v);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned same_bin = __match_any_sync(0xffffffffu, b);
    const unsigned sum = __reduce_add_sync(same_bin, c);  // <= the block's bytes < 2^31
    if (b < 0 || lane != __ffs(same_bin) - 1) continue;
#else
    const unsigned sum = c;
    if (b < 0) continue;
#endif
    add_to_bin(job, b, sum);
  }
}

/// Called by every thread of every block after add_block_counts. The last block to get here (of a launch with
/// job.finish) folds the totals into the caller's bins: hist[b] (=|+=) sum of totals[v] over the byte values v of
/// bin b, with integer atomics (exact in any order). The caller's counters are unsigned words of Count's width
/// (two's complement gives the same bits for signed counts).
template <int Block>
__device__ void finish_if_last(const byte_job& job) {
  if (!job.finish) return;
  __shared__ bool last;
  __threadfence();  // this block's totals before its ticket
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(job.blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  const bool wide = job.hist_word_bytes == 8;
  if (!job.accumulate)
    for (int b = threadIdx.x; b < job.num_bins; b += Block) {
      if (wide) static_cast<unsigned long long*>(job.hist)[b] = 0;
      else static_cast<unsigned*>(job.hist)[b] = 0;
    }
  __syncthreads();  // cleared before anyone adds
  for (int v = threadIdx.x; v < byte_values; v += Block) {
    const int b = byte_bin(job, v);
    const unsigned long long c = __ldcg(&job.totals[v]);  // from L2: other blocks added to it
    if (b < 0 || c == 0) continue;
    add_to_bin(job, b, c);
  }
}

/// A block's last step, by every thread after its counts are final (value v at block_counts[byte_slot(v) * Stride],
/// after a __syncthreads): straight into the caller's bins (job.direct), or into the totals, which the last block
/// folds into the bins. The direct way saves the end of the call a round trip to the L2 for the ticket and another
/// for the totals.
template <int Block, int Stride = 1, bool Swizzle = false>
__device__ void finish_block(const unsigned* block_counts, const byte_job& job) {
  if (job.direct) return add_block_counts_to_bins<Block, Stride, Swizzle>(block_counts, job);
  add_block_counts<Block, Stride, Swizzle>(block_counts, job.totals);
  finish_if_last<Block>(job);
}

}  // namespace ghist::detail::bytes
