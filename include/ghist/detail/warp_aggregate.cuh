// Warp aggregation of equal bins (seed 002 section 9.7): lanes of a warp that update the same bin fold their values
// first, and only one lane per bin touches memory. It turns a skewed input (all in one bin, Zipf) from 32
// serialised CAS retries or lock handovers per warp into one, and costs a match and a max-reduction when a warp has
// no duplicates. Used for the cas and xcg classes, whose contended updates cost far more than the aggregation.
#pragma once

#include <cstdint>
#include <cstring>

namespace ghist::detail {

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

/// Every active lane calls this with its bin (any negative key for "no update") and value; for each distinct valid
/// bin among the lanes, one lane calls update(bin, folded value). Must be called by all lanes that reach it together.
template <class Op, class Update>
__device__ __forceinline__ void warp_aggregated_update(Op op, std::int64_t bin, typename Op::value_type value,
                                                       Update&& update) {
  const unsigned mask = __activemask();
  const unsigned peers = __match_any_sync(mask, static_cast<unsigned long long>(bin));
  const unsigned group_size = __popc(peers);
  const unsigned largest = __reduce_max_sync(mask, group_size);
  if (largest == 1) {  // no two lanes share a bin: update directly
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
