// Byte counting with shared-memory atomics: 256-bin sub-histograms per warp (so that warps never contend with each
// other), and runs of equal bytes folded before they reach memory: a 16-byte vector of one value is one atomic
// (+16), a 4-byte word of one value is one atomic (+4), and when a whole warp holds one value, one atomic per copy
// of the warp's histogram (+16 x lanes per copy). All-zero input, the worst case for plain atomics (every lane on
// one address), then costs one atomic per warp and 512 bytes.
//
// Uniform random bytes pay one atomic per byte, and with one sub-histogram per warp, 32 lanes on random bins meet
// about 3.5-way bank conflicts on average. Replicas spread that: with R copies of the warp's histogram interleaved
// (bin b of copy c at b * R + c, lane l on copy l % R), lanes of different copies never share a bank; R = 32 gives
// every lane its own copy, so no conflicts and no contention at all, for 32 KiB per warp.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Tuning of the shared-atomics kernel (the library's default): one histogram per warp (1 KiB) with byte_slot's
/// swizzle, 512 threads x 2 blocks per SM, 4 vectors per thread per tile (64 KiB in flight per SM). Lent H100,
/// 2026-11-22, 1 GiB of uint8, 256 bins (bench/bytes), fraction of the read floor for uniform / zero / linear /
/// image data (bench/results/2026-11-22-h100-experiment-byte-swizzle.txt), same run:
///   this tuning                              0.76 / 0.98 / 0.96 / 0.96
///   8 interleaved copies per warp (before)   0.78 / 0.97 / 0.95 / 0.77
///   one copy per warp, no swizzle            0.76 / 0.98 / 0.32 / 0.97
///   a copy per lane (no bank conflicts)      0.74 / 0.92 / 0.73 / 0.68
/// Without the swizzle, lane l's k-th byte of linear data (value 16 l + k) puts the 32 lanes in 2 banks. With 8
/// copies, smooth images lose: lanes 8 apart share a copy and hold values about 4 apart, in one bank. Uniform
/// bytes stay at ~0.76 in every layout, even with no conflicts at all: one shared atomic per byte on ~32 distinct
/// addresses per warp instruction is the bound (see bench/NOTES.md, ninth session). It needs 16 KiB per block, so
/// it runs on any GPU without the opt-in to more than 48 KiB.
struct shared_atomics_tuning {
  static constexpr int block = 512;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 2;
  static constexpr int replicas = 1;
  static constexpr bool swizzle = true;
};

/// Tuning::swizzle (byte_slot), false for a tuning without it.
template <class Tuning, class = void>
struct tuning_swizzle {
  static constexpr bool value = false;
};
template <class Tuning>
struct tuning_swizzle<Tuning, std::void_t<decltype(Tuning::swizzle)>> {
  static constexpr bool value = Tuning::swizzle;
};
template <class Tuning>
constexpr bool swizzled() {
  return tuning_swizzle<Tuning>::value;
}

template <class Tuning>
constexpr std::size_t shared_atomics_shared_bytes() {
  return std::size_t(Tuning::block / 32) * Tuning::replicas * byte_values * sizeof(unsigned);
}

/// h: this lane's copy (value v at h[byte_slot(v) * Replicas]).
template <int Replicas, bool Swizzle>
__device__ __forceinline__ unsigned& counter(unsigned* h, unsigned v) {
  return h[byte_slot<Replicas, Swizzle>(v) * Replicas];
}

template <int Replicas, bool Swizzle>
__device__ __forceinline__ void add_word(unsigned* h, unsigned w) {
  const unsigned s = byte_slots<Replicas, Swizzle>(w);  // the 4 bytes' slots (4 copies of one value stay so)
  if (s == __byte_perm(s, 0, 0x0000)) {                  // 4 copies of byte 0
    atomicAdd(&h[(s & 0xffu) * Replicas], 4u);
  } else {
    atomicAdd(&h[(s & 0xffu) * Replicas], 1u);
    atomicAdd(&h[((s >> 8) & 0xffu) * Replicas], 1u);
    atomicAdd(&h[((s >> 16) & 0xffu) * Replicas], 1u);
    atomicAdd(&h[(s >> 24) * Replicas], 1u);
  }
}

template <int Replicas, bool Swizzle>
__device__ __forceinline__ void add_vector(unsigned* h, uint4 v) {
  if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0x0000)) {
    atomicAdd(&counter<Replicas, Swizzle>(h, v.x & 0xffu), 16u);
    return;
  }
  add_word<Replicas, Swizzle>(h, v.x);
  add_word<Replicas, Swizzle>(h, v.y);
  add_word<Replicas, Swizzle>(h, v.z);
  add_word<Replicas, Swizzle>(h, v.w);
}

/// add_vector for a whole warp (all 32 lanes must call it: the full tiles): when every lane holds 16 copies of one
/// value (all-zero input, flat image regions), R lanes add 16 x 32 / R to their copies instead of 32 lanes adding to
/// R addresses. With a copy per lane there is no contention to save, so it is plain add_vector.
template <int Replicas, bool Swizzle>
__device__ __forceinline__ void add_vector_warp(unsigned* h, uint4 v) {
  if constexpr (Replicas < 32) {
    constexpr unsigned full = 0xffffffffu;
    const bool one_value = v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm(v.x, 0, 0x0000);
    if (__all_sync(full, one_value) && __all_sync(full, v.x == __shfl_sync(full, v.x, 0))) {
      if (threadIdx.x % 32 < Replicas) atomicAdd(&counter<Replicas, Swizzle>(h, v.x & 0xffu), 16u * (32 / Replicas));
      return;
    }
  }
  add_vector<Replicas, Swizzle>(h, v);
}

template <class Tuning>
__global__ void __launch_bounds__(Tuning::block, Tuning::min_blocks_per_sm) count_bytes_shared_atomics(byte_job job) {
  constexpr int Block = Tuning::block, Unroll = Tuning::unroll, R = Tuning::replicas;
  constexpr bool S = swizzled<Tuning>();
  constexpr int warps = Block / 32;
  constexpr int copies = warps * R;
  static_assert(Block % 32 == 0 && 32 % R == 0, "whole warps; replicas divide the warp");
  extern __shared__ unsigned hist[];  // copies x byte_values: warp w's histogram at w * R * byte_values
  for (int k = threadIdx.x; k < copies * byte_values; k += Block) hist[k] = 0;
  __syncthreads();
  count_head_and_tail<R, S>(job, hist);
  unsigned* h = hist + (threadIdx.x / 32) * R * byte_values + threadIdx.x % R;

  const tiling<Block, Unroll> t(job.num_vectors);
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t) {
#pragma unroll
    for (int j = 0; j < Unroll; ++j) add_vector_warp<R, S>(h, v[j]);
  });
  if (t.has_tail())
    t.for_each_tail_vector(job.vectors, [&](const uint4& v, std::int64_t) { add_vector<R, S>(h, v); });
  __syncthreads();

  // Every copy of bin v into hist[v * R] (copy 0 of warp 0; only thread v reads bin v's copies), then into the
  // call's totals. Thread v visits its R copies starting at a rotation chosen so that the 32 lanes of a warp read
  // 32 different banks at each step (bin v's copy c lies in bank (v * R + c) % 32).
  constexpr int lanes_per_rotation = 32 / R;
  for (int v = threadIdx.x; v < byte_values; v += Block) {
    const int rotation = v / lanes_per_rotation;
    unsigned sum = 0;
    for (int w = 0; w < warps; ++w)
#pragma unroll
      for (int j = 0; j < R; ++j) sum += hist[w * R * byte_values + v * R + (j + rotation) % R];
    hist[v * R] = sum;
  }
  __syncthreads();
  finish_block<Block, R, S>(hist, job);
}

}  // namespace ghist::detail::bytes
