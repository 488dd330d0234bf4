// Pieces the fused, batched and vector-valued kernels share: M copies of one histogram in a block's shared memory
// (initialise, update, merge into the destination) and one update of a bin with the operator's atomic class,
// warp-aggregated where the engine aggregates (warp_aggregate.cuh says where that pays).
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/multi/multi_plan.hpp"
#include "ghist/detail/warp_aggregate.cuh"

namespace ghist::detail::multi {

/// bins[b] (+)= v at memory level Level, b already known to be in [0, num_bins); locks: the lock class's per-bin
/// locks (else unused). Lanes of a warp that share a bin fold first where use_warp_aggregation says so.
template <memory_level Level, class Op>
__device__ __forceinline__ void update_bin(Op op, typename Op::value_type* bins, int* locks, std::int64_t b,
                                          std::int64_t num_bins, const typename Op::value_type& v) {
  using T = typename Op::value_type;
  auto slot = [&](std::int64_t at) { return bin_slot<T>{bins + at, locks != nullptr ? locks + at : nullptr}; };
  if constexpr (use_warp_aggregation<Op, Level>) {
    warp_aggregated_update<Level>(op, b, num_bins, v, slot);
  } else {
    atomic_update<Level>(op, slot(b), v);
  }
}

/// M copies of a num_bins-bin histogram at `base` in shared memory, copy-major (bin b of copy c at c * num_bins + b),
/// followed (lock class) by the locks in the same order (region_bytes gives the size); thread t uses copy t % M.
/// A bin-interleaved layout (b * M + c, M a multiple of 32, a bank per lane) was slower on the lent H200
/// (2026-11-21, fused k = 2 over 20M words: 58 us against 49 us; tpacf batched 135 us against 91 us), so the
/// engine's layout stays. Every member is called by the whole block.
template <class Op>
struct block_copies {
  using T = typename Op::value_type;
  static constexpr bool locked = atomic_class_of<Op> == atomic_class::xcg;
  T* values;
  int* locks;
  int M;
  std::int64_t num_bins;

  __device__ static block_copies at(unsigned char* base, int M, std::int64_t num_bins) {
    const std::size_t value_bytes = static_cast<std::size_t>(M) * static_cast<std::size_t>(num_bins) * sizeof(T);
    int* locks = locked ? reinterpret_cast<int*>(base + (value_bytes + lock_bytes - 1) / lock_bytes * lock_bytes)
                        : nullptr;
    return {reinterpret_cast<T*>(base), locks, M, num_bins};
  }

  __device__ void init() const {
    const T identity = Op::identity();
    const std::int64_t count = static_cast<std::int64_t>(M) * num_bins;
    for (std::int64_t i = threadIdx.x; i < count; i += blockDim.x) {
      values[i] = identity;
      if constexpr (locked) locks[i] = 0;
    }
  }

  /// Copy `copy`'s bin b (+)= v, b in [0, num_bins). Shared offsets fit in 32 bits (a block has at most 227 KiB),
  /// and 32-bit address arithmetic is cheaper.
  __device__ __forceinline__ void update(Op op, int copy, std::int64_t b, const T& v) const {
    const int offset = copy * static_cast<int>(num_bins);
    auto slot = [&](std::int64_t bin) {
      const int at = offset + static_cast<int>(bin);
      return bin_slot<T>{values + at, locked ? locks + at : nullptr};
    };
    if constexpr (use_warp_aggregation<Op, memory_level::shared>) {
      warp_aggregated_update<memory_level::shared>(op, b, num_bins, v, slot);
    } else {
      atomic_update<memory_level::shared>(op, slot(b), v);
    }
  }

  /// dest[b] (+)= fold of the M copies of bin b, with the global atomic; bins still at the identity are skipped.
  /// The copies are folded pairwise first, every thread taking part (log2 M rounds over contiguous halves): folding
  /// M copies bin by bin leaves all but num_bins threads idle for M steps, 1024 steps for tpacf's 22 bins.
  /// Ends with __syncthreads (the copies may be reused right after).
  __device__ void merge(Op op, T* dest, int* dest_locks) const {
    const int H = static_cast<int>(num_bins);
    for (int m = M; m > 1;) {
      const int half = (m + 1) / 2;  // copies [half, m) fold into [0, m - half)
      for (int i = threadIdx.x; i < (m - half) * H; i += blockDim.x) values[i] = op(values[i], values[i + half * H]);
      __syncthreads();
      m = half;
    }
    const T identity = Op::identity();
    for (int b = threadIdx.x; b < H; b += blockDim.x) {
      const T acc = values[b];
      if (!bitwise_equal(acc, identity))
        atomic_update<memory_level::global>(op, dest + b, acc, locked ? dest_locks + b : nullptr);
    }
    __syncthreads();
  }
};

}  // namespace ghist::detail::multi
