// The global-memory strategy (seed 000 III-D): M sub-histograms of one chunk of H_chk bins in global memory, sized
// to stay in L2; C consecutive threads share one (blocked mapping, as seed 000's code). One launch per chunk; with
// M == 1 the sub-histogram is the destination itself.
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

template <class Source, class Op>
__global__ void global_memory_kernel(Source src, Op op, typename Op::value_type* subs, int* locks, std::int64_t stride,
                                     std::int64_t lo, std::int64_t len, std::int64_t C) {
  using T = typename Op::value_type;
  constexpr bool locked = atomic_class_of<Op> == atomic_class::xcg;
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t sub_offset = (rank / C) * stride;
  auto slot = [&](std::int64_t b) {
    return bin_slot<T>{subs + sub_offset + b, locked ? locks + sub_offset + b : nullptr};
  };
  src.for_each(rank, threads, [&](const bin_update<T>& u) {
    const std::int64_t b = u.bin - lo;
    const bool in_chunk = static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
    if constexpr (!use_warp_aggregation<Op, memory_level::global>) {
      if (in_chunk) atomic_update<memory_level::global>(op, slot(b), u.value);
    } else {
      if (in_chunk) warp_aggregated_update<memory_level::global>(op, b, len, u.value, slot);
    }
  });
}

}  // namespace ghist::detail
