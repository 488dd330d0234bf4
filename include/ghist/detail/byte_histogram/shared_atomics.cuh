// Byte counting with shared-memory atomics: one 256-bin sub-histogram per warp (so that warps never contend with
// each other), and runs of equal bytes folded before they reach memory: a 16-byte vector of one value is one atomic
// (+16), a 4-byte word of one value is one atomic (+4). All-zero input, the worst case for plain atomics (every lane
// on one address), then costs one atomic per 16 bytes; uniform random bytes pay one atomic per byte plus the two
// comparisons.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Tuning of the shared-atomics kernel. 512 threads x 2 blocks fill an SM (2048 threads would leave 32 registers
/// per thread, too few for the double-buffered loads); 4 vectors per thread per tile, double-buffered, keep
/// 1024 x 4 x 16 B = 64 KiB in flight per SM, twice what the H100 needs for full read bandwidth.
struct shared_atomics_tuning {
  static constexpr int block = 512;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 2;
};

__device__ inline void add_word(unsigned* h, unsigned w) {
  if (w == __byte_perm(w, 0, 0x0000)) {  // 4 copies of byte 0
    atomicAdd(&h[w & 0xffu], 4u);
  } else {
    atomicAdd(&h[w & 0xffu], 1u);
    atomicAdd(&h[(w >> 8) & 0xffu], 1u);
    atomicAdd(&h[(w >> 16) & 0xffu], 1u);
    atomicAdd(&h[w >> 24], 1u);
  }
}

__device__ inline void add_vector(unsigned* h, uint4 v) {
  if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0x0000)) {
    atomicAdd(&h[v.x & 0xffu], 16u);
    return;
  }
  add_word(h, v.x);
  add_word(h, v.y);
  add_word(h, v.z);
  add_word(h, v.w);
}

template <int Block, int Unroll, int MinBlocks>
__global__ void __launch_bounds__(Block, MinBlocks) count_bytes_shared_atomics(byte_job job) {
  constexpr int warps = Block / 32;
  static_assert(Block % 32 == 0 && Block >= byte_values, "one thread per byte value in the block reduction");
  __shared__ unsigned warp_hist[warps][byte_values];
  for (int k = threadIdx.x; k < warps * byte_values; k += Block) (&warp_hist[0][0])[k] = 0;
  __syncthreads();
  count_head_and_tail(job, warp_hist[0]);
  unsigned* h = warp_hist[threadIdx.x / 32];

  using tiles = tiling<Block, Unroll>;
  const tiles t(job.num_vectors);
  uint4 cur[Unroll], next[Unroll];
  std::int64_t tile = blockIdx.x;
  if (tile < t.full_tiles) tiles::load(job.vectors, tile, cur);
  for (; tile < t.full_tiles; tile += gridDim.x) {
    // Issue the next tile's loads before counting this one, so that memory stays busy while we count.
    if (tile + gridDim.x < t.full_tiles) tiles::load(job.vectors, tile + gridDim.x, next);
#pragma unroll
    for (int j = 0; j < Unroll; ++j) add_vector(h, cur[j]);
#pragma unroll
    for (int j = 0; j < Unroll; ++j) cur[j] = next[j];
  }
  if (t.owns_partial_tile()) {
    for (std::int64_t i = t.full_tiles * tiles::tile_vectors + threadIdx.x; i < job.num_vectors; i += Block)
      add_vector(h, job.vectors[i]);
  }
  __syncthreads();

  // Sub-histograms into warp 0's (each bin summed by one thread), then into the call's totals.
  for (int v = threadIdx.x; v < byte_values; v += Block) {
    unsigned sum = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) sum += warp_hist[w][v];
    warp_hist[0][v] = sum;
  }
  __syncthreads();
  add_block_counts<Block>(warp_hist[0], job.totals);
}

}  // namespace ghist::detail::bytes
