// Huge histograms on the host (issue 5 item 4, no GPU): the planner's plans for H = 1M .. 100M bins on the H100
// (valid shapes, and workspace bounded independently of the grid, unlike CUB's bins x blocks of cccl#912), forced
// partitioned plans either valid or refused with a ghist::error naming the strategy, and the Parboil data the GPU
// tests and benchmark read (sizes, and the expected file is min(255, count) of the input).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ghist/detail/partition_layout.hpp"
#include "ghist/error.hpp"
#include "ghist/plan.hpp"
#include "parboil_data.hpp"

namespace {

using i64 = std::int64_t;

const i64 huge_H[] = {1'000'007, 1'572'864, 1 << 22, 1 << 24, 60'000'000, 100'000'000};

ghist::problem hdw_elements(i64 n, i64 H, std::size_t record_bytes) {
  ghist::problem p;
  p.n = n;
  p.num_bins = H;
  p.op_class = ghist::atomic_class::hdw;
  p.race_factor = 1;
  p.record_bytes = record_bytes;
  return p;
}

// What any plan must satisfy: a partitioned plan's groups cover H, are at most max_partition_groups (the counted
// layout: max_counted_groups) and fit the opt-in shared memory.
void expect_valid(const ghist::plan& pl, i64 H, const ghist::device_info& dev) {
  SCOPED_TRACE(pl.to_string());
  EXPECT_GE(pl.grid, 1);
  EXPECT_GE(pl.block, 32);
  if (pl.kind == ghist::strategy::partitioned) {
    EXPECT_GE(pl.S, 1);
    EXPECT_LE(pl.S, pl.counted_groups ? ghist::detail::max_counted_groups : ghist::detail::max_partition_groups);
    EXPECT_GE(i64{pl.S} * pl.H_chk, H);
    EXPECT_LE(pl.shared_bytes, dev.shared_per_block_optin);
  }
}

// The workspace must not grow with the grid (CUB's HistogramEven needs H x blocks counters: 55 GB at 28.8M bins,
// cccl#912): at most one slice of input records plus a bounded table of group offsets, or L2-sized
// sub-histograms in global memory.
TEST(HugePlan, WorkspaceBoundedWhateverTheGrid) {
  const ghist::device_info dev = ghist::device_info::h100_sxm();
  const std::size_t slack = std::size_t{64} << 20;  // offsets table (<= 1025 x 8192 x 4 bytes) and small arrays
  for (i64 n : {i64{4'000'037}, i64{50'000'000}, i64{200'000'000}})
    for (std::size_t rec : {std::size_t{4}, std::size_t{8}})
      for (i64 H : huge_H) {
        SCOPED_TRACE("n=" + std::to_string(n) + " H=" + std::to_string(H) + " record=" + std::to_string(rec));
        const ghist::problem p = hdw_elements(n, H, rec);
        const std::size_t records =
            static_cast<std::size_t>(std::min<i64>(n, ghist::detail::partition_slice_tiles *
                                                          ghist::detail::partition_tile)) * rec;
        const ghist::plan automatic = ghist::make_plan(p, dev);
        expect_valid(automatic, H, dev);
        EXPECT_LE(automatic.temp_bytes, records + slack);
        for (ghist::strategy kind : {ghist::strategy::global_memory, ghist::strategy::partitioned}) {
          ghist::plan_overrides small, large;
          small.kind = large.kind = kind;
          small.grid = dev.sm_count;
          large.grid = 64 * dev.sm_count;
          try {
            const ghist::plan a = ghist::make_plan(p, dev, small), b = ghist::make_plan(p, dev, large);
            expect_valid(a, H, dev);
            expect_valid(b, H, dev);
            EXPECT_EQ(a.temp_bytes, b.temp_bytes) << ghist::to_string(kind);
            EXPECT_LE(b.temp_bytes, records + slack) << ghist::to_string(kind);
          } catch (const ghist::error& e) {
            // Only the partitioned strategy may refuse a huge H (its groups must fit shared memory).
            EXPECT_EQ(kind, ghist::strategy::partitioned) << e.what();
            EXPECT_NE(std::string(e.what()).find("partitioned"), std::string::npos) << e.what();
          }
        }
      }
}

// Forced partitioned plans with a given number of groups: valid, or a ghist::error naming the strategy (a group
// of H / S int32 bins larger than the opt-in shared memory cannot be histogrammed in one block).
TEST(HugePlan, ForcedGroupsValidOrRefusedClearly) {
  const ghist::device_info dev = ghist::device_info::h100_sxm();
  for (i64 H : huge_H)
    for (int S : {0, 32, 64, 256, 1024}) {
      SCOPED_TRACE("H=" + std::to_string(H) + " S=" + std::to_string(S));
      ghist::plan_overrides o;
      o.kind = ghist::strategy::partitioned;
      o.S = S;
      const bool fits = S == 0 || static_cast<std::size_t>((H + S - 1) / S) * 4 <= dev.shared_per_block_optin;
      try {
        const ghist::plan pl = ghist::make_plan(hdw_elements(50'000'000, H, 4), dev, o);
        expect_valid(pl, H, dev);
        EXPECT_EQ(pl.kind, ghist::strategy::partitioned);
        if (S > 0) EXPECT_EQ(pl.S, S);
      } catch (const ghist::error& e) {
        EXPECT_NE(std::string(e.what()).find("partitioned"), std::string::npos) << e.what();
        EXPECT_FALSE(fits && H <= 16 * 1024 * 1024) << "refused a shape that fits: " << e.what();
      }
    }
}

// The range 1.5M .. 16M bins at N = 50M is the partitioned strategy's (one radix pass, then shared memory),
// and H > N (more bins than inputs) never takes shared memory, which would initialise and merge H bins per block.
TEST(HugePlan, AutoTakesPartitionedFor1_5MTo16MBins) {
  const ghist::device_info dev = ghist::device_info::h100_sxm();
  for (i64 H : {i64{1'572'864}, i64{1} << 22, i64{1} << 24}) {
    const ghist::plan pl = ghist::make_plan(hdw_elements(50'000'000, H, 4), dev);
    EXPECT_EQ(pl.kind, ghist::strategy::partitioned) << "H=" << H << ": " << pl.to_string();
  }
  for (i64 H : huge_H) {
    const ghist::plan pl = ghist::make_plan(hdw_elements(H / 4, H, 4), dev);
    EXPECT_NE(pl.kind, ghist::strategy::shared_memory) << "H=" << H << ": " << pl.to_string();
  }
}

// The counted layout's ring kernel on the H100 (227 KiB a block): the sectors it keeps per group for the planner's
// groups at 30M, 40M, 60M and 100M bins (517 / 689 / 1033 / 1721 groups; for counting, 792 / 1188 / 1848 groups
// at 40M, 60M and 100M), and none where two sectors do not fit
// (the Direct kernel then): its rings, cursors and range starts fill at most the block's shared memory.
TEST(HugePlan, RingSectorsFitSharedMemory) {
  namespace d = ghist::detail;
  const std::size_t optin = ghist::device_info::h100_sxm().shared_per_block_optin;
  EXPECT_EQ(d::ring_partition_sectors(517, optin), 8);
  EXPECT_EQ(d::ring_partition_sectors(689, optin), 8);
  EXPECT_EQ(d::ring_partition_sectors(1033, optin), 4);
  EXPECT_EQ(d::ring_partition_sectors(1721, optin), 2);
  EXPECT_EQ(d::ring_partition_sectors(792, optin), 8);
  EXPECT_EQ(d::ring_partition_sectors(1188, optin), 4);
  EXPECT_EQ(d::ring_partition_sectors(1848, optin), 2);
  // The range's first sector kept aside where it fits with the most sectors: at 100M and 60M, not at 40M.
  EXPECT_TRUE(d::ring_partition_first_aside(1848, 2, optin));
  EXPECT_TRUE(d::ring_partition_first_aside(1188, 4, optin));
  EXPECT_FALSE(d::ring_partition_first_aside(792, 8, optin));
  EXPECT_EQ(d::ring_partition_sectors(4096, optin), 0);
  for (int groups = 512; groups <= d::max_counted_groups; groups += 7) {
    const int sectors = d::ring_partition_sectors(groups, optin);
    if (sectors == 0) {
      EXPECT_GT(d::ring_partition_shared_bytes(groups, 2), optin) << groups;
      continue;
    }
    EXPECT_LE(d::ring_partition_shared_bytes(groups, sectors), optin) << groups;
    if (d::ring_partition_first_aside(groups, sectors, optin))
      EXPECT_LE(d::ring_partition_shared_bytes(groups, sectors, true), optin) << groups;
    if (sectors < 8) EXPECT_GT(d::ring_partition_shared_bytes(groups, 2 * sectors), optin) << groups;
  }
}

// Padded ranges (ring_partition_kernel<..., Padded>): each group's records of each range rounded up to whole
// sectors of 16 records, so a slice's records number at most its inputs plus 15 per group and range. The counted
// layout keeps that room before its table, and the positions stay within 32 bits.
TEST(HugePlan, PaddedRangesFitTheWorkspace) {
  namespace d = ghist::detail;
  const int ranges = d::counted_partition_ranges(132);
  for (i64 n : {i64{1}, i64{20'011}, i64{50'000'000}, i64{1} << 33})
    for (int groups : {512, 600, 1848, d::max_counted_groups}) {
      const d::partition_layout l = d::make_counted_partition_layout(n, groups, ranges, 2, i64{100'000'000}, false);
      const std::size_t slice_inputs = static_cast<std::size_t>(l.slice_tiles) * d::partition_tile;
      const std::size_t most_records = slice_inputs + static_cast<std::size_t>(groups) * ranges * 15;
      EXPECT_GE(l.offsets - l.records, most_records * 2) << "n=" << n << " groups=" << groups;
      EXPECT_LT(most_records, std::size_t{1} << 32) << "n=" << n << " groups=" << groups;
    }
}

// The padding records' local bin is the group's size d: narrow_group_count_kernel's 16-bit counters keep a word
// for it (word d / 2) past the group's own, and two blocks of the largest groups the planner gives them still
// share an H100 SM.
TEST(HugePlan, NarrowCountersKeepThePaddingCounter) {
  namespace d = ghist::detail;
  for (i64 bins = 1; bins < d::max_local_bin_group; ++bins)
    ASSERT_LE((bins / 2 + 1) * 4, static_cast<i64>(d::narrow_counts_shared_bytes(bins))) << bins;
  const ghist::device_info dev = ghist::device_info::h100_sxm();
  EXPECT_LE(2 * (d::narrow_counts_shared_bytes(55'808) + dev.reserved_shared_per_block), dev.shared_per_sm);
}

TEST(HugeParboil, DataLoadsAndExpectedIsSaturatedCount) {
  const ghist_huge::parboil_histo p = ghist_huge::load_parboil_histo(GHIST_TEST_DATA_DIR);
  ASSERT_EQ(p.bins.size(), ghist_huge::parboil_histo::num_inputs);
  ASSERT_EQ(p.expected.size(), static_cast<std::size_t>(ghist_huge::parboil_histo::num_bins));
  std::vector<std::uint32_t> count(p.expected.size(), 0);
  for (std::int32_t b : p.bins) {
    ASSERT_GE(b, 0);
    ASSERT_LT(b, ghist_huge::parboil_histo::num_bins);
    ++count[static_cast<std::size_t>(b)];
  }
  std::int64_t saturated = 0, mismatches = 0;
  for (std::size_t b = 0; b < count.size(); ++b) {
    saturated += count[b] > 255;
    mismatches += p.expected[b] != std::min<std::uint32_t>(255, count[b]);
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(saturated, 0) << "the saturating operator must matter on this data";
  // The operator folds the same way.
  const ghist_huge::sat8_add op;
  EXPECT_EQ(op(200, 100), 255u);
  EXPECT_EQ(op(254, 1), 255u);
  EXPECT_EQ(op(ghist_huge::sat8_add::identity(), 7), 7u);
}

TEST(HugeParboil, MissingFileIsAClearError) {
  try {
    (void)ghist_huge::load_parboil_histo("/nonexistent-ghist-dir");
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-ghist-dir/parboil-histo-default.bins.i32.gz"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
