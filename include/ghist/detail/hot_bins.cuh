// Hot bins for the compare-and-swap class in shared memory (plan::hot_slots): each block samples its input at the
// start of a pass and takes the bins that the sample says several of its threads will update at once off the copies:
// the hottest get a slot per thread (a plain read-modify-write: nothing to retry), the next ones a replica per lane
// (compare-and-swap, but 32 words share the bin's updates). Both are folded into the bin at the end of the pass.
//
// Why: a skewed input (Zipf) keeps a few words of the block's copies busy with compare-and-swaps from many threads at
// once, and each retry queues behind the others. The deferring loop (deferred_cas.cuh) keeps one lost update per
// thread, which cures one hot bin but not twenty. The expected retries per input grow with the sum of the squared bin
// shares; for Zipf(1.1) over 12288 bins the first 8 bins hold ~96% of that sum and the next 56 most of the rest.
// A uniform input gives no bin enough hits: its blocks run the plain loop and pay only the sample.
//
// Shared memory: the plan's copies, then (when the sample finds hot bins) the slots, slot-major so that a warp's lanes
// use consecutive words, and the lane replicas; the table sits at the end of the block's shared memory. The plan
// gives the block all the shared memory its share of the SM allows; where the copies leave too little of it, the pass
// drops copies for the slots (a skewed input gains more from the slots than from the copies). Blocks of whole warps
// only (the first warp picks the bins with full-warp shuffles).
#pragma once

#include <cstdint>

#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/plan.hpp"

namespace ghist::detail {

inline constexpr int hot_bin_table_entries = 256;  // direct-mapped by hot_bin_hash: (target << 32 | bin), ~0 empty
inline constexpr int hot_bin_max_candidates = 64;  // sampled bins with enough hits considered, hottest first
#ifndef GHIST_HOT_BIN_LANE_BINS
#define GHIST_HOT_BIN_LANE_BINS 56
#endif
inline constexpr int hot_bin_max_lane_bins = GHIST_HOT_BIN_LANE_BINS;  // bins with a replica per lane, after the slots
// The fewest sampled hits (of one per thread) for a slot and for a replica. The block takes bins off the copies only
// when its hottest bin has the slots' count: a uniform input over 2048 bins gives a block of 1024 threads ~0.5 hits
// per bin, and 8 or more to one of them in ~1 block in 20000; the replicas' 4 is for the bins after the hottest.
inline constexpr int hot_bin_slot_min_hits = 8;
inline constexpr int hot_bin_lane_min_hits = 4;
// Where the room is short (one copy that cannot be dropped), a bin keeps its slot per thread (4 KiB of 4-byte values
// in a block of 1024) only with 1/32 of the sample: below that its replica per lane (128 bytes) has under one update
// at a time (32 threads share it), and the room of one slot holds 32 replicas. Where the room is not short, the
// hottest bins all take slots: slots only for such bins lost at H <= 12288 (Zipf(1.1), the saturating add, RF 1
// H = 505 / 2048 227 / 263 -> 285 / 332 us) and won at H = 24576 (1215 -> 980;
// bench/results/2026-11-25-h100-hot-bins-room.txt).
inline constexpr int hot_bin_own_min_share = 32;
static_assert(hot_bin_table_bytes >= (hot_bin_table_entries + hot_bin_max_candidates) * 8 +
                                         (hot_bin_max_slots + hot_bin_max_lane_bins + 8) * 4,
              "the table's layout");
// pick's scratch: a table's worth of bits per lane, in the copies' memory (spent counts) when it has room.
inline constexpr int hot_bin_scratch_bytes = 32 * hot_bin_table_entries / 8;

// Multiplicative hashing into the table's 256 entries; each block picks the multiplier for its hot bins (pick).
__device__ __forceinline__ int hot_bin_hash(int bin, unsigned multiplier) {
  return static_cast<int>((static_cast<unsigned>(bin) * multiplier) >> 24);
}

/// What a block's sample decided for one pass (the same on every thread).
struct hot_bin_pass {
  int copies;      ///< M for this pass: the plan's, or fewer where the slots needed their room
  int slots;       ///< bins with a slot per thread
  int lane_bins;   ///< bins with a replica per lane
};

template <class T>
class hot_bin_slots {
 public:
  /// `max_slots`: the plan's hot_slots. The table lies at the end of the block's dynamic shared memory.
  __device__ hot_bin_slots(unsigned char* shared, int max_slots) : shared_(shared), max_slots_(max_slots) {
    unsigned size;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
    table_bytes_at_ = size - static_cast<unsigned>(hot_bin_table_bytes);
    table_ = reinterpret_cast<unsigned long long*>(shared + table_bytes_at_);
    candidates_ = table_ + hot_bin_table_entries;
    bins_ = reinterpret_cast<int*>(candidates_ + hot_bin_max_candidates);  // slots' bins, then the lane bins'
    counters_ = bins_ + hot_bin_max_slots + hot_bin_max_lane_bins;
  }

  /// Every thread of the block calls it at the start of a pass, before the copies are filled: samples one input per
  /// thread (a run of consecutive inputs at a place that depends on the block), counts the bins in [lo, lo + len) in
  /// the copies' memory (at least len ints), and takes the hottest bins (pick) when the hottest has at least
  /// `slot_hits` hits, those with at least `lane_hits`. The plan has M copies `stride` bins apart. Fills the slots and
  /// replicas with the identity; the caller's __syncthreads after it fills the copies publishes them.
  template <class Source>
  __device__ hot_bin_pass choose(const Source& src, std::int64_t lo, std::int64_t len, int M, int stride,
                                 int slot_hits, int lane_hits, T identity) {
    const int tid = static_cast<int>(threadIdx.x), B = static_cast<int>(blockDim.x);
    int* counts = reinterpret_cast<int*>(shared_);
    for (std::int64_t i = tid; i < len; i += B) counts[i] = 0;
    for (int i = tid; i < hot_bin_table_entries; i += B) table_[i] = ~0ull;
    if (tid == 0) counters_[0] = 0;  // candidates offered
    __syncthreads();
    const std::int64_t n = src.n;
    const std::int64_t run = n < B ? n : B;
    const std::int64_t start = gridDim.x > 1 ? (n - run) * blockIdx.x / (gridDim.x - 1) : 0;
    int bin = -1;
    if (tid < run) {
      const std::int64_t b = static_cast<std::int64_t>(src.at(start + tid).bin) - lo;
      if (static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len)) {
        bin = static_cast<int>(b);
        atomicAdd(counts + bin, 1);
      }
    }
    __syncthreads();
    // One thread per sampled bin takes its count (the exchange leaves 0 for the others) and offers it.
    if (bin >= 0) {
      const int hits = atomicExch(counts + bin, 0);
      if (hits >= lane_hits) {
        const int at = atomicAdd(counters_, 1);
        if (at < hot_bin_max_candidates)
          candidates_[at] = static_cast<unsigned long long>(hits) << 32 | static_cast<unsigned>(bin);
      }
    }
    __syncthreads();
    const bool scratch = static_cast<std::size_t>(M) * stride * sizeof(T) >= hot_bin_scratch_bytes;
    if (tid < 32) pick(M, stride, slot_hits, scratch ? reinterpret_cast<unsigned*>(shared_) : nullptr);
    __syncthreads();
    const hot_bin_pass pass{counters_[1], counters_[2], counters_[3]};
    multiplier_ = static_cast<unsigned>(counters_[4]);
    const int first = first_value(pass.copies, stride);
    T* subs = reinterpret_cast<T*>(shared_);
    for (int i = tid; i < pass.slots * B + pass.lane_bins * 32; i += B) subs[first + i] = identity;
    return pass;
  }

  /// Where this thread updates bin `b` (relative to the pass): a word index into the copies' array, and whether the
  /// word is the thread's own (a plain update) or shared (compare-and-swap). Returns false when b is not hot.
  __device__ __forceinline__ bool find(int b, int& word, bool& own) const {
    const unsigned long long e = table_[hot_bin_hash(b, multiplier_)];
    if (static_cast<unsigned>(e) != static_cast<unsigned>(b)) return false;
    own = (e >> 32) & 1u;
    word = static_cast<int>(e >> 33) + static_cast<int>(own ? threadIdx.x : threadIdx.x % 32);
    return true;
  }

  /// Folds the pass's slots and replicas into their bins of copy 0 (no other thread may touch those bins now: call it
  /// between __syncthreads). Every thread of the block calls it; ends with __syncthreads.
  template <class Op>
  __device__ void fold_into(Op op, const hot_bin_pass& pass, int stride) const {
    T* subs = reinterpret_cast<T*>(shared_);
    const int lane = static_cast<int>(threadIdx.x % 32), warps = static_cast<int>(blockDim.x / 32);
    const int B = static_cast<int>(blockDim.x), first = first_value(pass.copies, stride);
    for (int s = static_cast<int>(threadIdx.x / 32); s < pass.slots + pass.lane_bins; s += warps) {
      T acc = Op::identity();
      if (s < pass.slots) {
        for (int j = lane; j < B; j += 32) acc = op(acc, subs[first + s * B + j]);
      } else {
        acc = subs[first + pass.slots * B + (s - pass.slots) * 32 + lane];
      }
      for (int d = 16; d > 0; d /= 2) acc = op(acc, shuffle_any(0xffffffffu, acc, lane ^ d));
      if (lane == 0) subs[bins_[s]] = op(subs[bins_[s]], acc);
    }
    __syncthreads();
  }

 private:
  // The first word after `copies` copies, aligned to 8 bytes.
  __device__ __forceinline__ static int first_value(int copies, int stride) {
    return static_cast<int>(hot_bin_area_offset(static_cast<std::size_t>(copies) * stride * sizeof(T)) / sizeof(T));
  }

  // The first warp: ranks the candidates, hottest first; if the hottest has `slot_hits`, takes as many as fit (dropping
  // copies down to one for them), picks the hash multiplier under which the slots' bins, then the replicas', collide
  // least (one multiplier per lane, scored in `scratch`, 256 bits per lane; without scratch the first lane's), and
  // fills the table. Leaves counters_[1..4] = copies, slots, lane bins, multiplier.
  __device__ void pick(int M, int stride, int slot_hits, unsigned* scratch) {
    const int lane = static_cast<int>(threadIdx.x);
    const int offered = counters_[0] < hot_bin_max_candidates ? counters_[0] : hot_bin_max_candidates;
    const int most = max_slots_ + hot_bin_max_lane_bins;
    unsigned long long mine[2];
    for (int j = 0; j < 2; ++j) mine[j] = lane + 32 * j < offered ? candidates_[lane + 32 * j] : 0ull;
    const int B = static_cast<int>(blockDim.x);
    const int own_hits = B / hot_bin_own_min_share > slot_hits ? B / hot_bin_own_min_share : slot_hits;
    int ranked = 0, worth_own = 0;
    for (; ranked < offered && ranked < most; ++ranked) {
      unsigned long long best = mine[0] > mine[1] ? mine[0] : mine[1];
      for (int d = 16; d > 0; d /= 2) {
        const unsigned long long other = __shfl_xor_sync(0xffffffffu, best, d);
        best = other > best ? other : best;
      }
      if (ranked == 0 && static_cast<int>(best >> 32) < slot_hits) break;  // nothing hot enough: no slots at all
      if (static_cast<int>(best >> 32) >= own_hits) ++worth_own;
      for (int j = 0; j < 2; ++j)
        if (mine[j] == best) mine[j] = 0;  // (hits, bin) pairs are distinct: one lane holds it
      if (lane == 0) bins_[ranked] = static_cast<int>(best & 0xffffffffu);
    }
    __syncwarp();
    // Room: drop copies until the ranked bins' slots and replicas fit, then take what fits.
    int copies = M;
    int slots = ranked < max_slots_ ? ranked : max_slots_;
    int lane_bins = ranked - slots < hot_bin_max_lane_bins ? ranked - slots : hot_bin_max_lane_bins;
    const int strong = worth_own < slots ? (worth_own > 0 ? worth_own : 1) : slots;  // the hottest has slot_hits
    auto room = [&](int c) {
      return static_cast<int>((table_bytes_at_ - static_cast<unsigned>(first_value(c, stride)) * sizeof(T)) /
                              sizeof(T));
    };
    while (copies > 1 && room(copies) < slots * B + lane_bins * 32) --copies;
    // Still short: the weaker slots become replicas (the first of them rank right after the slots), then fewer
    // replicas, then fewer slots.
    while (slots > strong && room(copies) < slots * B + lane_bins * 32) {
      --slots;
      if (lane_bins < hot_bin_max_lane_bins) ++lane_bins;
    }
    if (room(copies) < slots * B) slots = room(copies) / B;
    if (room(copies) < slots * B + lane_bins * 32) lane_bins = (room(copies) - slots * B) / 32;
    if (slots == 0) lane_bins = 0;
    // Each lane scores a multiplier: a slot bin that collides counts 64, a replica's 1.
    const unsigned mult = 0x9E3779B1u + static_cast<unsigned>(lane) * 0x6A09E668u;  // odd
    int score = lane == 0 ? 0 : 1 << 30;
    if (scratch != nullptr) {
      unsigned* bits = scratch + lane * (hot_bin_table_entries / 32);
      for (int w = 0; w < hot_bin_table_entries / 32; ++w) bits[w] = 0;
      score = 0;
      for (int r = 0; r < slots + lane_bins; ++r) {
        const int h = hot_bin_hash(bins_[r], mult);
        if (bits[h / 32] & (1u << (h % 32))) score += r < slots ? 64 : 1;
        bits[h / 32] |= 1u << (h % 32);
      }
    }
    int best_lane = lane;
    for (int d = 16; d > 0; d /= 2) {
      const int other_score = __shfl_xor_sync(0xffffffffu, score, d);
      const int other_lane = __shfl_xor_sync(0xffffffffu, best_lane, d);
      if (other_score < score || (other_score == score && other_lane < best_lane)) {
        score = other_score;
        best_lane = other_lane;
      }
    }
    const unsigned chosen = __shfl_sync(0xffffffffu, mult, best_lane);
    const int first = first_value(copies, stride);
    int taken_slots = 0, taken_lanes = 0;  // hottest first: the slots, then the replicas
    if (lane == 0) {
      for (int r = 0; r < slots + lane_bins; ++r) {
        const int b = bins_[r], h = hot_bin_hash(b, chosen);
        if (table_[h] != ~0ull) continue;  // a hotter bin took the entry: this one stays on the copies
        const bool own = taken_slots < slots;
        if (!own && taken_lanes == lane_bins) break;
        const int word = own ? first + taken_slots * B : first + slots * B + taken_lanes * 32;
        table_[h] = static_cast<unsigned long long>(word) << 33 | static_cast<unsigned long long>(own) << 32 |
                    static_cast<unsigned>(b);
        bins_[taken_slots + taken_lanes] = b;  // compacted: at most r, already read
        if (own) ++taken_slots;
        else ++taken_lanes;
      }
      counters_[1] = copies;
      counters_[2] = taken_slots;
      counters_[3] = taken_lanes;
      counters_[4] = static_cast<int>(chosen);
    }
  }

  unsigned char* shared_;
  int max_slots_;
  unsigned table_bytes_at_;
  unsigned long long* table_;
  unsigned long long* candidates_;
  int* bins_;
  int* counters_;
  unsigned multiplier_ = 0;
};

}  // namespace ghist::detail
