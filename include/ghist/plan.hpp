// The plan of a generalized histogram (seed 000 sections III-C/III-D) and the pure-host planner that makes it.
//
// The planner is a function (problem, device_info, constants, overrides) -> plan with no CUDA calls, so that it is
// tested on the host against seed 000's Table I. Dispatch turns a plan into kernel launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ghist/atomic_class.hpp"
#include "ghist/config.hpp"
#include "ghist/device_info.hpp"

namespace ghist {

enum class strategy {
  automatic,      ///< let the planner choose (only valid in overrides)
  shared_memory,  ///< M sub-histograms per block in shared memory, S passes over chunks of H_chk bins
  global_memory,  ///< M sub-histograms in global memory sized to L2, S passes over chunks of H_chk bins
  /// Seed 003's idea, one radix pass: the inputs are first grouped by bin range (S groups of H_chk bins) into a
  /// workspace, then each group is histogrammed in shared memory by M copies per block. Element inputs only.
  partitioned,
};

const char* to_string(strategy s);

/// What the planner needs to know about one histogram.
struct problem {
  std::int64_t n = 0;            ///< inputs
  std::int64_t num_bins = 0;     ///< H
  atomic_class op_class = atomic_class::hdw;
  std::size_t value_bytes = 4;   ///< sizeof the bin type
  std::size_t value_align = 4;   ///< alignof the bin type
  double race_factor = 0.0;      ///< RF of seed 000 (>= 1); 0 means unknown (the planner then assumes 1)
  /// race_factor is dispatch's estimate from a sample of the input (the caller gave none), not the caller's word: the
  /// plans that trust a told race factor (plan::hashed_bins) do not take it.
  bool race_factor_sampled = false;
  /// Bytes of one input record that the partitioned strategy would copy (the input element); 0 when the inputs
  /// cannot be partitioned (index inputs, whose bin function reads memory ghist does not know).
  std::size_t record_bytes = 0;
  /// Every update adds 1 to a 32-bit integer bin (a counting bin function, ghist::is_counting, with plus<int32>
  /// or plus<uint32>): the shared-memory strategy then needs no copies to spread hot bins.
  bool unit_increments = false;
  /// The operator says op(a, a) == a (ghist::is_idempotent_v): its updates seldom change a bin that has seen a few.
  bool idempotent = false;
};

/// The problem of a histogram with operator Op (its atomic class and bin type), n inputs and num_bins bins.
template <class Op>
problem problem_for(std::int64_t n, std::int64_t num_bins, double race_factor = 0.0) {
  problem p;
  p.n = n;
  p.num_bins = num_bins;
  p.op_class = atomic_class_of<Op>;
  p.value_bytes = sizeof(typename Op::value_type);
  p.value_align = alignof(typename Op::value_type);
  p.race_factor = race_factor;
  p.idempotent = is_idempotent_v<Op>;
  return p;
}

/// Words (bins) between the M copies of a chunk of H_chk bins in shared memory. With M > 1 an even H_chk is padded
/// to the next odd number, so that the copies of one bin lie in different banks: with a stride that is a multiple
/// of 32 words, every copy of a hot bin sat in one bank and a warp's compare-and-swaps on them serialised (lent
/// H100, 2026-11-22, seed 000's saturating add with every input in one bin, H = 2048, M = 14: 64 bank wavefronts
/// per shared atomic, 493 us, against 97 us at H = 505).
GHIST_HD constexpr std::int64_t shared_copy_stride(std::int64_t H_chk, std::int64_t M) {
  return M > 1 && H_chk % 2 == 0 ? H_chk + 1 : H_chk;
}

/// The largest block of a thread-private plan (plan::thread_private): its kernel keeps two 16-byte loads in flight
/// per thread beside the two being visited, which needs more than the 32 registers that two blocks of 1024 threads
/// per SM leave, so it is compiled for two blocks of at most this many.
inline constexpr int thread_private_max_block = 512;

/// Hot-bin slots (plan::hot_slots, detail/hot_bins.cuh): at most this many bins per block get a slot per thread,
/// and with plan::hot_active_bins (a slot for every active bin) at most hot_bin_max_active_slots (or, below, the
/// shared-word slots' count).
inline constexpr int hot_bin_max_slots = 16;
inline constexpr int hot_bin_max_active_slots = 240;
/// The most bins a pass may have for hot-bin slots (a block's table keeps a bin in 16 bits); larger passes take none.
inline constexpr int hot_bin_max_pass_bins = 65535;
/// With plan::hot_active_bins, the most inputs each thread samples at the start of a pass (plan::hot_samples).
inline constexpr int hot_bin_max_samples = 16;
/// The hot-bin table at the end of a block's shared memory (its entries, the sample's candidates, the hot bins,
/// counters); the plan reserves it, the slots take what the copies leave.
inline constexpr std::size_t hot_bin_table_bytes = 3072;
/// A slot per active bin with shared words (plan::hot_shared_words) takes up to hot_bin_max_shared_word_slots active
/// bins, with a table of twice the entries in this many bytes.
inline constexpr int hot_bin_max_shared_word_slots = 512;
inline constexpr std::size_t hot_bin_shared_words_table_bytes = 6176;
/// Where the hot-bin area starts in a block's shared memory: after the copies' `copies_bytes`, 8-aligned.
GHIST_HD constexpr std::size_t hot_bin_area_offset(std::size_t copies_bytes) { return (copies_bytes + 7) / 8 * 8; }

/// Staged input (plan::staged_input): a block's ring holds staged_input_stages tiles of one 16-byte vector per
/// updating thread (all but the last warp) and two mbarriers per tile. It starts at the first 128-byte boundary after
/// the copies, or (plan::hot_active_bins, whose slots take the room after the copy) it ends the block's shared
/// memory, after the hot-bin table. GHIST_STAGED_INPUT_STAGES changes the stage count at build time (experiments: 4
/// stages ran as fast as 3 on the lent H100, bench/results/2026-11-26-h100-staged-input-ab.txt, table 4); the library
/// and the kernels must be built with the same value.
#ifndef GHIST_STAGED_INPUT_STAGES
#define GHIST_STAGED_INPUT_STAGES 3
#endif
inline constexpr int staged_input_stages = GHIST_STAGED_INPUT_STAGES;
GHIST_HD constexpr std::size_t staged_ring_offset(std::size_t copies_bytes) { return (copies_bytes + 127) / 128 * 128; }
GHIST_HD constexpr std::size_t staged_ring_bytes(int block) {
  return static_cast<std::size_t>(staged_input_stages) * ((static_cast<std::size_t>(block) - 32) * 16 +
                                                           2 * sizeof(std::uint64_t));
}

/// The hashed shared-memory strategy (plan::hashed_bins, detail/kernel_hashed.cuh): blocks of hashed_block threads
/// keep a table of `slots` bins in shared memory, the keys (key_bytes each: 4, or 2 for their tags, plan::hashed_tags,
/// detail/hashed_tags.hpp), then `copies` (plan::M) arrays of their values from the next 16-byte boundary, then for
/// the lock class a lock bit per value, 32 to a word.
inline constexpr int hashed_block = 1024;
/// The most passes (chunks of H_chk bins, a table each) of a hashed plan.
inline constexpr int hashed_max_passes = 2;
GHIST_HD constexpr std::size_t hashed_values_offset(std::int64_t slots, int key_bytes) {
  return (static_cast<std::size_t>(slots) * static_cast<std::size_t>(key_bytes) + 15) / 16 * 16;
}
GHIST_HD constexpr std::size_t hashed_locks_offset(std::int64_t slots, std::size_t value_bytes, int copies,
                                                   int key_bytes) {
  return hashed_values_offset(slots, key_bytes) +
         (static_cast<std::size_t>(copies) * static_cast<std::size_t>(slots) * value_bytes + 15) / 16 * 16;
}
GHIST_HD constexpr std::size_t hashed_table_bytes(std::int64_t slots, std::size_t value_bytes, bool locked,
                                                  int copies, int key_bytes) {
  return hashed_locks_offset(slots, value_bytes, copies, key_bytes) +
         (locked ? static_cast<std::size_t>((copies * slots + 31) / 32) * 4 : 0);
}
/// Its workspace: the table's keys (4 bytes each), then grid rows of `slots` values, then for the lock class a lock
/// per bin of dest (the updates of bins without a slot), each part 256-byte aligned.
GHIST_HD constexpr std::size_t hashed_rows_offset(std::int64_t slots) {
  return (static_cast<std::size_t>(slots) * 4 + 255) / 256 * 256;
}
GHIST_HD constexpr std::size_t hashed_locks_workspace_offset(std::int64_t slots, int grid, std::size_t value_bytes) {
  return hashed_rows_offset(slots) +
         (static_cast<std::size_t>(grid) * static_cast<std::size_t>(slots) * value_bytes + 255) / 256 * 256;
}
GHIST_HD constexpr std::size_t hashed_workspace_bytes(std::int64_t slots, int grid, std::size_t value_bytes,
                                                      std::int64_t num_bins, bool locked) {
  return hashed_locks_workspace_offset(slots, grid, value_bytes) +
         (locked ? static_cast<std::size_t>(num_bins) * 4 : 0);
}
/// Inputs the hashed strategy's first kernel samples per slot of its table (at most every input).
inline constexpr int hashed_samples_per_slot = 16;
/// The most slots whose table of `copies` fits `bytes`.
GHIST_HD constexpr std::int64_t hashed_slots_for(std::size_t bytes, std::size_t value_bytes, bool locked, int copies,
                                                 int key_bytes) {
  const std::size_t bits_per_slot = 8 * static_cast<std::size_t>(key_bytes) +
                                    8 * static_cast<std::size_t>(copies) * value_bytes + (locked ? copies : 0);
  std::int64_t slots = static_cast<std::int64_t>(bytes * 8 / bits_per_slot);
  while (slots > 0 && hashed_table_bytes(slots, value_bytes, locked, copies, key_bytes) > bytes) --slots;
  return slots;
}

/// Everything a launch needs; printable, and every field may be overridden by the caller (plan_overrides).
struct plan {
  strategy kind = strategy::shared_memory;
  int M = 1;                     ///< multi-histogram degree: sub-histograms per block (shared) or in total (global)
  int S = 1;                     ///< multi-pass degree: passes over the input, one per chunk of H_chk bins
  std::int64_t H_chk = 0;        ///< bins per chunk, ceil(H / S)
  std::int64_t C = 0;            ///< cooperation level: threads per sub-histogram
  int grid = 0;                  ///< blocks
  int block = 0;                 ///< threads per block
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
  std::size_t temp_bytes = 0;    ///< global workspace the launch needs (sub-histograms, locks, inspector buffer)
  double race_factor = 1.0;      ///< the RF the plan was made for
  /// One sub-histogram per warp (M = block / 32), updated without atomics or locks after each warp folds its lanes'
  /// equal bins. Shared memory (C = 32): chosen by make_plan for the lock class when it fits, and for 32-bit cas at
  /// RF >= 40 (src/planner.cpp, warp_private_plan). Partitioned: copies of a group, for the lock class at RF > 8
  /// and 32-bit cas at RF >= 40, while the groups are few enough (warp_private_group_bins in src/planner.cpp).
  bool warp_private = false;
  /// Shared memory, cas and xcg classes: one sub-histogram per thread (M = block, C = 1), updated with a plain
  /// read-modify-write: no atomics, no locks, no retries, whatever the race factor. For small H, where a copy per
  /// thread fits enough threads per SM (src/planner.cpp, thread_private_plan).
  bool thread_private = false;
  /// Shared memory, cas class with lost updates deferred: each block samples its input at the start of each pass and
  /// gives up to this many of the bins its threads would hit most often a slot per thread, updated without
  /// compare-and-swap, and the next ones a replica per lane; both are folded into the bins at the end of the pass
  /// (detail/hot_bins.cuh). For skewed input (Zipf); a uniform input's blocks find no hot bin and pay only the
  /// sample. Chosen when the race factor is unknown (src/planner.cpp, hot_slots_for); 0: none. Partitioned, cas
  /// class, tile layout with copies shared by the block's threads: each second-pass block samples its group's records
  /// the same way (detail/kernel_partition.cuh, group_histogram_kernel; src/planner.cpp, partition_hot_slots).
  /// Shared memory, lock class (without hot_active_bins): up to this many sampled hot bins (at most
  /// hot_bin_max_shared_word_slots) get a slot of shared words instead, a bit lock per word, in the larger table
  /// (hot_bin_shared_words_table_bytes; detail/hot_bins.cuh, pick_lock_words).
  int hot_slots = 0;
  /// With hot_slots: the plan was made for a told race factor over H / RF active bins, which all get a slot (up to
  /// hot_bin_max_active_slots; hot_bin_max_shared_word_slots with hot_shared_words): each block samples hot_samples
  /// inputs per thread and takes every bin sampled, in blocks small enough for a word per thread in each slot, or
  /// 1024 threads that share each slot's words (hot_shared_words; src/planner.cpp, active_bin_slots_plan).
  bool hot_active_bins = false;
  /// With hot_active_bins: a slot's words may be shared by several threads where a word per thread does not fit the
  /// block's room (compare-and-swap for 4-byte cas values, a bit lock per word for the lock class), with the larger
  /// table (hot_bin_shared_words_table_bytes) and up to hot_bin_max_shared_word_slots slots.
  bool hot_shared_words = false;
  /// With hot_active_bins: inputs each thread samples at the start of a pass (1..hot_bin_max_samples), enough that the
  /// block's sample misses almost no active bin.
  int hot_samples = 0;
  /// shared memory and partitioned: each block writes its sums to its row of the workspace (shared: grid x H;
  /// partitioned: one row of H_chk per second-pass block) and a second kernel folds the rows into the destination,
  /// in place of global atomics (or locks) per block and bin. Chosen for the cas and xcg classes while the rows take
  /// at most planner_constants::merge_rows_max_bytes.
  bool merge_rows = false;
  /// shared memory, cas class: a thread keeps an update whose compare-and-swap lost in registers, folds later
  /// updates of the same bin into it and writes it at the end of the pass (detail/deferred_cas.cuh), instead of
  /// retrying at once. Chosen unless the race factor says several active bins per sub-histogram each draw a few
  /// threads (choose_defer_lost_updates in src/planner.cpp). The partitioned strategy always does it for cas.
  bool defer_lost_updates = false;
  /// partitioned: a counting pass first, so that each group's records are written contiguously and the second
  /// pass reads them as one stream (detail/kernel_partition_counted.cuh); for many groups (huge H), whose runs per
  /// tile would be a few records in the tile layout. Up to detail::max_counted_groups groups (the tile layout:
  /// detail::max_partition_groups).
  bool counted_groups = false;
  /// shared memory, cas class with lost updates deferred: the input reaches the block through a ring of tiles in
  /// shared memory that the SM's bulk-copy engine fills (Hopper's cp.async.bulk, one instruction per tile), asked for
  /// by the block's last warp, while the other warps only update (detail/staged_input.cuh). shared_bytes includes the
  /// ring (staged_ring_bytes). With or without hot_active_bins (no other hot-bin slots). Needs an element input
  /// (problem::record_bytes dividing 16) and a device of compute capability 9.0 or later.
  bool staged_input = false;
  /// partitioned, tile layout, 32-bit cas told a race factor, groups of two blocks per SM without warp-private
  /// copies: the second pass runs blocks of twice detail::partition_block threads, two per SM (32 registers), so
  /// that twice the warps hide the compare-and-swap loop's latency (src/planner.cpp, the measurements).
  bool dense_second_pass = false;
  /// shared memory: each block keeps only the active bins, in a table of hashed_slots_for(shared_bytes, M) slots
  /// that a sample of the input fills, with M copies of their values (warp w updates copy w % M; block =
  /// hashed_block), in S passes over chunks of H_chk bins (at most hashed_max_passes), for a large H over few active
  /// bins (a told race factor: H / RF; detail/kernel_hashed.cuh; src/planner.cpp, hashed_bins_plan, the measurements).
  bool hashed_bins = false;
  /// hashed_bins: the table keeps 16-bit tags of its keys (detail/hashed_tags.hpp) instead of 4-byte keys, where a
  /// table of 4-byte keys has no room (a lookup costs a few instructions more).
  bool hashed_tags = false;
  int hashed_key_bytes() const { return hashed_tags ? 2 : 4; }
  /// shared memory with merge_rows, one pass and no hot-bin slots, idempotent lock-class operators
  /// (ghist::is_idempotent_v: op(a, a) == a) of 4 or 8 bytes, whose shared updates skip a bin they would leave as it
  /// is: a first launch of seed_grid blocks histograms the first seed_inputs inputs into the destination, and the
  /// plan's launch then starts every copy from the destination's bins instead of the identity. Its updates then
  /// change almost no bin, and cost a read and a compare each (a copy that has seen k random inputs takes a new
  /// maximum with chance 1 / (k + 1)). Exact because the operator is idempotent: the seed counted twice is the seed.
  /// 0: no seed launch (src/planner.cpp, choose_seed_launch, the measurements).
  std::int64_t seed_inputs = 0;
  int seed_grid = 0;  ///< with seed_inputs: the seed launch's blocks
  /// partitioned, idempotent lock-class operators of 4 or 8 bytes in copies shared by the block, no hot-bin slots:
  /// an update that would change its bin is not locked at once but queued in the warp's part of shared memory, and
  /// the warp applies 32 queued updates together under their locks (detail/lock_queue.hpp). Else each warp step in
  /// which one lane of 32 takes a lock runs the locked section for the whole warp (src/planner.cpp,
  /// choose_lock_queue, the measurements). shared_bytes includes the queue (lock_queue_bytes).
  bool lock_queue = false;

  std::string to_string() const;
};

/// Caller's overrides: a zero (or strategy::automatic) field means "planner decides".
struct plan_overrides {
  strategy kind = strategy::automatic;
  int M = 0;
  int S = 0;
  int block = 0;
  int grid = 0;
  /// partitioned: 1 counts the groups first (plan::counted_groups), -1 keeps the tile layout, 0 planner decides.
  int counted_groups = 0;
  /// shared memory, cas and xcg: 1 takes a copy per thread (plan::thread_private) wherever one warp's copies fit
  /// (the planner asks for more threads per SM: planner_constants::thread_private_min_threads_per_sm), -1 never,
  /// 0 planner decides. With 1, M and S are the plan's (M = block, S = 1) and may not be given.
  int thread_private = 0;
  /// shared memory, cas class with lost updates deferred, and the lock class's copies shared by the block: 1 gives
  /// the plan hot-bin slots (plan::hot_slots; the lock class's shared slot words) even when the race factor is
  /// known, -1 never, 0 planner decides (slots when the race factor is unknown).
  int hot_bins = 0;
  /// shared memory, cas class: 1 stages the input through shared memory (plan::staged_input) wherever the ring fits,
  /// 0 where the planner expects it to gain (the same, but for a slot per active bin: where 1024 threads share the
  /// slots' words, 3 or more a word), -1 never.
  int staged_input = 0;
  /// partitioned, 32-bit cas: 1 runs the dense second pass (plan::dense_second_pass) wherever it applies (tile
  /// layout, groups of two blocks per SM, no warp-private copies) whatever the race factor, 0 where the planner
  /// takes it (a told race factor), -1 never.
  int dense_second_pass = 0;
  /// 1 takes the hashed shared-memory strategy (plan::hashed_bins) wherever H / RF active bins (all H when the race
  /// factor is unknown) fit its tables (M then sets its copies of the values, S its passes), 0 where the planner
  /// expects it to gain, -1 never.
  int hashed_bins = 0;
  /// Element inputs of the lock class (values of up to 16 bytes), a call with an unknown race factor
  /// (options.race_factor == 0) and no options.scratch: 1 samples 2048 inputs, waits for the stream
  /// once, and when some bins take 0.2% of the sample or more, histograms the hottest 32 of them apart in a copy per
  /// thread and the rest with the plan (detail/hot_split.cuh; each input is read twice). 0: the planner samples such
  /// calls whose plan is neither thread-private nor one-pass shared and has nothing else fixed (kind, M, S), and
  /// splits where the sample says it pays (detail/hot_split_rule.hpp); -1: never.
  int hot_split = 0;
  /// idempotent lock-class operators: 1 runs a seed launch (plan::seed_inputs) wherever it applies (one-pass shared
  /// plans with merge_rows and no hot-bin slots), 0 where the planner expects it to gain, -1 never.
  int seed_launch = 0;
  /// idempotent lock-class operators in the partitioned strategy: 1 queues the updates that change a bin
  /// (plan::lock_queue) wherever the queue fits, 0 where the planner expects it to gain, -1 never.
  int lock_queue = 0;
};

/// The model's constants. Defaults are seed 000's (measured on an RTX 2080 Ti); each is documented where it is
/// used in src/planner.cpp, with the measurement behind any value that departs from the paper.
struct planner_constants {
  int shared_block = 1024;     ///< B for the shared-memory strategy
  int global_block = 256;      ///< B for the global-memory strategy
  int q_small = 2;             ///< shared: at least q_small inputs per sub-histogram bin per block (M <= N/(q*blocks*H))
  double k_rf = 0.75;          ///< eq. 4
  double f_l2 = 0.4;           ///< eqs. 5-6: fraction of L2 for sub-histograms
  int cache_line_bytes = 64;   ///< eq. 4: L2_sz^ln (seed 000's code uses 16 words)
  double k_min = 2.0;          ///< eq. 5: k_min^ct
  int max_shared_passes_hdw = 3;  ///< shared-vs-global switch (seed 000 V-A): shared while S <= this
  int max_shared_passes_cas = 4;
  int max_shared_passes_xcg = 6;
  /// xcg in shared memory: count the locks as bits, 32 to a word, as shared_memory_kernel lays them out (a departure,
  /// measured in detail/atomic_update.cuh, try_lock_bit). false counts seed 000's 4-byte locks, to reproduce its
  /// Table I; such a plan leaves the kernel's bit locks room to spare.
  bool shared_lock_bits = true;
  /// xcg at RF <= 8: a shared plan of at most this many passes that merges through rows stays in shared memory
  /// instead of leaving for the partitioned strategy (src/planner.cpp, the measurement).
  int max_kept_shared_passes_xcg = 3;
  /// shared memory, cas and xcg: a copy per thread (plan::thread_private) when at least this many threads per SM
  /// get one (twice as many for 32-bit cas told RF < 8; src/planner.cpp, thread_private_plan, the measurements);
  /// 0 never.
  int thread_private_min_threads_per_sm = 224;
  /// the lock class and 32-bit cas told RF >= 40 take it from this many threads per SM if that is fewer (src/planner.cpp,
  /// thread_private_plan); 0: no such exception.
  int thread_private_min_threads_per_sm_contended = 96;
  /// shared memory, cas class: the most bytes per block for hot-bin slots (plan::hot_slots = this / (block x value
  /// bytes), at most hot_bin_max_slots), taken where the block's sample finds hot bins. 0: no hot-bin slots.
  std::size_t hot_bin_bytes = 32768;
  /// partitioned: the number of groups it aims for (see src/planner.cpp for the measurements).
  int partition_groups = 32;             ///< for cas
  int partition_groups_locked = 32;      ///< for xcg with RF <= 8, of two blocks per SM where they fit
  int partition_groups_hdw = 16;         ///< at least; more when groups would leave one block per SM
  int partition_groups_contended = 768;  ///< for xcg with RF > 8 (src/planner.cpp, the measurements)
  /// for xcg with RF > 8: the most groups for warp-private copies of a group (src/planner.cpp, the measurements),
  /// groups of one block per SM; of two blocks per SM, partition_groups_warp_private_two_per_sm
  int partition_groups_warp_private = 512;
  int partition_groups_warp_private_two_per_sm = 1024;
  /// for 32-bit cas with RF >= 40: the same, groups of two blocks per SM only (src/planner.cpp, the measurements)
  int partition_groups_warp_private_cas = 256;
  /// partitioned, cas and xcg: the counted layout (plan::counted_groups) from this many groups on. Lent H100,
  /// 2026-11-26, N = 50M, seed 000's operators, tile / counted layout, us: cas RF 1 in 32 / 57 groups 371-397 /
  /// 462-506; cas RF 63 M = 1 in 32 / 57 groups 694 / 654 against 1574 / 1782; cas RF 63 warp-private in 113 / 226
  /// groups 772 / 821 against 733 / 789; packed argmax (cas) in 32 / 55 groups 1.16-1.75x slower counted; xcg in
  /// 192..768 groups 1437-4842 against 676-1190 (bench/results/2026-11-26-h100-partition-layouts-cas-xcg.txt).
  /// (Skewed cas inputs in 38 / 57 groups ran faster counted: Parboil histo 108 -> 88 us, Zipf(1.1) at H = 1572864
  /// 5153 -> 4518; at 32 groups slower, 1942 -> 2488: not a rule by group count.) The lock class without warp-private
  /// copies takes the counted layout at any group count (src/planner.cpp, partition_plan).
  int partition_counted_min_groups = 100;
  /// the same for hdw. 2026-11-26, with one-block groups writing dest themselves in both layouts, tile / counted
  /// layout, us: H = 16777216 in 289 / 396 / 528 / 660 / 792 groups 437 / 436 / 524 / 606 / 638 against 468 / 500
  /// / 561 / 569 / 578; H = 4194304 in the same 433 / 436 / 495 / 581 / 623 against 449 / 483 / 536 / 550 / 555
  /// (bench/results/2026-11-26-h100-huge-partition-experiments.txt; the tile layout's short runs and filled last
  /// wave since then: 16777216 in 289 groups 367-382 us).
  int partition_counted_min_groups_hdw = 600;
  /// shared memory, cas and xcg: the largest grid x H workspace for merging through rows (plan::merge_rows).
  std::size_t merge_rows_max_bytes = std::size_t(64) << 20;
  /// the seed launch (plan::seed_inputs; src/planner.cpp, choose_seed_launch, the measurements): taken where a copy
  /// would see fewer than seed_updates_per_bin inputs of an active bin, over that many inputs per active bin, at most
  /// seed_max_fraction of the input, in the plan's grid / seed_grid_divisor blocks.
  double seed_updates_per_bin = 128;
  double seed_max_fraction = 0.125;
  int seed_grid_divisor = 2;
};

/// Makes the plan for `p` on `dev`. Pure host code; throws ghist::error when an override cannot work (for
/// example M * H_chk too large for shared memory), naming the field.
plan make_plan(const problem& p, const device_info& dev, const plan_overrides& overrides = {},
               const planner_constants& constants = {});

/// The shared-memory plan of eqs. 1-3 (no switch, no warp-private plan), exposed for tests and the benchmark's
/// fixed sweeps.
plan make_shared_plan(const problem& p, const device_info& dev, const plan_overrides& overrides = {},
                      const planner_constants& constants = {});
/// The global-memory plan of eqs. 4-6 (no switch).
plan make_global_plan(const problem& p, const device_info& dev, const plan_overrides& overrides = {},
                      const planner_constants& constants = {});

/// Bytes per bin in shared memory for the class (the value, plus a 4-byte lock for xcg, aligned): seed 000's count,
/// which the partitioned strategy's groups keep; the shared-memory strategy packs xcg's locks as bits.
std::size_t shared_bytes_per_bin(const problem& p);

}  // namespace ghist
