// Byte counting with per-thread 8-bit packed counters (seed 001, TRISH), an alternative tuning of the
// packed_counters method. Its default is pair_counters.cuh (0.85 of the read floor against 0.59 here, lent H100);
// this one stays for the benchmark's comparison and for devices without 193 KiB of shared memory per block. Each
// thread owns a 256-bin histogram of 8-bit counters, 4 per 32-bit word, as a column of 64 words in shared memory
// (word r of thread t at r * Block + t, so a warp's updates always hit 32 different banks, whatever the data). No
// atomics and no conflicts: the speed does not depend on the data. Before any counter can pass 255 the block sums
// the columns into 32-bit counters held in registers (thread t owns the 4 bins of row t % 64 over a group of 64
// columns) and clears them.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Tuning of the 8-bit packed-counters kernel. 256 threads x 64 words x 4 B = 64 KiB of counters per block, so 3
/// blocks (768 threads) per H100 SM; 5 vectors per thread per tile (80 bytes), double-buffered: 60 KiB in flight per
/// SM.
/// 3 tiles = 240 bytes per thread between flushes, the most whole tiles that keep every 8-bit counter <= 255.
/// atomic_increment: add to a counter word with one shared atomic (its column is the thread's own, so it never
/// conflicts) instead of a load, an add and a store: one shared-memory instruction per byte instead of two, if the
/// hardware's atomics keep up (the benchmark compares both).
/// byte_stores: add to the counter as a byte (8-bit load, add, 8-bit store at its byte address) instead of adding
/// 1 << 8 * (v & 3) to its word: no shift to compute per byte, the same layout and flushes.
struct packed8_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 5;
  static constexpr int min_blocks_per_sm = 3;
  static constexpr bool atomic_increment = false;
  static constexpr bool byte_stores = false;
};

inline constexpr int packed_rows = byte_values / 4;  // 32-bit words per thread
inline constexpr int max_packed_count = 255;

template <class Tuning>
constexpr std::size_t packed8_shared_bytes() {
  return std::size_t(packed_rows) * Tuning::block * sizeof(unsigned) + byte_values * sizeof(unsigned);
}

/// Adds the 4 bytes of w to this thread's column: byte k's counter is byte (k & 3) of row (k >> 2).
template <int Block, bool Atomic, bool ByteStores>
__device__ __forceinline__ void count_word_packed(unsigned* column, unsigned w) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (ByteStores) {
      // Word (row, t) holds bytes 4 * (row * Block + t) .. + 3; value v's counter is byte v & 3 of row v >> 2.
      const unsigned v = (w >> (8 * k)) & 0xffu;
      reinterpret_cast<unsigned char*>(column)[(v & ~3u) * Block + (v & 3u)] += 1;
      continue;
    }
    const unsigned row = (w >> (8 * k + 2)) & 63u;
    const unsigned shift = k == 0 ? (w << 3) & 24u : (w >> (8 * k - 3)) & 24u;  // 8 * (byte & 3)
    if constexpr (Atomic) atomicAdd(&column[row * Block], 1u << shift);
    else column[row * Block] += 1u << shift;
  }
}

template <int Block, bool Atomic, bool ByteStores>
__device__ __forceinline__ void count_vector_packed(unsigned* column, uint4 v) {
  count_word_packed<Block, Atomic, ByteStores>(column, v.x);
  count_word_packed<Block, Atomic, ByteStores>(column, v.y);
  count_word_packed<Block, Atomic, ByteStores>(column, v.z);
  count_word_packed<Block, Atomic, ByteStores>(column, v.w);
}

/// Sums every column into the 32-bit counters `sums` (bins 4r .. 4r + 3 of this thread's row r, over its group of
/// 64 columns) and clears the columns. Called by every thread of the block.
template <int Block>
__device__ __forceinline__ void flush_packed(unsigned* counters, unsigned (&sums)[4]) {
  __syncthreads();  // every column complete
  const int row = threadIdx.x % packed_rows;
  const int group = threadIdx.x / packed_rows;
  unsigned* line = counters + row * Block + group * packed_rows;
  // 8-bit counters added as two interleaved 16-bit lanes (seed 001): 64 columns x 255 < 2^16.
  unsigned even = 0, odd = 0;
#pragma unroll 16
  for (int j = 0; j < packed_rows; ++j) {
    // Rotated by row so that the 32 rows a warp reads at once lie in 32 different banks.
    const int c = (j + row) % packed_rows;
    const unsigned w = line[c];
    line[c] = 0;
    even += w & 0x00ff00ffu;
    odd += (w >> 8) & 0x00ff00ffu;
  }
  sums[0] += even & 0xffffu;
  sums[2] += even >> 16;
  sums[1] += odd & 0xffffu;
  sums[3] += odd >> 16;
  __syncthreads();  // every column cleared before its owner counts again
}

template <class Tuning>
__global__ void __launch_bounds__(Tuning::block, Tuning::min_blocks_per_sm) count_bytes_packed8(byte_job job) {
  constexpr int Block = Tuning::block, Unroll = Tuning::unroll;
  constexpr bool Atomic = Tuning::atomic_increment, ByteStores = Tuning::byte_stores;
  static_assert(!(Atomic && ByteStores), "shared atomics work on 32-bit words");
  static_assert(Block % packed_rows == 0 && Block >= byte_values, "rows x column groups must cover the block");
  constexpr int tiles_per_flush = max_packed_count / (vector_bytes * Unroll);
  static_assert(tiles_per_flush >= 1, "one tile must not overflow an 8-bit counter");
  extern __shared__ unsigned shared_words[];
  unsigned* counters = shared_words;                              // packed_rows x Block
  unsigned* block_counts = shared_words + packed_rows * Block;   // byte_values

  unsigned* column = counters + threadIdx.x;
#pragma unroll 16
  for (int r = 0; r < packed_rows; ++r) column[r * Block] = 0;
  for (int v = threadIdx.x; v < byte_values; v += Block) block_counts[v] = 0;
  unsigned sums[4] = {0, 0, 0, 0};

  const tiling<Block, Unroll> t(job.num_vectors);
  int pending = 0;  // tiles counted since the last flush (the same in every thread)
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t) {
    if (pending == tiles_per_flush) {
      flush_packed<Block>(counters, sums);
      pending = 0;
    }
#pragma unroll
    for (int j = 0; j < Unroll; ++j) count_vector_packed<Block, Atomic, ByteStores>(column, v[j]);
    ++pending;
  });
  if (t.has_tail()) {  // block-uniform; at most Unroll vectors per thread, like one tile
    if (pending == tiles_per_flush) {
      flush_packed<Block>(counters, sums);
      pending = 0;
    }
    t.for_each_tail_vector(job.vectors, [&](const uint4& v, std::int64_t) {
      count_vector_packed<Block, Atomic, ByteStores>(column, v);
    });
    ++pending;
  }
  if (pending > 0) flush_packed<Block>(counters, sums);
  else __syncthreads();  // (a flush ends with one too) block_counts zeroed before anyone adds to it

  // Column groups into the block's counts, then into the call's totals.
  const int row = threadIdx.x % packed_rows;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (sums[k] != 0) atomicAdd(&block_counts[4 * row + k], sums[k]);
  count_head_and_tail(job, block_counts);
  __syncthreads();
  finish_block<Block>(block_counts, job);
}

}  // namespace ghist::detail::bytes
