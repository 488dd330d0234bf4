// The hardware-atomic class's shared-memory plan in one pass (S = 1, copies updated by the block's threads, merged
// with global atomics): the plain histogram of up to a block's shared memory of bins, the commonest call there is.
//
// Why a kernel of its own: shared_memory_kernel serves every class and plan, and its loop compares each input's bin
// minus the pass's start with the pass's length in 64-bit arithmetic. Here the bin is compared with num_bins as a
// 32-bit parameter, so that for a bin function whose bins are 32-bit values the compiler compares in 32 bits; nothing
// else is in the loop but the load, the bin function and the shared atomic. A bare kernel of this shape
// (bench/experiments/hdw_loop_cost_probe.cu, lent H200, 2026-11-28) ran seed 000's HDW 2-3 us faster than the same
// kernel with shared_memory_kernel's 64-bit chunk check, and ghist's calls through shared_memory_kernel trailed it by
// 4-6 us (H = 2048..12288, RF 1 and 63; floor ~52 us): bench/results/2026-11-28-h200-hdw-one-pass.txt.
#pragma once

#include <cstdint>

#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/kernel_shared.cuh"
#include "ghist/detail/overwrite_gate.cuh"
#include "ghist/plan.hpp"
#include "ghist/update.hpp"

namespace ghist::detail {

/// M copies of num_bins bins (copy_stride apart; shared_copy_stride) in dynamic shared memory, thread t updating copy
/// t % M; then the fold and merge of shared_memory_kernel (fold_and_merge_copies). Gated: an overwrite call's fill of
/// dest by the first block to reach its merge (overwrite_gate.cuh).
template <class Source, class Op, bool Gated>
__global__ void __launch_bounds__(1024, shared_kernel_min_blocks_per_sm)
    hdw_one_pass_kernel(Source src, Op op, typename Op::value_type* dest, overwrite_gate gate, unsigned num_bins,
                        int M, int copy_stride) {
  using T = typename Op::value_type;
  static_assert(atomic_class_of<Op> == atomic_class::hdw, "the one-pass kernel is the hardware-atomic class's");
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* subs = reinterpret_cast<T*>(shared_bytes);
  const T identity = Op::identity();
  for (int i = threadIdx.x; i < M * copy_stride; i += blockDim.x) subs[i] = identity;
  __syncthreads();
  T* copy = subs + static_cast<int>(threadIdx.x) % M * copy_stride;
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  src.for_each(rank, threads, [&](const bin_update<T>& u) {
    // Exact for any 64-bit bin (a negative one wraps past num_bins); 32-bit where the bin function's bins are.
    if (static_cast<std::uint64_t>(u.bin) < std::uint64_t{num_bins})
      atomic_update<memory_level::shared>(op, bin_slot<T>{copy + static_cast<int>(u.bin), nullptr}, u.value);
  });
  __syncthreads();
  if constexpr (Gated) pass_overwrite_gate(gate, dest, num_bins, identity);
  fold_and_merge_copies(op, subs, M, copy_stride, static_cast<int>(num_bins), dest, nullptr, nullptr, num_bins, 0);
}

}  // namespace ghist::detail
