// Hot bins for the compare-and-swap class in shared memory (plan::hot_slots): each block samples its input at the
// start of a pass and takes the bins that the sample says several of its threads will update at once off the copies:
// the hottest get a slot per thread (a plain read-modify-write: nothing to retry), the next ones a replica per lane
// (compare-and-swap, but 32 words share the bin's updates). Both are folded into the bin at the end of the pass.
//
// Why: a skewed input (Zipf) keeps a few words of the block's copies busy with compare-and-swaps from many threads at
// once, and each retry queues behind the others. The deferring loop (deferred_cas.cuh) keeps one lost update per
// thread, which cures one hot bin but not twenty. The expected retries per input grow with the sum of the squared bin
// shares; for Zipf(1.1) over 12288 bins the first 8 bins hold ~96% of that sum and the next 56 most of the rest.
// A uniform input gives no bin enough hits: its blocks run the plain loop and pay only the sample. An input that hits a
// few hundred bins of many about equally (seed 000's RF 63 at H = 6144..12288, told the RF is unknown) has a hottest
// bin with enough hits by chance; then every sampled bin with two hits or more takes a replica where room is left
// (up to 240): lent H200, 2026-11-26, RF 63 H = 6144 / 12288 1263 / 1358 -> 492 / 712 us, Zipf(1.1) at H = 12288
// 0.66-0.70x (bench/results/2026-11-26-h200-dense-hot-bins.txt).
//
// A told race factor over a few hundred active bins (plan::hot_active_bins) gives every sampled bin a slot, for the
// lock class too (its one locked copy keeps the bins the sample missed); where a word per thread does not fit, a
// slot's words are shared (plan::hot_shared_words: compare-and-swap, or the lock class's bit locks after the slots).
//
// The lock class with the race factor unknown samples as the compare-and-swap class does and gives its hot bins the
// same shared words (pick_lock_words): each hot bin's updates spread over at least a warp's worth of words, each
// under its own bit lock, where the plan's copies hold one word (and lock) per bin that a Zipf input's first bins
// queue the block's 32 warps on (seed 000's unpacked argmax, Zipf(1.1), H = 24576: 7.9x the uniform time, lent
// H200, 2026-12-01).
//
// Shared memory: the plan's copies, then (when the sample finds hot bins) the slots, slot-major so that a warp's lanes
// use consecutive words, and the lane replicas (or the shared words' bit locks); the table sits at the end of the
// block's shared memory. The plan gives the block all the shared memory its share of the SM allows; where the copies
// leave too little of it, the pass drops copies for the slots (a skewed input gains more from the slots than from the
// copies). Blocks of whole warps only (the first warp picks the bins with full-warp shuffles).
#pragma once

#include <cstdint>

#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/slot_lock_layout.hpp"
#include "ghist/detail/staged_input.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/plan.hpp"

namespace ghist::detail {

// The table: direct-mapped by hot_bin_hash, an entry (bin << 16 | word) per hot bin, ~0 empty (a pass takes hot bins
// only with at most hot_bin_max_pass_bins bins, so no bin reads as empty; a word index fits 16 bits). 512 entries
// of 4 bytes: seed 000's active bins (an arithmetic progression, up to 240) fill it without a collision under the best
// of 32 multipliers a block scores, where 256 entries left 4 to 16 of 240 bins out (RF 8 / 16), and such a bin sends
// its share of the input to the single copy: RF 8 H = 1920 at 224 threads 1058 us against 229 for the told plan, RF 16
// H = 3840 at 192 threads 2872 against 281 (lent H200, 2026-11-26, bench/results/2026-11-26-h200-active-bin-samples.txt).
inline constexpr int hot_bin_table_entries = 512;
inline constexpr int hot_bin_hash_bits = 9;
static_assert(1 << hot_bin_hash_bits == hot_bin_table_entries, "the hash covers the table");
static_assert(227 * 1024 / 4 <= 0xffff, "a 4-byte word's index in a block's shared memory fits an entry");
inline constexpr int hot_bin_max_candidates = 240;  // sampled bins with enough hits, in the order they came
#ifndef GHIST_HOT_BIN_LANE_BINS
#define GHIST_HOT_BIN_LANE_BINS 240
#endif
inline constexpr int hot_bin_max_lane_bins = GHIST_HOT_BIN_LANE_BINS;  // bins with a replica per lane, after the slots
// The sampled hot bins' loop hands its warps tiles of 32 * this many 16-byte vectors (a lane's vectors 32 apart;
// element_source::for_each_warp_tiles). Against one vector a lane (same run, lent H200, 2026-12-02): one bin 1-4%
// faster, sorted up to 2.9x (RF 63 H = 12288 4230 -> 1443 us), uniform RF 1 with RF unknown 9-10%; but at
// H = 24576 / 49152 Zipf(1.1) 13-24% slower and uniform RF 63 with RF unknown 17-30% (coarser shares between the
// warps: ~12 tiles each; bench/results/2026-12-02-h200-warp-tiles.txt, section 2b). Whole tiles only (no bound check
// per vector) then took 5-8% off one bin and up to 5% off most other cells (section 3).
#ifndef GHIST_HOT_BIN_TILE_VECTORS
#define GHIST_HOT_BIN_TILE_VECTORS 4
#endif
inline constexpr int hot_bin_tile_vectors = GHIST_HOT_BIN_TILE_VECTORS;
// Of them, the most for which a block drops copies or slots; the others take what room is left. Zipf(1.1) at
// H = 24576 (one copy, little room) lost 21-32% when every strong replica could cost slots (lent H200, 2026-11-26,
// bench/results/2026-11-26-h200-dense-hot-bins.txt).
inline constexpr int hot_bin_max_room_lane_bins = 56;
// The fewest sampled hits (of one per thread) for a slot and for a replica. The block takes bins off the copies only
// when its hottest bin has the slots' count: a uniform input over 2048 bins gives a block of 1024 threads ~0.5 hits
// per bin, and 8 or more to one of them in ~1 block in 20000; the replicas' 4 is for the bins after the hottest.
inline constexpr int hot_bin_slot_min_hits = 8;
inline constexpr int hot_bin_lane_min_hits = 4;
// Bins with fewer hits than the replicas' count but at least this many take a replica only where the copies leave
// room (no copy is dropped for them): an input with a few hundred bins about equally hot (seed 000's RF 63 at
// H <= 12288: 195 active bins, ~5 hits each, many under 4 by chance) keeps its replicas for all of them.
#ifndef GHIST_HOT_BIN_WEAK_MIN_HITS
#define GHIST_HOT_BIN_WEAK_MIN_HITS 2
#endif
inline constexpr int hot_bin_weak_min_hits = GHIST_HOT_BIN_WEAK_MIN_HITS;
// With a slot per active bin (plan::hot_active_bins) a single sampled hit takes a slot: the plan's sample (plan::
// hot_samples) expects several hits per active bin, and a bin it misses sends all its inputs to the single copy.
inline constexpr int hot_bin_active_min_hits = 1;
// Where the room is short (one copy that cannot be dropped), a bin keeps its slot per thread (4 KiB of 4-byte values
// in a block of 1024) only with 1/32 of the sample: below that its replica per lane (128 bytes) has under one update
// at a time (32 threads share it), and the room of one slot holds 32 replicas. Where the room is not short, the
// hottest bins all take slots: slots only for such bins lost at H <= 12288 (Zipf(1.1), the saturating add, RF 1
// H = 505 / 2048 227 / 263 -> 285 / 332 us) and won at H = 24576 (1215 -> 980;
// bench/results/2026-11-25-h100-hot-bins-room.txt).
inline constexpr int hot_bin_own_min_share = 32;
// The table's area: its entries (where the sample's candidates lie until they are ranked), the ranked candidates and
// then the hot bins taken, counters.
static_assert(hot_bin_table_bytes >= hot_bin_table_entries * 4 + hot_bin_max_candidates * 4 + 8 * 4,
              "the table's layout");
static_assert(hot_bin_max_candidates <= hot_bin_table_entries, "the candidates fit the entries");
static_assert(hot_bin_max_active_slots <= hot_bin_max_candidates, "every active bin can be a candidate");

// Multiplicative hashing into a table of 2^Bits entries; each block picks the multiplier for its hot bins (fill_table).
template <int Bits>
__device__ __forceinline__ int hot_bin_hash(int bin, unsigned multiplier) {
  return static_cast<int>((static_cast<unsigned>(bin) * multiplier) >> (32 - Bits));
}

/// What a block's sample decided for one pass (the same on every thread).
struct hot_bin_pass {
  int copies;      ///< M for this pass: the plan's, or fewer where the slots needed their room
  int slots;       ///< bins with a slot per thread
  int lane_bins;   ///< bins with a replica per lane
  int slot_words;  ///< words per slot: the block's threads (a word each), or fewer shared by tid % slot_words
};

/// `Locked`: the lock class's layout (bit locks after the copies' values, kernel_shared.cuh), whose slots with a word
/// per thread are plain read-modify-writes too; it takes no lane replicas and never drops copies (its plans have one:
/// plan::hot_active_bins).
///
/// `ShareSlots` (a slot per active bin, plan::hot_shared_words): where the room is short for a word per thread, a slot
/// takes fewer words (whole warps' worth), shared by the threads tid % words and updated with compare-and-swap like
/// the replicas, or (`Locked`) under a bit lock per word, placed after the slots' values (shared_slot). Lanes of a
/// warp never share a word. A template parameter: the sampled hot bins' kernel (two blocks of 1024 per SM, 32
/// registers) spilled more with the choice made at run time and ran 10-45% slower (lent H200, 2026-11-26).
/// `Locked && ShareSlots` with the sampled hot bins (choose without Spread): the plan's copies stay, and the candidates
/// (hottest first) take slots of shared words with bit locks in the room after them (pick_lock_words).
template <class T, bool Locked = false, bool ShareSlots = false>
class hot_bin_slots {
  static_assert(alignof(T) <= 8, "the slots start 8-byte aligned");
  // Bytes of the bit locks per 32 shared words of a slot (Locked && ShareSlots; slot_lock_layout.hpp).
  static constexpr int lock_bytes_per_32_words = Locked && ShareSlots ? slot_lock_bytes_per_32_words : 0;
  // ShareSlots: up to hot_bin_max_shared_word_slots active bins (seed 000's RF 63 at H = 24576: 390), in a table of
  // twice the entries (no collision for seed 000's active bins).
  static constexpr int hash_bits = ShareSlots ? hot_bin_hash_bits + 1 : hot_bin_hash_bits;
  static constexpr int entries = 1 << hash_bits;
  static constexpr int max_candidates = ShareSlots ? hot_bin_max_shared_word_slots : hot_bin_max_candidates;
  static constexpr std::size_t table_bytes = ShareSlots ? hot_bin_shared_words_table_bytes : hot_bin_table_bytes;
  static_assert(table_bytes >= entries * 4 + max_candidates * 4 + 8 * 4, "the table's layout");
  static_assert(max_candidates <= entries, "the candidates fit the entries");
  // score_multipliers' scratch: a table's worth of bits per multiplier, in the copies' memory (spent counts) when it
  // has room.
  static constexpr int scratch_bytes = 32 * entries / 8;

 public:
  /// `max_slots`: the plan's hot_slots. The table lies at the end of the block's dynamic shared memory, before its
  /// last `reserved_end` bytes (a staged plan's ring: staged_input.cuh).
  __device__ hot_bin_slots(unsigned char* shared, int max_slots, unsigned reserved_end = 0)
      : shared_(shared), max_slots_(max_slots) {
    table_bytes_at_ = dynamic_shared_bytes() - reserved_end - static_cast<unsigned>(table_bytes);
    table_ = reinterpret_cast<unsigned*>(shared + table_bytes_at_);
    candidates_ = reinterpret_cast<unsigned*>(table_);  // hits << 16 | bin, until ranked; then the table is filled
    bins_ = reinterpret_cast<int*>(table_ + entries);  // ranked; then the slots' bins, the lane bins'
    counters_ = bins_ + max_candidates;
  }

  /// Every thread of the block calls it at the start of a pass, before the copies are filled: samples `samples` inputs
  /// per thread (a run of consecutive inputs at a place that depends on the block; Spread: runs of 32 spread over the
  /// whole input), counts the bins in [lo, lo + len)
  /// in the copies' memory (at least len ints), and takes the hottest bins (pick_room) when the hottest has at least
  /// `slot_hits` hits: those with at least `lane_hits`, and where room is left those with `weak_hits`. The plan has M
  /// copies `stride` bins apart. Fills the slots and replicas with the identity; the caller's __syncthreads after it
  /// fills the copies publishes them. Passes of more than hot_bin_max_pass_bins take none (bins in 16 bits).
  ///
  /// KeepCopies: the plan's M copies stay (the slots and replicas take only the room after them), for passes whose
  /// copies spread a few hundred equally warm bins (the partitioned strategy's groups of seed 000's RF 63 input with
  /// the race factor unknown: dropped for the slots, H = 196608 took 925 -> 3664 us; lent H200, 2026-12-02).
  template <bool Spread, bool KeepCopies = false, class Source>
  __device__ hot_bin_pass choose(const Source& src, std::int64_t lo, std::int64_t len, int M, int stride,
                                 int slot_hits, int lane_hits, int weak_hits, int samples, T identity) {
    const int tid = static_cast<int>(threadIdx.x), B = static_cast<int>(blockDim.x);
    if (len > hot_bin_max_pass_bins) {
      if (tid == 0) counters_[0] = 0;  // the pass's tile counter (tile_counter): its blocks walk as the others do
      return hot_bin_pass{M, 0, 0};
    }
    int* counts = reinterpret_cast<int*>(shared_);
    for (std::int64_t i = tid; i < len; i += B) counts[i] = 0;
    if (tid == 0) counters_[0] = 0;  // candidates offered
    __syncthreads();
    const std::int64_t n = src.n, wanted = static_cast<std::int64_t>(B) * samples;
    const std::int64_t run = n < wanted ? n : wanted;
    // Spread (the slot per active bin, whose bins the sample misses go to one copy): runs of 32 consecutive inputs (a
    // warp's coalesced read) spread evenly over the whole input, `gap` apart, at an offset that depends on the block.
    // Every block's loop walks the whole input, so that is what its sample should see: from one run, a block of
    // seed 000's sorted input told RF 63 saw one or two bins and left the rest on its one copy, where 1024 threads
    // retried their compare-and-swaps (H = 567 / 2048: 8414 / 2795 us, 100 / 106 spread; lent H200, 2026-11-28,
    // bench/results/2026-11-28-h200-cas-shared-slot-loop.txt). Else one run at a place that depends on the block.
    const std::int64_t chunks = (run + 31) / 32, gap = !Spread || n < wanted ? 32 : n / chunks;
    const std::int64_t offset = gridDim.x > 1 ? (Spread ? gap - 32 : n - run) * blockIdx.x / (gridDim.x - 1) : 0;
    auto sampled_bin = [&](std::int64_t at) {  // -1 outside the pass
      const std::int64_t b = static_cast<std::int64_t>(src.at(at / 32 * gap + offset + at % 32).bin) - lo;
      return static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len) ? static_cast<int>(b) : -1;
    };
    for (std::int64_t at = tid; at < run; at += B) {
      const int b = sampled_bin(at);
      if (b >= 0) atomicAdd(counts + b, 1);
    }
    __syncthreads();
    // One thread per sampled bin takes its count (the exchange leaves 0 for the others) and offers it. The sample is
    // read again (from the caches) rather than kept in registers: up to hot_bin_max_samples per thread.
    for (std::int64_t at = tid; at < run; at += B) {
      const int b = sampled_bin(at);
      if (b < 0) continue;
      const int hits = atomicExch(counts + b, 0);
      if (hits >= weak_hits) {
        const int offer = atomicAdd(counters_, 1);
        if (offer < max_candidates)
          candidates_[offer] = static_cast<unsigned>(hits) << 16 | static_cast<unsigned>(b);
      }
    }
    __syncthreads();
    // Ranks the candidates, hottest first, into bins_ as their keys (hits << 16 | bin, distinct): each thread counts
    // the keys above its own. Where room is short, the hottest take it.
    const int offered = counters_[0] < max_candidates ? counters_[0] : max_candidates;
    for (int c = tid; c < offered; c += B) {
      const unsigned key = candidates_[c];
      int rank = 0;
      for (int j = 0; j < offered; ++j) rank += candidates_[j] > key ? 1 : 0;
      bins_[rank] = static_cast<int>(key);
    }
    __syncthreads();
    for (int i = tid; i < entries; i += B) table_[i] = ~0u;  // the candidates are read
    __syncthreads();
    const bool scratch = static_cast<std::size_t>(M) * stride * sizeof(T) >= scratch_bytes;
    if (tid < 32) {
      if constexpr (Locked && ShareSlots && !Spread) pick_lock_words(M, stride, slot_hits, offered);
      else pick_room<KeepCopies>(M, stride, slot_hits, lane_hits, offered);
    }
    __syncthreads();
    if (scratch) score_multipliers(reinterpret_cast<unsigned*>(shared_));
    __syncthreads();
    if (tid < 32) fill_table(stride, offered, scratch ? reinterpret_cast<const unsigned*>(shared_) : nullptr);
    __syncthreads();
    const hot_bin_pass pass{counters_[1], counters_[2], counters_[3], counters_[5]};
    if (tid == 0) counters_[0] = 0;  // read into `offered` above, barriers ago: now the pass's tile counter
    const int first = first_value(pass.copies, stride);
    // Shared slot words are updated as the replicas are (compare-and-swap, no replicas then): a thread's
    // word in each is tid % slot_words instead of its lane.
    const bool exclusive = pass.slot_words == B;
    multiplier_ = static_cast<unsigned>(counters_[4]);
    own_end_ = first + (exclusive ? pass.slots * B : 0);
    uniform_words_ = !exclusive || pass.lane_bins == 0;
    // Locked && ShareSlots: the word in a slot, the thread's own (tid) or its share (find).
    shared_word_ = exclusive ? (Locked && ShareSlots ? tid : tid % 32) : tid % pass.slot_words;
    word_offset_ = exclusive ? tid : shared_word_;
    T* subs = reinterpret_cast<T*>(shared_);
    for (int i = tid; i < pass.slots * pass.slot_words + pass.lane_bins * 32; i += B) subs[first + i] = identity;
    if constexpr (Locked && ShareSlots) {  // the shared words' bit locks, after the slots' values, all free
      first_ = first;
      slot_locks_ = reinterpret_cast<int*>(subs + first + pass.slots * pass.slot_words);
      if (!exclusive)  // whole groups of 32 lock words: pick_room leaves room for them
        for (int i = tid; i < slot_lock_words(pass.slots * pass.slot_words); i += B) slot_locks_[i] = 0;
    }
    return pass;
  }

  /// Where this thread updates bin `b` (relative to the pass): a word index into the copies' array, and whether the
  /// word is the thread's own (a plain update) or shared (compare-and-swap). Returns false when b is not hot.
  __device__ __forceinline__ bool find(int b, int& word, bool& own) const {
    static_assert(!(Locked && ShareSlots), "the lock class with shared slot words asks find_word");
    const unsigned e = table_[hot_bin_hash<hash_bits>(b, multiplier_)];
    if (e >> 16 != static_cast<unsigned>(b)) return false;
    word = static_cast<int>(e & 0xffffu);
    own = Locked || word < own_end_;  // the slots come before the replicas (the lock class: none)
    // Without ShareSlots the shared word is the lane, from threadIdx (a register less in the loop).
    word += static_cast<int>(own ? threadIdx.x : ShareSlots ? shared_word_ : threadIdx.x % 32);
    return true;
  }

  /// Without locks, in a pass whose slots give every thread its word at one offset from the table's entry
  /// (uniform_words: all slot words shared, or a word per thread in every slot and no replicas): `at` becomes the
  /// thread's word of bin b where b has a slot, and is left as it is otherwise. One branch-free step where find() takes
  /// three ways.
  __device__ __forceinline__ void redirect(int b, int& at) const {
    static_assert(!Locked, "for the compare-and-swap class");
    const unsigned e = table_[hot_bin_hash<hash_bits>(b, multiplier_)];
    if (e >> 16 == static_cast<unsigned>(b)) at = static_cast<int>(e & 0xffffu) + word_offset_;
  }
  /// redirect() for any pass of the sampled hot bins (slots with a word per thread, then replicas per lane): the
  /// word's offset from the table's entry is the thread's index in a slot and its lane in a replica, picked with a
  /// select rather than find()'s branches.
  __device__ __forceinline__ void redirect_any(int b, int& at) const {
    static_assert(!Locked && !ShareSlots, "for the compare-and-swap class's sampled hot bins");
    const unsigned e = table_[hot_bin_hash<hash_bits>(b, multiplier_)];
    if (e >> 16 == static_cast<unsigned>(b)) {
      const int word = static_cast<int>(e & 0xffffu);
      at = word + static_cast<int>(word < own_end_ ? threadIdx.x : threadIdx.x % 32);
    }
  }
  /// find() as a redirect, for the sampled hot bins' loop with two update sites (kernel_shared.cuh): where b is hot,
  /// `at` becomes the thread's word of it (its own slot word, its lane's replica or its share of a shared slot);
  /// returns true when that word is the thread's own (a plain read-modify-write), false for the compare-and-swap
  /// site (`at` left as the copy's word where b is not hot).
  __device__ __forceinline__ bool redirect_own(int b, int& at) const {
    static_assert(!Locked, "for the compare-and-swap class");
    const unsigned e = table_[hot_bin_hash<hash_bits>(b, multiplier_)];
    if (e >> 16 != static_cast<unsigned>(b)) return false;
    const int word = static_cast<int>(e & 0xffffu);
    const bool own = word < own_end_;
    at = word + static_cast<int>(own ? threadIdx.x : ShareSlots ? shared_word_ : threadIdx.x % 32);
    return own;
  }
  /// The pass's tile counter (element_source::for_each_warp_tiles), 0 after choose(); the caller's barrier
  /// publishes it.
  __device__ __forceinline__ int* tile_counter() const { return counters_; }
  /// Whether this pass may take redirect() instead of find().
  __device__ __forceinline__ bool uniform_words() const { return uniform_words_; }

  /// Locked && ShareSlots: find without `own`. The lock class has no replicas, so a pass's slot words are all the
  /// thread's own or all shared (words_own, the same for the whole pass): the kernel asks once per pass, not per
  /// input (its loop is bound by instruction issue).
  __device__ __forceinline__ bool find_word(int b, int& word) const {
    static_assert(Locked && ShareSlots, "find_word is the lock class's with shared slot words");
    const unsigned e = table_[hot_bin_hash<hash_bits>(b, multiplier_)];
    if (e >> 16 != static_cast<unsigned>(b)) return false;
    word = static_cast<int>(e & 0xffffu) + shared_word_;
    return true;
  }
  /// Locked && ShareSlots: whether this pass's slot words are the threads' own (a word per thread).
  __device__ __forceinline__ bool words_own() const { return own_end_ > first_; }

  /// Locked && ShareSlots: a shared slot word that find gave (own false) with its bit lock (slot_lock_layout.hpp),
  /// as the lock class's updates take it (bin_slot).
  __device__ __forceinline__ bin_slot<T> shared_slot(T* subs, int word) const {
    const int at = word - first_;
    return bin_slot<T>{subs + word, slot_locks_ + slot_lock_word(at), slot_lock_bit(at)};
  }

  /// Folds the pass's slots and replicas into their bins of copy 0 (no other thread may touch those bins now: call it
  /// between __syncthreads). Every thread of the block calls it; ends with __syncthreads.
  template <class Op>
  __device__ void fold_into(Op op, const hot_bin_pass& pass, int stride) const {
    T* subs = reinterpret_cast<T*>(shared_);
    const int lane = static_cast<int>(threadIdx.x % 32), warps = static_cast<int>(blockDim.x / 32);
    const int first = first_value(pass.copies, stride);
    for (int s = static_cast<int>(threadIdx.x / 32); s < pass.slots + pass.lane_bins; s += warps) {
      T acc = Op::identity();
      if (s < pass.slots) {
        for (int j = lane; j < pass.slot_words; j += 32) acc = op(acc, subs[first + s * pass.slot_words + j]);
      } else {
        acc = subs[first + pass.slots * pass.slot_words + (s - pass.slots) * 32 + lane];
      }
      for (int d = 16; d > 0; d /= 2) acc = op(acc, shuffle_any(0xffffffffu, acc, lane ^ d));
      if (lane == 0) subs[bins_[s]] = op(subs[bins_[s]], acc);
    }
    __syncthreads();
  }

 private:
  // The first value after `copies` copies (and the lock class's bit locks after them), at an 8-byte boundary.
  __device__ __forceinline__ static int first_value(int copies, int stride) {
    const std::size_t values = static_cast<std::size_t>(copies) * stride;
    const std::size_t bytes = Locked ? (values * sizeof(T) + 3) / 4 * 4 + (values + 31) / 32 * 4 : values * sizeof(T);
    return static_cast<int>((hot_bin_area_offset(bytes) + sizeof(T) - 1) / sizeof(T));
  }

  // Values between the first after `copies` copies and the table.
  __device__ __forceinline__ int room_values(int copies, int stride) const {
    return static_cast<int>((table_bytes_at_ - static_cast<unsigned>(first_value(copies, stride)) * sizeof(T)) /
                            sizeof(T));
  }

  // Locked && ShareSlots, the sampled hot bins (the first warp): if the hottest of the `offered` ranked candidates has
  // `slot_hits`, each candidate, hottest first and up to max_slots_, takes a slot: a word per thread where all of them
  // fit the room after the M copies, else the most whole warps' worth of words (at least one warp's: 32 words, each
  // a lane's, under a bit lock, for 32 x sizeof(T) + 4 bytes) that fit, the coldest candidates left on the copies
  // where not even that fits. Leaves the counters as pick_room does (no replicas).
  __device__ void pick_lock_words(int M, int stride, int slot_hits, int offered) {
    static_assert(Locked && ShareSlots, "the lock class's shared slot words");
    const int B = static_cast<int>(blockDim.x);
    const int room = room_values(M, stride);
    constexpr int lock_group_values = slot_lock_group_bytes / static_cast<int>(sizeof(T));
    constexpr std::size_t per_32_words = 32 * sizeof(T) + lock_bytes_per_32_words;
    // (A value less for the rounding of the lock words' bytes to values, as pick_room's slots_room.)
    const std::size_t shared_room = room > lock_group_values + 1 ? room - lock_group_values - 1 : 0;
    int slots = offered > 0 && bins_[0] >> 16 >= slot_hits ? offered : 0;
    if (slots > max_slots_) slots = max_slots_;
    int words = B;
    if (slots > 0 && slots * B > room) {
      // In bytes: per slot, whole groups of 32 words with their lock bits (at least one group for each slot kept).
      const std::size_t bytes = shared_room * sizeof(T);
      const std::size_t most_slots = bytes / per_32_words;
      if (static_cast<std::size_t>(slots) > most_slots) slots = static_cast<int>(most_slots);
      words = slots > 0 ? static_cast<int>(bytes / static_cast<std::size_t>(slots) / per_32_words) * 32 : B;
      if (words > B) words = B;  // (B itself fits only unshared: checked above)
    }
    if (threadIdx.x == 0) {
      counters_[1] = M;
      counters_[5] = words;
      counters_[6] = slots;
      counters_[7] = 0;
    }
  }

  // The first warp, with the `offered` candidates ranked in bins_: if the hottest has `slot_hits`, takes the hottest
  // with `lane_hits` (strong) as slots, up to max_slots_, the other strong ones and then the weak as replicas, as
  // many as fit: copies are dropped (down to one) for the slots and the first hot_bin_max_room_lane_bins strong
  // replicas (with ShareSlots, the slots' words shrink first), the others take what room is left. Leaves
  // counters_[1] = copies, [5] = words per slot, [6] = slots, [7] = lane bins (the candidates to place: fill_table).
  template <bool KeepCopies>
  __device__ void pick_room(int M, int stride, int slot_hits, int lane_hits, int offered) {
    const int lane = static_cast<int>(threadIdx.x);
    const int B = static_cast<int>(blockDim.x);
    auto hits = [&](int r) { return bins_[r] >> 16; };
    const int own_hits = B / hot_bin_own_min_share > slot_hits ? B / hot_bin_own_min_share : slot_hits;
    int strong_n = 0, worth_own = 0;  // ranked: prefixes
    for (int at = 0; at < offered; at += 32) {
      const int r = at + lane;
      strong_n += __popc(__ballot_sync(0xffffffffu, r < offered && hits(r) >= lane_hits));
      worth_own += __popc(__ballot_sync(0xffffffffu, r < offered && hits(r) >= own_hits));
    }
    if (offered == 0 || hits(0) < slot_hits) strong_n = 0;  // nothing hot enough: no slots at all
    // Room: drop copies until the slots and the first strong replicas fit, then take what fits.
    int copies = M;
    int slots = strong_n < max_slots_ ? strong_n : max_slots_;
    auto strong_lanes = [&] {
      return strong_n - slots < hot_bin_max_room_lane_bins ? strong_n - slots : hot_bin_max_room_lane_bins;
    };
    const int min_slots = worth_own < slots ? (worth_own > 0 ? worth_own : 1) : slots;  // the hottest has slot_hits
    auto room = [&](int c) { return room_values(c, stride); };
    while (!Locked && !KeepCopies && copies > 1 && room(copies) < slots * B + strong_lanes() * 32) --copies;
    // Short of a word per thread: shared slots take whole warps' worth of words each, as many as fit (with their bit
    // locks: Locked, whose lock words come in whole groups: a group more than the slots' words need).
    const int lock_group_values = Locked && ShareSlots ? slot_lock_group_bytes / static_cast<int>(sizeof(T)) : 0;
    int words = B;
    if (ShareSlots && slots > 0 && room(copies) < slots * B) {
      // (Locked: a value less for the rounding of the lock words' bytes to values in slots_room.)
      const int per_slot = (room(copies) - lock_group_values - (Locked ? 1 : 0)) / slots;
      const std::size_t per_32_words = 32 * sizeof(T) + lock_bytes_per_32_words;
      const int fit = static_cast<int>(static_cast<std::size_t>(per_slot) * sizeof(T) / per_32_words) * 32;
      if (fit >= 32) words = fit;
    }
    auto slots_room = [&](int n) {  // in values
      if (words == B) return n * words;
      return n * words + (n * words / 32 * lock_bytes_per_32_words + static_cast<int>(sizeof(T)) - 1) /
                             static_cast<int>(sizeof(T)) + lock_group_values;
    };
    // Still short: the weaker slots become replicas (they rank right after the slots), then fewer replicas, then
    // fewer slots.
    while (slots > min_slots && room(copies) < slots_room(slots) + strong_lanes() * 32) --slots;
    while (slots > 0 && room(copies) < slots_room(slots)) --slots;
    const int lanes_offered = strong_n == 0 ? 0 : offered - slots;
    int lane_bins = lanes_offered < hot_bin_max_lane_bins ? lanes_offered : hot_bin_max_lane_bins;
    if (room(copies) < slots_room(slots) + lane_bins * 32) lane_bins = (room(copies) - slots_room(slots)) / 32;
    if (slots == 0 || Locked || words < B) lane_bins = 0;  // shared slot words: the replicas' offset is theirs
    if (lane == 0) {
      counters_[1] = copies;
      counters_[5] = words;
      counters_[6] = slots;
      counters_[7] = lane_bins;
    }
  }

  // The hash multipliers a block chooses among: one per lane of the first warp (odd).
  __device__ __forceinline__ static unsigned candidate_multiplier(int m) {
    return 0x9E3779B1u + static_cast<unsigned>(m) * 0x6A09E668u;
  }

  // Every warp of the block: scores the 32 candidate multipliers (multiplier m by warp m % warps) over the bins
  // pick_room placed, hottest first: a slot's bin that collides with a hotter one counts 64, a replica's 1. Row m of
  // `scratch` (a table's worth of bits) marks the entries taken, a chunk of 32 bins at once; within a chunk the lane
  // whose atomic came first goes free, which differs from rank order only where a chunk's slot and replica share an
  // entry (the placement itself is by rank: fill_table). Leaves multiplier m's score in the row's first word. One lane
  // scoring each multiplier over all bins took ~10 us a pass at 195 bins (its bits 32 words apart: every access
  // 32-way bank-conflicted), lanes of a chunk ordered by __match_any_sync ~7 us (seed 000's saturating add, RF 63,
  // H = 12288, lent H100, 2026-11-26, bench/results/2026-11-26-h100-hot-bin-choose.txt).
  __device__ void score_multipliers(unsigned* scratch) {
    const int lane = static_cast<int>(threadIdx.x % 32), warps = static_cast<int>(blockDim.x / 32);
    const int slots = counters_[6], n = slots + counters_[7];
    constexpr int row_words = entries / 32;
    for (int m = static_cast<int>(threadIdx.x / 32); m < 32; m += warps) {
      unsigned* bits = scratch + m * row_words;
      for (int w = lane; w < row_words; w += 32) bits[w] = 0;
      __syncwarp();
      const unsigned mult = candidate_multiplier(m);
      int score = 0;
      for (int at = 0; at < n; at += 32) {
        const int r = at + lane;
        if (r < n) {
          const int h = hot_bin_hash<hash_bits>(bins_[r] & 0xffff, mult);
          if ((atomicOr(bits + h / 32, 1u << (h % 32)) >> (h % 32)) & 1u) score += r < slots ? 64 : 1;
        }
      }
      for (int d = 16; d > 0; d /= 2) score += __shfl_xor_sync(0xffffffffu, score, d);
      __syncwarp();
      if (lane == 0) bits[0] = static_cast<unsigned>(score);
    }
  }

  // The first warp: takes the multiplier that scored least (without `scores`, the first), fills the table with the
  // bins pick_room placed, hottest first, and compacts the bins taken into bins_. A bin whose entry a hotter one took
  // stays on the copies, and the next candidate takes its replica. All lanes at once: each candidate claims its entry
  // with atomicMin of its rank, the lowest rank keeps it, and ballots count the slots and replicas taken before each
  // (a single lane placing them one by one took ~18 us a pass at 195 bins, as above). Leaves counters_[2..4] = slots,
  // lane bins taken, multiplier.
  __device__ void fill_table(int stride, int offered, const unsigned* scores) {
    const int lane = static_cast<int>(threadIdx.x);
    int score = scores != nullptr ? static_cast<int>(scores[lane * (entries / 32)]) : (lane == 0 ? 0 : 1 << 30);
    int best_lane = lane;
    for (int d = 16; d > 0; d /= 2) {
      const int other_score = __shfl_xor_sync(0xffffffffu, score, d);
      const int other_lane = __shfl_xor_sync(0xffffffffu, best_lane, d);
      if (other_score < score || (other_score == score && other_lane < best_lane)) {
        score = other_score;
        best_lane = other_lane;
      }
    }
    const unsigned chosen = candidate_multiplier(best_lane);
    const int copies = counters_[1], words = counters_[5], slots = counters_[6], lane_bins = counters_[7];
    const int first = first_value(copies, stride);
    const int n = slots + lane_bins > 0 ? offered : 0;
    for (int r = lane; r < n; r += 32)
      atomicMin(table_ + hot_bin_hash<hash_bits>(bins_[r] & 0xffff, chosen), static_cast<unsigned>(r));
    __syncwarp();
    unsigned won = 0;  // bit c: this lane's candidate of chunk c kept its entry (read before any entry is rewritten)
    for (int at = 0, c = 0; at < n; at += 32, ++c) {
      const int r = at + lane;
      if (r < n && table_[hot_bin_hash<hash_bits>(bins_[r] & 0xffff, chosen)] == static_cast<unsigned>(r))
        won |= 1u << c;
    }
    __syncwarp();
    int taken_slots = 0, seen_lanes = 0;  // the chunks before: slots taken, replicas that won their entry
    for (int at = 0, c = 0; at < n; at += 32, ++c) {
      const int r = at + lane;
      const int b = r < n ? bins_[r] & 0xffff : 0;
      const bool wins = (won >> c) & 1u, own = r < slots;
      const unsigned own_wins = __ballot_sync(0xffffffffu, wins && own);
      const unsigned lane_wins = __ballot_sync(0xffffffffu, wins && !own);
      const unsigned before = (1u << lane) - 1;
      // The replicas come after every slot: the slots of this chunk (all before its replicas) count for them.
      const int slot = taken_slots + __popc(own_wins & before), slots_so_far = taken_slots + __popc(own_wins);
      const int replica = seen_lanes + __popc(lane_wins & before);
      const bool taken = wins && (own || replica < lane_bins);
      __syncwarp();  // every lane has read its bin
      if (wins) {
        const int word = first + (own ? slot * words : slots_so_far * words + replica * 32);
        // A replica past lane_bins leaves its entry empty.
        table_[hot_bin_hash<hash_bits>(b, chosen)] =
            taken ? static_cast<unsigned>(b) << 16 | static_cast<unsigned>(word) : ~0u;
        if (taken) bins_[own ? slot : slots_so_far + replica] = b;  // compacted: at most r; later chunks unread
      }
      __syncwarp();
      taken_slots = slots_so_far;
      seen_lanes += __popc(lane_wins);
    }
    if (lane == 0) {
      counters_[2] = taken_slots;
      counters_[3] = seen_lanes < lane_bins ? seen_lanes : lane_bins;
      counters_[4] = static_cast<int>(chosen);
    }
  }

  unsigned char* shared_;
  int max_slots_;
  unsigned table_bytes_at_;
  unsigned* table_;
  unsigned* candidates_;
  int* bins_;
  int* counters_;
  unsigned multiplier_ = 0;
  int own_end_ = 0;      // the first word after the slots with a word per thread (find)
  int shared_word_ = 0;  // this thread's word in a shared slot or replica: tid % slot_words, or its lane (or, the
                         // lock class with a word per thread, tid)
  int word_offset_ = 0;         // the thread's word in a slot from the table's entry, where uniform_words_
  bool uniform_words_ = false;  // every slot's word for this thread at word_offset_ (redirect)
  int first_ = 0;              // Locked && ShareSlots: the slots' first value, and their words' bit locks
  int* slot_locks_ = nullptr;
};

}  // namespace ghist::detail
