// The host half of the race-factor inspector: from sampled bins to RF = H / (estimated active bins).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/race_factor_estimate.hpp"

namespace {

using ghist::detail::race_factor_from_samples;

std::vector<std::int64_t> sample(std::int64_t active, std::int64_t stride, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> bins(count);
  for (auto& b : bins) b = static_cast<std::int64_t>(rng() % active) * stride;
  return bins;
}

TEST(RaceFactorEstimate, UniformIsAboutOne) {
  EXPECT_LT(race_factor_from_samples(sample(1572864, 1, 8192, 1), 1572864), 1.2);
  EXPECT_LT(race_factor_from_samples(sample(4096, 1, 8192, 2), 4096), 1.2);  // many repeats, all bins active
}

TEST(RaceFactorEstimate, Seed000StridedInputs) {
  for (std::int64_t H : {196608, 1572864}) {
    const double rf = race_factor_from_samples(sample(H / 63, 63, 8192, 3), H);
    EXPECT_GT(rf, 63 / 1.3) << "H=" << H;
    EXPECT_LT(rf, 63 * 1.3) << "H=" << H;
  }
}

TEST(RaceFactorEstimate, OneBinIsH) {
  EXPECT_DOUBLE_EQ(race_factor_from_samples(std::vector<std::int64_t>(8192, 17), 100000), 100000.0);
}

TEST(RaceFactorEstimate, OutOfRangeSamplesAreDroppedAndEmptyMeansOne) {
  std::vector<std::int64_t> bins = sample(1000, 1, 4096, 4);
  for (int k = 0; k < 4096; ++k) bins.push_back(k % 2 ? -1 : 5000);
  const double rf = race_factor_from_samples(bins, 1000);
  EXPECT_LT(rf, 1.3);
  EXPECT_DOUBLE_EQ(race_factor_from_samples({-1, -7, 1000}, 1000), 1.0);
  EXPECT_DOUBLE_EQ(race_factor_from_samples({}, 1000), 1.0);
}

}  // namespace

TEST(RaceFactor, DistinctBinsCountsLikeASort) {
  std::mt19937_64 rng(20261202);
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8192}})
    for (const std::int64_t range : {std::int64_t{1}, std::int64_t{100}, std::int64_t{49152}, std::int64_t{1} << 40}) {
      std::vector<std::int64_t> bins(count);
      for (auto& b : bins) b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(range));
      std::vector<std::int64_t> sorted = bins;
      std::sort(sorted.begin(), sorted.end());
      const auto expected = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
      EXPECT_EQ(ghist::detail::distinct_bins(bins), expected) << count << " samples below " << range;
    }
}
