// Warp aggregation of equal bins (seed 002 section 9.7): lanes of a warp that update the same bin fold their values
// first, and only one lane per bin touches memory. It turns a skewed input (all in one bin, Zipf) from 32
// serialised lock handovers per warp into one, but costs a match and a max-reduction for every input, hit or not
// (the lock class pays them only in the warps where a lock was taken: warp_aggregated_update).
//
// Where it pays (lent H100, 2026-11-21, N = 50M, seed 000's input; scripts/gpu_check.sh benchmark):
//  - the lock path (xcg), in shared and global memory: a skewed input otherwise serialises every update of a block
//    (or of the GPU) on one lock. All in one bin, H = 12288: 245 ms without it;
//  - every class in global memory: one bin hit by all 270K threads serialises in L2 (hdw one_bin H = 196608:
//    4457 us against 604 us uniform), and global updates are bound by L2 atomics, not by issue slots;
//  - cas in shared memory: no. The per-input match cost 2x on uniform input (H = 505: 419 -> 862 us), more than
//    its contention costs; a thread keeps a lost update in registers instead (deferred_cas.cuh), and the warp
//    aggregates only those kept updates, once per pass.
// Lanes whose input falls outside the current chunk do not take part (they skip the match).
#pragma once

#include <cstdint>
#include <cstring>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"

namespace ghist::detail {

template <class Op, memory_level Level>
inline constexpr bool use_warp_aggregation = atomic_class_of<Op> == atomic_class::xcg || Level == memory_level::global;

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

/// The lanes of `mask` fold the values of lanes that share a bin: returns true on one lane per distinct bin (the
/// lowest), whose `acc` then holds the fold of its group. `bins` bounds the valid bins (-1 marks "no update"); a
/// 32-bit Bin (a chunk's bin in shared memory) keeps the comparisons in 32 bits.
template <class Op, class Bin>
__device__ __forceinline__ bool fold_equal_bins(Op op, unsigned mask, Bin bin, Bin bins, typename Op::value_type& acc,
                                                unsigned min_group) {
  // The 32-bit match is the fast one; chunks of 2^32 - 1 bins or more need all 64 bits (a uniform branch).
  unsigned peers;
  if constexpr (sizeof(Bin) <= 4) peers = __match_any_sync(mask, static_cast<unsigned>(bin));
  else
    peers = bins < 0xffffffffll ? __match_any_sync(mask, static_cast<unsigned>(bin))
                                : __match_any_sync(mask, static_cast<unsigned long long>(bin));
  const unsigned largest = __reduce_max_sync(mask, static_cast<unsigned>(__popc(peers)));
  if (largest < min_group) return true;  // few collisions: every lane keeps its own value
  const int lane = threadIdx.x % 32;
  if (mask == 0xffffffffu && largest == 32) {
    // The whole warp on one bin (the all-in-one-bin and very sparse inputs): a butterfly, 5 rounds instead of 31.
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) acc = op(acc, shuffle_any(mask, acc, lane ^ offset));
    return lane == 0;
  }
  // A tree within each group, all groups at once: ceil(log2(largest)) rounds instead of largest - 1 (one bin hit by
  // the 31 lanes that lost a lock: 5 rounds, not 30). A lane's `partner` is the lane `span` places after it in its
  // group (32 + lane when there is none), found by pointer jumping: one 32-bit shuffle per round, no bit searches.
  // Lent H100, 2026-11-25, N = 50M, against the serial fold: seed 000's unpacked argmax at RF 63 (warp-private
  // plans) H = 127 / 24576 / 49152 901 / 2125 / 2114 -> 433 / 771 / 823 us; all in one bin (lock path) H = 127 / 2048
  // 802 / 1680 -> 520 / 1063 us (bench/results/2026-11-25-h100-xcg-full-treefold.txt, -skew-treefold.txt).
  const unsigned after = peers & ~((2u << lane) - 1u);  // the group's lanes above this one (2u << 31 wraps to 0)
  int partner = after != 0 ? __ffs(after) - 1 : 32 + lane;
  const int rank = __popc(peers & ((1u << lane) - 1u));  // this lane's place in its group
  for (unsigned span = 1; span < largest; span *= 2) {
    const auto v = shuffle_any(mask, acc, partner & 31);
    if ((rank & (2 * span - 1)) == 0 && partner < 32) acc = op(acc, v);
    const int partners_partner = __shfl_sync(mask, partner, partner & 31);
    if (partner < 32) partner = partners_partner;
  }
  return rank == 0;
}

/// Every active lane calls this with its bin (-1 for "no update", else below `bins`; with WordsPastBins, the lock
/// class also takes bins at or past `bins` for words that no other lane of the warp updates) and value; slot(bin)
/// says where the bin lives (bin_slot). For each distinct valid bin among the lanes (when some bin has
/// min_group_to_aggregate lanes or more), one lane updates it with the folded value; otherwise each lane updates its
/// own bin.
/// The lock class tries every lane's lock once first, and only the lanes that did not get theirs (a warp-mate or
/// another warp holds it) match and fold: a uniform input then pays a ballot per input, not a match and a
/// max-reduction, which cost as much as the lock itself (lent H100, 2026-11-25, N = 50M, seed 000's unpacked argmax,
/// auto plans, H = 2048 / 12288: 548 / 542 us with a match for every input, 252 / 235 us with the try first;
/// bench/results/2026-11-25-h100-experiment-lock-ordering.txt).
/// Measured and dropped (c1a4f97): after a failed try, every lane of the warp joins the match, the ones that had
/// updated with the identity, so that a one-bin warp folds in a 5-round butterfly: one bin 1.1-1.9x faster, but
/// uniform H <= 12288 15-40% slower (bench/results/2026-11-25-h100-check-c1a4f97.txt).
/// The lanes leave together: a lane that waits for a lock must not let its warp-mates run ahead into the next input,
/// where they would aggregate without it and spin beside it (one-bin inputs on the lock path took 235 ms at
/// H = 12288 on the lent H100 before this): __syncwarp, and for the lock class retries in rounds of the whole warp.
/// warp_aggregated_update_among: the same among the lanes of `mask`, the caller's __activemask() (run_carry.cuh's
/// send_run has it at hand).
template <memory_level Level, bool WordsPastBins = false, class Op, class Bin, class Slot>
__device__ __forceinline__ void warp_aggregated_update_among(unsigned mask, Op op, Bin bin, Bin bins,
                                                             typename Op::value_type value, Slot&& slot) {
  if constexpr (atomic_class_of<Op> == atomic_class::xcg) {
    bool pending = bin >= 0;
    if (pending) {
      const auto s = slot(bin);
      pending = !try_locked_update<Level>(op, s.value, value, s.lock, s.lock_bit);
    }
    const unsigned waiting = __ballot_sync(mask, pending);
    if (waiting == 0) return;
    if constexpr (WordsPastBins) {
      // A bin at or past `bins` is a word that no other lane of the warp updates (the lock class's shared slot
      // words, kernel_shared.cuh): its lane has nothing to fold and stays out of the match. Seed 000's unpacked
      // argmax at RF 63, H = 4096..16384, 2-3.5% faster with find's shortcut (hot_bins.cuh), where a lock failed in
      // ~35% of a warp's steps (lent H100, 2026-11-26, bench/results/2026-11-26-h100-xcg-slot-fold-ab.txt); the
      // plain lock kernels without slot words, 1-2% slower with the extra ballot, keep the one match.
      const bool may_share = pending && bin < bins;
      const unsigned sharing = __ballot_sync(mask, may_share);
      if (may_share) pending = fold_equal_bins(op, sharing, bin, bins, value, min_group_to_aggregate);
    } else {
      if (pending) pending = fold_equal_bins(op, waiting, bin, bins, value, min_group_to_aggregate);
    }
    // The group leaders retry in rounds that the whole warp takes together: a lane that holds a lock finishes its
    // section within the round, so no lane spins on a lock held by a warp-mate that the scheduler has set aside (a
    // plain spin loop here hung the benchmark at N = 50M on the lent H100, 2026-11-25, though not at 10M).
    while (__any_sync(mask, pending)) {
      if (pending) {
        const auto s = slot(bin);
        pending = !try_locked_update<Level>(op, s.value, value, s.lock, s.lock_bit);
      }
    }
    return;
  } else {
    if (fold_equal_bins(op, mask, bin, bins, value, min_group_to_aggregate) && bin >= 0) {
      const auto s = slot(bin);
      atomic_update<Level>(op, s.value, value, s.lock);
    }
  }
  __syncwarp(mask);
}

/// warp_aggregated_update_among the lanes active here.
template <memory_level Level, bool WordsPastBins = false, class Op, class Bin, class Slot>
__device__ __forceinline__ void warp_aggregated_update(Op op, Bin bin, Bin bins, typename Op::value_type value,
                                                       Slot&& slot) {
  warp_aggregated_update_among<Level, WordsPastBins>(__activemask(), op, bin, bins, value, slot);
}

/// A sub-histogram private to one warp, updated without atomics: the whole warp (all 32 lanes, converged, `valid`
/// false on lanes without an input) folds equal bins, then one lane per bin reads, combines and writes it. No other
/// warp touches `sub`, and the leaders of one step hold distinct bins; __syncwarp orders one step's writes before
/// the next step's reads.
template <class Op>
__device__ __forceinline__ void warp_private_update(Op op, typename Op::value_type* sub, bool valid, std::int64_t bin,
                                                    std::int64_t bins, typename Op::value_type value) {
  const std::int64_t key = valid ? bin : -1;
  if (fold_equal_bins(op, 0xffffffffu, key, bins, value, 1) && key >= 0) sub[key] = op(sub[key], value);
  __syncwarp();
}

}  // namespace ghist::detail
