// Warp aggregation of equal bins (seed 002 section 9.7): lanes of a warp that update the same bin fold their values
// first, and only one lane per bin touches memory. It turns a skewed input (all in one bin, Zipf) from 32
// serialised lock handovers per warp into one, but costs a match and a max-reduction for every input, hit or not.
//
// Where it pays (lent H100, 2026-11-21, N = 50M, seed 000's input; scripts/gpu_check.sh benchmark):
//  - lock path (xcg) in global memory: yes. Without it, a skewed input serialises every update on one L2 lock
//    (the all-in-one-bin GPU tests took minutes);
//  - cas, and xcg in shared memory: no, for now. The per-input match cost 2x on uniform input (CAS H = 505:
//    419 -> 862 us; XCG H = 49152 with S = 6 passes pays it 6 times: 7570 -> 23056 us), more than contention costs.
//    A cheaper trigger is work for the speed issue.
#pragma once

#include <cstdint>
#include <cstring>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"

namespace ghist::detail {

template <class Op, memory_level Level>
inline constexpr bool use_warp_aggregation = atomic_class_of<Op> == atomic_class::xcg && Level == memory_level::global;

/// Aggregate only when some bin is shared by at least this many lanes of the warp. Below it, the shuffles cost more
/// than the collisions they save: on the lent H100 (2026-11-21, N = 50M, seed 000's input) aggregating every
/// duplicate pair doubled CAS saturating add at H = 505, RF = 1 (419 -> 963 us), where most warps have one pair.
inline constexpr unsigned min_group_to_aggregate = 4;

/// __shfl_sync for any trivially copyable T, word by word.
template <class T>
__device__ __forceinline__ T shuffle_any(unsigned mask, const T& value, int src_lane) {
  constexpr int words = (sizeof(T) + 3) / 4;
  std::uint32_t w[words];
  w[words - 1] = 0;
  memcpy(w, &value, sizeof(T));
#pragma unroll
  for (int k = 0; k < words; ++k) w[k] = __shfl_sync(mask, w[k], src_lane);
  T out;
  memcpy(&out, w, sizeof(T));
  return out;
}

/// Every active lane calls this with its bin (-1 for "no update", else below `bins`) and value; for each distinct
/// valid bin among the lanes, one lane calls update(bin, folded value).
template <class Op, class Update>
__device__ __forceinline__ void warp_aggregated_update(Op op, std::int64_t bin, std::int64_t bins,
                                                       typename Op::value_type value, Update&& update) {
  const unsigned mask = __activemask();
  // The 32-bit match is the fast one; chunks of 2^32 - 1 bins or more need all 64 bits (a uniform branch).
  const unsigned peers = bins < 0xffffffffll ? __match_any_sync(mask, static_cast<unsigned>(bin))
                                             : __match_any_sync(mask, static_cast<unsigned long long>(bin));
  const unsigned group_size = __popc(peers);
  const unsigned largest = __reduce_max_sync(mask, group_size);
  if (largest < min_group_to_aggregate) {  // few collisions: each lane updates on its own
    if (bin >= 0) update(bin, value);
    return;
  }
  const int lane = threadIdx.x % 32;
  const bool leader = (__ffs(peers) - 1) == lane;
  unsigned remaining = peers & ~(1u << lane);  // for the leader: the other lanes of its group, in lane order
  typename Op::value_type acc = value;
  for (unsigned round = 1; round < largest; ++round) {
    const int src = remaining != 0 ? __ffs(remaining) - 1 : lane;
    remaining &= remaining - 1;
    const auto v = shuffle_any(mask, value, src);
    if (leader && src != lane) acc = op(acc, v);
  }
  if (leader && bin >= 0) update(bin, acc);
}

}  // namespace ghist::detail
