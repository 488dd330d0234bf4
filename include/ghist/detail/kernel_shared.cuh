// The shared-memory strategy (seed 000 III-C): each block keeps M sub-histograms of one chunk of H_chk bins in
// shared memory, thread t updating sub-histogram t % M (strided, so neighbouring threads rarely collide), and makes
// S passes over its part of the input, one per chunk. After each pass the block folds its M copies and merges the
// result into the destination with the operator's global atomic, skipping bins that still hold the identity.
//
// WarpPrivate: M = warps per block and warp w owns sub-histogram w. The warp walks its inputs in lockstep, folds
// lanes with equal bins, and one lane per bin updates with a plain read-modify-write: no atomics and no locks, the
// fast path for the lock class when a sub-histogram per warp fits (plan::warp_private).
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

/// Bytes of the value part of the shared layout, rounded so that the xcg locks placed after it are aligned.
template <class T>
__host__ __device__ constexpr std::size_t shared_values_bytes(std::int64_t count) {
  return (static_cast<std::size_t>(count) * sizeof(T) + 3) / 4 * 4;
}

template <class Source, class Op, bool WarpPrivate>
__global__ void __launch_bounds__(1024) shared_memory_kernel(Source src, Op op, typename Op::value_type* dest,
                                                             int* dest_locks, std::int64_t num_bins, int M,
                                                             std::int64_t H_chk, int S) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  constexpr bool locked = xcg && !WarpPrivate;  // locks in shared memory
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* subs = reinterpret_cast<T*>(shared_bytes);
  int* locks = locked ? reinterpret_cast<int*>(shared_bytes + shared_values_bytes<T>(M * H_chk)) : nullptr;
  // Shared-memory offsets fit in 32 bits (a block has at most 227 KiB); 32-bit address arithmetic is cheaper.
  const int sub_offset = static_cast<int>((WarpPrivate ? threadIdx.x / 32 : threadIdx.x % M) * H_chk);
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const T identity = Op::identity();

  for (int pass = 0; pass < S; ++pass) {
    const std::int64_t lo = pass * H_chk;
    if (lo >= num_bins) break;
    const std::int64_t len = num_bins - lo < H_chk ? num_bins - lo : H_chk;
    for (std::int64_t i = threadIdx.x; i < M * H_chk; i += blockDim.x) {
      subs[i] = identity;
      if constexpr (locked) locks[i] = 0;
    }
    __syncthreads();
    auto update = [&](std::int64_t b, const T& v) {
      const int at = sub_offset + static_cast<int>(b);
      atomic_update<memory_level::shared>(op, subs + at, v, locked ? locks + at : nullptr);
    };
    if constexpr (WarpPrivate) {
      src.for_each_uniform(rank, threads, [&](bool valid, const bin_update<T>& u) {
        const std::int64_t b = u.bin - lo;
        const bool in_chunk = valid && static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
        warp_private_update(op, subs + sub_offset, in_chunk, b, len, u.value);
      });
    } else {
      src.for_each(rank, threads, [&](const bin_update<T>& u) {
        const std::int64_t b = u.bin - lo;
        const bool in_chunk = static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
        if constexpr (!use_warp_aggregation<Op, memory_level::shared>) {
          if (in_chunk) update(b, u.value);
        } else {
          if (in_chunk) warp_aggregated_update(op, b, len, u.value, update);
        }
      });
    }
    __syncthreads();
    // Fold the M copies. With fewer bins than threads, `ways` threads share each bin (thread t folds copies
    // t / len, t / len + ways, ...) and leave their partial results in copies 0 .. ways - 1: one thread per bin
    // folding all M copies would leave the block waiting on a chain of M loads (H = 31, M = 933).
    const int bins = static_cast<int>(len), stride = static_cast<int>(H_chk);
    const int per_bin = static_cast<int>(blockDim.x) / bins;  // 0 when there are more bins than threads
    const int ways = per_bin < 2 ? 1 : (per_bin < M ? per_bin : M);
    if (ways > 1) {
      const int b = static_cast<int>(threadIdx.x) % bins, part = static_cast<int>(threadIdx.x) / bins;
      T acc = identity;
      if (part < ways)
        for (int m = part; m < M; m += ways) acc = op(acc, subs[m * stride + b]);
      __syncthreads();
      if (part < ways) subs[part * stride + b] = acc;
      __syncthreads();
    }
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
      T acc = subs[b];
      for (int m = 1; m < (ways > 1 ? ways : M); ++m) acc = op(acc, subs[m * stride + b]);
      if (!bitwise_equal(acc, identity))
        atomic_update<memory_level::global>(op, dest + lo + b, acc, xcg ? dest_locks + lo + b : nullptr);
    }
    __syncthreads();
  }
}

}  // namespace ghist::detail
