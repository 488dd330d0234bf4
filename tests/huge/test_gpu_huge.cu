// Huge histograms on the GPU against the CPU backend (issue 5 item 4): H = 1M+7 .. 100M bins, N both above and
// below H, uniform, all-in-one-bin, Zipf-like, sorted (and out-of-range) inputs, auto and every forced strategy the
// planner accepts for the shape (a refused one must throw ghist::error and leave dest alone), overwrite and
// accumulate modes, an HDW count (int32 add of 1), a CAS operator (8-bit saturating add) and an HDW max.
//
// Sizes are chosen for total time (estimated 30-40 s on an H100, mostly host work on 400 MB bin arrays): N of a few
// million, larger N only where they reach a code path (N > H at 16M bins, N > 64M for the partitioned strategy's
// slices).
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/partition_layout.hpp"
#include "huge_test_support.cuh"
#include "parboil_data.hpp"

namespace ghist_huge_test {
namespace {

using ghist_test::distribution;
using ghist_test::fresh_seed;

const std::vector<variant> all_variants = {v_auto,     v_global,     v_global_m1,    v_part,
                                           v_part32,   v_part256,    v_part1024,     v_part_tiles,
                                           v_part_counted};
const std::vector<variant> main_variants = {v_auto, v_global, v_part};

/// HDW counting over int32 bins of each distribution, by a bin function that returns 1s and by one that also says
/// it counts (unit increments: 16-bit records in the counted layout).
void counting(i64 H, i64 n, std::initializer_list<distribution> dists, const std::vector<variant>& variants,
              bool* untouched) {
  for (distribution d : dists) {
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    const std::vector<std::int32_t> bins = ghist_test::make_bins(d, n, H, rng);
    check_variants<ghist::plus<std::int32_t>>(std::string("count, ") + ghist_test::to_string(d), bins, H,
                                              count_one{}, variants, seed, untouched);
    check_variants<ghist::plus<std::int32_t>>(std::string("count (declared), ") + ghist_test::to_string(d), bins, H,
                                              count_one_declared{}, variants, seed, untouched);
  }
}

/// An operator with values: 64-bit elements, the bin in the low word and a payload in the high word.
template <class Op, class Fn>
void valued(const char* name, i64 H, i64 n, std::initializer_list<distribution> dists,
            const std::vector<variant>& variants, bool* untouched) {
  for (distribution d : dists) {
    const std::uint64_t seed = fresh_seed();
    std::mt19937_64 rng(seed);
    const std::vector<std::uint64_t> elements = ghist_test::make_elements(d, n, H, rng);
    check_variants<Op>(std::string(name) + ", " + ghist_test::to_string(d), elements, H, Fn{}, variants, seed,
                       untouched);
  }
}

/// The partitioned strategy covers H up to ~59M int32 bins in its tile layout (1024 groups of shared memory), ~237M
/// in its counted layout (4096 groups); a forced partitioned plan with the planner's groups must be accepted, so
/// that the tests above run it.
void expect_partitioned_accepted(i64 n, i64 H) {
  ghist::options opts;
  opts.overrides.kind = ghist::strategy::partitioned;
  auto plan = [&] { return ghist::plan_for_elements<ghist::plus<std::int32_t>, std::int32_t>(n, H, opts); };
  EXPECT_NO_THROW(plan()) << "n=" << n << " H=" << H;
}

const auto uniform = distribution::uniform;
const auto one_bin = distribution::one_bin;
const auto zipf = distribution::zipf;
const auto sorted = distribution::sorted;
const auto out_of_range = distribution::out_of_range;

TEST(HugeGpu, OneMillionPlus7Bins) {
  const i64 H = 1'000'007;
  bool untouched = true;
  expect_partitioned_accepted(3'000'017, H);
  counting(H, 3'000'017, {uniform, one_bin, zipf, sorted, out_of_range}, all_variants, &untouched);
  counting(H, 400'009, {uniform, one_bin, zipf, sorted}, {v_auto, v_global, v_part, v_part1024}, &untouched);
  valued<ghist_huge::sat8_add, sat8_update>("sat8", H, 3'000'017, {uniform, one_bin, zipf},
                                            {v_auto, v_global, v_part, v_part32}, &untouched);
  valued<ghist::max<std::int32_t>, max_update>("max", H, 3'000'017, {uniform, zipf}, main_variants, &untouched);
}

TEST(HugeGpu, FourMillionBins) {
  const i64 H = 1 << 22;
  bool untouched = true;
  expect_partitioned_accepted(6'000'000, H);
  counting(H, 6'000'000, {uniform, one_bin, zipf, sorted}, all_variants, &untouched);
  counting(H, 1'000'003, {uniform, sorted}, main_variants, &untouched);
  valued<ghist_huge::sat8_add, sat8_update>("sat8", H, 6'000'000, {uniform, one_bin},
                                            {v_auto, v_global, v_part, v_part256}, &untouched);
  valued<ghist::max<std::int32_t>, max_update>("max", H, 6'000'000, {uniform}, {v_auto, v_part}, &untouched);
}

// More inputs than one slice of the partitioned strategy's workspace: the slice loop runs twice.
TEST(HugeGpu, FourMillionBinsTwoPartitionSlices) {
  const i64 n = ghist::detail::partition_slice_tiles * ghist::detail::partition_tile + 5'000'011;
  counting(1 << 22, n, {uniform}, {v_auto, v_part, v_part_counted}, nullptr);
}

// 289 one-block groups: the tile layout (auto, v_part, v_part_tiles) runs its second pass in two full waves and a
// partly empty third, whose groups get more, shorter blocks (assign_group_blocks_kernel's fill_last_wave).
TEST(HugeGpu, SixteenMillionBins) {
  const i64 H = 1 << 24;
  bool untouched = true;
  expect_partitioned_accepted(2'000'003, H);
  expect_partitioned_accepted(20'000'000, H);
  counting(H, 2'000'003, {uniform, one_bin, zipf, sorted}, all_variants, &untouched);
  counting(H, 2'000'003, {uniform, one_bin, zipf}, {v_part_counted4096}, &untouched);
  counting(H, 20'000'000, {uniform, one_bin}, {v_auto, v_global_m1, v_part, v_part_tiles}, &untouched);
  valued<ghist_huge::sat8_add, sat8_update>("sat8", H, 2'000'003, {uniform, one_bin, zipf}, main_variants,
                                            &untouched);
  valued<ghist::max<std::int32_t>, max_update>("max", H, 2'000'003, {zipf}, main_variants, &untouched);
}

// A group's only block writes its bins 16 bytes a store from the first 16-byte boundary of dest on: dest 1..3 bins
// past one, with an odd H (132 one-block groups of a multiple of 4 bins, the last shorter).
TEST(HugeGpu, FourMillionBinsUnalignedDest) {
  const i64 H = (1 << 22) + 3;
  for (int offset : {1, 2, 3}) {
    variant tiles = v_part_tiles, counted = v_part_counted;
    tiles.dest_offset = counted.dest_offset = offset;
    counting(H, 3'000'017, {uniform, one_bin}, {tiles, counted}, nullptr);
  }
}

TEST(HugeGpu, SixtyMillionBins) {
  // Just above what 1024 groups of int32 bins in 227 KiB of shared memory hold: the tile layout refuses it (and
  // 1024 groups), the counted layout takes it in more groups.
  const i64 H = 60'000'000;
  bool untouched = true;
  expect_partitioned_accepted(4'000'037, H);
  // The global plan has M = 1 (H x 4 bytes exceed its L2 share), so "global" (the planner's M) runs once per test.
  counting(H, 4'000'037, {uniform}, {v_auto, v_global, v_global_m1, v_part, v_part1024, v_part_tiles}, &untouched);
  counting(H, 4'000'037, {one_bin, zipf, sorted}, {v_auto, v_global_m1, v_part}, &untouched);
  valued<ghist_huge::sat8_add, sat8_update>("sat8", H, 4'000'037, {uniform, one_bin}, {v_auto, v_global_m1, v_part},
                                            &untouched);
}

TEST(HugeGpu, HundredMillionBins) {
  const i64 H = 100'000'000;
  bool untouched = true;
  expect_partitioned_accepted(4'000'037, H);
  expect_partitioned_accepted(50'000'000, H);
  counting(H, 4'000'037, {uniform}, {v_auto, v_global, v_global_m1, v_part}, &untouched);
  counting(H, 4'000'037, {one_bin, zipf, sorted, out_of_range}, {v_auto, v_global_m1, v_part}, &untouched);
  valued<ghist_huge::sat8_add, sat8_update>("sat8", H, 4'000'037, {uniform, one_bin}, {v_auto, v_global_m1, v_part},
                                            &untouched);
  valued<ghist::max<std::int32_t>, max_update>("max", H, 4'000'037, {zipf}, {v_auto, v_global_m1}, &untouched);
  // One group with more records than 16-bit counters hold and too few for a second block of its own (~72K of 5M):
  // narrow_group_count_kernel counts it in two halves of 32-bit counters.
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> bins = ghist_test::make_bins(uniform, 5'000'011, H, rng);
  std::uniform_int_distribution<std::int32_t> crowded(0, 49'999);  // within the first group (1848 of 54116 bins)
  for (std::size_t i = 0; i < bins.size(); i += 72) bins[i] = crowded(rng);
  check_variants<ghist::plus<std::int32_t>>("count (declared), one crowded group", bins, H, count_one_declared{},
                                            {v_auto}, seed, nullptr);
}

// Short enough for compute-sanitizer (scripts/gpu_check.sh): counting with 16-bit records in the tile layout, the
// counted layout, and the counted layout with head sectors in shared memory (600 and 4096 groups), odd sizes. The
// ring kernel with 8, 4 and 2 sectors, each with and without the range's first sector kept aside (600 / 792, 1000 /
// 1500, 2000 / 2500 groups on the H100).
// 600 groups of 30001 bins take the ring with padded ranges (before 16-bit counters).
// 8 groups of 37501 bins take one block per SM with 32-bit counters, so their second pass counts in 16 bits
// (narrow_group_count_kernel): with the second pass's blocks shared out as 1 or 2 (overrides.grid), 70001 inputs in
// one bin give a group's block more records than 16 bits count (two halves of 32-bit counters), with its only block
// or with two that merge by atomics; 132 blocks give the one group many blocks of 16-bit counters.
TEST(HugeSanitizer, CountingRecords) {
  const variant counted600{"partitioned counted S=600", ghist::strategy::partitioned, 0, 600, 1};
  // 4096 one-block groups of 74 bins, dest 3 bins past a 16-byte boundary: each group's scalar head and tail.
  const variant counted4096_unaligned{"partitioned counted S=4096", ghist::strategy::partitioned, 0, 4096, 1, 3};
  const variant narrow{"partitioned counted S=8", ghist::strategy::partitioned, 0, 8, 1, 1};
  const variant narrow_grid1{"partitioned counted S=8 grid=1", ghist::strategy::partitioned, 0, 8, 1, 0, 1};
  const variant narrow_grid2{"partitioned counted S=8 grid=2", ghist::strategy::partitioned, 0, 8, 1, 0, 2};
  std::vector<variant> variants = {v_part_tiles,          v_part_counted, counted600, v_part_counted4096,
                                   counted4096_unaligned, narrow,         narrow_grid1, narrow_grid2};
  for (const auto& [groups, name] : {std::pair{792, "partitioned counted S=792"}, {1000, "partitioned counted S=1000"},
                                     {1500, "partitioned counted S=1500"}, {2000, "partitioned counted S=2000"},
                                     {2500, "partitioned counted S=2500"}})
    variants.push_back({name, ghist::strategy::partitioned, 0, groups, 1});
  for (i64 n : {i64{1}, i64{20011}, i64{70001}}) counting(300'007, n, {uniform, one_bin}, variants, nullptr);
  counting(300'007, 140'003, {one_bin}, {narrow_grid2}, nullptr);
  // 600 groups of 30001 bins (32-bit counters: one block per SM): the ring kernel pads each range to whole sectors
  // for the 16-bit counters after it; few records, so most of each range's sectors are padding.
  const variant padded600{"partitioned counted S=600, padded ranges", ghist::strategy::partitioned, 0, 600, 1};
  for (i64 n : {i64{20011}, i64{70001}}) counting(18'000'600, n, {uniform, one_bin}, {padded600}, nullptr);
}

}  // namespace
}  // namespace ghist_huge_test
