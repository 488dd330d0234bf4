// Byte counting with per-lane pair counters: every lane owns a column of 128 words in shared memory, and word r
// counts the byte values r and r + 128, incremented with a plain load, add and store (no atomics, no bank
// conflicts whatever the data: word r of lane l lies in bank l). So the speed does not depend on the data.
//
// A word's two counts share it as "total, high": every increment adds 1 to the low 14 bits (the word's total), and
// a byte >= 128 also adds 1 << 14 (bits 14.., that value's count). The low value's count is total - high. This
// makes the increment two instructions from the byte, with no variable shift: with the byte value v moved so that
// its bits 0..6 land on address bits 7..13, bit 7 lands on bit 14, where the increment needs it.
//
// Why not 8-bit counters, 4 per word (seed 001, TRISH; packed8_counters.cuh): those overflow after 255 bytes per
// thread, so the whole block must stop and sum its columns every 240 bytes. Here a lane may take 16383 bytes
// between flushes, and it flushes with its own warp only (no block barrier). The cost is 16 KiB per warp, so 12
// warps per SM: the latency of each lane's load-add-store chain is what bounds the kernel, which is why each lane
// keeps two bytes in flight (see count_pair).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Tuning of the pair-counters kernel. Lent H100, 2026-11-22, 1 GiB of uint8, fraction of the read floor for
/// uniform / zero / linear / image data (bench/results/2026-11-22-h100-experiment-pair-counters.txt):
///   12 warps, 4 vectors per thread per tile, 2 bytes in flight    0.83-0.84 for every data set (three runs)
///   14 warps                                                      0.80-0.82
///   13 / 11 / 10 warps                                            0.76 / 0.79 / 0.75 (uniform)
///   12 warps, 6 vectors per tile                                  0.84-0.85
///   12 warps, 4 bytes in flight (up to 3 compares each)           0.65 / 0.80 / 0.66 / 0.63
///   14 warps, one byte at a time                                  0.76
/// 12 warps take 193 KiB, so the SM keeps 60 KiB of L1 for the loads in flight; 13 or 14 leave it 28 KiB, and the
/// loads then wait for room in the L1. flush_tiles: tiles between flushes (the most that keep every count below
/// 2^14; smaller ones only for tests of the flush).
struct pair_counters_tuning {
  static constexpr int warps = 12;
  static constexpr int block = warps * 32;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int flush_tiles = 16383 / (unroll * vector_bytes);
};

inline constexpr int pair_rows = byte_values / 2;                       // words per lane
inline constexpr unsigned pair_total_bits = 14;                          // the low field: a word's total
inline constexpr unsigned pair_column_bytes = pair_rows * 32 * 4;        // one warp's columns: 16 KiB
inline constexpr int max_pair_count = (1 << pair_total_bits) - 1;       // bytes per lane between flushes

template <class Tuning>
constexpr std::size_t pair_counters_shared_bytes() {
  return std::size_t(Tuning::warps) * pair_column_bytes + byte_values * sizeof(unsigned);
}

/// Byte k of w, placed so that its bits 0..6 are on bits 7..13 (the row's byte offset in a warp's columns: row r of
/// lane l at r * 128 + l * 4) and its bit 7 on bit 14 (the high count's increment).
template <int K>
__device__ __forceinline__ unsigned placed_byte(unsigned w) {
  if constexpr (K == 0) return w << 7;
  else return w >> (8 * K - 7);
}

/// The word of this lane that counts placed byte s: `lane_offset` is the lane's byte offset (warp * 16 KiB + lane
/// * 4, bits 2..6 and 14..), which the row's bits 7..13 never overlap.
__device__ __forceinline__ unsigned* pair_word(char* columns, unsigned lane_offset, unsigned s) {
  return reinterpret_cast<unsigned*>(columns + ((s & 0x3f80u) | lane_offset));
}

/// Counts two placed bytes with both loads issued before either store, so that one lane has two load-add-store
/// chains in flight instead of one. When both bytes hit one word, the second load is stale: the second store then
/// adds to what the first stored. `one` is 1 in a register: with it the increment (high bit | 1) is one LOP3, where
/// the two constants would take two, and the add can leave the integer ALU, the kernel's busiest pipe (ncu: 74%);
/// 0.84 -> 0.86 of the read floor (bench/results/2026-11-22-h100-experiment-pair-counters.txt, run 4).
__device__ __forceinline__ void count_pair(char* columns, unsigned lane_offset, unsigned one, unsigned s0,
                                           unsigned s1) {
  unsigned* p0 = pair_word(columns, lane_offset, s0);
  unsigned* p1 = pair_word(columns, lane_offset, s1);
  const unsigned c0 = *p0, c1 = *p1;
  const unsigned n0 = c0 + ((s0 & (1u << pair_total_bits)) | one);
  *p0 = n0;
  *p1 = (p0 == p1 ? n0 : c1) + ((s1 & (1u << pair_total_bits)) | one);
}

template <int K>
__device__ __forceinline__ void count_byte_k(char* columns, unsigned lane_offset, unsigned one, const uint4& v) {
  count_pair(columns, lane_offset, one, placed_byte<K>(v.x), placed_byte<K>(v.y));
  count_pair(columns, lane_offset, one, placed_byte<K>(v.z), placed_byte<K>(v.w));
}

__device__ __forceinline__ void count_vector_pairs(char* columns, unsigned lane_offset, unsigned one,
                                                   const uint4& v) {
  count_byte_k<0>(columns, lane_offset, one, v);
  count_byte_k<1>(columns, lane_offset, one, v);
  count_byte_k<2>(columns, lane_offset, one, v);
  count_byte_k<3>(columns, lane_offset, one, v);
}

/// Adds the warp's 32 columns to the block's counts and clears them; called by all lanes of a warp at once. Lane l
/// sums rows l, l + 32, ... across the columns, starting at column l so that the warp reads 32 banks at each step.
__device__ __forceinline__ void flush_pair_columns(unsigned* warp_columns, unsigned* block_counts) {
  __syncwarp();
  const int lane = threadIdx.x % 32;
#pragma unroll 1
  for (int r = lane; r < pair_rows; r += 32) {
    unsigned* row = warp_columns + r * 32;
    unsigned total = 0, high = 0;  // at most 32 x (2^14 - 1): no overflow
#pragma unroll 8
    for (int j = 0; j < 32; ++j) {
      const int c = (j + lane) % 32;
      const unsigned w = row[c];
      row[c] = 0;
      total += w & max_pair_count;
      high += w >> pair_total_bits;
    }
    if (total != high) atomicAdd(&block_counts[r], total - high);
    if (high != 0) atomicAdd(&block_counts[r + pair_rows], high);
  }
  __syncwarp();
}

template <class Tuning>
__global__ void __launch_bounds__(Tuning::block, Tuning::min_blocks_per_sm) count_bytes_pair_counters(byte_job job) {
  constexpr int Block = Tuning::block, Unroll = Tuning::unroll;
  static_assert(Block == Tuning::warps * 32, "whole warps");
  static_assert(Tuning::warps * pair_column_bytes < (1u << 18), "warp offsets must fit below bit 18");
  static_assert(Tuning::flush_tiles >= 1 && Tuning::flush_tiles * Unroll * vector_bytes <= max_pair_count,
                "a lane's counts between flushes must stay below 2^14");
  extern __shared__ unsigned shared_words[];
  constexpr int column_words = Tuning::warps * pair_column_bytes / 4;
  unsigned* block_counts = shared_words + column_words;
  for (int k = threadIdx.x; k < column_words + byte_values; k += Block) shared_words[k] = 0;
  __syncthreads();
  count_head_and_tail(job, block_counts);

  char* columns = reinterpret_cast<char*>(shared_words);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned lane_offset = warp * pair_column_bytes + lane * 4;
  const unsigned one = blockDim.x / Block;  // 1, but not a constant to the compiler (see count_pair)
  unsigned* warp_columns = shared_words + warp * (pair_column_bytes / 4);

  const tiling<Block, Unroll> t(job.num_vectors);
  int pending = 0;  // tiles counted since the last flush (the same in every thread)
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t) {
    if (pending == Tuning::flush_tiles) {
      flush_pair_columns(warp_columns, block_counts);
      pending = 0;
    }
#pragma unroll
    for (int j = 0; j < Unroll; ++j) count_vector_pairs(columns, lane_offset, one, v[j]);
    ++pending;
  });
  if (t.owns_partial_tile()) {  // at most Unroll vectors per thread, like one tile
    if (pending == Tuning::flush_tiles) flush_pair_columns(warp_columns, block_counts);
    t.for_each_partial_vector(job.vectors, job.num_vectors,
                              [&](const uint4& v, std::int64_t) { count_vector_pairs(columns, lane_offset, one, v); });
  }
  flush_pair_columns(warp_columns, block_counts);
  __syncthreads();
  add_block_counts<Block>(block_counts, job.totals);
  finish_if_last<Block>(job);
}

}  // namespace ghist::detail::bytes
