// What the two byte-counting kernels share: the job they run (aligned 16-byte vectors plus an unaligned head and
// tail), how the vectors are cut into tiles for persistent blocks, and the last step of every block (its 256 counts
// added to the call's 64-bit totals) and of the call (totals folded into the caller's bins).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace ghist::detail::bytes {

inline constexpr int byte_values = 256;
inline constexpr int vector_bytes = 16;

/// One launch's share of the input. The kernels count raw byte values; binning happens in finalize_bins.
struct byte_job {
  const uint4* vectors = nullptr;  ///< 16-byte aligned
  std::int64_t num_vectors = 0;
  const std::uint8_t* head = nullptr;  ///< bytes counted one by one (the unaligned head and tail of the input)
  int head_bytes = 0;
  const std::uint8_t* tail = nullptr;
  int tail_bytes = 0;
  unsigned long long* totals = nullptr;  ///< 256 counts, added to with atomics (zeroed before the first launch)
};

/// A block counts in 32-bit words; one launch gives each block at most this many bytes so that they cannot
/// overflow (the host splits larger inputs over several launches, which only happens beyond ~280 GB on an H100).
inline constexpr std::int64_t max_block_bytes = std::int64_t(1) << 31;

/// Bin of each raw byte value, or -1; passed by value as a kernel parameter.
struct byte_bin_map {
  std::int16_t bin[byte_values];
};

/// Tiles of Block * Unroll vectors go round-robin to the blocks; in a tile, thread t reads vectors t, t + Block, ...
/// so that each warp load is 512 contiguous bytes. Every thread of a block walks the same tiles (block-uniform trip
/// counts, so kernels may synchronise inside the loop).
template <int Block, int Unroll>
struct tiling {
  static constexpr std::int64_t tile_vectors = std::int64_t(Block) * Unroll;
  std::int64_t full_tiles;
  __device__ explicit tiling(std::int64_t num_vectors) : full_tiles(num_vectors / tile_vectors) {}

  __device__ static void load(const uint4* __restrict__ vectors, std::int64_t tile, uint4 (&v)[Unroll]) {
    const uint4* p = vectors + tile * tile_vectors + threadIdx.x;
#pragma unroll
    for (int j = 0; j < Unroll; ++j) v[j] = p[j * Block];
  }
  /// The block that takes the last, partial tile (the one after the last full tile in round-robin order).
  __device__ bool owns_partial_tile() const { return full_tiles % gridDim.x == blockIdx.x; }
};

/// Head and tail bytes (fewer than 32 in all), counted by block 0 into its block counts (value v at
/// block_counts[v * Stride]) with shared atomics.
template <int Stride = 1>
__device__ void count_head_and_tail(const byte_job& job, unsigned* block_counts) {
  if (blockIdx.x != 0) return;
  if (threadIdx.x < job.head_bytes) atomicAdd(&block_counts[job.head[threadIdx.x] * Stride], 1u);
  if (threadIdx.x < job.tail_bytes) atomicAdd(&block_counts[job.tail[threadIdx.x] * Stride], 1u);
}

/// Adds a block's 256 counts (value v at block_counts[v * Stride], final after a __syncthreads) to the totals.
template <int Block, int Stride = 1>
__device__ void add_block_counts(const unsigned* block_counts, unsigned long long* totals) {
  for (int v = threadIdx.x; v < byte_values; v += Block) {
    const unsigned c = block_counts[v * Stride];
    if (c != 0) atomicAdd(&totals[v], static_cast<unsigned long long>(c));
  }
}

/// hist[b] (=|+=) sum of totals[v] over the byte values v of bin b. One block of byte_values threads. Word: the
/// unsigned counter type of the caller's width (two's complement gives the same bits for signed counts).
template <class Word>
__global__ void __launch_bounds__(byte_values)
    finalize_bins(const unsigned long long* __restrict__ totals, byte_bin_map map, Word* hist, int num_bins,
                  bool accumulate) {
  __shared__ unsigned long long bins[byte_values];
  const int v = threadIdx.x;
  bins[v] = 0;
  __syncthreads();
  const int b = map.bin[v];
  if (b >= 0) atomicAdd(&bins[b], totals[v]);
  __syncthreads();
  if (v < num_bins) hist[v] = (accumulate ? hist[v] : Word(0)) + static_cast<Word>(bins[v]);
}

}  // namespace ghist::detail::bytes
