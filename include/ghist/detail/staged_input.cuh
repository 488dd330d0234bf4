// Staged input (plan::staged_input): a block's input arrives in shared memory through the SM's bulk-copy engine
// (Hopper's cp.async.bulk: one instruction moves a whole tile, with no load-store traffic per vector), asked for by
// one lane of the block's last warp, while the other warps only update.
//
// Why: the compare-and-swap class's loop in shared memory is bound by the SM's load-store path (two shared
// operations per input on random words, with bank conflicts), and the input's global loads issued by the same
// threads queue behind the swaps there: seed 000's saturating add at RF 1, H = 12288, one copy per block, took 134 us
// with one vector prefetched in registers (ghist's for_each_prefetched), 152 with two, 173-211 with cp.async rings,
// against a read floor of ~72 us. With the bulk-copy engine filling a ring of 2 / 3 / 4 tiles it took 120 / 116 / 115
// us, and the ring alone read at 74-77 us (lent H100, 2026-11-26, bench/experiments/cas_bulk_copy_probe.cu,
// bench/results/2026-11-26-h100-experiment-cas-bulk-copy.txt).
//
// The ring: staged_input_stages tiles of one 16-byte vector per updating thread, each with two mbarriers: `full`
// completes when the tile's bytes have landed (the producer arrives with the byte count, the copy completes the
// transaction), `empty` when every updating warp has read its vectors (one arrival per warp). The block's tiles go
// through the stages in turn; both sides keep the stage and the parity of its next phase, across the passes of a
// multi-pass plan.
//
// Measured and dropped: a ring per warp, each warp's first lane asking for the warp's own 512-byte tiles (no warp
// waits for the slowest to free a stage): seed 000's saturating add at RF 1, H = 505..24576, 7-25% slower than
// without staging (a tile's bookkeeping every 4 inputs per lane, and spills at 32 registers), where one ring per
// block was 3% faster; the packed argmax gained alike with both (lent H100, 2026-11-26,
// bench/results/2026-11-26-h100-staged-input-ab.txt). Also dropped: updating warps that claim the ring's chunks of 32
// vectors through a counter in shared memory instead of a vector each per tile, 8-19% slower everywhere (RF 1 and
// the slots per active bin; bench/results/2026-11-26-h100-staged-active-bins-ab.txt, table 5).
#pragma once

#include <cstdint>

#include "ghist/plan.hpp"

namespace ghist::detail {

// The bulk-copy engine and mbarriers exist from compute capability 9.0; the planner only stages input there
// (device_info::compute_capability), and a kernel compiled for an older architecture reads its input as before.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GHIST_STAGED_INPUT 1
#else
#define GHIST_STAGED_INPUT 0
#endif

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// The block's dynamic shared memory in bytes (the launch's), which a ring placed at its end needs.
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned size;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
  return size;
}

#if GHIST_STAGED_INPUT
// mbarrier and bulk-copy operations on 32-bit shared-memory addresses (shared_address).
__device__ __forceinline__ void mbarrier_init(unsigned barrier, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(arrivals) : "memory");
}
// Visible to the bulk-copy engine (the async proxy) before its first copy completes a transaction on them.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(unsigned barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier) : "memory");
}
// Waits for the phase of parity `parity` to complete. With the suspend-time hint (ns) a warp sleeps between its tries
// (NANOSLEEP.SYNCS) instead of retrying at once; under ncu the updating warps still tried ~13 times per tile they
// waited for (seed 000's saturating add at RF 1, H = 12288), and the hint changed no time measurably (A/B table 4 of
// bench/results/2026-11-26-h100-staged-input-ab.txt). It stays: it costs nothing.
__device__ __forceinline__ void mbarrier_wait(unsigned barrier, unsigned parity) {
  constexpr unsigned suspend_ns = 1000000;
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(barrier), "r"(parity), "r"(suspend_ns)
        : "memory");
  } while (!done);
}
// Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to shared memory and completes that
// many bytes of the transaction on `full`.
__device__ __forceinline__ void bulk_copy_to_shared(unsigned to, const void* from, unsigned bytes, unsigned full) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(to),
               "l"(from), "r"(bytes), "r"(full)
               : "memory");
}
#endif

/// A block's ring (plan::staged_input), laid out by staged_ring_bytes at staged_ring_offset of its shared memory:
/// the tiles, then the `full` barriers, then the `empty` ones. Addresses are 32-bit shared-memory addresses.
static_assert(staged_input_stages >= 2 && staged_input_stages <= 32, "a stage's phase parity is a bit of a word");
struct staged_ring {
  const uint4* vector;  // this thread's vector in stage 0 (stage s: + s * updaters)
  unsigned tiles_at;    // stage 0's tile
  unsigned full_at;     // stage 0's `full` barrier (stage s: + 8 s)
  unsigned empty_at;    // stage 0's `empty` barrier
  int updaters;         // blockDim.x - 32: the last warp asks for the tiles
  int stage = 0;        // the stage of the block's next tile
  unsigned phases = 0;  // bit s: the parity of stage s's next phase

  __device__ staged_ring(unsigned char* at, int block) : updaters(block - 32) {
    const uint4* tiles = reinterpret_cast<const uint4*>(at);
    vector = tiles + threadIdx.x;
    tiles_at = shared_address(tiles);
    full_at = tiles_at + static_cast<unsigned>(staged_input_stages * updaters) * 16u;
    empty_at = full_at + 8u * staged_input_stages;
  }

  /// The block's first thread, once, before a __syncthreads that precedes the first walk.
  __device__ void init() const {
#if GHIST_STAGED_INPUT
    for (int s = 0; s < staged_input_stages; ++s) {
      mbarrier_init(full_at + 8u * s, 1);
      mbarrier_init(empty_at + 8u * s, static_cast<unsigned>(updaters / 32));
    }
    mbarrier_init_fence();
#endif
  }

  __device__ __forceinline__ bool updates() const { return static_cast<int>(threadIdx.x) < updaters; }
};

}  // namespace ghist::detail
