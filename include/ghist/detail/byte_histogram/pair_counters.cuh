// Byte counting with per-lane pair counters: every lane owns a column of 128 words in shared memory, and word r
// counts the byte values r and r + 128, incremented with a plain load, add and store or with a shared atomic on the
// lane's own word (no bank conflicts whatever the data: word r of lane l lies in bank l). So the speed does not
// depend on the data.
//
// A word's two counts share it as "total, high": every increment adds 1 to the low 15 bits (the word's total), and
// a byte >= 128 also adds 1 << 15 (bits 15.., that value's count). The low value's count is total - high. A byte's
// bits 0..6 are its row's address bits 8..14 and its bit 7 lands on bit 15, where the increment needs it: byte 1 of a
// 32-bit word is already there, and the other three are one shift away (see place_byte). So a byte costs a mask for
// its address, one for its increment, and an add.
//
// Why not 8-bit counters, 4 per word (seed 001, TRISH; packed8_counters.cuh): those overflow after 255 bytes per
// thread, so the whole block must stop and sum its columns every 240 bytes. Here a lane may take 32767 bytes between
// flushes, and it flushes with its own warp only (no block barrier). The cost is 16 KiB per warp, so 12 warps per
// SM, whose load-add-store chains' latency bounds the count: each lane keeps two bytes in flight (count_pair) and
// sends two more through shared atomics in the same round (count_byte_k).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Row r of lane l of warp w lies at byte (w / 2) * 32 KiB + r * 256 + (w % 2) * 128 + l * 4 of the columns: the
/// row on address bits 8..14, where a byte's bits 0..6 are when it is byte 1 of a word, the lane on bits 2..6, and
/// two warps share each 32 KiB (bit 7 tells which).
inline constexpr unsigned pair_total_bits = 15;  // the low field: a word's total
inline constexpr unsigned pair_row_mask = 0x7f00u;
inline constexpr int pair_row_stride_words = 64;
inline constexpr int max_pair_count = (1 << pair_total_bits) - 1;  // bytes per lane between flushes

__device__ __forceinline__ unsigned pair_lane_offset(unsigned warp, unsigned lane) {
  return (warp / 2) * 32768u + (warp % 2) * 128u + lane * 4;
}

/// Byte K of w with its bits 0..6 on bits 8..14 and its bit 7 on bit 15 (the bits around them are masked off later).
template <int K>
__device__ __forceinline__ unsigned place_byte(unsigned w) {
  if constexpr (K == 0) return w << 8;
  else if constexpr (K == 1) return w;
  else if constexpr (K == 2) return (w >> 16) << 8;
  else return w >> 16;
}

/// Tuning of the pair-counters kernel. Lent H100, 1 GiB of uint8, fraction of the read floor for uniform / zero /
/// linear / image data, each line measured in one run with the one above it:
///   2026-11-22 (bench/results/2026-11-22-h100-experiment-pair-counters.txt), rows at bit 7, no atomics:
///     12 warps, 4 vectors per thread per tile, 2 bytes in flight    0.83-0.84 for every data set (three runs)
///     14 warps                                                      0.80-0.82
///     13 / 11 / 10 warps                                            0.76 / 0.79 / 0.75 (uniform)
///     12 warps, 6 vectors per tile                                  0.84-0.85
///     12 warps, 4 bytes in flight (up to 3 compares each)           0.65 / 0.80 / 0.66 / 0.63
///     14 warps, one byte at a time                                  0.76
///   2026-11-28 (bench/results/2026-11-28-h100-bytes-pair-atomics.txt), 12 warps:
///     4 vectors, half the bytes through shared atomics              0.89-0.90 (none: 0.85)
///     6 / 8 / 10 / 12 vectors, half through atomics                 0.92 / 0.93-0.94 / 0.94-0.95 / 0.94-0.95
///     14 / 16 vectors                                               0.89-0.90 / 0.89-0.92 (the loop's code grows)
///     12 vectors, a quarter / none through atomics                  0.92-0.93 / 0.87-0.88
///     12 vectors, 11 warps                                          0.92-0.94
///     the next tiles asked of the L2 one / two rounds ahead          0.87-0.90 / 0.77-0.79
///     ... by one bulk prefetch per tile, one / two / four ahead       0.72 / 0.68 / 0.58
/// 12 warps take 193 KiB, so the SM keeps 60 KiB of L1 for the loads in flight (12 vectors per thread: 72 KiB per
/// tile, 125 registers); 13 or 14 leave it 28 KiB. atomics_every: see count_byte_k. flush_tiles: tiles between
/// flushes (the most that keep every count below 2^15; smaller ones only for tests of the flush).
struct pair_counters_tuning {
  static constexpr int warps = 12;
  static constexpr int block = warps * 32;
  static constexpr int unroll = 12;
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int atomics_every = 1;
  static constexpr int flush_tiles = max_pair_count / (unroll * vector_bytes);
};

inline constexpr int pair_rows = byte_values / 2;                       // words per lane
inline constexpr unsigned pair_column_bytes = pair_rows * 32 * 4;        // one warp's columns: 16 KiB

template <class Tuning>
constexpr std::size_t pair_counters_shared_bytes() {
  return std::size_t(Tuning::warps) * pair_column_bytes + byte_values * sizeof(unsigned);
}

/// The word of this lane that counts placed byte s.
__device__ __forceinline__ unsigned* pair_word(char* columns, unsigned lane_offset, unsigned s) {
  return reinterpret_cast<unsigned*>(columns + ((s & pair_row_mask) | lane_offset));
}

/// Counts two placed bytes with both loads issued before either store, so that one lane has two load-add-store
/// chains in flight instead of one. When both bytes hit one word, the second load is stale: the second store then
/// adds to what the first stored. `one` is 1 in a register: with it the increment (high bit | 1) is one LOP3, where
/// the two constants would take two, and the add can leave the integer ALU, the kernel's busiest pipe (ncu: 74%);
/// 0.84 -> 0.86 of the read floor (bench/results/2026-11-22-h100-experiment-pair-counters.txt, run 4).
__device__ __forceinline__ void count_pair(char* columns, unsigned lane_offset, unsigned one, unsigned s0,
                                           unsigned s1) {
  constexpr unsigned high_bit = 1u << pair_total_bits;
  unsigned* p0 = pair_word(columns, lane_offset, s0);
  unsigned* p1 = pair_word(columns, lane_offset, s1);
  const unsigned c0 = *p0, c1 = *p1;
  const unsigned n0 = c0 + ((s0 & high_bit) | one);
  *p0 = n0;
  *p1 = (p0 == p1 ? n0 : c1) + ((s1 & high_bit) | one);
}

/// Counts one placed byte with a shared atomic on the lane's own word: no load, so nothing waits for it, but the
/// SM takes ~9 of these per clock against ~12 bytes per clock at the read floor. Issued before a pair's loads, it is
/// in the word when they read it (one thread's accesses to one address are ordered).
__device__ __forceinline__ void count_atomic(char* columns, unsigned lane_offset, unsigned one, unsigned s) {
  constexpr unsigned high_bit = 1u << pair_total_bits;
  atomicAdd(pair_word(columns, lane_offset, s), (s & high_bit) | one);
}

/// Byte K of the vector's four words. With AtomicsEvery = a > 0, when K % a == 0 the bytes of z and w go through
/// shared atomics ahead of the pair (x, y): four bytes per load-add-store round instead of two, so the chains'
/// latency is paid half as often, while the atomics stay below the SM's rate for them (pair_counters_tuning).
template <int K, int AtomicsEvery>
__device__ __forceinline__ void count_byte_k(char* columns, unsigned lane_offset, unsigned one, const uint4& v) {
  constexpr bool through_atomics = AtomicsEvery > 0 && K % (AtomicsEvery > 0 ? AtomicsEvery : 1) == 0;  // no % 0
  if constexpr (through_atomics) {
    count_atomic(columns, lane_offset, one, place_byte<K>(v.z));
    count_atomic(columns, lane_offset, one, place_byte<K>(v.w));
    count_pair(columns, lane_offset, one, place_byte<K>(v.x), place_byte<K>(v.y));
  } else {
    count_pair(columns, lane_offset, one, place_byte<K>(v.x), place_byte<K>(v.y));
    count_pair(columns, lane_offset, one, place_byte<K>(v.z), place_byte<K>(v.w));
  }
}

template <int AtomicsEvery>
__device__ __forceinline__ void count_vector_pairs(char* columns, unsigned lane_offset, unsigned one,
                                                   const uint4& v) {
  count_byte_k<0, AtomicsEvery>(columns, lane_offset, one, v);
  count_byte_k<1, AtomicsEvery>(columns, lane_offset, one, v);
  count_byte_k<2, AtomicsEvery>(columns, lane_offset, one, v);
  count_byte_k<3, AtomicsEvery>(columns, lane_offset, one, v);
}

/// Adds the warp's 32 columns to the block's counts and, unless this is the last flush (Clear false), clears them;
/// called by all lanes of a warp at once, with `lane0` pointing at word 0 of the warp's lane 0. Lane l sums rows l,
/// l + 32, ... across the columns, starting at column l so that the warp reads 32 banks at each step.
template <bool Clear = true>
__device__ __forceinline__ void flush_pair_columns(unsigned* lane0, unsigned* block_counts) {
  __syncwarp();
  const int lane = threadIdx.x % 32;
#pragma unroll 1
  for (int r = lane; r < pair_rows; r += 32) {
    unsigned* row = lane0 + r * pair_row_stride_words;
    unsigned total = 0, high = 0;  // at most 32 x (2^15 - 1): no overflow
#pragma unroll 8
    for (int j = 0; j < 32; ++j) {
      const int c = (j + lane) % 32;
      const unsigned w = row[c];
      if constexpr (Clear) row[c] = 0;
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
  static_assert(Tuning::warps % 2 == 0, "warps share 32 KiB in pairs");
  static_assert(Tuning::flush_tiles >= 1 && Tuning::flush_tiles * Unroll * vector_bytes <= max_pair_count,
                "a lane's counts between flushes must stay below 2^15");
  extern __shared__ __align__(16) unsigned shared_words[];
  constexpr int column_words = Tuning::warps * pair_column_bytes / 4;
  unsigned* block_counts = shared_words + column_words;
  static_assert((column_words + byte_values) % 4 == 0, "cleared in 16-byte stores");
  for (int k = threadIdx.x; k < (column_words + byte_values) / 4; k += Block)
    reinterpret_cast<uint4*>(shared_words)[k] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  count_head_and_tail(job, block_counts);

  char* columns = reinterpret_cast<char*>(shared_words);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned lane_offset = pair_lane_offset(warp, lane);
  const unsigned one = blockDim.x / Block;  // 1, but not a constant to the compiler (see count_pair)
  unsigned* warp_columns = shared_words + pair_lane_offset(warp, 0) / 4;

  const tiling<Block, Unroll> t(job.num_vectors);
  int pending = 0;  // tiles counted since the last flush (the same in every thread)
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t) {
    if (pending == Tuning::flush_tiles) {
      flush_pair_columns(warp_columns, block_counts);
      pending = 0;
    }
#pragma unroll
    for (int j = 0; j < Unroll; ++j)
      count_vector_pairs<Tuning::atomics_every>(columns, lane_offset, one, v[j]);
    ++pending;
  });
  if (t.has_tail()) {  // at most Unroll vectors per thread, like one tile
    if (pending == Tuning::flush_tiles) flush_pair_columns(warp_columns, block_counts);
    t.for_each_tail_vector(job.vectors, [&](const uint4& v, std::int64_t) {
      count_vector_pairs<Tuning::atomics_every>(columns, lane_offset, one, v);
    });
  }
  flush_pair_columns<false>(warp_columns, block_counts);
  __syncthreads();
  finish_block<Block>(block_counts, job);
}

}  // namespace ghist::detail::bytes
