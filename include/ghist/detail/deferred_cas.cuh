// The compare-and-swap class in shared memory, with a thread's lost update deferred in registers.
//
// A hot bin (every input in one bin, the first ranks of a Zipf input) is one shared-memory word that many warps
// compare-and-swap at once. One wins per round trip; the others read again and retry, and the retries queue on the
// same word: on the lent H100 (2026-11-22, N = 50M, seed 000's 24-bit saturating add) all inputs in one bin took
// 106 ms at H = 24576 and Zipf(1.1) 125 ms at H = 1.5M, against 0.16-0.5 ms for uniform input.
//
// So a thread keeps one update in registers: an update whose compare-and-swap loses (another thread changed the
// word between the read and the swap) is kept instead of retried when the thread keeps nothing yet, later inputs of
// the same word fold into it without touching memory, and it is written at the end of the pass, where the warp first
// folds its kept updates of equal words (a hot word then takes one retry loop per warp). A loss while an update is
// kept retries at once from the value the swap returned, as the plain loop does. Same run, lent H100, us:
//   - one bin, RF = 63, H = 6144 / 24576: 36400 / 106700 -> 100 / 107; RF = 1, H = 505: 1142 -> 109;
//   - Zipf(1.1), RF = 1, H = 24576 / 1572864: 8898 / 126144 -> 2267 / 6246;
//   - uniform, RF = 1, H = 31 / 12288: 145 / 162 -> 108 / 146 (a lost update no longer waits for its retry);
//   - but uniform RF = 63 with 8 or more active bins per copy, H = 505 .. 49152 (shared memory): 546 -> 855: there
//     a thread's kept word comes back for one input in eight, and the warp splits between lanes that fold and lanes
//     that swap at every step. The planner leaves those plans the plain loop (plan::defer_lost_updates).
// Variants measured and dropped (same runs): two or four kept words (one compare per input each: RF = 1 12288
// 146 -> 177 us); keeping only after a second loss (uniform RF = 1 2-3x slower); branch-free selects around the hit
// (uniform 1.5-2x slower); a warp vote after each first try that folds the lanes that lost (uniform 2-3x slower).
// Warp-wide steps and extra branches in this latency-bound loop cost more than the contention they save.
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/warp_aggregate.cuh"

namespace ghist::detail {

/// The lanes of the calling thread's warp that exist (a block of B threads has a partial last warp when B % 32 != 0).
__device__ __forceinline__ unsigned existing_lanes_mask() {
  const unsigned first = threadIdx.x / 32 * 32;  // blocks are one-dimensional here
  const unsigned lanes = blockDim.x - first < 32 ? blockDim.x - first : 32;
  return lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
}

/// One per thread (kernels of the other classes may declare one and never call it).
template <class Op>
class deferred_cas_updater {
 public:
  using T = typename Op::value_type;

  __device__ explicit deferred_cas_updater(Op op) : op_(op), kept_(Op::identity()) {}

  /// words[at] (+)= v, now or at flush(). `words` is shared memory, the same array at every call.
  __device__ __forceinline__ void update(T* words, int at, const T& v) {
    static_assert(atomic_class_of<Op> == atomic_class::cas, "for the compare-and-swap class");
    if (at == kept_at_) {
      kept_ = op_(kept_, v);
      return;
    }
    W old;
    if (try_once(words, at, v, old) || keep(kept_at_, kept_, at, v)) return;
    retry(words, at, v, old);
  }

  /// update() with a second kept word, for the hot-bin loop (hot_bins.cuh): a lane's second lost compare-and-swap
  /// waits too instead of retrying at once, where lanes of a warp fall out of step (ncu on Zipf(1.1), H = 12288: 6 of
  /// 32 lanes active). Lent H200, 2026-11-26, same run: Zipf(1.1) 4-23% faster (H = 12288 RF 1 746 -> 671 us), one
  /// bin +8% (113 -> 123), uniform unchanged (bench/results/2026-11-25-h200-hot-bins-second-kept-word.txt). The plain
  /// loop keeps one word: there two cost uniform input 20% (the variants above); so do the loop over a slot per
  /// active bin that redirects its updates (kernel_shared.cuh, redirected_visit) and, since its own slot words left
  /// the compare-and-swap site, the sampled hot bins' loop for 32-bit values (two_site_visit).
  __device__ __forceinline__ void update2(T* words, int at, const T& v) {
    if (at == kept_at_) {
      kept_ = op_(kept_, v);
      return;
    }
    if (at == kept2_at_) {
      kept2_ = op_(kept2_, v);
      return;
    }
    W old;
    if (try_once(words, at, v, old) || keep(kept_at_, kept_, at, v) || keep(kept2_at_, kept2_, at, v)) return;
    retry(words, at, v, old);
  }

  /// Writes the second kept word (update2), then flush().
  __device__ __forceinline__ void flush2(T* words) {
    write_kept(words, kept2_at_, kept2_);
    flush(words);
  }

  /// Writes the kept update. Every existing lane of the warp calls it after its last update: the warp folds kept
  /// updates of equal words first.
  __device__ __forceinline__ void flush(T* words) { write_kept(words, kept_at_, kept_); }

 private:
  using W = word_t<T>;

  // One compare-and-swap from the word as read; true when it won. `old`: what the swap found. An 8-byte update that
  // changes nothing takes no swap (shared_cas_unless_equal): the packed argmax seldom changes a bin that has seen a
  // few inputs, and at RF 1 (uniform, H = 505..24576) it ran 0.75-0.85x the time, one bin 0.65-0.96x at H >= 196608
  // and sorted input 0.58-0.64x at H = 6144..24576. The 32-bit saturating add changes its bin far more often: there
  // the same test cost 1.01-1.04x on uniform input and 1.11-1.19x on Zipf(1.1) (lent H200, 2026-12-02, same run,
  // bench/results/2026-12-02-h200-unchanged-bins.txt).
  __device__ __forceinline__ bool try_once(T* words, int at, const T& v, W& old) const {
    W* word = reinterpret_cast<W*>(words + at);
    const W assumed = *reinterpret_cast<volatile W*>(word);
    const W desired = bit_cast_device<W>(op_(bit_cast_device<T>(assumed), v));
    if constexpr (sizeof(W) == 8) old = shared_cas_unless_equal(word, assumed, desired);
    else old = atomicCAS(word, assumed, desired);
    return old == assumed;
  }

  // Keeps a lost update in a kept word that is free; false when it is taken.
  __device__ __forceinline__ static bool keep(int& kept_at, T& kept, int at, const T& v) {
    if (kept_at >= 0) return false;
    kept_at = at;
    kept = v;
    return true;
  }

  // Writes one kept word and empties it: the warp's existing lanes fold their kept updates of equal words first.
  __device__ __forceinline__ void write_kept(T* words, int& kept_at, T& kept) {
    const unsigned mask = existing_lanes_mask();
    __syncwarp(mask);
    T v = kept;
    // Word indices are below 2^31 (shared memory): an int bin, the 32-bit match.
    if (fold_equal_bins(op_, mask, kept_at, 0x7fffffff, v, 1) && kept_at >= 0)
      atomic_update<memory_level::shared>(op_, words + kept_at, v, nullptr);
    kept_at = -1;
    kept = Op::identity();
  }

  // The plain loop from the value a lost swap returned.
  __device__ __forceinline__ void retry(T* words, int at, const T& v, W old) const {
    W* word = reinterpret_cast<W*>(words + at);
    W assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, bit_cast_device<W>(op_(bit_cast_device<T>(assumed), v)));
    } while (old != assumed);
  }

  Op op_;
  int kept_at_ = -1;  // the word of the kept update; -1: none
  T kept_;
  int kept2_at_ = -1;  // update2's second
  T kept2_ = Op::identity();
};

}  // namespace ghist::detail
