// Host tests of the fused, batched and vector-valued plans (detail/multi/multi_plan.hpp): shared-memory layout
// arithmetic, the shared/global choice, K blocks per segment (seed 000 IV-C), override checks. H100 numbers from
// device_info::h100_sxm() (132 SMs x 2048 threads, 227 KiB opt-in, 228 KiB per SM, 1 KiB reserved per block).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "error_expectations.hpp"
#include "ghist/detail/multi/multi_plan.hpp"
#include "ghist/operators.hpp"

namespace {

using namespace ghist::detail::multi;
using ghist_test::expect_ghist_error;

struct index_value {
  std::uint32_t index;
  std::int32_t value;
};
struct argmax_xcg {
  using value_type = index_value;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static index_value identity() { return {0, 0}; }
  index_value operator()(index_value a, index_value) const { return a; }
};
struct three_bytes {
  unsigned char b[3];
};
struct three_byte_op {
  using value_type = three_bytes;
  static three_bytes identity() { return {}; }
  three_bytes operator()(three_bytes a, three_bytes) const { return a; }
};

TEST(MultiPlan, RegionBytesPerClass) {
  // hdw/cas: values only, rounded to 16 bytes.
  EXPECT_EQ(region_bytes(shape_of<ghist::plus<std::uint32_t>>(22), 1), 96u);   // 88 -> 96
  EXPECT_EQ(region_bytes(shape_of<ghist::plus<std::uint32_t>>(22), 3), 272u);  // 264 -> 272
  EXPECT_EQ(region_bytes(shape_of<ghist::min<double>>(5), 2), 80u);
  // xcg: values, then a 4-byte lock per bin at the next 4-byte boundary: 8 * 10 + 4 * 10 = 120 -> 128.
  EXPECT_EQ(region_bytes(shape_of<argmax_xcg>(10), 1), 128u);
  // 3-byte values: 7 * 3 = 21 -> 24, + 28 of locks = 52 -> 64.
  EXPECT_EQ(region_bytes(shape_of<three_byte_op>(7), 1), 64u);
}

TEST(MultiPlan, RegionOffsetsAreSideBySideAndAligned) {
  const std::vector<target_shape> ts = {shape_of<ghist::plus<std::uint32_t>>(22), shape_of<argmax_xcg>(10),
                                        shape_of<ghist::plus<double>>(3)};
  const auto off = region_offsets(ts, 2);
  ASSERT_EQ(off.size(), 4u);
  EXPECT_EQ(off[0], 0u);
  EXPECT_EQ(off[1], 176u);              // 2 * 22 * 4 = 176
  EXPECT_EQ(off[2], 176u + 240u);       // 2 * 10 * 12 = 240
  EXPECT_EQ(off[3], 176u + 240u + 48u); // 2 * 3 * 8 = 48
  for (auto o : off) EXPECT_EQ(o % region_alignment, 0u);
}

TEST(MultiPlan, LargestFittingM) {
  const std::vector<target_shape> ts = {shape_of<ghist::plus<std::uint32_t>>(1000)};
  EXPECT_EQ(largest_fitting_M(ts, 1000, 4000), 1);
  EXPECT_EQ(largest_fitting_M(ts, 1000, 12000), 3);
  EXPECT_EQ(largest_fitting_M(ts, 2, 12000), 2);  // the cap wins
  EXPECT_EQ(largest_fitting_M(ts, 1000, 3999), 0);  // not even one copy
}

TEST(MultiPlan, FusedSharedWhenTheSumFits) {
  const auto dev = ghist::device_info::h100_sxm();
  const std::int64_t n = 50'000'000;
  // Two 256-bin uint32 histograms: 2 KiB per copy pair; two blocks of 1024 per SM -> L = 113 KiB.
  const auto pl = plan_fused(n, {shape_of<ghist::plus<std::uint32_t>>(256), shape_of<ghist::plus<std::uint32_t>>(256)},
                             dev);
  EXPECT_EQ(pl.kind, ghist::strategy::shared_memory);
  EXPECT_EQ(pl.block, 1024);
  EXPECT_EQ(pl.grid, 264);  // min(ceil(T_hw / B), SMs x 2)
  const std::size_t L = shared_limit(dev, 1024, 2);
  EXPECT_EQ(pl.shared_bytes, region_offsets({shape_of<ghist::plus<std::uint32_t>>(256),
                                             shape_of<ghist::plus<std::uint32_t>>(256)}, pl.M).back());
  EXPECT_LE(pl.shared_bytes, L);
  EXPECT_EQ(pl.M, static_cast<int>(L / 2048));  // as many copy pairs as fit (the work bound is far)
  EXPECT_EQ(pl.temp_bytes, 0u);
}

TEST(MultiPlan, FusedGlobalWhenTheSumDoesNot) {
  const auto dev = ghist::device_info::h100_sxm();
  // Each fits alone (2 x 100 KiB would not fit 227 KiB with a second... 2 x 120 KiB does not fit 227 KiB).
  const auto big = shape_of<ghist::plus<std::uint32_t>>(30'000);
  EXPECT_EQ(plan_fused(50'000'000, {big}, dev).kind, ghist::strategy::shared_memory);
  const auto pl = plan_fused(50'000'000, {big, big}, dev);
  EXPECT_EQ(pl.kind, ghist::strategy::global_memory);
  EXPECT_EQ(pl.M, 1);
  EXPECT_EQ(pl.block, 256);
  EXPECT_EQ(pl.shared_bytes, 0u);
  // Forcing shared memory then names the override and the sizes.
  ghist::plan_overrides o;
  o.kind = ghist::strategy::shared_memory;
  expect_ghist_error([&] { plan_fused(50'000'000, {big, big}, dev, o); }, "kind = shared_memory");
}

TEST(MultiPlan, FusedFewInputsGoGlobalAndLocksAreCounted) {
  const auto dev = ghist::device_info::h100_sxm();
  const auto pl = plan_fused(100, {shape_of<ghist::plus<std::uint32_t>>(1000), shape_of<argmax_xcg>(100)}, dev);
  EXPECT_EQ(pl.kind, ghist::strategy::global_memory);  // 1100 bins > 100 inputs
  EXPECT_EQ(pl.temp_bytes, 512u);                       // 100 locks = 400 bytes, 256-aligned
  EXPECT_EQ(plan_fused(0, {shape_of<argmax_xcg>(100)}, dev).grid, 0);
  EXPECT_EQ(plan_fused(0, {shape_of<argmax_xcg>(100)}, dev).temp_bytes, 0u);
}

TEST(MultiPlan, BatchedKBlocksPerSegment) {
  const auto dev = ghist::device_info::h100_sxm();
  // tpacf: 200 segments of 97,178 inputs, 22 bins: T/B = 264 blocks, K = ceil(264 / 200) = 2.
  const auto tpacf = plan_batched(200, 200LL * 97'178, shape_of<ghist::plus<std::uint32_t>>(22), dev);
  EXPECT_EQ(tpacf.kind, ghist::strategy::shared_memory);
  EXPECT_EQ(tpacf.K, 2);
  EXPECT_EQ(tpacf.block, 1024);
  EXPECT_EQ(tpacf.grid, 400);
  // Work bound: a block sees 48,589 inputs, at least 2 per bin per copy: M <= 48589 / 44 = 1104, capped at B.
  EXPECT_EQ(tpacf.M, 1024);
  // k-means as batched: 256 dimensions x 1024 clusters of float sums, 100,000 points each.
  const auto km = plan_batched(256, 256LL * 100'000, shape_of<ghist::plus<float>>(1024), dev);
  EXPECT_EQ(km.kind, ghist::strategy::shared_memory);
  EXPECT_EQ(km.K, 2);
  EXPECT_EQ(km.M, 100'000 / 2 / (2 * 1024));  // the work bound: 24 copies
  // One segment gets every block: K = 264.
  EXPECT_EQ(plan_batched(1, 50'000'000, shape_of<ghist::plus<std::uint32_t>>(256), dev).K, 264);
}

TEST(MultiPlan, BatchedShortSegmentsGetSmallBlocksOrGlobal) {
  const auto dev = ghist::device_info::h100_sxm();
  // 100,000 segments of 100: K = 1, blocks of 128 threads (100 rounded up to a warp multiple).
  const auto pl = plan_batched(100'000, 10'000'000, shape_of<ghist::plus<std::uint32_t>>(22), dev);
  EXPECT_EQ(pl.K, 1);
  EXPECT_EQ(pl.block, 128);
  EXPECT_EQ(pl.kind, ghist::strategy::shared_memory);
  EXPECT_LE(pl.grid, 100'000);
  // Fewer inputs per segment than bins: global.
  EXPECT_EQ(plan_batched(1000, 10'000, shape_of<ghist::plus<std::uint32_t>>(22), dev).kind,
            ghist::strategy::global_memory);
  // Nothing to do.
  EXPECT_EQ(plan_batched(0, 0, shape_of<ghist::plus<std::uint32_t>>(22), dev).grid, 0);
  EXPECT_EQ(plan_batched(10, 0, shape_of<ghist::plus<std::uint32_t>>(22), dev).grid, 0);
  // Lock class: one lock per bin of every row.
  EXPECT_EQ(plan_batched(10, 1'000'000, shape_of<argmax_xcg>(100), dev).temp_bytes, 4096u);
}

TEST(MultiPlan, PartsOfASegmentCoverItOnce) {
  for (std::int64_t len : {0, 1, 5, 97, 1000, 97'178})
    for (int K : {1, 2, 3, 7, 264}) {
      EXPECT_EQ(part_begin(len, K, 0), 0);
      EXPECT_EQ(part_begin(len, K, K), len);
      for (int k = 0; k < K; ++k) {
        const auto size = part_begin(len, K, k + 1) - part_begin(len, K, k);
        EXPECT_TRUE(size == len / K || size == len / K + 1) << len << " " << K << " " << k;
        EXPECT_LE(part_begin(len, K, k), part_begin(len, K, k + 1));
      }
    }
}

TEST(MultiPlan, VectorGroupsAndMemory) {
  EXPECT_EQ(vector_group(1), 1);
  EXPECT_EQ(vector_group(3), 4);
  EXPECT_EQ(vector_group(32), 32);
  EXPECT_EQ(vector_group(257), 32);
  const auto dev = ghist::device_info::h100_sxm();
  // k-means, k = 1024, d = 256 floats: 1 MiB, global.
  const auto km = plan_vector(100'000, 256, shape_of<ghist::plus<float>>(1024), dev);
  EXPECT_EQ(km.kind, ghist::strategy::global_memory);
  EXPECT_EQ(km.group, 32);
  // k = 5, d = 256: 5 KiB fits; copies at most one per warp (256 / 32 = 8).
  const auto small = plan_vector(1'000'000, 256, shape_of<ghist::plus<float>>(5), dev);
  EXPECT_EQ(small.kind, ghist::strategy::shared_memory);
  EXPECT_LE(small.M, 8);
  EXPECT_GE(small.M, 1);
  EXPECT_EQ(small.shared_bytes, region_bytes({5 * 256, ghist::atomic_class::hdw, 4}, small.M));
  ghist::plan_overrides o;
  o.block = 100;
  expect_ghist_error([&] { plan_vector(10, 3, shape_of<ghist::plus<float>>(5), dev, o); }, "multiple of 32");
}

TEST(MultiPlan, OverrideErrorsNameTheField) {
  const auto dev = ghist::device_info::h100_sxm();
  const auto t = shape_of<ghist::plus<std::uint32_t>>(10);
  ghist::plan_overrides o;
  o.S = 2;
  expect_ghist_error([&] { plan_fused(10, {t}, dev, o); }, "override S");
  o = {};
  o.M = -1;
  expect_ghist_error([&] { plan_batched(1, 10, t, dev, o); }, "override M");
  o = {};
  o.grid = -3;
  expect_ghist_error([&] { plan_vector(1, 1, t, dev, o); }, "override grid");
  o = {};
  o.kind = ghist::strategy::global_memory;
  o.M = 4;
  expect_ghist_error([&] { plan_fused(1000, {t}, dev, o); }, "needs kind = shared_memory");
  o = {};
  o.M = 1'000'000;
  expect_ghist_error([&] { plan_fused(100'000'000, {t}, dev, o); }, "plan override M = 1000000");
  ghist::device_info none;
  expect_ghist_error([&] { plan_fused(10, {t}, none); }, "no SMs");
}

}  // namespace
