// The device side of the overwrite gate (overwrite_gate.hpp says why and how).
#pragma once

#include <cstdint>

#include "ghist/detail/overwrite_gate.hpp"

namespace ghist::detail {

/// Called by every thread of every block before the block's first merge into dest, whether or not the block has
/// anything to merge. With a gate, the first block to arrive fills dest[0, num_bins) with `identity` and opens the
/// gate; the others wait until it is open (a block that arrives later: one load). Without one, returns at once.
/// Measured and dropped: the fill claimed at the start of the kernel by each block's first warp, the winning warp
/// filling while the others read their input (experiments 2 and 3 in bench/results/2026-11-26-h100-overwrite-gate.txt):
/// up to 5% slower than the memset (H = 31: +3.3 us), the claim's atomic holding up every block's first warp.
template <class T>
__device__ void pass_overwrite_gate(const overwrite_gate& gate, T* dest, std::int64_t num_bins, const T& identity) {
  if (gate.words == nullptr) return;
  const volatile unsigned long long* open = gate.words + 1;
  bool fills = false;
  if (threadIdx.x == 0 && *open != gate.ticket) fills = atomicExch(gate.words, gate.ticket) != gate.ticket;
  if (__syncthreads_or(fills)) {
    for (std::int64_t i = threadIdx.x; i < num_bins; i += blockDim.x) dest[i] = identity;
    __threadfence();  // the fill is visible to the whole GPU before the gate opens
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(gate.words + 1, gate.ticket);
  } else {
    if (threadIdx.x == 0) {
      while (*open != gate.ticket) __nanosleep(64);
      __threadfence();  // the block's merges come after the fill it saw opened
    }
    __syncthreads();
  }
}

}  // namespace ghist::detail
