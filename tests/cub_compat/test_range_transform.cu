// HistogramRange's bin search (range_transform) against a linear scan over the levels, on host arrays.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/cub_compat/range_transform.hpp"

namespace {

using ghist::cub_compat::detail::range_transform;

/// The bin b with levels[b] <= s < levels[b + 1] by a linear scan, or -1.
template <class S, class L>
std::int64_t scan_bin(S s, const std::vector<L>& levels) {
  for (std::size_t b = 0; b + 1 < levels.size(); ++b)
    if (levels[b] <= s && s < levels[b + 1]) return static_cast<std::int64_t>(b);
  return -1;
}

TEST(CubCompatRange, IntegerSamplesMatchLinearScan) {
  std::mt19937 rng(3);
  for (int num_levels : {2, 3, 4, 17, 256, 1000}) {
    std::vector<int> levels(static_cast<std::size_t>(num_levels));
    int v = -500;
    for (int& l : levels) l = (v += 1 + static_cast<int>(rng() % 7));
    range_transform<std::int16_t, int> t{levels.data(), num_levels};
    for (int s = -32768; s <= 32767; ++s)
      ASSERT_EQ(t(static_cast<std::int16_t>(s)), scan_bin(s, levels)) << s << " with " << num_levels << " levels";
  }
}

TEST(CubCompatRange, FloatSamplesNanAndEdges) {
  const std::vector<float> levels = {-1.f, 0.f, 0.25f, 10.f};
  range_transform<float, float> t{levels.data(), 4};
  EXPECT_EQ(t(-1.f), 0);
  EXPECT_EQ(t(std::nextafter(0.f, -1.f)), 0);
  EXPECT_EQ(t(0.f), 1);
  EXPECT_EQ(t(-0.f), 1);
  EXPECT_EQ(t(0.25f), 2);
  EXPECT_EQ(t(std::nextafter(10.f, 0.f)), 2);
  EXPECT_EQ(t(10.f), -1);  // the last level is exclusive, as in CUB
  EXPECT_EQ(t(std::nextafter(-1.f, -2.f)), -1);
  EXPECT_EQ(t(std::numeric_limits<float>::quiet_NaN()), -1);
  EXPECT_EQ(t(std::numeric_limits<float>::infinity()), -1);
  EXPECT_EQ(t(-std::numeric_limits<float>::infinity()), -1);
}

TEST(CubCompatRange, HalfSamplesCompareExactly) {
  const std::vector<__half> levels = {__float2half(0.f), __float2half(1.f), __float2half(2048.f)};
  range_transform<__half, __half> t{levels.data(), 3};
  EXPECT_EQ(t(__float2half(0.999f)), 0);
  EXPECT_EQ(t(__float2half(1.f)), 1);
  EXPECT_EQ(t(__float2half(2047.f)), 1);
  EXPECT_EQ(t(__float2half(2048.f)), -1);
  EXPECT_EQ(t(__float2half(NAN)), -1);
}

// Mixed types are compared by value: a float sample of -0.5 with integer levels is below levels[0] = 0 (CUB
// converts it to int 0 first and counts it), and an int64 sample beyond int32 is never wrapped into range.
TEST(CubCompatRange, MixedTypesCompareByValue) {
  const std::vector<int> levels = {0, 10, 20};
  range_transform<float, int> f{levels.data(), 3};
  EXPECT_EQ(f(-0.5f), -1);
  EXPECT_EQ(f(9.5f), 0);
  range_transform<std::int64_t, int> w{levels.data(), 3};
  EXPECT_EQ(w((std::int64_t(1) << 32) + 5), -1);
  EXPECT_EQ(w(15), 1);
}

}  // namespace
