// When the planner takes the heavy-hitter split (hot_split.cuh) for a call of the lock class that does not know its
// race factor: from what the split's sample found, before anything else is enqueued. Host code only (a host test
// checks it: tests/host/test_planner.cpp, PlannerH100.HotSplitRuleFollowsTheSample).
#pragma once

#include "ghist/plan.hpp"

namespace ghist::detail {

/// What the split's sample found (copied back to the host).
struct hot_split_stats {
  int bins;           // table bins, <= hot_split_max_bins
  int hot_samples;    // samples in table bins
  int valid_samples;  // samples in [0, num_bins)
  int top_count;      // samples in the hottest bin
};

/// Where the split pays, from the first call of the kept build on a lent H200 (2026-12-01, N = 50M, seed 000's
/// unpacked argmax, the race factor unknown, split against none; bench/results/2026-12-01-h200-hot-split-kept.txt):
///  - Zipf(1.1), whose table bins hold ~50% of the sample and the hottest ~15%: 0.31-0.63x the time at
///    H = 2048..24576 (12288: 1435 -> 530 us), 0.75-0.88x at H >= 49152; at RF 63 (few active bins, the hottest
///    ~40%) 0.38-0.55x at H = 505..6144 and 24576;
///  - one bin at H >= 49152 (multi-pass shared plans, hashed or partitioned after the race-factor sample):
///    0.40-0.69x; the kept rule in another call (same file, section 4): Zipf 0.68-0.90x, one bin 0.39-0.70x there;
///  - thread-private plans (H <= 127): 2-3x slower (the plan has no contention to remove).
/// What it costs where it does not split: the sample (12.7 us under ncu) and the host's wait for it. In the one-pass
/// shared plans (H <= 24576 here) that was 30-55 us on calls of 115-250 us: uniform input 13-24% slower, one bin
/// (which the one-pass plan folds in registers: run_carry.cuh) 30%. So the planner samples only for the other plans,
/// which take ~500 us or more and wait for a race-factor sample anyway (uniform input there 0-6% slower in one call,
/// median 5% in another, whose cells moved +-15%). The one-pass shared plans keep the split as an option
/// (plan_overrides::hot_split = 1): a sample that costs no wait is the way to take their Zipf gains by default.
inline bool hot_split_may_pay(const plan& pl) {
  const bool one_pass_shared = pl.kind == strategy::shared_memory && pl.S == 1 && !pl.hashed_bins;
  return !pl.thread_private && !one_pass_shared;
}

/// Of the sample's valid inputs, the share in the table's bins and in the hottest: the split pays only with both.
/// The hottest bin's share keeps out an input spread evenly over ~100 active bins (seed 000's RF 63 at H = 6144, told
/// nothing), which also fills the table with a quarter of the sample, but whose rest keeps the same contention.
inline constexpr double hot_split_min_hot_share = 0.25;
inline constexpr double hot_split_min_top_share = 0.04;

/// Whether the planner splits a call with plan `pl` (made for an unknown race factor, before any race-factor
/// sample) whose sample found `s`.
inline bool hot_split_worth(const hot_split_stats& s, const plan& pl) {
  if (s.bins <= 0 || s.valid_samples <= 0 || !hot_split_may_pay(pl)) return false;
  const double valid = static_cast<double>(s.valid_samples);
  return s.hot_samples / valid >= hot_split_min_hot_share && s.top_count / valid >= hot_split_min_top_share;
}

}  // namespace ghist::detail
