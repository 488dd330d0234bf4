// A thread's run of inputs that hit one bin, folded in registers before it reaches shared memory: the lock class
// (xcg) sends each update through a lock or a warp fold, and an input that falls all in one bin would pay that for
// every element while one update per run suffices. Only the change of bin sends the carried fold out.
// Used by shared_memory_kernel for the lock class and for warp-private copies. Lent H100, 2026-11-25, N = 50M, seed
// 000's unpacked argmax (bench/results/2026-11-25-h100-carry-everywhere.txt against -xcg-full-treefold.txt): all in
// one bin, H = 31..12288, 324-1288 -> 129-132 us; uniform RF 63 H = 31 (one active bin) 281 -> 132 us; the price,
// a compare per input and registers (the kernel's 32-register cap), uniform RF 1 H <= 12288 217-243 -> 243-272 us
// and Zipf(1.1) 0-12% slower. Not in the partitioned strategy's groups: there it took uniform RF 63 H = 24576 /
// 49152 from 771 / 823 to 1126 / 1149 us and Zipf(1.1) H = 24576 / 49152 from 1570 / 1732 to 2008 / 2251 us, for
// 20-30% on one bin.
#pragma once

#include <cstdint>

#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

/// A run that run_carry gives out: its bin (-1: none) and its fold.
template <class T, class Bin>
struct carried_run {
  Bin bin;
  T value;
};

/// `Bin`: the bins' type; an int where they are a chunk's bins or word indices in shared memory, so that the
/// compares per input stay 32-bit (the lock class's loop is bound by instruction issue).
template <class Op, class Bin = std::int64_t>
class run_carry {
 public:
  using T = typename Op::value_type;

  /// Takes the input (b, v), b < 0 for "none". Returns the update to send now: the carried run when b starts a new
  /// one, else an update with bin -1 (nothing to send).
  __device__ __forceinline__ carried_run<T, Bin> take(Op op, Bin b, const T& v) {
    if (b < 0) return {-1, v};
    if (b == bin_) {
      value_ = op(value_, v);
      return {-1, v};
    }
    const carried_run<T, Bin> out{bin_, value_};
    bin_ = b;
    value_ = v;
    return out;
  }

  /// The carried run (bin -1 when there is none), and the carry is empty again.
  __device__ __forceinline__ carried_run<T, Bin> drain() {
    const carried_run<T, Bin> out{bin_, value_};
    bin_ = -1;
    return out;
  }

 private:
  Bin bin_ = -1;
  T value_ = Op::identity();
};

/// Waits until every lane of this warp that the block has (its last warp may be partial: a block size override)
/// gets here. Before the last send of a run after the input loop: lanes that left the loop early would otherwise
/// take their lock-path update beside warp-mates still inside the loop's, two halves of one warp each spinning on
/// locks the other half may hold; on the lent H100 (2026-11-25) that hung one of the fixed plans of seed 000's
/// unpacked argmax at H = 49152, RF = 63 (the benchmark's sweep stopped there).
__device__ __forceinline__ void converge_block_warp() {
  const unsigned first = threadIdx.x - threadIdx.x % 32;
  const unsigned lanes = blockDim.x - first < 32 ? blockDim.x - first : 32;
  __syncwarp(lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u);
}

/// Sends a run that run_carry gave out (bin -1: none) through warp_aggregated_update, where `slot` places it. The
/// active lanes decide together: all of them call the update (the ones without a run pass bin -1) or none does, so
/// that the warp stays converged. Calling it only on the lanes with a run let the warp split at every input where
/// some lane went on with its run, and the halves then took each later update separately: uniform input, H = 31,
/// 217 -> 717 us (lent H100, 2026-11-25, seed 000's unpacked argmax, bench/results/2026-11-25-h100-carry-diverged.txt).
/// WordsPastBins: bins at or past `bins` are words no other lane of the warp updates (warp_aggregated_update).
template <bool WordsPastBins = false, class Op, class Bin, class Slot>
__device__ __forceinline__ void send_run(Op op, const carried_run<typename Op::value_type, Bin>& run, Bin bins,
                                         Slot&& slot) {
  const unsigned mask = __activemask();
  if (!__any_sync(mask, run.bin >= 0)) return;
  if constexpr (WordsPastBins)  // the mask at hand (one vote less per input in the kernel with shared slot words)
    warp_aggregated_update_among<memory_level::shared, WordsPastBins>(mask, op, run.bin, bins, run.value, slot);
  else
    warp_aggregated_update<memory_level::shared>(op, run.bin, bins, run.value, slot);
}

}  // namespace ghist::detail
