// The shared-memory strategy (seed 000 III-C): each block keeps M sub-histograms of one chunk of H_chk bins in
// shared memory, thread t updating sub-histogram t % M (strided, so neighbouring threads rarely collide), and makes
// S passes over its part of the input, one per chunk. After each pass the block folds its M copies and merges the
// result into the destination with the operator's global atomic, skipping bins that still hold the identity, or,
// when `rows` is given, writes it to its row of a grid x num_bins array that merge_rows_kernel then folds into the
// destination. The compare-and-swap and lock classes take the rows: hundreds of blocks finishing together and
// retrying compare-and-swaps on the same bins (or queueing on their locks) cost more than the whole input pass (lent
// H100, 2026-11-22, seed 000's saturating add, H = 12288: 646 us with atomic merges, 148 us with rows).
//
// Who updates a sub-histogram (copy_owner): C threads of the block with atomics or locks (seed 000's layout); one
// warp (plan::warp_private), M = warps per block: the warp walks its inputs in lockstep, folds lanes with equal bins,
// and one lane per bin updates with a plain read-modify-write, no atomics and no locks (the lock class when a copy
// per warp fits, and 32-bit compare-and-swap at a high RF); or one thread (plan::thread_private), M = block: a plain
// read-modify-write per input, for small H in the compare-and-swap and lock classes. The deferring compare-and-swap
// loop and the lock class's locked copies may also take a pass's hottest bins off the copies (plan::hot_slots,
// hot_bins.cuh).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/deferred_cas.cuh"
#include "ghist/detail/hot_bins.cuh"
#include "ghist/detail/overwrite_gate.cuh"
#include "ghist/detail/run_carry.cuh"
#include "ghist/detail/staged_input.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/plan.hpp"
#include "ghist/update.hpp"

namespace ghist::detail {

/// Bytes of the value part of the shared layout, rounded so that the xcg locks placed after it are aligned.
template <class T>
__host__ __device__ constexpr std::size_t shared_values_bytes(std::int64_t count) {
  return (static_cast<std::size_t>(count) * sizeof(T) + 3) / 4 * 4;
}

/// Bytes of `count` locked copies in shared memory: the values, then an int lock each (the lock queue starts after).
template <class T>
__host__ __device__ constexpr std::size_t locked_copies_bytes(std::int64_t count) {
  return shared_values_bytes<T>(count) + static_cast<std::size_t>(count) * sizeof(int);
}

// Two blocks of 1024 threads per SM, as the planner's grids assume (plan::grid = 2 x SMs): at most 32 registers. Left
// to itself ptxas gave the lock class's kernel 51 once it carried runs (run_carry.cuh), and the packed argmax's 44,
// so only one block fitted and the second half of the grid ran as a second wave.
// Except 64-bit compare-and-swap that keeps lost updates (DeferLost): at 32 registers it spills (60 bytes), and with
// its 56 registers (one block per SM) it ran faster at small H. Lent H100, 2026-11-25, ghist_bench --quick, the packed
// argmax, us, cap -> no cap: RF 1 H = 31 / 505 / 2048 / 12288 215.5 / 214.8 / 219.6 / 217.7 -> 178.6 / 206.8 / 220.9 /
// 221.6; RF 63 H = 31 161.2 -> 146.4, the rest within 1%. The 32-bit saturating add lost without the cap (RF 1
// H = 505..12288 134-143 -> 164-178 us), so it keeps it
// (bench/results/2026-11-25-h100-experiment-deferred-cas-registers.txt).
inline constexpr int shared_kernel_min_blocks_per_sm = 2;
template <class Op, bool DeferLost>
inline constexpr int shared_kernel_min_blocks =
    DeferLost && sizeof(typename Op::value_type) == 8 ? 1 : shared_kernel_min_blocks_per_sm;
enum class copy_owner { threads, warp, thread };
// Thread-private plans run blocks of at most thread_private_max_block threads (plan.hpp): 64 registers.
template <copy_owner Owner>
inline constexpr int shared_kernel_max_block = Owner == copy_owner::thread ? thread_private_max_block : 1024;

/// The end of a block's pass over bins [lo, lo + bins): folds its M copies (copy_stride apart in subs) and merges
/// the result into dest with the operator's global atomic, skipping bins that hold the identity, or writes it to the
/// block's row of `rows` (a grid x num_bins array) when rows is given. The caller has synchronised the block after
/// its last update.
/// With fewer bins than threads, `ways` threads share each bin (thread t folds copies t / bins, t / bins + ways, ...)
/// and leave their partial results in copies 0 .. ways - 1: one thread per bin folding all M copies would leave the
/// block waiting on a chain of M loads (H = 31, M = 933).
template <class Op>
__device__ __forceinline__ void fold_and_merge_copies(Op op, typename Op::value_type* subs, int M, int copy_stride,
                                                      int bins, typename Op::value_type* dest, int* dest_locks,
                                                      typename Op::value_type* rows, std::int64_t num_bins,
                                                      std::int64_t lo) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  const T identity = Op::identity();
  const int per_bin = static_cast<int>(blockDim.x) / bins;  // 0 when there are more bins than threads
  const int ways = per_bin < 2 ? 1 : (per_bin < M ? per_bin : M);
  if (ways > 1) {
    const int b = static_cast<int>(threadIdx.x) % bins, part = static_cast<int>(threadIdx.x) / bins;
    T acc = identity;
    if (part < ways)
      for (int m = part; m < M; m += ways) acc = op(acc, subs[m * copy_stride + b]);
    __syncthreads();
    if (part < ways) subs[part * copy_stride + b] = acc;
    __syncthreads();
  }
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    T acc = subs[b];
    for (int m = 1; m < (ways > 1 ? ways : M); ++m) acc = op(acc, subs[m * copy_stride + b]);
    if (rows != nullptr) rows[blockIdx.x * num_bins + lo + b] = acc;
    else if (!bitwise_equal(acc, identity))
      atomic_update<memory_level::global>(op, dest + lo + b, acc, xcg ? dest_locks + lo + b : nullptr);
  }
}

// HotBins (with DeferLost, or the lock class with one copy and a slot per active bin): each pass samples its input and
// takes up to `hot_slots` hot bins off the copies into slots per thread, the next ones into replicas per lane
// (plan::hot_slots, hot_bins.cuh); the lock class's sampled hot bins (SharedSlotWords without ActiveBins) take slots of
// shared words under bit locks (hot_bins.cuh, pick_lock_words). ActiveBins (with HotBins: plan::hot_active_bins, one
// block per SM): a slot for every sampled bin, `active_samples` inputs sampled per thread; compiled for one block per
// SM (64 registers: at 32 the loop spilled). SharedSlotWords (with ActiveBins: plan::hot_shared_words, or the lock
// class's sampled hot bins): a slot's words may be shared by several threads (compare-and-swap, or the lock class's bit
// locks). Staged (with DeferLost: plan::staged_input): the input comes through a ring of tiles in shared memory
// (staged_input.cuh), after the copies or, with ActiveBins (whose slots take the room after the copy), at the end of
// the block's shared memory, before which the hot-bin table sits. Gated (the hardware-atomic class's overwrite calls
// with an overwrite_gate): the block that reaches its merge first fills dest (overwrite_gate.cuh). Its own instance:
// with the gate's code merely present (never taken), ptxas's code for the merge took seed 000's HDW RF 1 at H = 12288 /
// 24576 from 82.5 / 86.6 to 88.8 / 94.8 us (lent H100, 2026-11-26, bench/results/2026-11-26-h100-overwrite-gate.txt).
template <class Source, class Op, copy_owner Owner, bool DeferLost = false, bool HotBins = false,
          bool ActiveBins = false, bool SharedSlotWords = false, bool Staged = false, bool Gated = false>
__global__ void __launch_bounds__(shared_kernel_max_block<Owner>,
                                  (ActiveBins ? 1 : shared_kernel_min_blocks<Op, DeferLost>))
    shared_memory_kernel(Source src, Op op, typename Op::value_type* dest, int* dest_locks,
                         typename Op::value_type* rows, overwrite_gate gate, std::int64_t num_bins, int M,
                         std::int64_t H_chk, int S, int hot_slots, int active_samples,
                         const typename Op::value_type* seed) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  constexpr bool WarpPrivate = Owner == copy_owner::warp;
  constexpr bool locked = xcg && Owner == copy_owner::threads;  // locks in shared memory
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  // Copies lie `stride` bins apart (shared_copy_stride: odd, so that the copies of a bin use different banks);
  // warp-private copies are H_chk apart (each warp only touches its own, so banks do not matter across them).
  // Thread-private copies keep the odd stride: lanes of a warp on one bin then hit different banks.
  const std::int64_t stride = WarpPrivate ? H_chk : shared_copy_stride(H_chk, M);
  T* subs = reinterpret_cast<T*>(shared_bytes);
  // The lock class's locks: one bit per bin, 32 to a word (try_lock_bit in atomic_update.cuh), after the values.
  int* locks = locked ? reinterpret_cast<int*>(shared_bytes + shared_values_bytes<T>(M * stride)) : nullptr;
  const std::int64_t lock_words = locked ? (M * stride + 31) / 32 : 0;
  // Shared-memory offsets fit in 32 bits (a block has at most 227 KiB); 32-bit address arithmetic is cheaper.
  // Thread-private plans have M = block: thread t owns copy t.
  int sub_offset = static_cast<int>((WarpPrivate ? threadIdx.x / 32 : threadIdx.x % M) * stride);
  const int plan_M = M;  // HotBins: a pass may keep fewer copies (M) to make room for its hot bins
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const T identity = Op::identity();
  constexpr bool defer = atomic_class_of<Op> == atomic_class::cas && DeferLost;
  deferred_cas_updater<Op> deferred(op);  // DeferLost: a lost update waits in registers (deferred_cas.cuh)
  static_assert(!HotBins || ((defer || locked) && sizeof(T) >= 4),
                "hot-bin slots go with the deferring compare-and-swap loop or the lock class's locks");
  static_assert(!Gated || (atomic_class_of<Op> == atomic_class::hdw && Owner == copy_owner::threads && !HotBins),
                "the overwrite gate goes with the hardware-atomic class's plain loop");
  static_assert(!Staged || (defer && (!HotBins || ActiveBins) && Owner == copy_owner::threads),
                "staged input goes with the deferring compare-and-swap loop, without hot-bin slots or with a slot per "
                "active bin");
  constexpr bool ring_at_end = Staged && ActiveBins;
  const unsigned ring_end_bytes = ring_at_end ? static_cast<unsigned>(staged_ring_bytes(blockDim.x)) : 0u;
  staged_ring ring(shared_bytes + (ring_at_end ? dynamic_shared_bytes() - ring_end_bytes
                                               : staged_ring_offset(shared_values_bytes<T>(M * stride))),
                   static_cast<int>(blockDim.x));
  if (Staged && threadIdx.x == 0) ring.init();  // the first pass's __syncthreads below publishes the barriers
  // HotBins: a bin gets a slot with half a sampled hit per copy, a replica with a quarter (each copy has blockDim / M
  // threads: about hits / M of them on the bin at once), and at least hot_bin_slot_min_hits / _lane_min_hits; where
  // room is left, a replica with hot_bin_weak_min_hits.
  // ActiveBins (plan::hot_active_bins, a told RF over few active bins): every bin of a larger sample, and
  // (SharedSlotWords) a slot's words shared among threads where a word per thread does not fit.
  constexpr bool active = ActiveBins;
  static_assert(ActiveBins || !SharedSlotWords || locked,
                "shared slot words go with a slot per active bin, or the lock class's sampled hot bins");
  // The lock class's sampled hot bins: shared slot words (bit locks), looked up for each run the carry gives out.
  constexpr bool sampled_lock_words = locked && HotBins && SharedSlotWords && !ActiveBins;
  using hot_bins_t = hot_bin_slots<T, locked, SharedSlotWords>;
  hot_bins_t hot(shared_bytes, hot_slots, ring_end_bytes);  // locked: one copy (plan::hot_active_bins)
  const int slot_hits = active                    ? hot_bin_active_min_hits
                        : M / 2 > hot_bin_slot_min_hits ? M / 2
                                                        : hot_bin_slot_min_hits;
  const int lane_hits = active                    ? hot_bin_active_min_hits
                        : M / 4 > hot_bin_lane_min_hits ? M / 4
                                                        : hot_bin_lane_min_hits;
  const int weak_hits = active                    ? hot_bin_active_min_hits
                        : M / 4 > hot_bin_weak_min_hits ? M / 4
                                                        : hot_bin_weak_min_hits;
  const int samples = active ? active_samples : 1;
  static_assert(HotBins || !ActiveBins, "a slot per active bin is a kind of hot bins");

  for (int pass = 0; pass < S; ++pass) {
    const std::int64_t lo = pass * H_chk;
    if (lo >= num_bins) break;
    const std::int64_t len = num_bins - lo < H_chk ? num_bins - lo : H_chk;
    hot_bin_pass hot_pass{plan_M, 0, 0};
    if constexpr (HotBins) {  // counts in the copies' memory before they are filled
      hot_pass = hot.template choose<ActiveBins>(src, lo, len, plan_M, static_cast<int>(stride), slot_hits, lane_hits,
                                                 weak_hits, samples, identity);
      M = hot_pass.copies;
      sub_offset = static_cast<int>(threadIdx.x % M * stride);
    }
    if (seed == nullptr) {
      for (std::int64_t i = threadIdx.x; i < M * stride; i += blockDim.x) {
        subs[i] = identity;
        if (i < lock_words) locks[i] = 0;
      }
    } else {  // plan::seed_inputs: every copy starts from the seed launch's bins (dispatch passes dest)
      for (std::int64_t b = threadIdx.x; b < stride; b += blockDim.x) {
        const T v = b < len ? seed[lo + b] : identity;
        for (int m = 0; m < M; ++m) subs[m * stride + b] = v;
      }
      for (std::int64_t i = threadIdx.x; i < lock_words; i += blockDim.x) locks[i] = 0;
    }
    __syncthreads();
    // The lock class's shared slot words travel as their word index (at or after the copy's len bins: M = 1).
    // A chunk's bins and word indices fit an int (a block has at most 227 KiB of shared memory).
    const int len32 = static_cast<int>(len);
    auto slot = [&](auto b) {
      const int at = sub_offset + static_cast<int>(b);
      if constexpr (locked && SharedSlotWords)
        if (static_cast<int>(b) >= len32) return hot.shared_slot(subs, static_cast<int>(b));  // b: the word
      if constexpr (locked) return bin_slot<T>{subs + at, locks + (at >> 5), 1u << (at & 31)};
      else return bin_slot<T>{subs + at, nullptr};
    };
    // The lock class and warp-private copies fold a thread's runs of equal bins in registers first (run_carry.cuh).
    // The lock class's kernels with slots carry and send 32-bit bins (a chunk's bins and word indices fit an int):
    // seed 000's unpacked argmax at RF 63, H = 505..16384, 5-10% faster, told-RF one bin and Zipf(1.1) 5-9% (lent
    // H100, 2026-11-26, bench/results/2026-11-26-h100-xcg-32-bit-bins-ab.txt). The plain lock loop keeps 64-bit
    // bins: with 32-bit ones its one-bin runs (RF unknown) were 4-7% slower, uniform input within 3%.
    using carry_bin = std::conditional_t<!WarpPrivate && HotBins, int, std::int64_t>;
    const carry_bin carry_len = static_cast<carry_bin>(len);
    run_carry<Op, carry_bin> carry;
    // The lock class's shared slot words: this pass's words are all the threads' own or all shared (find_word).
    bool slot_words_own = false;
    if constexpr (locked && SharedSlotWords) slot_words_own = hot.words_own();
    // sampled_lock_words: a run the carry gave out goes to its bin's slot where the bin has one: the thread's own word
    // (a plain read-modify-write here, nothing left to send) or, as its word index, a shared word under its bit lock.
    // The lookup comes after the carry, so that a thread's run in one bin (all inputs in one bin) costs one lookup,
    // not one per input.
    auto to_slot_word = [&](carried_run<T, carry_bin> run) {
      if constexpr (sampled_lock_words) {
        int word;
        if (hot_pass.slots > 0 && run.bin >= 0 && hot.find_word(static_cast<int>(run.bin), word)) {
          if (slot_words_own) subs[word] = op(subs[word], run.value);
          run.bin = slot_words_own ? -1 : word;
        }
      }
      return run;
    };
    if constexpr (WarpPrivate) {
      auto send = [&](const auto& out) {
        warp_private_update(op, subs + sub_offset, out.bin >= 0, out.bin, len, out.value);
      };
      src.for_each_uniform(rank, threads, [&](bool valid, const bin_update<T>& u) {
        const std::int64_t b = u.bin - lo;
        const bool in_chunk = valid && static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
        const auto out = carry.take(op, in_chunk ? b : -1, u.value);
        if (__any_sync(0xffffffffu, out.bin >= 0)) send(out);  // the warp skips steps where every lane carries on
      });
      send(carry.drain());
    } else if constexpr (Owner == copy_owner::thread) {
      // Two vectors a step prefetched; more were no faster (src/planner.cpp, thread_private_plan). Thread-private
      // plans have one pass (launch_shared checks it): lo = 0 and len = num_bins, so the bin is compared as the bin
      // function made it, with no 64-bit subtraction in the way of the compiler's narrowing.
      const std::uint64_t bins = static_cast<std::uint64_t>(num_bins);
      src.template for_each_prefetched<2>(rank, threads, [&](const bin_update<T>& u) {
        if (static_cast<std::uint64_t>(u.bin) < bins) {
          T& bin = subs[sub_offset + static_cast<int>(u.bin)];
          bin = op(bin, u.value);
        }
      });
    } else {
      auto visit = [&](const bin_update<T>& u) {
        const std::int64_t b = u.bin - lo;
        const bool in_chunk = static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
        if constexpr (xcg) {  // use_warp_aggregation's shared-memory case
          // HotBins: an input of a bin with a slot goes to the thread's own word (a plain read-modify-write) or, as
          // its word index, to a shared word (SharedSlotWords: under its bit lock, `slot` above), whose runs are then
          // carried like the copy's bins. Every lane still reaches the one send below, so that the warp sends
          // together (a second call site split it: bench/results/2026-11-25-h100-experiment-xcg-hot-bins.txt).
          // Runs carried before the lookup instead (so that an own word's runs are carried too) took one bin from
          // 442 to 138 us but seed 000's uniform RF 63 at H = 1024 / 2048 from 173 / 200 to 187 / 212 (lent H200,
          // 2026-11-26, bench/results/2026-11-26-h200-lock-class-shared-slot-words.txt, call 2).
          carry_bin target = in_chunk ? static_cast<carry_bin>(b) : -1;
          if constexpr (HotBins && SharedSlotWords && ActiveBins) {  // (sampled_lock_words: to_slot_word below)
            int word;
            if (hot_pass.slots > 0 && in_chunk && hot.find_word(static_cast<int>(b), word)) {
              if (slot_words_own) subs[word] = op(subs[word], u.value);
              target = slot_words_own ? -1 : word;
            }
          } else if constexpr (HotBins && !SharedSlotWords) {
            int word;
            bool own;
            if (hot_pass.slots > 0 && in_chunk && hot.find(static_cast<int>(b), word, own)) {
              if (own) subs[word] = op(subs[word], u.value);
              target = own ? -1 : word;
            }
          }
          send_run<locked && SharedSlotWords>(op, to_slot_word(carry.take(op, target, u.value)), carry_len, slot);
        } else if constexpr (defer) {
          if (in_chunk) deferred.update(subs, sub_offset + static_cast<int>(b), u.value);
        } else {
          if (in_chunk) atomic_update<memory_level::shared>(op, slot(b), u.value);
        }
      };
      // The hardware atomic returns nothing to wait for; the other classes wait on each update's result.
      if constexpr (atomic_class_of<Op> == atomic_class::hdw) {
        src.for_each(rank, threads, visit);
      } else if constexpr (HotBins && defer) {
        // OnePass: as for the loop without slots (below), for a slot per active bin only (64 registers): RF 63
        // H = 2048 / 6144 / 12288 / 24576 121 / 167 / 229 / 298 -> 114 / 144 / 202 / 266 us. With the sampled hot
        // bins' slots (two blocks per SM, 32 registers) the second copy of the loop made ptxas spill more (36 -> 96
        // bytes of stores) and RF 63 H = 505 took 195 us against 121 (lent H100, 2026-11-26, bench/results/
        // 2026-11-26-h100-one-pass-ab.txt).
        auto hot_visit = [&](auto one_pass) {
          return [&, one_pass](const bin_update<T>& u) {
            std::int64_t b;
            if constexpr (decltype(one_pass)::value) {
              b = u.bin;
              if (static_cast<std::uint64_t>(b) >= static_cast<std::uint64_t>(num_bins)) return;
            } else {
              b = u.bin - lo;
              if (static_cast<std::uint64_t>(b) >= static_cast<std::uint64_t>(len)) return;
            }
            int word;
            bool own;
            if (!hot.find(static_cast<int>(b), word, own))
              deferred.update2(subs, sub_offset + static_cast<int>(b), u.value);  // the thread's copy
            else if (own)
              subs[word] = op(subs[word], u.value);  // the thread's slot: no other thread writes it
            else
              deferred.update2(subs, word, u.value);  // the lane's replica
          };
        };
        // A slot per active bin in a pass where each thread's word in a slot lies at one offset from the table's
        // entry (hot_bin_slots::uniform_words: all slot words shared, or a word per thread and no replicas): one
        // lookup that redirects the update's target, one update site and one kept word (deferred_cas_updater::update)
        // instead of hot_visit's branches to three sites and two kept words. A thread's own word takes the compare-and-
        // swap too, which always wins there (no other thread writes it). ncu's SASS at seed 000's RF 63, H = 12288
        // (shared words): 47 -> 33 instructions per input, the kernel's 107M -> 89M (issue-bound: 73% of issue slots
        // busy). Same runs: RF 63 H = 6144..24576 13-17% faster, RF 32 H = 4096 / 8192, RF 16 H = 1024 / 4096 and
        // RF 8 H = 1024 3-18%, RF 63 H = 567..2048 (a word per thread) 4%, told-RF Zipf(1.1) H = 2048 / 6144 / 12288
        // 6 / 5 / 22% faster and H = 24576 2.5% slower (there the second kept word helped), the packed argmax RF 63
        // H = 505..2048 2-5%; with two kept words the loop over shared words gained only 7-9% (lent H200, 2026-11-28,
        // bench/results/2026-11-28-h200-cas-shared-slot-loop.txt). The sampled hot bins' loop (32 registers) keeps
        // hot_visit: there the second loop made ptxas spill 148 bytes instead of 68.
        const std::uint64_t one_pass_bins = static_cast<unsigned>(num_bins);  // S == 1: a chunk's bins fit 32 bits
        auto redirected_visit = [&](const bin_update<T>& u) {
          if (static_cast<std::uint64_t>(u.bin) >= one_pass_bins) return;
          int at = sub_offset + static_cast<int>(u.bin);
          if constexpr (ActiveBins && !locked) hot.redirect(static_cast<int>(u.bin), at);
          deferred.update(subs, at, u.value);
        };
        const bool redirected = ActiveBins && S == 1 && hot_pass.slots > 0 && hot.uniform_words();
        // The sampled hot bins' loop (not ActiveBins) shares its block's input out to the warps at run time
        // (element_source::for_each_warp_tiles): ncu put 30% of its stall samples on the barrier after the loop,
        // warps waiting for the block's slowest (the saturating add, Zipf(1.1), H = 12288). Same run against the
        // grid-stride loop (lent H200, 2026-12-02, bench/results/2026-12-02-h200-warp-tiles.txt, section 3), H = 505..
        // 49152: the saturating add on Zipf(1.1) 0.33-0.94x the time (H = 12288 445 -> 240 us, 24576 886 -> 335),
        // uniform with the race factor unknown 0.74-0.80x at RF 1 and 0.36-0.48x at RF 63, sorted 0.14-0.83x; the
        // packed argmax 0.20-0.87x on those at H <= 24576 (49152: a plan without this loop). One bin (its own slot
        // word, a plain read-modify-write: the walk's cost shows) 1.08-1.14x / 1.02-1.06x slower, and so is the
        // saturating add at RF 63, H = 505 (8 bins) 1.09-1.12x.
        auto walk = [&](auto&& visit_one) {
          if constexpr (!ActiveBins && stageable_source<Source>::value)
            src.template for_each_warp_tiles<hot_bin_tile_vectors>(rank, threads, hot.tile_counter(), visit_one);
          else
            src.for_each_prefetched(rank, threads, visit_one);
        };
        if constexpr (Staged) {  // ActiveBins (the static_assert above)
          if (redirected) src.for_each_staged(ring, redirected_visit);
          else if (hot_pass.slots == 0) src.for_each_staged(ring, visit);
          else if (S == 1) src.for_each_staged(ring, hot_visit(std::true_type{}));
          else src.for_each_staged(ring, hot_visit(std::false_type{}));
        } else if (hot_pass.slots == 0) {
          walk(visit);  // a block whose sample found no hot bin walks as the others do (warp tiles split by block)
        } else if constexpr (ActiveBins) {
          if (redirected) src.for_each_prefetched(rank, threads, redirected_visit);
          else if (S == 1) src.for_each_prefetched(rank, threads, hot_visit(std::true_type{}));
          else src.for_each_prefetched(rank, threads, hot_visit(std::false_type{}));
        } else if constexpr (!SharedSlotWords && sizeof(T) == 8) {
          // 64-bit values (seed 000's packed argmax): one update site, the target redirected with a select
          // (hot_bin_slots::redirect_any; a thread's own slot word takes the compare-and-swap too, which always wins)
          // instead of hot_visit's three. Lent H200, 2026-12-01, same run, RF unknown, H = 505..24576: Zipf(1.1)
          // 14-27% faster, one bin 3-10% slower, uniform within 3% (RF 63: 4-12% faster). With 32-bit values (the
          // saturating add) the same loop lost 5-28% on Zipf(1.1) at H = 2048..49152 and 3-6% on one bin (bench/results/
          // 2026-12-01-h200-hot-split-kept.txt, section 3): they take two sites (below).
          auto select_visit = [&](const bin_update<T>& u) {
            const std::int64_t b = u.bin - lo;
            if (static_cast<std::uint64_t>(b) >= static_cast<std::uint64_t>(len)) return;
            int at = sub_offset + static_cast<int>(b);
            hot.redirect_any(static_cast<int>(b), at);
            deferred.update2(subs, at, u.value);
          };
          walk(select_visit);
        } else {
          // 32-bit values (the saturating add): two update sites. The thread's own slot word takes a plain
          // read-modify-write and everything else (the lane's replica, the thread's copy) one compare-and-swap site
          // with one kept word (hot_bin_slots::redirect_own), where hot_visit branched to three sites and kept two
          // words. Lent H100, 2026-12-07, same run, three rounds, against hot_visit (bench/results/2026-12-07-h100-
          // two-site-hot-loop.txt): Zipf(1.1) with the RF unknown, RF 1, H = 505 / 2048 / 6144 / 12288 202 / 208 /
          // 219 / 243 -> 162 / 164 / 182 / 222 us, RF 63 H = 505..49152 0.84-0.93x but 24576 1.06x; uniform with the
          // RF unknown RF 1 within 1.5%, RF 63 0.89-0.97x; one bin 0.87-0.94x. With two kept words (update2) the same
          // two sites gained about half as much (Zipf RF 1 H = 505..6144 0.87-0.90x) and lost up to 7% on uniform
          // RF 63. (The partitioned second pass's one site, visit_hot, lost 4-6% with these two sites.)
          auto two_site_visit = [&](const bin_update<T>& u) {
            const std::int64_t b = u.bin - lo;
            if (static_cast<std::uint64_t>(b) >= static_cast<std::uint64_t>(len)) return;
            int at = sub_offset + static_cast<int>(b);
            if (hot.redirect_own(static_cast<int>(b), at)) subs[at] = op(subs[at], u.value);
            else deferred.update(subs, at, u.value);
          };
          walk(two_site_visit);
        }
      } else if constexpr (atomic_class_of<Op> == atomic_class::cas && !HotBins) {
        // One pass (lo = 0, len = num_bins): the bin is compared as the bin function made it, against the kernel's
        // parameter. The pass's 64-bit bin - lo and min(num_bins - lo, H_chk), which the compiler recomputed for
        // every input at 32 registers, cost ~8 of the loop's ~40 instructions per input (ncu's SASS, seed 000's
        // saturating add, RF 1, H = 12288).
        auto visit_one_pass = [&](const bin_update<T>& u) {
          const bool in_range = static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(num_bins);
          if constexpr (defer) {
            if (in_range) deferred.update(subs, sub_offset + static_cast<int>(u.bin), u.value);
          } else {
            if (in_range) atomic_update<memory_level::shared>(op, slot(u.bin), u.value);
          }
        };
        if constexpr (Staged) {
          if (S == 1) src.for_each_staged(ring, visit_one_pass);
          else src.for_each_staged(ring, visit);
        } else {
          if (S == 1) src.for_each_prefetched(rank, threads, visit_one_pass);
          else src.for_each_prefetched(rank, threads, visit);
        }
      } else {
        src.for_each_prefetched(rank, threads, visit);
      }
      if constexpr (HotBins && defer) deferred.flush2(subs);
      else if constexpr (defer) deferred.flush(subs);
      if constexpr (xcg) {
        converge_block_warp();
        send_run<locked && SharedSlotWords>(op, to_slot_word(carry.drain()), carry_len, slot);
      }
    }
    __syncthreads();
    if constexpr (Gated)
      if (pass == 0) pass_overwrite_gate(gate, dest, num_bins, identity);  // an overwrite call's fill of dest
    if constexpr (HotBins)
      if (hot_pass.slots > 0) hot.fold_into(op, hot_pass, static_cast<int>(stride));  // into copy 0
    fold_and_merge_copies(op, subs, M, static_cast<int>(stride), static_cast<int>(len), dest, dest_locks, rows,
                          num_bins, lo);
    __syncthreads();
  }
}

/// Folds the `rows` rows of a rows x num_bins array into dest (dest[b] = dest[b] (+) rows[0][b] (+) ...), where
/// shared_memory_kernel left one row per block; with `overwrite`, dest[b] = rows[0][b] (+) ... (no identity fill
/// before the histogram: one launch less per call, ~5 us of host time on the lent H100). A block of 32 x merge_rows_slices threads takes 32 bins: slice y
/// folds rows y, y + slices, ..., and the slices meet in shared memory, so that a small histogram is not one
/// thread's chain of `rows` dependent loads.
inline constexpr int merge_rows_slices = 16;
template <class Op>
__global__ void __launch_bounds__(32 * merge_rows_slices) merge_rows_kernel(const typename Op::value_type* rows,
                                                                            int row_count, std::int64_t num_bins,
                                                                            Op op, typename Op::value_type* dest,
                                                                            bool overwrite) {
  using T = typename Op::value_type;
  __shared__ __align__(16) unsigned char partial_bytes[merge_rows_slices * 32 * sizeof(T)];  // raw: T may have constructors
  T(*partial)[32] = reinterpret_cast<T(*)[32]>(partial_bytes);
  const std::int64_t b = blockIdx.x * std::int64_t{32} + threadIdx.x;
  const T identity = Op::identity();
  T acc = identity;
  if (b < num_bins)
    for (int r = threadIdx.y; r < row_count; r += merge_rows_slices) acc = op(acc, rows[r * num_bins + b]);
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || b >= num_bins) return;
  for (int y = 1; y < merge_rows_slices; ++y) acc = op(acc, partial[y][threadIdx.x]);
  if (overwrite) dest[b] = acc;
  else if (!bitwise_equal(acc, identity)) dest[b] = op(dest[b], acc);
}

}  // namespace ghist::detail
