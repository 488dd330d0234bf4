// The planner: seed 000's analytical model (section III-C eqs. 1-3 for shared memory, III-D eqs. 4-6 for global
// memory, V-A for the switch between them), as its artifact code computes it, plus the rules ghist adds. Pure
// host code: no CUDA calls, so that it is tested on the CPU against seed 000's Table I.
//
// Where we depart from the paper or from the artifact (github.com/diku-dk/futhark-sc20, prototype/histo-main.cu),
// the comment at the place says so and why. Summary of the departures:
//   * L (shared memory per block) is queried, not a fixed 48 KiB, and divided among the blocks that fit on one SM
//     (the paper's footnote 7); the artifact's fixed 48 KiB is what device_info::sc20_rtx2080ti() models.
//   * The artifact's shared-memory work bound M <= N / (q * blocks * H) asserted M > 0 and aborted for large H;
//     here it is floored at 1.
//   * The global M is also capped by the work bound N / (q * H) (the artifact capped only its first estimate).
//   * Global H_chk = ceil(H / S) (the paper) where the artifact's integer division gave floor(H / S); Table I is the
//     same with either (tests/host/test_planner.cpp checks every cell).
//   * Overridden S is normalised to the number of non-empty passes, ceil(H / H_chk).
//   * The switch prefers global memory when H > N (multi-pass shared memory would re-read the input S times for
//     few updates, and initialising H shared bins per block costs more than the updates).
#include "ghist/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "ghist/detail/hashed_tags.hpp"
#include "ghist/detail/lock_queue.hpp"
#include "ghist/detail/partition_layout.hpp"
#include "ghist/detail/slot_lock_layout.hpp"
#include "ghist/error.hpp"

namespace ghist {
namespace {

using i64 = std::int64_t;

// The race-factor inspector samples into 8192 int64 bins (dispatch runs it when problem::race_factor is 0).
constexpr std::size_t inspector_bytes = 8192 * sizeof(std::int64_t);
// Sub-histograms in global memory start on a 256-byte boundary, as cudaMalloc would give them.
constexpr std::size_t global_alignment = 256;
constexpr std::size_t lock_bytes = 4;

i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t a, std::size_t b) { return (a + b - 1) / b * b; }

int clamp_to_int(i64 v) {
  return static_cast<int>(std::min<i64>(v, std::numeric_limits<int>::max()));
}

double race_factor_used(const problem& p) { return p.race_factor > 0 ? p.race_factor : 1.0; }

void validate(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k) {
  if (p.num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(p.num_bins));
  if (p.n < 0) throw error("n (the number of inputs) must be >= 0, got " + std::to_string(p.n));
  if (p.value_bytes == 0) throw error("value_bytes must be > 0");
  if (!(p.race_factor >= 0) || std::isinf(p.race_factor))
    throw error("race_factor must be >= 0 (0 = unknown), got " + std::to_string(p.race_factor));
  if (dev.sm_count <= 0 || dev.max_threads_per_sm <= 0 || dev.max_threads_per_block <= 0)
    throw error("device_info '" + dev.name + "' has no SMs or threads: query it with device_info::query");
  if (o.M < 0) throw error("plan override M must be >= 0 (0 = planner decides), got " + std::to_string(o.M));
  if (o.S < 0) throw error("plan override S must be >= 0 (0 = planner decides), got " + std::to_string(o.S));
  if (o.block < 0)
    throw error("plan override block must be >= 0 (0 = planner decides), got " + std::to_string(o.block));
  if (o.grid < 0) throw error("plan override grid must be >= 0 (0 = planner decides), got " + std::to_string(o.grid));
  if (o.counted_groups < -1 || o.counted_groups > 1)
    throw error("plan override counted_groups must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.counted_groups));
  if (o.thread_private < -1 || o.thread_private > 1)
    throw error("plan override thread_private must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.thread_private));
  if (o.thread_private > 0 && (o.M > 0 || o.S > 0 || o.block > 0 || o.grid > 0))
    throw error("plan override thread_private = 1 sets M = block, S = 1 and its own block and grid: leave overrides "
                "M, S, block and grid at 0");
  if (o.thread_private > 0 && o.kind != strategy::automatic && o.kind != strategy::shared_memory)
    throw error(std::string("plan override thread_private = 1 is a shared-memory plan; overrides.kind is ") +
                to_string(o.kind));
  if (o.thread_private > 0 && p.op_class == atomic_class::hdw)
    throw error("plan override thread_private = 1 applies to the compare-and-swap and lock classes; this operator "
                "has hardware atomics");
  if (o.hot_bins < -1 || o.hot_bins > 1)
    throw error("plan override hot_bins must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.hot_bins));
  if (o.hot_bins > 0 && p.op_class == atomic_class::hdw)
    throw error("plan override hot_bins = 1 applies to the compare-and-swap and lock classes; this operator has "
                "hardware atomics");
  if (o.staged_input < -1 || o.staged_input > 1)
    throw error("plan override staged_input must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.staged_input));
  if (o.dense_second_pass < -1 || o.dense_second_pass > 1)
    throw error("plan override dense_second_pass must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.dense_second_pass));
  if (o.hashed_bins < -1 || o.hashed_bins > 1)
    throw error("plan override hashed_bins must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.hashed_bins));
  if (o.hot_split < -1 || o.hot_split > 1)
    throw error("plan override hot_split must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.hot_split));
  if (o.hot_split > 0 && (p.op_class != atomic_class::xcg || p.value_bytes > 16))
    throw error("plan override hot_split = 1 applies to the lock class with values of up to 16 bytes; this operator " +
                std::string(p.op_class != atomic_class::xcg ? "takes atomics or compare-and-swap"
                                                            : "has " + std::to_string(p.value_bytes) + "-byte values"));
  if (o.lock_queue < -1 || o.lock_queue > 1)
    throw error("plan override lock_queue must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.lock_queue));
  if (o.lock_queue > 0 && (p.op_class != atomic_class::xcg || !p.idempotent || (p.value_bytes != 4 && p.value_bytes != 8)))
    throw error("plan override lock_queue = 1 applies to idempotent lock-class operators of 4- or 8-byte values");
  if (o.seed_launch < -1 || o.seed_launch > 1)
    throw error("plan override seed_launch must be -1 (no), 0 (planner decides) or 1 (yes), got " +
                std::to_string(o.seed_launch));
  if (o.seed_launch > 0 && !p.idempotent)
    throw error("plan override seed_launch = 1 applies to idempotent operators (ghist::is_idempotent_v): a seed "
                "counted twice must change nothing");
  if (o.hashed_bins > 0 &&
      (o.M > hashed_block / 32 || o.S > hashed_max_passes || (o.block > 0 && o.block != hashed_block)))
    throw error("plan override hashed_bins = 1 keeps one table per block of " + std::to_string(hashed_block) +
                " threads, with at most a copy of its values per warp: leave override block at 0, S at most " +
                std::to_string(hashed_max_passes) + ", M at most " + std::to_string(hashed_block / 32));
  if (k.shared_block <= 0 || k.global_block <= 0 || k.q_small <= 0 || k.cache_line_bytes <= 0 || k.k_min <= 0 ||
      k.f_l2 <= 0)
    throw error("planner_constants: block sizes, q_small, cache_line_bytes, k_min and f_l2 must be > 0");
}

int block_size(int requested, int fallback, const device_info& dev) {
  return std::max(1, std::min(requested > 0 ? requested : fallback, dev.max_threads_per_block));
}

// Shared memory one block may use when `blocks_per_sm` blocks are resident on an SM: the paper's footnote 7 ("use
// L/k per block when k blocks fit per SM"). blocks_per_sm = 0 means as many as fit by threads.
struct shared_budget {
  int blocks_per_sm;
  std::size_t L;
};
shared_budget shared_budget_for(int B, const device_info& dev, int blocks_per_sm = 0) {
  shared_budget b;
  b.blocks_per_sm = blocks_per_sm > 0 ? blocks_per_sm : std::max(1, dev.max_threads_per_sm / B);
  const std::size_t per_block = dev.shared_per_sm / static_cast<std::size_t>(b.blocks_per_sm);
  const std::size_t usable = per_block > dev.reserved_shared_per_block ? per_block - dev.reserved_shared_per_block : 0;
  b.L = std::min(dev.shared_per_block_optin, usable);
  return b;
}

// Bytes of M sub-histogram chunks of H_chk bins in shared memory: the values first, then (xcg) the 4-byte locks,
// starting at the next 4-byte boundary.
std::size_t shared_chunk_bytes(const problem& p, i64 M, i64 H_chk) {
  const std::size_t bins = static_cast<std::size_t>(M) * static_cast<std::size_t>(H_chk);
  if (p.op_class != atomic_class::xcg) return bins * p.value_bytes;
  return round_up(bins * p.value_bytes, lock_bytes) + bins * lock_bytes;
}

// The shared-memory strategy's M copies of H_chk bins, each padded to shared_copy_stride (plan.hpp). Its lock class
// packs the locks as bits, 32 to a 4-byte word (detail/atomic_update.cuh, try_lock_bit: seed 000's argmax takes
// 8 + 1/8 bytes per bin instead of 12; the measurements are there). The partitioned strategy keeps 4-byte locks.
std::size_t shared_copies_bytes(const problem& p, const planner_constants& k, i64 M, i64 H_chk) {
  if (p.op_class != atomic_class::xcg || !k.shared_lock_bits)
    return shared_chunk_bytes(p, M, shared_copy_stride(H_chk, M));
  const std::size_t bins = static_cast<std::size_t>(M) * static_cast<std::size_t>(shared_copy_stride(H_chk, M));
  return round_up(bins * p.value_bytes, lock_bytes) + (bins + 31) / 32 * lock_bytes;
}

// Bytes per bin of the shared-memory strategy, for its first estimates of M and of the chunk (shared_copies_bytes
// then checks them exactly): a bit lock rounds up to a byte.
std::size_t shared_strategy_bytes_per_bin(const problem& p, const planner_constants& k) {
  if (!k.shared_lock_bits) return shared_bytes_per_bin(p);
  return p.value_bytes + (p.op_class == atomic_class::xcg ? 1 : 0);
}

std::string override_names(const plan_overrides& o) {
  std::string s;
  if (o.M > 0) s += "M=" + std::to_string(o.M);
  if (o.S > 0) s += std::string(s.empty() ? "" : " ") + "S=" + std::to_string(o.S);
  if (o.block > 0) s += std::string(s.empty() ? "" : " ") + "block=" + std::to_string(o.block);
  return s;
}

// S passes over chunks of ceil(H / S) bins; with S given by the caller, drop passes that would be empty.
void set_passes(plan& pl, i64 H, i64 S) {
  S = std::max<i64>(1, std::min(S, H));
  pl.H_chk = ceil_div(H, S);
  pl.S = clamp_to_int(ceil_div(H, pl.H_chk));
}

// Shared memory, cas and xcg: blocks merge through rows (plan::merge_rows) when the rows fit the workspace cap. On
// the lent H100 (2026-11-22, N = 50M, seed 000's saturating add, RF = 1, 264 blocks) merging with global
// compare-and-swaps took 646 us at H = 12288 and 928 us at H = 24576 (the blocks finish together and retry on
// the same bins), rows and a fold kernel 148 and 152 us; at H = 31 the two are within 6%. hdw keeps its atomics:
// they never retry.
void choose_merge_rows(const problem& p, const planner_constants& k, plan& pl) {
  if (p.op_class == atomic_class::hdw || pl.grid <= 0) return;
  const std::size_t rows = static_cast<std::size_t>(pl.grid) * static_cast<std::size_t>(p.num_bins) * p.value_bytes;
  if (rows > k.merge_rows_max_bytes) return;
  pl.merge_rows = true;
  pl.temp_bytes = rows;  // the rows replace xcg's destination locks
}

// Shared memory, cas: lost updates wait in registers (plan::defer_lost_updates), except when the race factor says
// H / RF >= 4 active bins with RF >= 8: there a kept bin comes back for only one input in H / RF and the warp splits
// between folding and swapping lanes at every step. Lent H100, 2026-11-22, N = 50M, seed 000's saturating add, us:
// uniform RF = 63 (8..780 active bins) H = 505 / 12288 546 / 568 with the plain loop, 855 / 875 deferring; RF = 63
// with 1 or 2 active bins (H = 31, 127) 208 / 489 -> 111 / 479; RF = 1 145..181 -> 108..180; skewed input told
// RF = 1: one bin 1142 -> 109 (H = 505), Zipf(1.1) 8898 -> 2267 (H = 24576). Skewed input told RF = 63 keeps the
// plain loop and its contention (one bin, H = 24576: 106 ms): a caller who knows of the skew can say RF = 1.
void choose_defer_lost_updates(const problem& p, plan& pl) {
  const double RF = race_factor_used(p);
  const double active_bins = static_cast<double>(p.num_bins) / RF;
  pl.defer_lost_updates = p.op_class == atomic_class::cas && !(RF >= 8 && active_bins >= 4);
}

// Shared memory, cas class with lost updates deferred: hot-bin slots (plan::hot_slots, detail/hot_bins.cuh) when
// the race factor is unknown, or when the caller asks (plan_overrides::hot_bins = 1). A known race factor describes
// the input (seed 000's RF), and a caller who fixed M or S gets the copies they asked for. Blocks of whole warps.
// Lent H100, 2026-11-25, N = 50M, ghist_bench, RF unknown, slots against --hot-bins off, us: seed 000's saturating
// add, Zipf(1.1), RF 1 H = 505 / 2048 / 12288 / 24576 / 49152 230 / 262 / 754 / 1221 / 1273 against 562 / 890 / 1829 /
// 2698 / 3175, RF 63 H = 505 / 12288 120 / 858 against 843 / 2162; the packed argmax 0.77-0.94 except H = 505 and
// 2048 RF 1 (1.04-1.15). Costs: the sample and the table's copy, uniform input 1-8% (packed 24576 10%); one bin
// 98-116 -> 113-171 for the saturating add (a slot's read-modify-write against the kept update in registers), the
// packed argmax 140-195 -> 133-141 (bench/results/2026-11-25-h100-hot-bins.txt).
int max_hot_slots(const problem& p, const planner_constants& k, int B) {
  return static_cast<int>(std::min<std::size_t>(hot_bin_max_slots, k.hot_bin_bytes / (static_cast<std::size_t>(B) *
                                                                                      p.value_bytes)));
}

// Whether a copy per thread of all H bins fits twice thread_private_min_threads_per_sm threads per SM (448: H <= 127
// of 4 bytes), where it beats hot-bin slots (the measurements below).
bool fast_copy_per_thread(const problem& p, const device_info& dev, const planner_constants& k) {
  const std::size_t copy_bytes = static_cast<std::size_t>(shared_copy_stride(p.num_bins, 2)) * p.value_bytes;
  return copy_bytes * 2 * static_cast<std::size_t>(k.thread_private_min_threads_per_sm) <= dev.shared_per_sm;
}

// Told a race factor of 8 or more over 4 to max_hot_slots active bins (H / RF), a compare-and-swap plan of a caller's
// shape (M or S given) takes hot-bin slots too; the planner's own plan there is the slot per active bin
// (active_bin_slots_plan, below), whose redirected loop is faster still. With the slots, the sample finds the active
// bins and each gets a slot per thread (a plain read-modify-write), instead of a copy per thread of all H bins at few
// threads per SM or the plain loop's retries. Lent H200,
// 2026-11-26, N = 50M, RF 63, same run, us: seed 000's saturating add H = 252 / 300 / 400 / 505 / 566 (4..8 active
// bins) 154 / 177 / 242 / 317 / 318 (a copy per thread at 224..96 threads per SM) -> 130 / 130 / 132 / 132 / 132; the
// packed argmax (4 slots) H = 252 / 300 226 / 225 -> 150 / 150. Not where a copy per thread has twice
// thread_private_min_threads_per_sm (H <= 127 of 4 bytes): RF 8 H = 40 / 64 / 71 75 / 84 / 80 against 113 / 205 /
// 208 with slots. Nor for more active bins than slots: the rest then take replicas per lane, which lost to the told
// plans (--hot-bins on, H = 1024 / 2048 / 12288: warp-private copies 346 -> 750, the plain loop 438 / 468 -> 709 /
// 701; bench/results/2026-11-26-h200-dense-hot-bins.txt).
bool few_active_bins_for_slots(const problem& p, const device_info& dev, const planner_constants& k, int B) {
  if (p.op_class != atomic_class::cas || p.value_bytes < 4 || p.race_factor < 8 || k.hot_bin_bytes == 0 ||
      B % 32 != 0)
    return false;
  if (fast_copy_per_thread(p, dev, k)) return false;
  const double active = std::floor(static_cast<double>(p.num_bins) / p.race_factor);
  return active >= 4 && active <= max_hot_slots(p, k, B);
}

// The lock class's shared plans with copies shared by the block take sampled hot bins too when the race factor is
// unknown (or when asked): slots of shared words with a bit lock each (plan::hot_slots, detail/hot_bins.cuh,
// pick_lock_words), up to hot_bin_max_shared_word_slots, as many as the room after the copies holds. Lent H200,
// 2026-12-02, N = 50M, seed 000's unpacked argmax, H = 505..24576, same run against hot_bins = -1, us: Zipf(1.1) RF 1
// 463 / 674 / 994 / 1427 / 1794 -> 483 / 470 / 472 / 503 / 490, RF 63 0.35-0.64x; uniform RF 63 with the RF unknown
// 0.61-0.71x at H <= 6144 and 1.08-1.09x at 12288 / 24576. Costs: uniform RF 1 with the RF unknown 1.12-1.26x (239-247
// -> 262-304: the sample, and the lookup's state spilled at 32 registers), one bin 1.10-1.16x (112-118 -> 126-137),
// sorted 1.07-1.17x (bench/results/2026-12-02-h200-lock-class-hot-bins.txt). A told RF keeps the plain plans.
int lock_class_hot_bins_for(const problem& p, const plan_overrides& o, const planner_constants& k, int B) {
  if (p.value_bytes < 4 || o.hot_bins < 0 || k.hot_bin_bytes == 0 || B % 32 != 0) return 0;
  if (o.hot_bins == 0 && (p.race_factor != 0.0 || o.M > 0 || o.S > 0)) return 0;
  return hot_bin_max_shared_word_slots;
}

int hot_slots_for(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k,
                  int B) {
  if (p.op_class == atomic_class::xcg) return lock_class_hot_bins_for(p, o, k, B);
  if (p.op_class != atomic_class::cas || p.value_bytes < 4 || o.hot_bins < 0 || k.hot_bin_bytes == 0 || B % 32 != 0)
    return 0;
  const bool few_active = few_active_bins_for_slots(p, dev, k, B);
  if (o.hot_bins == 0 && ((p.race_factor != 0.0 && !few_active) || o.M > 0 || o.S > 0)) return 0;
  plan deferring;
  choose_defer_lost_updates(p, deferring);
  // Asked for, or few active bins: the slots bring the deferring loop (the plain loop has none).
  if (!deferring.defer_lost_updates && o.hot_bins == 0 && !few_active) return 0;
  return max_hot_slots(p, k, B);
}

// Told a race factor of 8 or more over 4 or more active bins (H / RF; for cas more than max_hot_slots until
// 2026-11-28: active_bin_slots_plan), up to hot_bin_max_active_slots, the cas and lock classes give every active bin
// a slot per thread all the same (plan::hot_active_bins): one block per SM with one copy of all H bins (for the bins
// the sample misses) and as many threads as the slots leave room for, whole warps, at least
// active_bin_slots_min_block (below); 4-byte cas below that, and the lock class below
// active_bin_lock_exclusive_min_block, take 1024 threads that share each slot's words (plan::hot_shared_words; the
// lock class under a bit lock per word) up to hot_bin_max_shared_word_slots active bins.
// A copy per thread of the active bins only, in effect; the alternatives retry on the active words (the plain loop)
// or fold each warp's equal bins (a copy per warp). Lent H200, 2026-11-26, N = 50M, same run against the told plans
// (--hot-bins off), us: seed 000's saturating add RF 63 H = 567 / 1024 / 2048 / 4096 / 6144 / 8192 (9..130 active
// bins, 1024..352 threads) 317 / 347 / 440 / 440 / 449 / 445 -> 126 / 127 / 134 / 162 / 197 / 261; RF 16 H = 1024
// 274 -> 148; RF 8 H = 256 / 512 155 / 227 -> 129 / 154; the packed argmax RF 63 H = 567..2048 (800+ threads)
// 210-220 -> 134-154, but at 416 threads 1.03-1.11x, at 352 or fewer 1.7-3.6x (bench/results/
// 2026-11-26-h200-active-bin-slots.txt). The lock class takes it from 4 active bins (it has no slots beside its
// copies): seed 000's unpacked argmax, same run, RF 63 H = 255 / 505 / 1024 / 2048 371 / 417 / 552 / 559 -> 196 /
// 197 / 198 / 232 us (a copy per thread or per warp before; H = 2048 the model's copies), RF 16 H = 255 / 505 379 /
// 437 -> 199 / 214, RF 8 H = 255 342 -> 217 (at 704 threads or more then)
// (bench/results/2026-11-26-h200-active-bin-slots-lock-class.txt).
//
// The fewest threads: the plan's time grows as its threads fall (one copy per thread of the active bins, a chain of
// shared-memory steps per input with few warps to hide it), the told plans' with the race factor. Same runs, lent
// H200, once every active bin has a slot (below), us: the unpacked argmax (lock class, 8-byte pairs) at 800 / 544 /
// 416 / 384 / 352 / 288 / 224 / 192 / 160 threads 214 / 260 / 316 / 320 / 351 / 423 / 522 / 592 / 702 against the
// told plans' ~341 / 390 / 460 / 560-600 at RF 8 / 16 / 32 / 63 (RF 63 H = 3000 / 4096 / 5000 / 6144 562 / 557 /
// 599 / 561 -> 260 / 351 / 423 / 522), hence its floors by RF. The packed argmax (8-byte cas) keeps 704: its told
// plans are fast (~225 us at RF 63). 4-byte cas (seed 000's saturating add) took 864 / 512 / 416 / 352 / 288 / 224
// threads ~145 / 187 / 225 / 248 / 314 / 365 us with a word per thread, but 1024 threads sharing each slot's words
// (hot_bins.cuh) beat that below ~800 threads (same run against 4dafa90): RF 63 H = 6144 / 8192 / 10000 / 12288 186 /
// 246 / 311 / 361 -> 171 / 199 / 215 / 233, H = 13000 / 15000 (the told plans before) 460 / 485 -> 239 / 248; RF 32
// H = 4096 / 7680 227 / 370 -> 188 / 241; RF 16 H = 2048 / 3840 228 / 282 -> 197 / 239; RF 8 H = 1024 225 -> 196,
// H = 1920 (told plan before) 231 -> 229; while at 864 threads a word each stays ahead (RF 16 H = 1024 155 against
// 162 shared; 800: a tie) (bench/results/2026-11-26-h200-active-bin-samples.txt, calls 8 and 12).
// The lock class shares its slots' words too (a bit lock per word, lanes of a warp on 32 lock words: hot_bins.cuh)
// where a word per thread leaves fewer than active_bin_lock_exclusive_min_block threads and the shared words qualify
// as 4-byte cas's do (fewer than RF / 1.5 threads a word); else the floors by RF (active_bin_slots_min_block) apply.
// Lent H100, 2026-11-26, N = 50M, seed 000's unpacked argmax, same run against 1e3b7b4, us: RF 63 H = 4096 / 5000 /
// 6144 (352 / 288 / 224 threads a word each) 335 / 406 / 487 -> 307 / 312 / 324; H = 8192 / 12288 / 16384 (the told
// plans before) 646 / 564 / 580 -> 332 / 357 / 387; RF 32 H = 4096 / 8192 474 / 772 -> 328 / 360; RF 16 H = 2048
// 389 -> 320; RF 8 H = 1024 343 -> 321; Zipf(1.1) told RF 63 H = 6144 / 12288 697 / 1296 -> 379 / 495
// (bench/results/2026-11-26-h100-lock-class-shared-slot-words.txt). A word each stays ahead from 448 threads (lent
// H200): RF 63 H = 2560 / 3000 / 3500 (640 / 544 / 448 threads) 210 / 244 / 278 against 297 / 296 / 305 shared; at
// 416 (RF 16 H = 1024) a tie, 297 against 304 (bench/results/2026-11-26-h200-lock-class-shared-slot-words.txt,
// call 2). A compile-time tuning knob.
inline constexpr int active_bin_exclusive_min_block = 768;
#ifndef GHIST_XCG_EXCLUSIVE_MIN_BLOCK
#define GHIST_XCG_EXCLUSIVE_MIN_BLOCK 416
#endif
inline constexpr int active_bin_lock_exclusive_min_block = GHIST_XCG_EXCLUSIVE_MIN_BLOCK;
int active_bin_slots_min_block(const problem& p) {
  if (p.op_class == atomic_class::cas) return p.value_bytes >= 8 ? 704 : active_bin_exclusive_min_block;
  if (p.race_factor >= 48) return 224;
  if (p.race_factor >= 24) return 288;
  if (p.race_factor >= 12) return 352;
  return 416;
}
// The block's sample expects this many hits per active bin: each thread samples ceil(this x H / RF / block) inputs
// (at least active_bin_min_samples, at most hot_bin_max_samples); every sampled bin takes a slot. A bin with no hit
// has no slot and sends its 1 / (H / RF) of the input to the single copy's compare-and-swap: 4 samples per thread
// over 195 active bins at 224 threads (~4.6 hits each, 2 needed) missed ~10 bins per block and the plan ran 6x
// slower than at 352 threads (lent H200, 2026-11-26, bench/results/2026-11-26-h200-experiment-active-bin-samples.txt).
inline constexpr int active_bin_sample_hits = 10;
inline constexpr int active_bin_min_samples = 4;
int active_bin_samples(i64 active, int B) {
  const i64 wanted = ceil_div(active * active_bin_sample_hits, B);
  return static_cast<int>(std::clamp<i64>(wanted, active_bin_min_samples, hot_bin_max_samples));
}
// Staged input (plan::staged_input) for the compare-and-swap class's loop with a slot per active bin, its ring at the
// end of the block's shared memory (out of the slots' room): where 1024 threads share the slots' words, at least
// active_bin_staged_min_sharers threads a word with the ring, and still fewer than RF / 1.5. Lent H100, 2026-11-26,
// N = 50M, seed 000's saturating add, same run, staging off -> on, us (bench/results/
// 2026-11-26-h100-staged-active-bins-ab.txt): RF 63 H = 7000 / 8192 / 10000 / 12288 / 15000 / 24576 (3.2 .. 32
// threads a word) 177 / 177 / 188 / 197 / 212 / 268 -> 163 / 166 / 171 / 176 / 185 / 222, RF 32 H = 7680 207 -> 184,
// RF 16 H = 3840 207 -> 181, RF 8 H = 1024 172 -> 162, Zipf(1.1) told RF 63 H = 12288 335 -> 217. Without staging those
// loops leave one SM ~30% behind the others (ncu: sm__cycles_active max 377K against 289K on average at H = 12288),
// staged ones none. Not staged: RF 63 H = 6144 (2.7 threads a word; 142 -> 160, balanced without staging), and a word
// per thread (RF 63 H = 567 / 2048 106 / 112 -> 124 / 128, the packed argmax H = 567 / 1024 122 / 124 -> 140 / 142):
// the staged loop's SMs take ~12% more cycles (ncu: 10% more instructions), which costs more than the balance saves.
// Not the ring's depth (6 stages: H = 567 still 122), nor the warps moving through the stages together (warps that
// claim chunks through a counter: 8-19% slower everywhere), nor the waits' suspend hint (no change). Every input
// told RF 63 and all in one bin (H = 12288) takes 113 -> 125.
inline constexpr double active_bin_staged_min_sharers = 3.0;
// Whether staged input may apply at all: the compare-and-swap class, not forbidden, a device with the bulk-copy
// engine, and element inputs whose type divides the ring's 16-byte vectors.
bool may_stage_input(const problem& p, const device_info& dev, const plan_overrides& o) {
  const bool element_vectors = p.record_bytes > 0 && p.record_bytes < 16 && 16 % p.record_bytes == 0;
  return o.staged_input >= 0 && dev.compute_capability >= 90 && element_vectors && p.op_class == atomic_class::cas;
}

// The lock class's operators that say they are idempotent (problem::idempotent), with values the lock class reads
// whole outside its lock (4 or 8 bytes: detail/atomic_update.cuh, shared_update_changes_nothing): once a bin has seen
// a few inputs most of their updates change nothing and cost a read and a compare, not a lock. The race is then
// cheap, and what spreads it (the model's copies, a slot per active bin, a second hashed pass) costs its room,
// initialisation and merge more than it saves. Lent H200, 2026-12-02, N = 50M, seed 000's unpacked argmax, told RF,
// auto against the fixed sweep of the same run (bench/results/2026-12-02-h200-unchanged-bins.txt, section 3), us:
//   RF 1: the model's M = 25 / 6 / 2 at H = 505 / 2048 / 6144 231 / 231 / 229, one copy (M = 1) 179 / 201 / 219;
//   RF 63: a slot per active bin at H = 6144 / 12288 (97 / 195 active bins) 272 / 273, one locked copy 171 / 178;
//     at H = 505 / 2048 (8 / 32 active bins) the slots still win, 144 / 165 against 177 / 175
//     (idempotent_lock_class_max_active_slots); the hashed tables in two passes at H = 1572864 683, partitioned 457;
//     the hashed tables in one pass at H = 24576 287, where at RF 1 the plan of one copy and one pass (one block per
//     SM) took 229 (hashed_bins_worth).
bool lock_class_skips_most_updates(const problem& p) {
  return p.op_class == atomic_class::xcg && p.idempotent && (p.value_bytes == 4 || p.value_bytes == 8);
}
inline constexpr i64 idempotent_lock_class_max_active_slots = 32;

// The 64-bit compare-and-swap class's idempotent operators told a race factor below 8: their deferring loop skips a
// first swap that would change nothing (detail/deferred_cas.cuh), so one shared copy beats the model's several and a
// copy per thread at 224 threads per SM. Lent H200, 2026-12-02, N = 50M, seed 000's packed argmax told RF 1, the
// fixed sweep of one run (bench/results/2026-12-02-h200-unchanged-bins-idempotent-grid.csv), us: H = 505 / 2048 the
// model's M = 16 / 4 129.7 / 131.2, M = 1 123.1 / 127.0; H = 127 a copy per thread 155-157, M = 1 127.1, M = 8 125.9
// (thread_private_plan). The plans chosen are those fixed ones; auto was not timed with this rule. An unknown race
// factor keeps the model's plans (the sampled slots: Zipf(1.1) at H = 127 needed the copy per thread,
// thread_private_plan).
bool idempotent_wide_cas_told_low_rf(const problem& p) {
  return p.op_class == atomic_class::cas && p.value_bytes == 8 && p.idempotent && p.race_factor > 0 &&
         p.race_factor < 8;
}

bool active_bin_slots_plan(const problem& p, const device_info& dev, const plan_overrides& o,
                           const planner_constants& k, plan& out) {
  const bool xcg = p.op_class == atomic_class::xcg;
  if ((p.op_class != atomic_class::cas && !xcg) || p.value_bytes < 4 || p.race_factor < 8 || k.hot_bin_bytes == 0 ||
      p.n <= 0 || p.num_bins > hot_bin_max_pass_bins || (xcg && !k.shared_lock_bits))
    return false;
  if (fast_copy_per_thread(p, dev, k)) return false;
  const i64 active = static_cast<i64>(std::floor(static_cast<double>(p.num_bins) / p.race_factor));
  // From 4 active bins. The compare-and-swap class's 4..max_hot_slots took the sampled slots beside the usual copies
  // (few_active_bins_for_slots) until the loop of this plan redirected its updates (kernel_shared.cuh,
  // redirected_visit) and its sample was spread over the input (hot_bins.cuh): same run, lent H200, 2026-11-28,
  // seed 000's saturating add RF 63 H = 252..566 118-121 -> 99-101 us, told-RF Zipf(1.1) H = 505 119 -> 100,
  // the packed argmax H = 252 / 300 136 -> 116 (H = 400..566 within 1%) (bench/results/
  // 2026-11-28-h200-cas-shared-slot-loop.txt). Slots whose words may be shared (4-byte cas always, the lock class
  // below a thread count: hot_bins.cuh) take more active bins, in a larger table.
  const bool cas_shares = !xcg && p.value_bytes == 4;
  if (active <= 3 ||
      active > (cas_shares || xcg ? hot_bin_max_shared_word_slots : hot_bin_max_active_slots))
    return false;
  if (lock_class_skips_most_updates(p) && active > idempotent_lock_class_max_active_slots) return false;
  // The slots start after the copy (the lock class's with its bit locks), at a multiple of the value's size: the
  // lock class's copy need not end at one, so a value's bytes more.
  const std::size_t after_copy = hot_bin_area_offset(shared_copies_bytes(p, k, 1, p.num_bins));
  const std::size_t slots_at = xcg ? round_up(after_copy + p.value_bytes, 8) : after_copy;
  // ring: whether the room leaves out a staged plan's ring (block B's: staged_ring_bytes).
  auto room_for = [&](int B, bool shared_words, bool ring = false) -> std::size_t {  // for the slots, 0 when none
    const std::size_t L = shared_budget_for(B, dev, 1).L / 16 * 16;
    const std::size_t table_bytes =
        (shared_words ? hot_bin_shared_words_table_bytes : hot_bin_table_bytes) + (ring ? staged_ring_bytes(B) : 0);
    return slots_at + table_bytes < L ? L - slots_at - table_bytes : 0;
  };
  const bool may_stage = may_stage_input(p, dev, o);
  auto make = [&](int B, bool shared_words, std::size_t per_slot, bool staged) {
    const int most_slots = shared_words ? hot_bin_max_shared_word_slots : hot_bin_max_active_slots;
    plan pl;
    pl.kind = strategy::shared_memory;
    pl.race_factor = p.race_factor;
    pl.block = B;
    pl.grid = clamp_to_int(std::min<i64>(ceil_div(p.n, B), dev.sm_count));
    pl.M = 1;
    pl.C = B;
    set_passes(pl, p.num_bins, 1);
    pl.shared_bytes = shared_budget_for(B, dev, 1).L / 16 * 16;
    pl.defer_lost_updates = !xcg;  // the compare-and-swap class's hot-bin loop defers
    pl.hot_slots = static_cast<int>(std::min<std::size_t>(most_slots, room_for(B, shared_words, staged) / per_slot));
    pl.staged_input = staged;
    pl.hot_active_bins = true;
    pl.hot_shared_words = shared_words;
    pl.hot_samples = active_bin_samples(active, B);
    pl.temp_bytes = xcg ? static_cast<std::size_t>(p.num_bins) * lock_bytes : 0;  // the destination's locks
    choose_merge_rows(p, k, pl);
    out = pl;
    return true;
  };
  const int min_block = active_bin_slots_min_block(p);
  int exclusive_block = 0;  // the most threads with a word each in every slot
  if (active <= hot_bin_max_active_slots)
    for (int B = 1024; B >= min_block && exclusive_block == 0; B -= 32)
      if (room_for(B, cas_shares) >= static_cast<std::size_t>(active) * B * p.value_bytes) exclusive_block = B;
  // 4-byte cas with fewer threads than that: 1024 threads sharing each slot's words (whole warps' worth, as many as
  // fit: hot_bins.cuh), while fewer than RF / 1.5 threads share a word. Same run against the told plans, lent H200,
  // us: RF 8 over 480 / 512 active bins (~10 threads a word) 233 / 236 -> 286 / 295, RF 16 over 512 (11) 291 -> 307,
  // but RF 32 over 512 (13) 431 -> 309, RF 63 over 256 / 317 / 390 / 512 (up to 22) 474 / 510 / 473 / 555 -> 263 /
  // 274 / 303 / 359 (bench/results/2026-11-26-h200-active-bin-samples.txt, call 14).
  // The lock class: a bit lock per shared word, with its rounding (detail/slot_lock_layout.hpp).
  const std::size_t shared_per_slot =
      std::size_t{32} * p.value_bytes + (xcg ? detail::slot_lock_bytes_per_32_words : 0);
  auto shared_words = [&](bool ring) -> std::size_t {  // words per slot when 1024 threads share them (pick_room)
    const std::size_t room_1024 = room_for(1024, true, ring);
    const std::size_t shared_room =
        room_1024 - std::min<std::size_t>(room_1024, xcg ? detail::slot_lock_group_bytes : 0);
    return shared_room / (static_cast<std::size_t>(active) * shared_per_slot) * 32;
  };
  auto shareable = [&](std::size_t words) {
    return (cas_shares || xcg) && words >= 32 && static_cast<double>(words) * p.race_factor >= 1.5 * 1024;
  };
  const bool can_share = shareable(shared_words(false));
  // A caller's staged_input = 1 stages wherever the ring fits beside the plan's slots.
  const bool asked = o.staged_input > 0;
  if (exclusive_block > 0 && (!xcg || !can_share || exclusive_block >= active_bin_lock_exclusive_min_block)) {
    const std::size_t per_slot = static_cast<std::size_t>(exclusive_block) * p.value_bytes;
    const bool staged = may_stage && asked && room_for(exclusive_block, cas_shares, true) >= per_slot * active;
    return make(exclusive_block, cas_shares, per_slot, staged);
  }
  const std::size_t staged_words = shared_words(true);
  const bool staged = may_stage && shareable(staged_words) &&
                      (asked || 1024.0 >= active_bin_staged_min_sharers * static_cast<double>(staged_words));
  if (can_share) return make(1024, true, shared_per_slot, staged);
  return false;
}

// reserved_bytes: shared memory per block kept out of the copies' room (a staged plan's ring).
plan shared_plan_with(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k,
                      int blocks_per_sm, bool hot_bins_allowed = true, std::size_t reserved_bytes = 0) {
  const i64 N = p.n, H = p.num_bins;
  const double RF = race_factor_used(p);
  plan pl;
  pl.kind = strategy::shared_memory;
  pl.race_factor = RF;

  const int B = block_size(o.block, k.shared_block, dev);
  pl.block = B;
  shared_budget budget = shared_budget_for(B, dev, blocks_per_sm);
  budget.L = budget.L > reserved_bytes ? budget.L - reserved_bytes : 0;
  // Hot-bin slots: the plan reserves their table (at the end of the block's shared memory), and a block whose sample
  // finds hot bins makes room for the slots with what the copies leave or, if that is too little, fewer copies
  // (detail/hot_bins.cuh). Not where the table leaves no room for one copy of one bin.
  int hot_slots = hot_bins_allowed ? hot_slots_for(p, dev, o, k, B) : 0;
  // The lock class's sampled slots share their words: the larger table.
  const std::size_t hot_table =
      p.op_class == atomic_class::xcg ? hot_bin_shared_words_table_bytes : hot_bin_table_bytes;
  std::size_t hot_bytes = hot_slots > 0 ? hot_table + 24 : 0;  // 24: alignments (below)
  if (hot_bytes + shared_copies_bytes(p, k, 1, 1) > budget.L) hot_slots = 0, hot_bytes = 0;
  const std::size_t L = budget.L - hot_bytes;
  const std::size_t el = shared_strategy_bytes_per_bin(p, k);

  // Eq. 1: blocks = ceil(T / B) with T = min(N, T_hw) threads, never more than can be resident at once.
  const i64 T = std::min<i64>(N, dev.hardware_threads());
  i64 grid = std::max<i64>(1, ceil_div(T, B));
  grid = std::min<i64>(grid, static_cast<i64>(dev.sm_count) * budget.blocks_per_sm);
  if (o.grid > 0) grid = o.grid;
  if (N == 0) grid = 0;  // nothing to launch; the other fields still describe a valid layout
  pl.grid = clamp_to_int(grid);

  // Eqs. 1-2: the largest M whose M sub-histograms of all H bins fit in L, and no more than the inputs a block sees
  // per bin. The work bound (artifact: work_asymp_M_max) keeps M * H * blocks, the cost of initialising and merging
  // the sub-histograms, at most N / q_small; the artifact asserted it was > 0 and aborted for large H, we floor it
  // at 1.
  i64 M = 1;
  if (grid > 0) {
    const double per_block_inputs = static_cast<double>(ceil_div(N, grid));
    const double m_prime = std::min(static_cast<double>(L) / static_cast<double>(el), per_block_inputs) /
                           static_cast<double>(H);
    M = std::max<i64>(1, std::min<i64>(static_cast<i64>(std::floor(m_prime)), B));
    const i64 work_bound = std::max<i64>(1, N / (static_cast<i64>(k.q_small) * grid * H));
    M = std::min(M, work_bound);
    // "Fit in L" counts the padding between copies (shared_copy_stride): where M copies of all H bins fit only
    // unpadded, eq. 3 below would split H into S = 2 passes (each one re-reads the input) to keep M. One copy fewer
    // keeps one pass. Lent H100, 2026-11-22, cub_compat HistogramEven, 2^28 int32, 256 bins: M = 113, S = 2
    // 1369 us against 675 us at 32 bins in one pass.
    if (shared_copies_bytes(p, k, 1, H) <= L)
      while (M > 1 && shared_copies_bytes(p, k, M, H) > L) --M;
  }
  // Counting into 32-bit bins: one copy. The model's copies spread a hot bin's updates over several addresses, but
  // increments by 1 compile to ATOMS.POPC.INC, which adds a warp's equal bins in one atomic, so the copies only add
  // their initialisation and merge. Lent H100, 2026-11-22, ghist_bench with the fixed sweep, N = 50M, HDW,
  // H = 31 / 505 / 2048 / 12288, RF = 1, us: uniform, the model's M (933 / 57 / 14 / 2) 86.6 / 84.7 / 85.6 / 86.0,
  // the best fixed M 82.2 / 80.4 / 81.9 / 83.3 (M = 1 / 2 / 1 / 1); all in one bin 86.7 / 84.0 / 114.8 / 86.8
  // against M = 1 81.0 / 81.4 / 83.0 / 83.8; Zipf(1.1): M = 1 the best fixed M in 7 of the 8 cells of RF 1 and 63.
  // With M = 1 the full grid's auto/best for HDW is 1.02 (bench/results/2026-11-22-h100-full-grid-1178563.txt).
  // Weights (not constant) keep the model's M: in one bin M = 1 was 2.5x slower for int32 weights and up to 80x
  // for float.
  if (p.unit_increments) M = 1;
  // 32-bit compare-and-swap with one active bin (H <= RF): one copy too. Lost updates wait in registers
  // (choose_defer_lost_updates), so the block's threads fold into one word instead of fighting over it, and more
  // copies only cost their initialisation and merge. Lent H100, 2026-11-22, seed 000's saturating add, H = 31,
  // RF = 63: M = 1 87.7 us, 33 97.3, 933 (the model) 108.1. The 64-bit packed argmax gained nothing there (M = 1 145.3,
  // M = 466 143.8). Only for one bin: at two active bins (H = 127, RF = 63) M = 1 took 13992 us against 479 for the
  // model's M, and for uniform input told RF = 63 it takes 1591 us at H = 31 against 106.
  if (p.op_class == atomic_class::cas && p.value_bytes == 4 && static_cast<double>(H) <= RF) M = 1;
  // 64-bit compare-and-swap at RF >= 40 over 8 or more active bins: one block's worth of copies (seed 000's k = 1,
  // M = max(1, B / H)), fewer than the model's. Its updates mostly leave the word as it is (the packed argmax), so
  // the model's copies for the race cost their initialisation, merge and bank conflicts more than they save. Lent
  // H100, 2026-11-25, seed 000's packed argmax, RF = 63, the fixed sweep of two full grids (-check-7ebd259.csv,
  // -grid-5b921bc.csv), the model's M -> k = 1, us: H = 505 M = 28 -> 2 235 / 236 -> 220 / 222; H = 2048 M = 7 -> 1
  // 245 / 236 -> 232 / 220; H = 6144 M = 2 -> 1 233 / 235 -> 229 / 228. (H = 127, two active bins: the model's
  // M = 113 242-248 against 259-265 for M = 72.)
  if (p.op_class == atomic_class::cas && p.value_bytes == 8 && RF >= 40 && static_cast<double>(H) >= 8 * RF)
    M = std::min<i64>(M, std::max<i64>(1, B / H));
  // Idempotent lock-class operators: one copy (lock_class_skips_most_updates); so the idempotent 64-bit cas told
  // RF < 8 (idempotent_wide_cas_told_low_rf).
  if (lock_class_skips_most_updates(p) || idempotent_wide_cas_told_low_rf(p)) M = 1;
  if (o.M > 0) M = o.M;

  // Eq. 3: chunks of len bins so that M chunks fit in L, S = ceil(H / len) passes, H_chk = ceil(H / S).
  if (o.S > 0) {
    set_passes(pl, H, o.S);
    // S given and M not: the planner's M, lowered until M chunks of the caller's H_chk fit.
    if (o.M <= 0) {
      M = std::min<i64>(M, std::max<i64>(1, static_cast<i64>(L / (el * static_cast<std::size_t>(pl.H_chk)))));
      while (M > 1 && shared_copies_bytes(p, k, M, pl.H_chk) > L) --M;  // padding
    }
  } else {
    i64 len = static_cast<i64>(L / (el * static_cast<std::size_t>(M)));
    // xcg values whose size is not a multiple of 4 pad the value array before the locks: shorten len until it fits.
    while (len > 0 && shared_copies_bytes(p, k, M, ceil_div(H, ceil_div(H, len))) > L) --len;
    if (len > 0) set_passes(pl, H, ceil_div(H, len));
    else set_passes(pl, H, H);  // even one bin per sub-histogram does not fit: reported below
    // The estimate counts a bit lock as a byte: fewer passes where their chunks fit as the layout counts them (the
    // lock class's one copy of H = 12288 8-byte bins beside the sampled hot bins' table, two blocks per SM).
    while (len > 0 && pl.S > 1 && shared_copies_bytes(p, k, M, ceil_div(H, pl.S - 1)) <= L)
      set_passes(pl, H, pl.S - 1);
  }
  pl.M = clamp_to_int(M);
  pl.C = ceil_div(B, M);

  pl.shared_bytes = shared_copies_bytes(p, k, M, pl.H_chk);
  if (pl.shared_bytes > L) {
    const std::string names = override_names(o);
    const std::string what = names.empty() ? std::string("a shared-memory plan") : "plan override " + names;
    // Bytes per bin as the layout counts them (el is only the estimate): a bit lock is an eighth of a byte.
    const bool bit_locks = p.op_class == atomic_class::xcg && k.shared_lock_bits;
    const std::string per_bin = bit_locks ? "(" + std::to_string(p.value_bytes) + "+1/8)" : std::to_string(el);
    throw error(what + " needs " + std::to_string(M) + "*" + std::to_string(shared_copy_stride(pl.H_chk, M)) + "*" +
                per_bin +
                " = " + std::to_string(pl.shared_bytes) + " bytes of shared memory per block, the device allows " +
                std::to_string(L) + " (" + std::to_string(budget.blocks_per_sm) + " blocks of " +
                std::to_string(B) + " threads per SM)");
  }

  // Each block merges its result into the destination; xcg does it under a lock per destination bin.
  pl.temp_bytes = (p.op_class == atomic_class::xcg && grid > 0) ? static_cast<std::size_t>(H) * lock_bytes : 0;
  choose_merge_rows(p, k, pl);
  choose_defer_lost_updates(p, pl);
  if (hot_slots > 0) {
    if (p.op_class == atomic_class::cas) pl.defer_lost_updates = true;  // the hot-bin loop is the deferring one
    // The slots must not cost a pass (each re-reads the input): then the plan without them.
    if (o.hot_bins == 0) {
      const plan without = shared_plan_with(p, dev, o, k, blocks_per_sm, false, reserved_bytes);
      if (without.S < pl.S) return without;
    }
    pl.hot_slots = hot_slots;
    // All the block's share (16-byte multiple): the slots take what the copies and the table leave.
    pl.shared_bytes = std::max(hot_bin_area_offset(pl.shared_bytes) + hot_table, budget.L / 16 * 16);
  }
  return pl;
}

// Staged input (plan::staged_input) for the deferring compare-and-swap loop: the same plan with the ring's bytes kept
// out of the copies' room, taken when it needs no more passes (each re-reads the input) and keeps the loop. Lent
// H100, 2026-11-26, N = 50M, ghist_bench, same run, staging off -> on, us (bench/results/
// 2026-11-26-h100-staged-input-ab.txt, table 6): seed 000's saturating add RF 1, H = 505 / 2048 / 6144 / 12288,
// 135.2 / 141.1 / 137.1 / 136.4 -> 107.3 / 107.8 / 110.0 / 110.9; the packed argmax RF 1 210-215 -> 153-157 (its
// 64-bit loop runs one block of 1024 per SM, where one vector prefetched per thread left too few loads in flight);
// every other cell within 3% but packed H = 24576 RF 1 (+4%, one run). The one-pass bin check that came with it
// (kernel_shared.cuh) moved nothing without staging (table 5): that loop waited on its loads.
void choose_staged_input(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k,
                         int blocks_per_sm, plan& pl) {
  if (!may_stage_input(p, dev, o) || !pl.defer_lost_updates || pl.hot_slots > 0 || pl.thread_private ||
      pl.warp_private || pl.block % 32 != 0 || pl.block < 64)  // a warp that asks for the tiles, one that updates
    return;
  const std::size_t ring = staged_ring_bytes(pl.block) + 127;  // 127: the ring's alignment after the copies
  auto plan_with_ring = [&](const plan_overrides& with, int blocks) {
    try {
      plan staged = shared_plan_with(p, dev, with, k, blocks, false, ring);
      return staged.S == pl.S && staged.defer_lost_updates && staged.hot_slots == 0 ? staged : plan{};
    } catch (const error&) {
      return plan{};  // a caller's M whose copies fit only without the ring
    }
  };
  plan staged = plan_with_ring(o, blocks_per_sm);
  // The 64-bit deferring loop's kernel holds one block per SM whatever the plan budgets (its 56-64 registers:
  // kernel_shared.cuh, shared_kernel_min_blocks), so where the ring does not fit beside the copies of a plan for two
  // blocks, it may take the second block's share: the same M, S and grid, planned for one block per SM. Seed 000's
  // packed argmax, RF 1, H = 12288: 217.5 -> 159.6 us (lent H100, 2026-11-26,
  // bench/results/2026-11-26-h100-packed-one-block-budget-ab.txt).
  if (!staged.defer_lost_updates && p.value_bytes == 8 && blocks_per_sm == 0 && o.block <= 0) {
    plan_overrides same = o;
    same.M = pl.M;
    same.S = pl.S;
    same.grid = pl.grid;
    staged = plan_with_ring(same, 1);
    if (staged.M != pl.M || staged.grid != pl.grid) return;
  }
  if (!staged.defer_lost_updates) return;
  staged.staged_input = true;
  staged.shared_bytes = staged_ring_offset(staged.shared_bytes) + staged_ring_bytes(staged.block);
  pl = staged;
}

// Footnote 7's fallback, taken when it saves passes: when the sub-histograms of all H bins do not fit the shared
// memory of one of the k blocks an SM holds, one block per SM with all of it may need fewer passes. Every pass
// re-reads the whole input, so a pass saved is worth more than the halved occupancy costs: on the lent H100
// (2026-11-21, N = 50M int32 add, seed 000's input) H = 49152 took 192 us in 2 passes with 2 blocks per SM.
// Only when the caller fixed none of block, grid, M and S (a fixed M keeps the default shape, as seed 000's sweeps).
plan shared_plan(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k) {
  plan pl = shared_plan_with(p, dev, o, k, 0);
  int blocks_per_sm = 0;  // as many as fit, or 1 (footnote 7's fallback)
  const bool free_shape = o.block <= 0 && o.grid <= 0 && o.M <= 0 && o.S <= 0;
  if (pl.S > 1 && free_shape && shared_budget_for(pl.block, dev).blocks_per_sm > 1) {
    plan single = shared_plan_with(p, dev, o, k, 1);
    if (single.S < pl.S) pl = single, blocks_per_sm = 1;
  }
  // 32-bit compare-and-swap on the plain loop (choose_defer_lost_updates: several active bins per copy at a high
  // RF) is bound by retries on the active words, and a block's threads share its copies: B * RF / (L / el) threads
  // per active word, whatever M and S. One block per SM with all the shared memory halves that. Lent H100,
  // 2026-11-22, ghist_bench, seed 000's saturating add, RF = 63, two blocks -> one block per SM (M doubled), us:
  // uniform H = 505 / 2048 / 6144 / 12288 / 24576 535 / 558 / 554 / 558 / 582 -> 441 / 464 / 452 / 471 / 488;
  // Zipf(1.1) H = 2048 / 12288 832 / 9228 -> 673 / 4167; one bin H = 12288 46408 -> 23436 (H = 505 93 -> 97).
  // At RF = 1 (lost updates deferred) one block was no faster (probe, H = 505 / 2048 / 12288: 142 / 154 / 165 ->
  // 143 / 160 / 168), and the 64-bit packed argmax, whose updates mostly leave the word as it is and so rarely
  // retry, was slower (uniform H = 505..12288 222..225 -> 252..264).
  if (p.op_class == atomic_class::cas && p.value_bytes == 4 && !pl.defer_lost_updates && free_shape &&
      shared_budget_for(pl.block, dev).blocks_per_sm > 1) {
    plan single = shared_plan_with(p, dev, o, k, 1);
    if (single.S <= pl.S && !single.defer_lost_updates) pl = single, blocks_per_sm = 1;
  }
  choose_staged_input(p, dev, o, k, blocks_per_sm, pl);
  return pl;
}

// thread_private_plan's fewest threads per SM for the 64-bit cas told RF >= 8 (the measurements are at its use).
inline constexpr int thread_private_min_threads_told_wide_cas = 256;

// A sub-histogram per thread for the compare-and-swap and lock classes (plan::thread_private): each thread
// updates its own copy with a plain read-modify-write, so there is nothing to retry, lock or fold, whatever the race
// factor or skew. It needs H values per thread (the stride odd, so that lanes on one bin use different banks), which
// leaves fewer threads per SM as H grows, and with them fewer loads in flight: taken while at least
// thread_private_min_threads_per_sm get a copy. Lent H100, 2026-11-25, N = 50M, ghist_bench (RF told for uniform
// input, unknown for skewed), the plans before (plan_overrides::thread_private = -1) -> thread-private, us, same run
// (bench/results/2026-11-25-h100-thread-private.txt):
//   H = 31 (1024 threads per SM for 4-byte bins, 896 for 8-byte): seed 000's saturating add RF 1 / 63 107 / 88 ->
//   84 / 83, unpacked argmax 237 / 132 -> 107 / 106, packed argmax 184 / 142 -> 104 / 97;
//   H = 127 (448 threads; 8-byte bins 224): saturating add 130 / 501 -> 110 / 105, unpacked argmax 246 / 459 ->
//   186 / 185, packed 202 / 242 -> 170 / 166; Zipf(1.1) saturating add 256 -> 108, unpacked argmax 345 -> 188;
//   H = 255 (224 threads, 4-byte bins): saturating add RF 63 349 -> 160, Zipf(1.1) 399 -> 158, but every input in
//   one bin 114 -> 158, and the fixed sweep's thread-private at RF 1 159 against the deferring loop's 133: the
//   32-bit compare-and-swap's deferring loop rarely retries at a low RF, so told RF < 8 it needs twice the threads
//   (H <= 127). One bin at 224 threads also costs the 8-byte classes (H = 127: unpacked argmax 127 -> 182, packed
//   144 -> 166), still below their uniform times. At 96 threads per SM (H = 505 of 4 bytes, 255 of 8) a copy per
//   thread took 318-381 us, at 32 threads 900-1100. Told RF >= 40 that still beats the copies per warp at 96
//   threads: saturating add RF 63 H = 505 315-321 against 326-334 us, unpacked argmax RF 63 H = 255 375-389 against
//   427-432 (four runs in three device calls, -thread-private.txt and -experiment-thread-private-*.txt), but not the
//   packed argmax's deferring loop (RF 63 H = 255 337-342 against 226-237).
// Loads: two 16-byte vectors a step prefetched; 4, 8 or 16 in flight were no faster at 96-448 threads per SM, and
// updating a vector's four inputs together (their loads, then their stores) was slower (bench/results/
// 2026-11-25-h100-experiment-thread-private-vectors.txt, -grouped.txt), and a bank-conflict-free layout too
// (-bin-major.txt). ncu: few warps waiting on fixed-latency dependencies; one 64-bit subtraction less per input gave
// 1-3% (-thread-private-one-pass-bin.txt).
// hdw keeps its hardware atomics (at the read floor already there). Returns false when it does not apply.
// min_threads_per_sm: the planner's rule when 0; a caller's override (plan_overrides::thread_private) asks for one
// warp.
bool thread_private_plan(const problem& p, const device_info& dev, const planner_constants& k,
                         int min_threads_per_sm, plan& out) {
  // No input: auto has nothing to gain; a caller's override still gets its plan (grid 0: the call only fills).
  if (p.op_class == atomic_class::hdw || (p.n <= 0 && min_threads_per_sm <= 0)) return false;
  const i64 stride = shared_copy_stride(p.num_bins, 2);
  const std::size_t per_thread = static_cast<std::size_t>(stride) * p.value_bytes;
  int best_blocks = 0, best_B = 0;
  for (int blocks_per_sm : {2, 1}) {  // two blocks first: on a tie, smaller blocks wait less at their barriers
    const shared_budget budget = shared_budget_for(dev.max_threads_per_sm / blocks_per_sm, dev, blocks_per_sm);
    const i64 fit = static_cast<i64>(budget.L / per_thread);
    const i64 B = std::min<i64>({fit, dev.max_threads_per_block, dev.max_threads_per_sm / blocks_per_sm,
                                 thread_private_max_block}) / 32 * 32;
    if (B * blocks_per_sm > static_cast<i64>(best_B) * best_blocks) {
      best_blocks = blocks_per_sm;
      best_B = static_cast<int>(B);
    }
  }
  const bool told_low_rf_cas = p.op_class == atomic_class::cas && p.value_bytes == 4 && p.race_factor > 0 &&
                               p.race_factor < 8;
  // Told RF >= 40, the lock class and 32-bit cas would take a copy per warp, whose folds of equal bins cost more
  // than a copy per thread's fewer threads down to 96 per SM (see above); the 64-bit cas keeps its deferring loop.
  const bool told_contended = p.race_factor >= 40 && (p.op_class == atomic_class::xcg || p.value_bytes == 4);
  int min_threads = k.thread_private_min_threads_per_sm > 0  // 0: none
                        ? k.thread_private_min_threads_per_sm * (told_low_rf_cas ? 2 : 1)
                        : 0;
  const int contended_min = k.thread_private_min_threads_per_sm_contended;
  if (told_contended && contended_min > 0 && (min_threads == 0 || contended_min < min_threads))
    min_threads = contended_min;
  // The 64-bit cas told RF >= 8: its deferring loop on staged input (choose_staged_input) beats a copy per thread at
  // 224 threads per SM. Lent H100, 2026-11-27, N = 50M, seed 000's packed argmax told RF 63, copy per thread ->
  // the shared plan (plan_overrides::thread_private = -1), same run: H = 127 (224 threads) 150.7 -> 141.1 us, H = 96
  // (288) 131.7 both, H = 64 (416) 108.4 -> 132.5; told RF 1 H = 127 154.4 -> 153.5. An unknown RF keeps the copy per
  // thread: Zipf(1.1) H = 127 154.3 -> 241.2 (bench/results/2026-11-27-h100-packed-thread-private.txt).
  // The same for the idempotent 64-bit cas told RF < 8 (idempotent_wide_cas_told_low_rf): copy per thread at H = 127
  // (224 threads per SM) 155-157 us, the shared plan's one copy 127 (M = 8: 126).
  if (p.op_class == atomic_class::cas && p.value_bytes == 8 &&
      (p.race_factor >= 8 || idempotent_wide_cas_told_low_rf(p)) && min_threads > 0)
    min_threads = std::max(min_threads, thread_private_min_threads_told_wide_cas);
  if (min_threads_per_sm > 0) min_threads = min_threads_per_sm;
  if (min_threads <= 0) return false;
  if (best_B == 0 || best_B * best_blocks < min_threads) return false;
  plan pl;
  pl.kind = strategy::shared_memory;
  pl.thread_private = true;
  pl.race_factor = race_factor_used(p);
  pl.block = best_B;
  pl.grid = clamp_to_int(std::min<i64>(ceil_div(p.n, best_B), static_cast<i64>(dev.sm_count) * best_blocks));
  pl.M = best_B;
  pl.C = 1;
  set_passes(pl, p.num_bins, 1);
  pl.shared_bytes = static_cast<std::size_t>(best_B) * per_thread;
  pl.temp_bytes = p.op_class == atomic_class::xcg ? static_cast<std::size_t>(p.num_bins) * lock_bytes : 0;
  choose_merge_rows(p, k, pl);
  out = pl;
  return true;
}

// A sub-histogram per warp for the lock class (xcg) told RF > 8, when B / 32 of them fit: lanes fold equal bins with
// warp shuffles and one lane per bin does a plain read-modify-write, so no lock is taken. On the lent H100
// (2026-11-21, N = 50M, seed 000's unpacked argmax) the lock path took 900-2800 us for H = 31..505. Since the lock
// takes an acquire and a release instead of two full fences and lanes match only after a failed try (2026-11-25),
// the locked plan (the model's M) wins at RF 1: H = 31 / 127 / 505, warp-private 346 / 443 / 465 us, locked
// M = 297 / 72 / 18 230 / 243 / 245; and loses at RF 63: 287 / 897 / 488 against 411 / 630 / 625
// (bench/results/2026-11-25-h100-xcg-grid-lock-acquire-release-only.txt has the step before the try-first).
// Also 32-bit compare-and-swap at RF >= 40 with >= 4 active bins, where the plain loop is bound by retries on the
// active words (shared_plan) and the fold costs less. Lent H100, 2026-11-22, seed 000's saturating add, us, the
// plain loop (one block per SM) -> warp-private: RF 63, H = 505 / 1009 / 1531 / 1801: 422 / 432 / 441 / 440 ->
// 340 / 334 / 361 / 371; every input in one bin, told RF 63: 901 / 1338 / 1935 (H = 505 / 1009 / 1801) -> 223 / 244
// / 244; Zipf(1.1) 576 / 718 / 872 -> 481 / 455 / 432. But RF 16: 270 / 276 / 279 / 278 -> 340 / 411 / 435 / 445,
// and RF 8 about twice as slow: the fold's cost does not fall with the RF, the retries do. 40 lies between the
// RF measured slower (16) and faster (63); the 64-bit packed argmax, which rarely retries, is left out.
// Returns false when it does not fit (then the regular plan applies).
bool warp_private_plan(const problem& p, const device_info& dev, const planner_constants& k, plan& out) {
  const double RF = race_factor_used(p);
  const bool contended_cas = p.op_class == atomic_class::cas && p.value_bytes == 4 && RF >= 40 &&
                             static_cast<double>(p.num_bins) / RF >= 4;
  const bool contended_xcg = p.op_class == atomic_class::xcg && RF > 8;
  if ((!contended_xcg && !contended_cas) || p.n <= 0) return false;
  const int B = block_size(0, k.shared_block, dev);
  if (B % 32 != 0) return false;
  const i64 warps = B / 32;
  const std::size_t bytes = static_cast<std::size_t>(warps) * static_cast<std::size_t>(p.num_bins) * p.value_bytes;
  for (int blocks_per_sm : {0, 1}) {  // as many blocks as fit by threads first, then one with all the memory
    const shared_budget budget = shared_budget_for(B, dev, blocks_per_sm);
    if (bytes > budget.L) continue;
    plan pl;
    pl.kind = strategy::shared_memory;
    pl.warp_private = true;
    pl.race_factor = race_factor_used(p);
    pl.block = B;
    pl.grid = clamp_to_int(std::min<i64>(std::max<i64>(1, ceil_div(std::min<i64>(p.n, dev.hardware_threads()), B)),
                                         static_cast<i64>(dev.sm_count) * budget.blocks_per_sm));
    pl.M = clamp_to_int(warps);
    pl.C = 32;
    set_passes(pl, p.num_bins, 1);
    pl.shared_bytes = bytes;
    pl.temp_bytes = static_cast<std::size_t>(p.num_bins) * lock_bytes;  // the merge into dest takes global locks
    choose_merge_rows(p, k, pl);
    out = pl;
    return true;
  }
  return false;
}

plan global_plan(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k) {
  const i64 N = p.n, H = p.num_bins;
  const double RF = race_factor_used(p);
  plan pl;
  pl.kind = strategy::global_memory;
  pl.race_factor = RF;

  const int B = block_size(o.block, k.global_block, dev);
  pl.block = B;
  // T = min(N, T_hw) threads, rounded up to whole blocks (the artifact's NUM_THREADS).
  i64 grid = ceil_div(std::min<i64>(N, dev.hardware_threads()), B);
  if (o.grid > 0 && N > 0) grid = o.grid;
  pl.grid = clamp_to_int(grid);
  const i64 T = grid * B;

  const bool xcg = p.op_class == atomic_class::xcg;
  const double vb = static_cast<double>(p.value_bytes);
  // el_avg of eq. 4: the locks live in an array of their own (the paper's layout 2), so a bin and its lock average
  // (value + 4) / 2 bytes per array. el_size of eq. 6: the bytes one bin occupies in L2, value plus lock.
  const double el_avg = xcg ? (vb + lock_bytes) / 2.0 : vb;
  const double el_size = xcg ? vb + lock_bytes : vb;

  // Work bound: the M sub-histograms cost M * H to initialise and merge; keep it at most N / q_small.
  const i64 M_max = std::max<i64>(1, N / (static_cast<i64>(k.q_small) * H));

  if (T == 0) {  // N == 0: nothing to launch
    set_passes(pl, H, o.S > 0 ? o.S : 1);
    pl.M = o.M > 0 ? o.M : 1;
    pl.C = 1;
    pl.temp_bytes = 0;
    return pl;
  }

  // Eq. 4: the L2 share of a sparse histogram grows with RF. The paper typesets the divisor as
  // min(1, line / el_avg); the artifact (and Futhark) divide by line / el_avg, which is what Table I needs.
  const double race_exp = std::max(1.0, k.k_rf * RF / (static_cast<double>(k.cache_line_bytes) / el_avg));
  const double l2_share = k.f_l2 * static_cast<double>(dev.l2_bytes) * race_exp;

  // Eq. 5: S so that M_deg sub-histograms (the M that a cooperation of H / k_min threads gives) fit in the L2 share.
  const double coop_min = std::min(static_cast<double>(T), static_cast<double>(H) / k.k_min);
  const i64 M_deg = std::min(M_max, std::max<i64>(1, static_cast<i64>(std::floor(static_cast<double>(T) / coop_min))));
  const double s_den = std::max(1.0, std::floor(l2_share));
  const i64 S = static_cast<i64>(std::ceil(static_cast<double>(M_deg) * static_cast<double>(H) * el_avg / s_den));
  set_passes(pl, H, o.S > 0 ? o.S : S);

  // Eq. 6: k_max = bins of the L2 share per thread; C = min(T, u * H_chk / k_max), M = floor(T / C). u = 2 for
  // hardware atomics (robust under conflicts, so fewer sub-histograms), 1 otherwise.
  const double u = p.op_class == atomic_class::hdw ? 2.0 : 1.0;
  const double k_max = std::min(l2_share / el_size, static_cast<double>(N)) / static_cast<double>(T);
  const double C = std::max(1.0, std::min(static_cast<double>(T), u * static_cast<double>(pl.H_chk) / k_max));
  i64 M = std::max<i64>(1, static_cast<i64>(std::floor(static_cast<double>(T) / C)));
  M = std::min(M, M_max);
  if (o.M > 0) M = o.M;
  pl.M = clamp_to_int(M);
  pl.C = std::max<i64>(1, ceil_div(T, M));  // blocked mapping: threads [m*C, (m+1)*C) share sub-histogram m

  if (M > 1) {
    const std::size_t bins = static_cast<std::size_t>(M) * static_cast<std::size_t>(pl.H_chk);
    pl.temp_bytes = round_up(bins * p.value_bytes, global_alignment) + (xcg ? bins * lock_bytes : 0);
  } else {
    // M = 1: updates go straight into the destination; xcg locks its bins.
    pl.temp_bytes = xcg ? static_cast<std::size_t>(H) * lock_bytes : 0;
  }
  if (p.race_factor == 0) pl.temp_bytes = std::max(pl.temp_bytes, inspector_bytes);
  pl.shared_bytes = 0;
  return pl;
}

// The partitioned strategy's second-pass blocks per SM when a group fits a block's share (two, unless the SM holds
// fewer threads).
int second_pass_blocks_per_sm(const device_info& dev) {
  return std::max(1, std::min(detail::partition_blocks_per_sm, dev.max_threads_per_sm / detail::partition_block));
}

// Partitioned, the lock class at RF > 8 and 32-bit compare-and-swap at RF >= 40 (warp_private_plan's classes): groups
// small enough for a copy per warp of the second pass's block (plan::warp_private: the warp folds its equal bins and
// updates its copy without locks or atomics), as large as two blocks per SM allow, else (lock class only) one, in at
// most partition_groups_warp_private (lock class) or partition_groups_warp_private_cas groups; 0 when none fits, the
// class or RF does not qualify, or the caller fixed M or S. Lent H100, N = 50M, us:
//   seed 000's unpacked argmax, 2026-11-22, lock path (384 groups) -> warp-private:
//   RF = 63, H = 24576 / 49152 / 196608 / 393216 (29..451 groups): 8276 / 6083 / 4224 / 3679 -> 2140 / 2089 / 2260
//   / 2253; H = 786432 in 902 groups 3414 -> 5091 (runs of a few records per tile and group), in 434 groups of one
//   block per SM 3431 -> 3029; H = 1572864 (867 groups even so) keeps the lock path; 2026-11-26, both in the counted
//   layout (a contiguous stream per group) since: H = 786432 in 434 groups of one block per SM -> 902 of two, RF 63
//   / 16 / Zipf(1.1) 1186 / 1231 / 2454 -> 948 / 1042 / 1818 (hence up to partition_groups_warp_private_two_per_sm
//   groups of two blocks per SM); H = 1572864 lock path (768 groups) -> 867 warp-private groups of one block per SM
//   1121 / 1437 / 2257 -> 1166 / 1201 / 2520, so one-block groups keep the lower cap
//   (bench/results/2026-11-26-h100-xcg-warp-private-groups.txt);
//   RF = 1 (lock path with 32..170 groups), H = 49152 / 196608: 1117 / 1043 -> 1480 / 2045 (the fold's
//   __match_any_sync costs more than the few lock collisions it saves);
//   skewed input, RF = 1 and 63 alike: one bin H = 196608 945 -> 599, Zipf(1.1) H = 196608 26880 -> 4536.
//   seed 000's 24-bit saturating add, 2026-11-25, compare-and-swap loop (32 groups) -> warp-private, RF = 63 / 40:
//   H = 98304 (57 groups) 1656 / 1284 -> 678 / 699; H = 196608 (113) 1217 / 979 -> 795 / 811; H = 393216 (226)
//   971 / 856 -> 803 / 837; H = 786432 (451) 868 / 795 -> 915 / 951; H = 1572864 (434 of one block per SM) 851 /
//   796 -> 1156 / 1185; RF = 1 unchanged (bench/results/2026-11-25-h100-cas-partitioned-warp-private.txt).
//   The same, 2026-11-27, groups between half the second pass's 264 blocks and all of them -> one group per block,
//   RF = 40 / 63 (bench/results/2026-11-27-h100-cas-warp-private-group-count.txt): H = 262144 (151 -> 264 groups)
//   1001 / 947 -> 750 / 730, H = 393216 (226 -> 264) 836 / 799 -> 783 / 747; Zipf(1.1) told RF = 63 923 / 1042 ->
//   1029 / 1090. Evened out below half (113 -> 132 groups at H = 196608, 57 -> 66 at 98304) it lost: 770 / 740 ->
//   1052 / 958, 686 / 649 -> 750 / 702.
// warp_private_group_bins: from how many bins per group 32-bit cas takes the dense second pass instead.
constexpr i64 dense_cas_min_group_bins = 4096;

i64 warp_private_group_bins(const problem& p, const device_info& dev, const plan_overrides& o,
                            const planner_constants& k, std::size_t two_share) {
  const double RF = race_factor_used(p);
  // Not the idempotent lock class: seed 000's unpacked argmax told RF 63 at H = 1572864 took 636 us in 768
  // warp-private groups (M = 4) against 451 in 96 locked ones (lent H200, 2026-12-02, the fixed sweep,
  // bench/results/2026-12-02-h200-unchanged-bins.txt, section 4).
  const bool contended_xcg = p.op_class == atomic_class::xcg && RF > 8 && !lock_class_skips_most_updates(p);
  const bool contended_cas = p.op_class == atomic_class::cas && p.value_bytes == 4 && RF >= 40;
  if ((!contended_xcg && !contended_cas) || o.M > 0 || o.S > 0) return 0;
  // 32-bit cas: the dense second pass (plan::dense_second_pass) over k.partition_groups groups of at least
  // dense_cas_min_group_bins bins beats the warp-private groups. Lent H100, 2026-11-27, N = 50M uniform, seed 000's
  // saturating add told RF 63 / 40, warp-private -> 32 dense groups, us (bench/results/2026-11-27-h100-cas-rf63-
  // dense-groups.txt): H = 65536 646 / 694 -> 815 / 684, 98304 642 / 683 -> 674 / 591, 131072 681 / 716 -> 663 /
  // 621, 196608 729 / 772 -> 565 / 564, 262144 719 / 742 -> 593 / 600, 393216 731 / 780 -> 525 / 555.
  if (contended_cas && o.dense_second_pass >= 0 &&
      ceil_div(p.num_bins, i64{k.partition_groups}) >= dense_cas_min_group_bins)
    return 0;
  const int most_groups = contended_xcg ? k.partition_groups_warp_private : k.partition_groups_warp_private_cas;
  const std::size_t per_bin = static_cast<std::size_t>(detail::partition_block / 32) * p.value_bytes;
  for (std::size_t bytes : {two_share, dev.shared_per_block_optin}) {
    const i64 bins = static_cast<i64>(bytes / per_bin);
    const int most = contended_xcg && bytes == two_share ? k.partition_groups_warp_private_two_per_sm : most_groups;
    const i64 groups = bins > 0 ? ceil_div(p.num_bins, bins) : 0;
    if (bins > 0 && groups <= most) {
      // cas: more groups than half the second pass's blocks would leave some groups one block and others two, the
      // one-block groups then setting the pass's length: one group per block instead.
      const i64 blocks = static_cast<i64>(dev.sm_count) * second_pass_blocks_per_sm(dev);
      if (contended_cas && 2 * groups > blocks && groups < blocks) return ceil_div(p.num_bins, blocks);
      return bins;
    }
    if (contended_cas) break;  // one block per SM measured slower than the compare-and-swap loop (above)
  }
  return 0;
}

// The room partition_plan leaves after a group's copies for the second pass's hot-bin slots and replicas, where the
// groups are as large as two blocks per SM allow: 4 slots of 512 4-byte words, or 64 replicas per lane (H = 1572864
// then takes 63 groups of 24966 bins instead of 57 of 27595, whose 110380 bytes left no room for the table).
constexpr std::size_t partition_hot_bin_room = 8192;

// Partitioned, the compare-and-swap class (4-byte values) with the race factor unknown, or asked for
// (plan_overrides::hot_bins = 1): hot-bin slots in each second-pass block of the tile layout whose copies the block's
// threads share (not warp-private copies, not the dense second pass; plan::hot_slots, group_histogram_kernel). The
// block then takes all of `limit` (its share of the SM at the same blocks per SM): the hot-bin table after the
// copies, the slots and replicas in what is left. 0 where the table does not fit, or for a caller who fixed M or S
// (their copies), or with plan_overrides::hot_bins = -1. A skewed input's hot groups hold one or two bins' worth of
// most of their records, which the block's threads would otherwise compare-and-swap on its one copy. Lent H200,
// 2026-12-02, N = 50M, seed 000's saturating add, same run against none, us (bench/results/2026-12-02-h200-
// partitioned-hot-bins.txt): Zipf(1.1) RF 1 H = 196608 / 786432 / 1572864 1950 / 4669 / 5179 -> 457 / 560 / 589,
// RF 63 2349 / 5628 / 6800 -> 729 / 708 / 851; uniform with the RF unknown 0.95-1.00x (RF 63 at 196608 910 -> 469);
// one bin 1.07-1.13x slower (a compare-and-swap per input on the thread's own slot word, where the deferring loop had
// folded nearly all in registers). Not for 8-byte values: with them the first build (the slots' three update sites
// in the unrolled walk) made seed 000's packed argmax on Zipf(1.1) 1.37-1.58x slower at H = 196608..1572864 (an
// argmax rarely changes a hot bin's word, so its compare-and-swaps seldom retried), though one bin 0.63-0.96x (lent
// H200, 2026-12-02).
// partition_hot_bins_wanted: the call's side of it (partition_plan also sizes its groups by it).
bool partition_hot_bins_wanted(const problem& p, const plan_overrides& o, const planner_constants& k) {
  if (p.op_class != atomic_class::cas || p.value_bytes != 4 || o.hot_bins < 0 || k.hot_bin_bytes == 0) return false;
  return o.hot_bins > 0 || (p.race_factor == 0.0 && o.M == 0 && o.S == 0);
}

int partition_hot_slots(const problem& p, const plan_overrides& o, const planner_constants& k, const plan& pl,
                        std::size_t limit) {
  if (!partition_hot_bins_wanted(p, o, k) || pl.counted_groups || pl.warp_private || pl.dense_second_pass ||
      pl.H_chk > hot_bin_max_pass_bins)
    return 0;
  const std::size_t copies_bytes = static_cast<std::size_t>(pl.M) * static_cast<std::size_t>(pl.H_chk) * p.value_bytes;
  if (hot_bin_area_offset(std::max(copies_bytes, pl.shared_bytes)) + hot_bin_table_bytes > limit) return 0;
  return max_hot_slots(p, k, pl.block);
}

// The partitioned strategy (seed 003's idea as one radix pass; kernels in detail/kernel_partition.cuh): the first
// pass groups each tile of inputs by bin range, the second histograms each group in shared memory with blocks
// shared out in proportion to the group's inputs, so a skewed input spreads over every SM.
//   * Groups: few (planner_constants::partition_groups, 32; for hdw 16 or more, below), so that a tile's share
//     of a group is a run of a few hundred records that the second pass reads whole. On the lent H100 (2026-11-21, N = 50M, seed 000's input,
//     hdw, H = 196608 / 1572864) 32 groups took 365 / 446 us, 96 groups 410 / 534, 264 groups (one second-pass
//     block per group, merged without atomics) 540 / 550: the run length outweighs the atomic merges. Groups are
//     no larger than the opt-in shared memory (more groups then), at most max_partition_groups (larger groups
//     then), and no larger than two blocks per SM allow. overrides.S asks for a number of groups.
//   * M copies of a group per block for the cas and xcg classes (at most one per warp), as many as fit the block's
//     share of the SM: a few hot bins (RF > 1, skew) are otherwise contended by every warp of the block.
// Returns false (or throws when `forced`, naming why) when the inputs cannot be partitioned or a group does not fit.
// plan::lock_queue: an idempotent lock-class operator's updates that change a bin wait in the warp's queue
// (detail/lock_queue.hpp) and run 32 at a time under their locks. Why: ncu of seed 000's unpacked argmax told RF 1,
// H = 49152 (counted, 32 groups, M = 4), lent H200, 2026-12-02: the second pass ran 75 instructions per record at
// 62% issue; 14% of its updates changed their bin, so 86% of the warp steps ran the locked section (about 5 lanes
// of 32 in it) after the reconvergence around it. Same run, told RF 1, us (bench/results/2026-12-02-h200-lock-
// queue.txt): the tile layout's second pass with the queue against without, H = 49152 / 98304 / 196608 / 393216 /
// 786432 / 1572864: 439.8 / 428.5 / 430.1 / 388.3 / 408.1 / 488.2 against 464.6 / 457.2 / 452.4 / 415.9 / 436.6 /
// 526.1; the counted layout (the plans before, 453.4 / 454.0 / 453.0 / 449.6 / 454.7 / 462.9) got slower with it
// (478.0 / 475.5 / 480.3 / 465.1 / 478.1 / 480.9). So such operators take the tile layout with the queue below
// k.partition_counted_min_groups groups (partition_plan), the counted layout without it from there on (128
// groups at 1572864); lock_queue = 1 asks for the queue in the counted layout too.
// Where: copies shared by the block, no hot-bin slots, and where the queue (after the copies) keeps the blocks per
// SM the copies allow.
bool lock_queue_applies(const problem& p, const plan_overrides& o) {
  return o.lock_queue >= 0 && detail::lock_queue_takes(p.op_class, p.idempotent, p.value_bytes);
}

// A block's shared bytes with the lock queue of `threads` threads after its copies' `copies` bytes.
std::size_t bytes_with_lock_queue(std::size_t copies, int threads, std::size_t value_bytes) {
  return detail::lock_queue_offset(copies) + detail::lock_queue_bytes(threads, value_bytes);
}

void choose_lock_queue(const problem& p, const plan_overrides& o, const device_info& dev, std::size_t usable,
                       plan& pl) {
  pl.lock_queue = false;
  if (!lock_queue_applies(p, o) || pl.kind != strategy::partitioned || pl.warp_private || pl.hot_slots > 0 ||
      (pl.counted_groups && o.lock_queue == 0))
    return;
  // Two blocks per SM of detail::partition_block threads where the copies leave them, else one of twice the threads
  // (dispatch.cuh, second_pass_threads).
  const bool two_per_sm = pl.shared_bytes <= usable;
  const std::size_t with_queue = bytes_with_lock_queue(
      pl.shared_bytes, two_per_sm ? detail::partition_block : 2 * detail::partition_block, p.value_bytes);
  if (with_queue > (two_per_sm ? usable : dev.shared_per_block_optin)) return;
  pl.lock_queue = true;
  pl.shared_bytes = with_queue;
}

bool partition_plan(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k,
                    bool forced, plan& out) {
  auto refuse = [&](const std::string& why) {
    if (forced) throw error("strategy partitioned: " + why);
    return false;
  };
  if (p.record_bytes == 0 || p.record_bytes > 16)
    return refuse("needs element inputs of at most 16 bytes (index inputs cannot be partitioned)");
  if (p.num_bins > detail::max_partition_bins)
    return refuse("needs H <= 2^31, got " + std::to_string(p.num_bins));
  const int max_M = detail::partition_block / 32;
  if (o.M > max_M)
    return refuse("M (copies of a group per block) must be at most " + std::to_string(max_M) + ", got " +
                  std::to_string(o.M));
  const i64 H = p.num_bins;
  const std::size_t el = shared_bytes_per_bin(p);
  const std::size_t share = dev.shared_per_sm / detail::partition_blocks_per_sm;
  const std::size_t usable = share > dev.reserved_shared_per_block ? share - dev.reserved_shared_per_block : 0;
  // What a group may take for two blocks per SM: 4 KiB below the exact half. Groups of 115712 bytes (half of the SM
  // less the reserved 1 KiB) measured as if one block per SM (H = 786432: 411 us against 304 us for 98304 bytes),
  // 112348 bytes as two (~300 us).
  const std::size_t two_share = usable > 4096 ? usable - 4096 : usable;
  const int blocks_per_sm = second_pass_blocks_per_sm(dev);
  i64 group_bins;
  if (o.S > 0) {
    group_bins = ceil_div(H, o.S);
  } else {
    // k.partition_groups groups, each no larger than the opt-in shared memory allows (more groups then). The lock
    // class: groups that leave two blocks per SM, and with RF > 8 many small groups, so that each block
    // holds M copies to spread the hot bins (lent H100, 2026-11-21, xcg H = 1572864: 82 groups of 19370 bins, one
    // block per SM, 2705 us; 192 groups 1747 us; RF = 63: 32 groups 8.5-11.7 ms, 384 groups 3.5-4.3 ms). RF > 8
    // where warp-private groups do not apply (k.partition_groups_contended): lent H100, 2026-11-25, seed 000's
    // unpacked argmax, H = 1572864, 384 -> 768 groups, RF 16 / 63 1679 / 1179 -> 1436 / 1145 us, Zipf(1.1) (sampled
    // RF ~ 11) 2550 -> 2242, one bin 1161 -> 1146 (bench/results/2026-11-25-h100-xcg-contended-groups.txt; the
    // grid's fixed S = 768 at H = 393216..786432 had beaten 384 by 4-7% too).
    // hdw: at least k.partition_groups_hdw groups, small enough for two second-pass blocks per SM while
    // k.partition_groups of those cover H; beyond, one-block groups (below). Lent H100, 2026-11-22, N = 50M
    // uniform, median us for 16 / 24 / 32 / 48 / 64 groups:
    //   H = 196608: 286 / 302 / 296 / 304 / 310;   H = 393216: 289 / 305 / 298 / 304 / 313;
    //   H = 786432: 360 / 382 (one block per SM) / 302 / 308 / 315;   H = 1572864: 32 groups 375, 48 431 (one
    //   block per SM), 64 315. Fewer groups make longer runs but more merges (blocks x bins per group).
    // (cas at RF = 63 does better with 32 groups than 384 since its second pass merges through rows: lent H100,
    // 2026-11-22, H = 196608..1572864, 1567-1836 us against 1805-2665.)
    // xcg at RF <= 8: k.partition_groups_locked groups of two blocks per SM where they fit, else one-block groups
    // in 2, 4, 8 ... times as many (the fewest that fit); in the counted layout (one stream of records per group) at
    // any group count. assign_group_blocks_kernel gives each group floor(its share of the blocks): where the mean
    // share sits on a whole number, the groups a little below it get one block less and set the pass's length
    // (132 SMs: 33 / 66 one-block groups of 11916 bins took 585-602 / 727-730 us at H = 393216 / 786432, told RF 8
    // 1038 / 1411; 32 / 64 groups of 12288, 4.1 and 2.1 blocks each, 519 / 538 and 863 / 884). Lent H100,
    // 2026-11-27, N = 50M uniform, seed 000's unpacked argmax told RF 1, counted layout, us for 32 / 48 / 64 / 96 /
    // 128 / 192 groups (bench/results/2026-11-27-h100-xcg-locked-groups.txt): H = 196608 525 / 537 / 544 / 619 / 583
    // / 679 (two blocks per SM each); H = 393216 519 (one block per SM) / 536 / 543 / 623 / 585 / 670; H = 786432
    // - / 586 (one block per SM) / 538 (one) / 622 / 594 / 665; H = 1572864 96 one-block groups 611, 128 569, 192
    // two-block 685; told RF 8 the same order (196608: 870 at 32 groups, 1121 at 192). 96 and 192 groups give some
    // groups one block of 264 and others two or three, and the one-block groups set the pass's length. The tile
    // layout at 32 / 96 / 192 groups took 705 / 724 / 691 us at H = 196608 (with group_in_shared::visit_together;
    // 2085 / 2540 / 1594 before it). (2026-11-25, tile layout below 100 groups and before that fix: H = 49152 /
    // 196608 / 786432 / 1572864, 32 / 96 / 192 / 384 / 768 groups 1594 / 2334 / 789 / 876 / 922; 1450 / 2035 / 698
    // / 788 / 836; - / 1910 / 682 / 746 / 777; - / 1874 / 686 / 746 / 767.)
    const bool contended_class = p.op_class != atomic_class::hdw;
    // The idempotent lock class at any RF as at RF <= 8 (lock_class_skips_most_updates, warp_private_group_bins).
    const bool many_groups =
        p.op_class == atomic_class::xcg && race_factor_used(p) > 8 && !lock_class_skips_most_updates(p);
    const bool locked_groups = p.op_class == atomic_class::xcg && !many_groups;
    group_bins = ceil_div(H, !contended_class ? k.partition_groups_hdw
                             : many_groups    ? k.partition_groups_contended
                             : locked_groups  ? k.partition_groups_locked
                                              : k.partition_groups);
    // Groups that leave room for the second pass's hot-bin slots where it will take them (partition_hot_slots):
    // the table and partition_hot_bin_room bytes for slots and replicas.
    const std::size_t hot_reserve =
        partition_hot_bins_wanted(p, o, k) ? hot_bin_table_bytes + partition_hot_bin_room : 0;
    const i64 two_per_sm =
        std::max<i64>(1, static_cast<i64>((two_share > hot_reserve ? two_share - hot_reserve : 0) / el));
    // hdw and 64-bit cas: groups of two blocks per SM while k.partition_groups of them cover H; beyond,
    // k.partition_groups groups of one block per SM (as large as the opt-in allows, more groups past that), whose
    // second pass runs 1024 threads (second_pass_threads). Lent H100, 2026-11-25, N = 50M, seed 000's grid, two-block
    // groups -> one-block groups, us (bench/results/2026-11-25-h100-partition-one-block-groups.txt): hdw RF 1 / 63
    // H = 1048576 279 / 287 -> 271 / 263, H = 1572864 289 / 284 -> 273 / 264 (Zipf(1.1) 357 -> 327); the packed
    // argmax RF 1 / 63 H = 786432 460 / 507 -> 450 / 471, H = 1572864 550 / 587 -> 468 / 566, H = 2097152 702 /
    // 1026 -> 603 / 627. 32-bit cas keeps two-block groups where the race factor is unknown: its updates mostly
    // change the word, and a group's copy shared by twice the threads doubled Zipf(1.1) (H = 1048576 5057 -> 10645
    // us). Told a race factor, it takes one-block groups like the others (a told race factor is trusted: skew is not
    // expected). Lent H100, 2026-11-27, N = 50M, seed 000's saturating add, same-run A/B, told RF 1 / 63, us
    // (bench/results/2026-11-27-h100-cas-one-block-groups.txt): H = 1572864 394.6 / 649.5 -> 371.6 / 628.6,
    // H = 2097152 428.4 / 688.9 -> 403.6 / 659.4, H = 3145728 546.5 / 1825.2 -> 403.7 / 632.5; H = 786432 (two-block
    // groups either way) and Zipf(1.1) with the RF unknown unchanged. The price is a told RF that hides skew:
    // Zipf(1.1) told RF 1 / 63 at H = 1572864 5107 / 6744 -> 9590 / 11681.
    // (On 2026-11-22, before the wide second pass, one-block groups had lost: hdw H = 1572864 32 groups 375 us,
    // 64: 315.)
    const bool cas_two_always = p.op_class == atomic_class::cas && p.value_bytes <= 4 && p.race_factor <= 0;
    const bool two_always = many_groups || cas_two_always;
    const i64 aim = locked_groups ? k.partition_groups_locked : k.partition_groups;
    const bool two_fit = two_always || ceil_div(H, two_per_sm) <= aim;
    if (!two_fit) group_bins = ceil_div(H, aim);
    const i64 one_per_sm = static_cast<i64>(
        (dev.shared_per_block_optin > hot_reserve ? dev.shared_per_block_optin - hot_reserve : 0) / el);
    const i64 cap = two_fit ? two_per_sm : one_per_sm;
    group_bins = std::min<i64>(group_bins, std::max<i64>(1, cap));
    if (locked_groups && !two_fit) {
      const i64 fewest = ceil_div(H, std::max<i64>(1, one_per_sm));
      i64 count = aim;
      while (count < fewest) count *= 2;
      group_bins = ceil_div(H, count);
    }
    // The rules below that take fewer, larger groups: halve the group count (to no fewer than `fewest`) while a
    // group of the bins that gives still `fits`, then size the groups for that count.
    auto halve_groups_while = [&](i64 fewest, auto fits) {
      i64 groups = ceil_div(H, group_bins);
      while (groups > fewest) {
        const i64 fewer = std::max(fewest, ceil_div(groups, i64{2}));
        if (!fits(ceil_div(H, fewer))) break;
        groups = fewer;
      }
      group_bins = ceil_div(H, groups);
    };
    // The idempotent lock class with the lock queue (choose_lock_queue, the tile layout): fewer groups, halving
    // their count while a group of twice the bins still fits one block per SM with the queue of its 1024 threads,
    // down to lock_queue_fewest_groups. Such a second pass skips most updates (the shortcut before the lock, then
    // the queue), so a group's copies gain less from M > 1 or a second block per SM than its blocks gain from
    // groups of more inputs per bin (fewer updates that change one). Lent H200, 2026-12-03, N = 50M, seed 000's
    // unpacked argmax told RF 1, tile layout with the queue, two rounds, us (bench/results/
    // 2026-12-03-h200-lock-queue-groups.txt): H = 49152 32 groups of 1536 bins (M = 4) 434 / 430, 16 of 3072
    // (M = 2) 416 / 418, 8 of 6144 414 / 417, 4 of 12288 (one block per SM) 427 / 429; H = 98304 32 of 3072 435 /
    // 431, 16 of 6144 412 / 409, 8 of 12288 387 / 389; H = 196608 32 of 6144 418 / 419, 16 of 12288 364 / 374;
    // H = 393216 / 786432 keep their 32 / 64 groups of 12288 (384 / 401). Measured for 8-byte values only: 4-byte
    // lock-class values (twice the bins a block) take the same rule unmeasured.
    // Down to 4 groups since pass 1 ranks few groups as fast as 32 (kernel_partition.cuh, rank_tile's `spread` and
    // partition_hot_group_lanes): the same argmax at H = 49152, 8 -> 4 groups, 0.953 (2026-12-04-h200-second-pass-
    // tickets.txt, section 7) and 0.945 (2026-12-04-h200-cas-xcg-fewer-groups.txt, section 1) in same-run A/Bs;
    // with the rule, same run (section 3): 379.2 -> 359.7 us, RF 63 264.2 -> 259.8.
    if (locked_groups && hot_reserve == 0 && o.counted_groups <= 0 && lock_queue_applies(p, o)) {
      constexpr i64 lock_queue_fewest_groups = 4;
      halve_groups_while(lock_queue_fewest_groups, [&](i64 bins) {
        return bytes_with_lock_queue(shared_chunk_bytes(p, 1, bins), 2 * detail::partition_block, p.value_bytes) <=
               dev.shared_per_block_optin;
      });
    }
    // The 64-bit compare-and-swap class's idempotent operators told a race factor below 8 (idempotent_wide_cas_told_
    // low_rf: seed 000's packed argmax): fewer groups the same way, halving their count while a group of twice the
    // bins still fits one block per SM, down to wide_cas_fewest_groups. Its second pass skips the swaps that would
    // change nothing (detail/deferred_cas.cuh), which more inputs per bin make the most of, and with tiles by ticket
    // (group_histogram_kernel) the larger groups' blocks no longer wait on one another. Lent H200, 2026-12-04, N =
    // 50M uniform, told RF 1, same run, two rounds, us (bench/results/2026-12-04-h200-second-pass-tickets.txt,
    // section 7): H = 49152 32 groups (M = 8) 364.6, 16 350.2, 8 (M = 2) 341.6, 4 348.9; H = 196608 32 groups
    // 362.7, 16 345.0, 8 (one block per SM) 338.4; H = 393216 32 groups 359.5, 16 (one block per SM) 344.7. (The
    // 32-bit saturating add at 196608 in 8 groups: 0.968x, not taken.) With the rule, same run (section 8): 49152 /
    // 196608 / 393216 354.1 / 357.6 / 356.1 -> 340.3 / 333.3 / 338.7; Zipf(1.1) told RF 1 at 196608 480.1 -> 353.1;
    // an unknown RF and RF 63 unchanged. Measured on the H200 only.
    if (idempotent_wide_cas_told_low_rf(p) && hot_reserve == 0 && o.counted_groups <= 0) {
      constexpr i64 wide_cas_fewest_groups = 8;
      halve_groups_while(wide_cas_fewest_groups,
                         [&](i64 bins) { return shared_chunk_bytes(p, 1, bins) <= dev.shared_per_block_optin; });
    }
    // The 32-bit compare-and-swap class told a race factor below 8 (seed 000's saturating add): fewer groups while
    // a group of twice the bins still leaves two blocks per SM, down to 8 (H = 196608 32 -> 8 groups, 393216 32 ->
    // 16; from 786432 on, twice the bins would take one block per SM, and 16 groups there were 1.013x). Lent H200,
    // 2026-12-04, N = 50M uniform, told RF 1, same run, two rounds, us (2026-12-04-h200-cas-xcg-fewer-groups.txt,
    // section 1): H = 196608 32 groups 307.1, 16 300.1, 8 297.9; H = 393216 32 310.1, 16 302.0, 8 (one block per
    // SM) 322.5; H = 786432 32 313.2, 16 317.2; 64 groups 1.03-1.08x at every H. With the rule, same run
    // (section 3): 196608 306.0 -> 294.1, 393216 308.0 -> 304.7; RF 63 and an unknown RF unchanged. Measured at
    // RF 1 only.
    if (p.op_class == atomic_class::cas && p.value_bytes <= 4 && p.race_factor > 0 && p.race_factor < 8 &&
        hot_reserve == 0 && o.counted_groups <= 0 && two_fit) {
      constexpr i64 narrow_cas_fewest_groups = 8;
      halve_groups_while(narrow_cas_fewest_groups, [&](i64 bins) { return bins <= two_per_sm; });
    }
    // Unit increments keep a 16-bit bin per input as the record (detail::partition_record_bytes).
    if (p.unit_increments) group_bins = std::min(group_bins, detail::max_local_bin_group);
    // hdw, one-block groups more than half as many as the SMs: each group gets one second-pass block (a share of
    // the grid below two), so the SMs past the group count would idle while each block histograms a whole group.
    // One group per SM instead. Lent H100, 2026-11-26, N = 50M uniform int32 counts, H = 4194304, tile layout:
    // 73 groups of 57457 bins 384 us (the second pass alone 215 us on 73 SMs), 132 groups of 31776 bins 294 us,
    // 146 (two blocks per SM short of fitting) 373, 264 (two per SM) 342
    // (bench/results/2026-11-26-h100-huge-partition-experiments.txt).
    // Not measured for 64-bit cas, whose one-block groups (H around 2M-3.8M) may gain the same way.
    if (!two_fit && p.op_class == atomic_class::hdw) {
      const i64 groups_now = ceil_div(H, group_bins);
      if (2 * groups_now > dev.sm_count && groups_now < dev.sm_count) group_bins = ceil_div(H, dev.sm_count);
      // Unit increments in the counted layout's one-block groups (from k.partition_counted_min_groups_hdw on):
      // groups small enough for 16-bit counters of two second-pass blocks per SM (narrow_group_count_kernel, taken
      // by dispatch where they fit), and a whole number of groups per SM. Lent H100, 2026-11-27, N = 50M uniform,
      // same run, us (bench/results/2026-11-27-h100-narrow-counts.txt): H = 100M 1721 groups of 32-bit counters
      // 620.5 / 617.3, 1848 (14 per SM) 624.2; 16-bit counters in 1792 groups (the fewest that fit) 605.1, in 1848
      // 601.0 / 597.4 (the second pass 211 -> 188 us under ncu); H = 60M 1033 groups 525.7 / 525.4 -> 1076 500.4,
      // 1188 (9 per SM) 507.5 / 508.3, 1320 512.6; H = 40M 689 groups 470.3 / 466.6 -> 717 498.8, 792 (6 per SM)
      // 464.5 / 464.4.
      if (p.unit_increments && groups_now >= k.partition_counted_min_groups_hdw) {
        const i64 narrow_bins = static_cast<i64>(two_share / sizeof(std::uint16_t));
        const i64 fewest = std::max(groups_now, ceil_div(H, narrow_bins));
        group_bins = ceil_div(H, ceil_div(fewest, i64{dev.sm_count}) * dev.sm_count);
      }
    }
  }
  // The tile layout takes at most max_partition_groups groups, the counted layout max_counted_groups.
  const int max_groups = o.counted_groups < 0 ? detail::max_partition_groups : detail::max_counted_groups;
  group_bins = std::max(group_bins, ceil_div(H, max_groups));
  // Groups of equal size (the last one no smaller than the rest by more than one bin). With the last group a
  // remainder the same plan ran a third slower on the H100 (H = 786432: 28 groups of 27904 bins and one of 5120,
  // 405 us; 29 groups of 27119, 305 us; cause not found).
  group_bins = ceil_div(H, ceil_div(H, group_bins));
  int M = 1;
  if (o.M > 0) {
    M = o.M;
  } else if (p.op_class != atomic_class::hdw) {
    while (M < max_M && shared_chunk_bytes(p, 2 * M, group_bins) <= usable) M *= 2;
  }
  std::size_t shared = shared_chunk_bytes(p, M, group_bins);
  const i64 private_bins = warp_private_group_bins(p, dev, o, k, two_share);
  if (private_bins > 0) {
    group_bins = ceil_div(H, ceil_div(H, private_bins));
    M = max_M;
    shared = static_cast<std::size_t>(M) * static_cast<std::size_t>(group_bins) * p.value_bytes;
  }
  // Unit increments: groups of a multiple of 4 bins where that fits the same share of the SM, so that with an
  // aligned dest a group's only block writes its bins 16 bytes a store (group_in_shared::write_own_bins). Lent
  // H200, 2026-11-26, N = 50M uniform, same run: H = 16777216 (289 groups of 58053 -> 58056 bins) with the 16-byte
  // stores 325 -> 320 us (bench/results/2026-11-26-h200-huge-short-runs.txt).
  if (p.unit_increments && o.S <= 0 && private_bins == 0) {
    const i64 rounded = (group_bins + 3) / 4 * 4;
    const std::size_t limit = shared <= two_share ? two_share : shared <= usable ? usable : dev.shared_per_block_optin;
    if (rounded <= detail::max_local_bin_group && shared_chunk_bytes(p, M, rounded) <= limit) {
      group_bins = rounded;
      shared = shared_chunk_bytes(p, M, group_bins);
    }
  }
  const int groups = clamp_to_int(ceil_div(H, group_bins));
  const int counted_from =
      p.op_class == atomic_class::hdw ? k.partition_counted_min_groups_hdw : k.partition_counted_min_groups;
  // The lock class without warp-private copies: counted at any group count (the measurements at locked_groups),
  // except where the tile layout's second pass takes the lock queue (choose_lock_queue: it gains there, and costs in
  // the counted layout's).
  const bool locked_counted = p.op_class == atomic_class::xcg && private_bins == 0 && !lock_queue_applies(p, o);
  const bool counted = o.counted_groups > 0 || (o.counted_groups == 0 && (groups >= counted_from || locked_counted ||
                                                                          groups > detail::max_partition_groups));
  const std::size_t counted_record = detail::partition_record_bytes(p.record_bytes, p.unit_increments);
  if (counted && detail::counted_pass1_shared_bytes(counted_record, groups) > dev.shared_per_block_optin)
    return refuse("the counted layout's first pass needs " +
                  std::to_string(detail::counted_pass1_shared_bytes(counted_record, groups)) +
                  " bytes of shared memory for " + std::to_string(groups) + " groups, the device allows " +
                  std::to_string(dev.shared_per_block_optin));
  if (p.unit_increments && group_bins > detail::max_local_bin_group)
    return refuse("the partitioned strategy keeps a 16-bit bin per input for unit increments: groups of at most " +
                  std::to_string(detail::max_local_bin_group) + " bins, got " + std::to_string(group_bins));
  if (shared > dev.shared_per_block_optin)
    return refuse(std::to_string(M) + " copies of a group of " + std::to_string(group_bins) + " bins need " +
                  std::to_string(shared) + " bytes of shared memory, the device allows " +
                  std::to_string(dev.shared_per_block_optin));
  // Groups larger than a block's share of the SM (large H, or the caller's S) leave one block per SM.
  const int resident = shared <= usable ? dev.sm_count * blocks_per_sm : dev.sm_count;
  plan pl;
  pl.kind = strategy::partitioned;
  pl.race_factor = race_factor_used(p);
  pl.M = M;
  pl.S = groups;
  pl.H_chk = group_bins;
  pl.C = 0;
  pl.block = detail::partition_block;
  pl.grid = p.n > 0 ? (o.grid > 0 ? o.grid : resident) : 0;  // the second pass's blocks, shared out among groups
  pl.shared_bytes = shared;
  pl.warp_private = private_bins > 0;
  // cas and xcg: a group's blocks merge through rows (plan::merge_rows; see choose_merge_rows) when they fit the cap.
  std::size_t rows = 0;
  if (p.op_class != atomic_class::hdw && pl.grid > 0) {
    rows = detail::group_rows_bytes(pl.grid, groups, group_bins, p.value_bytes);
    if (rows > k.merge_rows_max_bytes) rows = 0;
  }
  pl.merge_rows = rows > 0;
  pl.counted_groups = counted;
  // 32-bit cas told a race factor, tile layout, two blocks per SM: the second pass in blocks of 1024 threads, two
  // per SM (plan::dense_second_pass), whose 64 warps per SM hide twice the latency of the compare-and-swap loop
  // (the one-pass shared kernel runs 64 warps per SM too). Lent H100, 2026-11-27, N = 50M, seed 000's saturating
  // add, same-run A/B, medians of three rounds, us (bench/results/2026-11-27-h100-dense-second-pass.txt): told RF 1
  // H = 196608 / 393216 / 786432 369.8 / 369.4 / 374.4 -> 333.6 / 337.6 / 340.4, told RF 63 H = 786432 678.9 ->
  // 504.4 (ncu at 196608: the second pass 195 -> 160-172 us, the partition 152). Only where told: a hot bin's word
  // then takes the compare-and-swaps of twice the warps, and Zipf(1.1) (RF unknown) at H = 393216 / 786432 /
  // 1572864 went 2624 / 4507 / 5122 -> 3177-3244 / 6003-6048 / 5849-5976 (196608 1924 -> 1749; all in one bin 12%
  // faster). Told RF >= 40, it replaces warp-private groups from 131072 bins (warp_private_group_bins).
  pl.dense_second_pass = p.op_class == atomic_class::cas && p.value_bytes == 4 && !counted && private_bins == 0 &&
                         shared <= usable && o.dense_second_pass >= 0 && (p.race_factor > 0 || o.dense_second_pass > 0);
  // Hot-bin slots: the block's share of the SM at the blocks per SM its copies leave (two_share, measured as two
  // blocks per SM, above), the table and the slots after the copies.
  const std::size_t hot_limit =
      shared <= two_share ? two_share : shared <= usable ? usable : dev.shared_per_block_optin;
  pl.hot_slots = partition_hot_slots(p, o, k, pl, hot_limit);
  if (pl.hot_slots > 0) pl.shared_bytes = hot_limit / 16 * 16;
  const bool with_locks = p.op_class == atomic_class::xcg && !pl.merge_rows;
  pl.temp_bytes = detail::make_partition_layout_for(counted, p.n, groups, dev.sm_count, p.record_bytes,
                                                    p.unit_increments, H, with_locks, rows)
                      .bytes;
  // The lock class with an unknown RF: dispatch samples the input first (warp_private_group_bins depends on RF).
  if (p.race_factor == 0 && p.op_class == atomic_class::xcg) pl.temp_bytes = std::max(pl.temp_bytes, inspector_bytes);
  choose_lock_queue(p, o, dev, usable, pl);
  out = pl;
  return true;
}

// The hashed shared-memory strategy (plan::hashed_bins): a table per block of the active bins, H / RF (H when the
// race factor is unknown) at most hashed_max_load of its slots. The compare-and-swap and lock classes keep as many
// copies of the values as fit, up to a copy per warp (fewer threads at once on a value retry less, or wait less for
// its lock); the hardware atomics one copy (the most slots: its probes stay short). Two blocks per SM where their
// tables have room, else one; the lock class one, with the most copies. Lent H100, 2026-11-27, N = 50M, seed 000's
// input at RF 63, copies forced (bench --copies), us: the saturating add H = 49152 / 98304 / 196608 1 copy 799 / 636
// / 446, 4 469 / 294 / 332 (one block per SM at 196608), 8 317 / 251 / 345, 16 251 / 328 / -, the most at two blocks
// per SM (17 / 8 / 3) best; the unpacked argmax H = 49152 / 98304 / 196608 934 / 733 / 577 with one copy (two blocks
// per SM), 416 / 376 / 380 with 8 / 8 / 4 (one block per SM at the last two); HDW 1 or 2 copies best, 3 or more up to
// 1.6x slower (bench/results/2026-11-27-h100-hashed-bins.txt, the copies sweep). Where one pass's table has no room,
// up to hashed_max_passes passes over chunks of the bins, for the contended classes: RF 63, same run against the
// plans before, us: the saturating add H = 1572864 633 -> 385, the unpacked argmax H = 786432 924 -> 568; HDW
// H = 1572864 244 -> 322 and the packed argmax H = 786432 424 -> 421 keep theirs (the results file, section 7).
// Before a second pass (or another strategy), a table up to hashed_max_load_to_fit full: same run, 0.5 -> 0.7, us:
// the unpacked argmax H = 786432 581 (two passes) -> 366 (one), 1572864 1108 (partitioned) -> 598 (two); the
// packed argmax H = 786432 439 (partitioned) -> 267. Not for more copies where half load fits: at 0.7 the
// saturating add took 2 copies instead of 1 at H = 393216 / 786432, 184 / 207 -> 214 / 228 us (section 8).
// Linear probing at 0.7 costs ~2.2 probes per hit on keys that are not RF-strided (0.5: 1.5); RF-strided keys take
// one (Fibonacci hashing spreads an arithmetic progression).
inline constexpr double hashed_max_load = 0.5;
inline constexpr double hashed_max_load_to_fit = 0.7;
// The classes whose one-pass alternatives are contended at a high race factor: 4-byte cas and the lock class.
bool hashed_contended_class(const problem& p) {
  return p.op_class == atomic_class::xcg || (p.op_class == atomic_class::cas && p.value_bytes <= 4);
}
// The overrides were checked by validate (M, S and block) or are all 0 (hashed_bins_worth: free_shape).
bool hashed_bins_plan(const problem& p, const device_info& dev, const plan_overrides& o, plan& out) {
  if (o.hashed_bins < 0 || p.n <= 0 || p.num_bins <= 0 || p.num_bins > std::numeric_limits<int>::max())
    return false;
  const bool xcg = p.op_class == atomic_class::xcg;
  const i64 active =
      p.race_factor > 0 ? std::max<i64>(1, static_cast<i64>(std::floor(p.num_bins / p.race_factor))) : p.num_bins;
  // Two passes only for the contended classes: each pass reads the whole input again. Before another pass, a table
  // up to hashed_max_load_to_fit full.
  const int most_passes =
      o.S > 0 ? o.S : hashed_contended_class(p) && !lock_class_skips_most_updates(p) ? hashed_max_passes : 1;
  // One table per pass, `load` full with a pass's share of the active bins (RF-strided bins spread evenly over the
  // passes' chunks).
  // Keys of 4 bytes where the table has room, else their 16-bit tags (plan::hashed_tags): a lookup costs a few
  // instructions more (one more register live, the compare-and-swap loops of the packed argmax spill), and the tags'
  // room in bigger tables and more copies costs where it is not needed (samples, rows and block set-up grow with the
  // slots). Lent H100, 2026-11-27, seed 000's input told RF 63, us, tags in every table against 4-byte keys: HDW
  // H = 196608 / 786432 155 / 193 against 137 / 166 (tables filling the budget), 139-144 / 170-177 against 135 /
  // 165-175 (as many slots); the packed argmax 49152..786432 233-300 against 214-269 (as many slots); where the tags
  // let one pass replace two, the saturating add 1572864 261 against 415, and the partitioned strategy, HDW 1572864
  // 227 against 246-259.
  auto fits = [&](int passes, double load, int key_bytes) {
    const i64 slots_needed = static_cast<i64>(std::ceil(static_cast<double>(ceil_div(active, passes)) / load));
    for (int per_sm = xcg ? 1 : 2; per_sm >= 1; --per_sm) {
      if (hashed_block * per_sm > dev.max_threads_per_sm) continue;
      const std::size_t bytes = shared_budget_for(hashed_block, dev, per_sm).L / 16 * 16;
      auto table_bytes = [&](int copies) {
        return hashed_table_bytes(slots_needed, p.value_bytes, xcg, copies, key_bytes);
      };
      // One copy for the idempotent lock class too (lock_class_skips_most_updates): its updates mostly skip the
      // lock, and one copy leaves the table the most slots. Seed 000's unpacked argmax told RF 63 took a copy per
      // warp (M = 4 at H = 196608: 374 us, where one copy at H = 393216 took 289; lent H200, 2026-12-02,
      // bench/results/2026-12-02-h200-seed-launch.txt, which measures this rule).
      int copies = o.M > 0                                                               ? o.M
                   : p.op_class == atomic_class::hdw || lock_class_skips_most_updates(p) ? 1
                                                                                         : hashed_block / 32;
      while (o.M <= 0 && copies > 1 && table_bytes(copies) > bytes) --copies;
      if (table_bytes(copies) > bytes) continue;
      const i64 slots = hashed_slots_for(bytes, p.value_bytes, xcg, copies, key_bytes);
      plan pl;
      pl.kind = strategy::shared_memory;
      pl.hashed_bins = true;
      pl.race_factor = race_factor_used(p);
      pl.block = hashed_block;
      pl.M = copies;
      pl.C = hashed_block / copies;
      pl.grid =
          o.grid > 0 ? o.grid : clamp_to_int(std::min<i64>(ceil_div(p.n, hashed_block), i64{dev.sm_count} * per_sm));
      pl.hashed_tags = key_bytes == 2;
      set_passes(pl, p.num_bins, passes);
      if (pl.hashed_tags && !detail::hashed_tags_fit(slots, pl.H_chk)) continue;  // keys too many for their slots
      pl.shared_bytes = bytes;
      pl.temp_bytes = hashed_workspace_bytes(slots, pl.grid, p.value_bytes, p.num_bins, xcg);
      out = pl;
      return true;
    }
    return false;
  };
  for (int passes = std::max(o.S, 1); passes <= most_passes; ++passes)
    for (const double load : {hashed_max_load, hashed_max_load_to_fit})
      for (const int key_bytes : {4, 2})
        if (fits(passes, load, key_bytes)) return true;
  return false;
}

// Whether make_plan takes the hashed strategy (hashed_bins_plan, when its table has room): a race factor of at least
// hashed_min_race_factor told by the caller (a sampled one may come from a skewed input, whose hot bins the told
// plans are not made for), where the shared strategy would need more than one pass or leave shared memory, and for
// the compare-and-swap class of 4-byte values and the lock class also where a copy of all H bins does not fit two
// blocks per SM (its one pass then runs one block per SM, a copy hit by 1024 threads at once). Lent H100,
// 2026-11-27, N = 50M, seed 000's input told RF 63, full grids before and after (bench/results/
// 2026-11-27-h100-full-grid-566c52c.txt, -134baf2.txt), us:
//   H =              24576   49152  196608  393216  786432  1572864
//   saturating add   (kept)  458.0   562.0   519.5   504.1   646.8 -> 181.7 230.5 186.2 203.2 412.6 (two passes)
//   unpacked argmax  500.8   752.9   843.2   973.2   925.9          -> 336.9 334.4 375.8 346.0 568.3 (two passes)
//   packed argmax    (kept)  493.3   445.4   441.1   (kept)         -> 216.1 229.2 228.8
//   HDW              (kept)  (kept)  238.5   237.5   243.7          -> 139.7 135.6 165.7
// RF 32 / 16 (bench/results/2026-11-27-h100-hashed-bins.txt, same run): HDW H = 98304 / 196608 367 / 375 -> 130 /
// 125 at RF 32; the saturating add 934 / 915 -> 254 / 295 at RF 32, 625 / 619 -> 292 / 338 at RF 16.
// Kept as they were: the packed argmax's one pass at H = 24576 (246 against 263 hashed, one block per SM), the
// saturating add's slot per active bin there (173 against 312), HDW's one pass at 49152 (87 against 122).
// Told RF 63 over Zipf(1.1) input (told, so trusted): HDW 281-291 -> 140-174, the packed argmax 531-708 -> 321-403
// up to H = 393216; the saturating add and the unpacked argmax mostly gain (XCG 1270 / 1183 / 1312 -> 667 / 739 /
// 864 at H = 49152..196608) but lose at some sizes (CAS 393216 4270 -> 5190, XCG 393216 1409 -> 1655).
inline constexpr double hashed_min_race_factor = 16;
bool hashed_bins_worth(const problem& p, const device_info& dev, const plan_overrides& o, const planner_constants& k,
                       bool use_shared, bool free_shape) {
  if (o.hashed_bins != 0 || !free_shape || p.race_factor_sampled || p.race_factor < hashed_min_race_factor)
    return false;
  if (!use_shared || shared_plan(p, dev, o, k).S > 1) return true;
  // One pass of shared memory: the contended classes take the tables where a copy fills more than a block's share
  // at two blocks per SM, but not the idempotent lock class, whose race costs little (lock_class_skips_most_updates).
  return hashed_contended_class(p) && !lock_class_skips_most_updates(p) &&
         shared_chunk_bytes(p, 1, p.num_bins) > shared_budget_for(hashed_block, dev, 2).L;
}

int max_shared_passes(atomic_class c, const planner_constants& k) {
  switch (c) {
    case atomic_class::hdw: return k.max_shared_passes_hdw;
    case atomic_class::cas: return k.max_shared_passes_cas;
    case atomic_class::xcg: return k.max_shared_passes_xcg;
  }
  return k.max_shared_passes_hdw;
}

// The seed launch (plan::seed_inputs) for idempotent lock-class operators, whose shared updates skip a bin they would
// leave as it is (shared_update_changes_nothing in detail/atomic_update.cuh). Without it a block's copy of a bin has
// seen only the few inputs of that bin the block read, and its k-th input is a new maximum with chance 1 / k: seed
// 000's unpacked argmax at RF 1, H = 12288, 264 blocks, sees ~15 inputs of a bin per copy, ~22% of its updates take
// the lock, and with 32 lanes nearly every step of a warp runs the locked section. Seeded with a maximum over
// seed_updates_per_bin inputs of each active bin, a copy takes a new one with chance ~1 / that.
// Lent H200, 2026-12-02, N = 50M, seed 000's unpacked argmax told RF 1, us without -> with a seed of 128 inputs per
// bin in half the grid (medians of 15 over two rounds, bench/results/2026-12-02-h200-seed-launch.txt): H = 2048 /
// 6144 / 12288 / 24576 199.8 / 220.1 / 235.0 / 235.4 -> 186.1 / 192.7 / 203.7 / 229.3. 512 inputs per bin: 181.6 / 194.5 /
// 214.8 at the first three (more at 2048, less above), in the whole grid 179.7 / 195.1 / 220.5; in a quarter of the
// grid 185.5 / 205.1 / 241.4. Not taken:
//  - in two passes (H = 49152, S = 2: 473.9 -> 514.7, a seed launch per pass);
//  - with hot-bin slots (the RF unknown: Zipf(1.1) H = 2048 / 12288 / 24576 305.5 / 306.0 / 319.2 -> 328.4 / 319.6 /
//    368.2, the seed launch's few blocks queueing on the hot bins' locks);
//  - for the 64-bit compare-and-swap (the packed argmax RF 1, H = 505..12288 1.00-1.11x slower: its updates cost
//    about as much whether they change the bin or not);
//  - where a copy sees as many inputs of a bin as the seed would give it (RF 63: thousands).
// Also measured and dropped: the lock kernel reading a vector's bins together before deciding any of them (four reads
// in flight): at 32 registers it spilled 144 bytes against 32, and RF 1 H = 505..24576 took 317-372 us against
// 180-233.
bool seed_launch_applies(const problem& p, const plan& pl) {
  return p.idempotent && p.op_class == atomic_class::xcg && (p.value_bytes == 4 || p.value_bytes == 8) &&
         pl.kind == strategy::shared_memory && pl.merge_rows && pl.S == 1 && pl.hot_slots == 0 && !pl.hashed_bins &&
         !pl.warp_private && !pl.thread_private && pl.grid > 0;
}

void choose_seed_launch(const problem& p, const planner_constants& k, const plan_overrides& o, plan& pl) {
  pl.seed_inputs = 0;
  pl.seed_grid = 0;
  if (o.seed_launch < 0 || !seed_launch_applies(p, pl)) return;
  const double active = std::max(1.0, static_cast<double>(p.num_bins) / race_factor_used(p));
  // Inputs of an active bin that one copy of the plan's launch sees.
  const double per_copy = static_cast<double>(p.n) / (active * pl.grid * std::max(1, pl.M));
  if (o.seed_launch == 0 && per_copy >= k.seed_updates_per_bin) return;
  const double wanted = std::min(k.seed_updates_per_bin * active, static_cast<double>(p.n) * k.seed_max_fraction);
  if (wanted < 1) return;
  pl.seed_inputs = static_cast<i64>(wanted);
  pl.seed_grid = std::max(1, pl.grid / std::max(1, k.seed_grid_divisor));
}

}  // namespace

const char* to_string(strategy s) {
  switch (s) {
    case strategy::automatic: return "automatic";
    case strategy::shared_memory: return "shared";
    case strategy::global_memory: return "global";
    case strategy::partitioned: return "partitioned";
  }
  return "?";
}

std::string plan::to_string() const {
  char rf[32];
  std::snprintf(rf, sizeof rf, "%g", race_factor);
  return std::string("strategy=") + ghist::to_string(kind) + " M=" + std::to_string(M) + " S=" + std::to_string(S) +
         " H_chk=" + std::to_string(H_chk) + " C=" + std::to_string(C) + " grid=" + std::to_string(grid) +
         " block=" + std::to_string(block) + " shared_bytes=" + std::to_string(shared_bytes) +
         " temp_bytes=" + std::to_string(temp_bytes) + " RF=" + rf + (warp_private ? " warp_private" : "") +
         (thread_private ? " thread_private" : "") + (merge_rows ? " merge_rows" : "") +
         (defer_lost_updates ? " defer_lost_updates" : "") + (counted_groups ? " counted_groups" : "") +
         (hot_slots > 0 ? " hot_slots=" + std::to_string(hot_slots) : std::string()) +
         (hot_active_bins ? " active_bins samples=" + std::to_string(hot_samples) : std::string()) +
         (hot_shared_words ? " shared_words" : "") + (staged_input ? " staged_input" : "") +
         (dense_second_pass ? " dense_second_pass" : "") + (hashed_bins ? " hashed_bins" : "") +
         (hashed_tags ? " hashed_tags" : "") +
         (seed_inputs > 0 ? " seed=" + std::to_string(seed_inputs) + " seed_grid=" + std::to_string(seed_grid)
                          : std::string()) +
         (lock_queue ? " lock_queue" : "");
}

std::size_t shared_bytes_per_bin(const problem& p) {
  // Seed 000: sizeof(value), plus a 4-byte lock for xcg (its 8-byte argmax pair counts 12 bytes per bin).
  return p.value_bytes + (p.op_class == atomic_class::xcg ? lock_bytes : 0);
}

plan make_shared_plan(const problem& p, const device_info& dev, const plan_overrides& overrides,
                      const planner_constants& constants) {
  validate(p, dev, overrides, constants);
  plan pl = shared_plan(p, dev, overrides, constants);
  choose_seed_launch(p, constants, overrides, pl);
  return pl;
}

plan make_global_plan(const problem& p, const device_info& dev, const plan_overrides& overrides,
                      const planner_constants& constants) {
  validate(p, dev, overrides, constants);
  return global_plan(p, dev, overrides, constants);
}

namespace {
plan choose_plan(const problem& p, const device_info& dev, const plan_overrides& overrides,
                 const planner_constants& constants) {
  if (overrides.thread_private > 0) {  // a copy per thread wherever one warp's copies fit (validate: cas or xcg)
    plan pl;
    if (!thread_private_plan(p, dev, constants, 32, pl))
      throw error("plan override thread_private = 1: a copy of " + std::to_string(p.num_bins) + " bins per thread " +
                  "does not fit one warp in shared memory");
    return pl;
  }
  if (overrides.hashed_bins > 0) {
    plan pl;
    if (!hashed_bins_plan(p, dev, overrides, pl))
      throw error("plan override hashed_bins = 1: " + std::to_string(p.num_bins) + " bins at RF " +
                  std::to_string(race_factor_used(p)) + " are too many active bins for the hashed tables (with " +
                  "the copies and passes that overrides M and S ask for)");
    return pl;
  }
  switch (overrides.kind) {
    case strategy::shared_memory: return shared_plan(p, dev, overrides, constants);
    case strategy::global_memory: return global_plan(p, dev, overrides, constants);
    case strategy::partitioned: {
      plan pl;
      partition_plan(p, dev, overrides, constants, true, pl);
      return pl;
    }
    case strategy::automatic: break;
  }

  // The switch of seed 000 (V-A): shared memory while its plan needs at most 3 / 4 / 6 passes for hdw / cas / xcg.
  // The choice is the model's, made with the caller's block and grid but not their M and S; those then apply to
  // the chosen plan (and may make it throw, naming the override).
  //
  // Departure: when H > N, global memory. A shared plan would initialise and merge H bins (in every block, and
  // for every one of its S passes re-read the input) to apply fewer than H updates; with M = 1 in global memory
  // the updates go straight into the destination.
  bool use_shared = p.num_bins <= p.n;
  if (use_shared) {
    const int B = block_size(overrides.block, constants.shared_block, dev);
    use_shared = shared_chunk_bytes(p, 1, 1) <= shared_budget_for(B, dev).L;  // at least one bin per block fits
  }
  if (use_shared) {
    plan_overrides model = overrides;
    model.M = 0;
    model.S = 0;
    // The passes counted are those of the default shape (as many blocks per SM as fit): with one block per SM
    // (footnote 7's fallback) multi-pass shared memory lost to global memory on the lent H100 (2026-11-21, cas
    // H = 196608: 4 passes 2933 us, global M = 4 1564 us); the fallback only helps when it saves passes.
    use_shared = shared_plan_with(p, dev, model, constants, 0).S <= max_shared_passes(p.op_class, constants);
  }
  const bool free_shape = overrides.M <= 0 && overrides.S <= 0 && overrides.block <= 0 && overrides.grid <= 0;
  plan private_copies;
  // Hot-bin slots asked for (plan_overrides::hot_bins = 1) or planned for few active bins come with the copies.
  const bool slots_planned =
      overrides.hot_bins > 0 ||
      (overrides.hot_bins == 0 &&
       few_active_bins_for_slots(p, dev, constants, block_size(overrides.block, constants.shared_block, dev)));
  const bool private_allowed = use_shared && free_shape && !slots_planned;
  if (use_shared && free_shape && overrides.hot_bins == 0 && overrides.thread_private == 0 &&
      active_bin_slots_plan(p, dev, overrides, constants, private_copies))
    return private_copies;
  if (hashed_bins_worth(p, dev, overrides, constants, use_shared, free_shape) &&
      hashed_bins_plan(p, dev, overrides, private_copies))
    return private_copies;
  if (private_allowed && overrides.thread_private == 0 && thread_private_plan(p, dev, constants, 0, private_copies))
    return private_copies;
  if (private_allowed && warp_private_plan(p, dev, constants, private_copies)) return private_copies;
  plan partitioned;
  if (use_shared) {
    plan shared = shared_plan(p, dev, overrides, constants);
    // Departure: cas and xcg re-read the input for every pass of a multi-pass shared plan; partitioned reads it
    // once (lent H100, 2026-11-21, N = 50M, unpacked argmax, H = 49152 in 3 passes: 6536 us RF = 1 and 7405 us
    // RF = 63; partitioned 1175 us with 32 groups and 6349 us with 384; 2026-11-22, packed argmax, H = 49152 in 2
    // passes: 618 / 640 us at RF = 1 / 63, partitioned 416 / 465 us). hdw's passes are cheap enough to keep.
    // Except the lock class at RF <= 8 in a few passes that merge through rows (shared_plan's: one block per SM
    // where that saves passes). Lent H100, N = 50M, seed 000's unpacked argmax, us: 2026-11-25, 4-byte locks, two
    // blocks per SM, RF = 1, H = 24576 (3 passes) 606 against partitioned 849; H = 49152 (6 passes, rows over the
    // cap) 5682 against 811 (bench/results/2026-11-25-h100-final-xcg.csv, the fixed "shared M=1"); with bit locks,
    // one block per SM, RF = 1 / 2 / 8: H = 32768 (2 passes) 830 / 894 / 1205 -> 445 / 477 / 598, H = 49152
    // (2 passes) 802 / 860 / 1182 -> 450 / 475 / 578, H = 57344 (3 passes) 795 / 846 / 1188 -> 643 / 658 / 754;
    // H = 65536 (3 passes, rows over the cap) stays partitioned (bench/results/2026-11-25-h100-xcg-kept-one-block.txt).
    // At RF = 63 the partitioned warp-private groups win (H = 24576: 1120 against 773, 4-byte locks). With the RF
    // unknown the call samples the input before it runs this plan (detail::race_factor_matters): the plan took
    // Zipf(1.1) at H = 24576 (sampled RF ~ 11) 3404 us, partitioned 1484.
    // Not the idempotent lock class told its RF (lock_class_skips_most_updates), whose groups skip most locks as its
    // passes do: seed 000's unpacked argmax told RF 1, H = 49152, in three grids of one lent H200 (2026-12-02) two
    // passes took 470 / 467 / 470 us, partitioned in 32 groups 452 / 450 / 449 (bench/results/2026-12-02-h200-seed-
    // launch.txt). With the RF unknown (skew possible) it keeps the passes.
    if (shared.S > 1 && p.op_class != atomic_class::hdw && free_shape) {
      if (p.op_class == atomic_class::xcg && race_factor_used(p) <= 8 && shared.merge_rows &&
          shared.S <= constants.max_kept_shared_passes_xcg &&
          !(lock_class_skips_most_updates(p) && p.race_factor > 0 && !p.race_factor_sampled))
        return shared;
      if (partition_plan(p, dev, overrides, constants, false, partitioned)) return partitioned;
    }
    return shared;
  }
  // Departure: element inputs take the partitioned strategy (seed 003's idea) in place of global memory. Lent H100,
  // 2026-11-21, N = 50M, seed 000's input, H = 196608 / 1572864 (bench/NOTES.md): hdw 365 / 446 us against 616 / 597
  // in global memory; cas RF = 1 867 / 1074 against 1471 / 1485; xcg 1145 / 1773 against 4582 / 4491, and in global
  // memory every warp of an all-in-one-bin input queues on one L2 lock (20.9 s at H = 1572864). cas at RF = 63 lost
  // until the second pass merged through rows (2026-11-22, H = 196608 / 393216 / 786432 / 1572864: 32 groups 1836 /
  // 1636 / 1567 / 1745 us against global 1829 / 1804 / 1713 / 1707; the packed argmax 462 / 466 / 567 against
  // 720 / 772 / 766 at the first three).
  if (free_shape && partition_plan(p, dev, overrides, constants, false, partitioned)) return partitioned;
  return global_plan(p, dev, overrides, constants);
}
}  // namespace

plan make_plan(const problem& p, const device_info& dev, const plan_overrides& overrides,
               const planner_constants& constants) {
  validate(p, dev, overrides, constants);
  plan pl = choose_plan(p, dev, overrides, constants);
  choose_seed_launch(p, constants, overrides, pl);
  return pl;
}

}  // namespace ghist
