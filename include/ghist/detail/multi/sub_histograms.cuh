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
  auto one = [&](std::int64_t at, const T& value) {
    atomic_update<Level>(op, bins + at, value, locks != nullptr ? locks + at : nullptr);
  };
  if constexpr (use_warp_aggregation<Op, Level>) warp_aggregated_update(op, b, num_bins, v, one);
  else one(b, v);
}

/// M copies of a num_bins-bin histogram at `base` in shared memory, laid out as region_bytes describes (values, then
/// the lock class's locks). Every member is called by the whole block.
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

  /// Copy `copy`'s bin b (+)= v, b in [0, num_bins).
  __device__ __forceinline__ void update(Op op, int copy, std::int64_t b, const T& v) const {
    const std::int64_t offset = static_cast<std::int64_t>(copy) * num_bins;
    update_bin<memory_level::shared>(op, values + offset, locked ? locks + offset : nullptr, b, num_bins, v);
  }

  /// dest[b] (+)= fold of the M copies of bin b, with the global atomic; bins still at the identity are skipped.
  __device__ void merge(Op op, T* dest, int* dest_locks) const {
    const T identity = Op::identity();
    for (std::int64_t b = threadIdx.x; b < num_bins; b += blockDim.x) {
      T acc = values[b];
      for (int m = 1; m < M; ++m) acc = op(acc, values[m * num_bins + b]);
      if (!bitwise_equal(acc, identity))
        atomic_update<memory_level::global>(op, dest + b, acc, locked ? dest_locks + b : nullptr);
    }
  }
};

}  // namespace ghist::detail::multi
