// HistogramRange's bin search (range_transform) against a linear scan over the levels, on host arrays.
#include <cmath>
#include <cstdint>
#include <memory>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/cub_compat/range_transform.hpp"

namespace {

using ghist::cub_compat::detail::fill_range_bucket;
using ghist::cub_compat::detail::range_buckets;
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

/// A bucket index for t's levels, built on the host the way the device kernel builds it (one call per bucket).
struct alignas(16) index_chunk {
  unsigned char bytes[16];
};
template <class Transform>
std::unique_ptr<index_chunk[]> make_index(const Transform& t, std::int64_t count) {
  using V = typename Transform::value;
  std::unique_ptr<index_chunk[]> storage(new index_chunk[(range_buckets::bytes_for<V>(count) + 15) / 16]);
  auto* index = reinterpret_cast<range_buckets*>(storage.get());
  for (std::int64_t k = 0; k < count; ++k) fill_range_bucket(t, index, static_cast<std::int32_t>(count), k);
  return storage;
}

/// The same transform with and without its bucket index must agree on every sample.
template <class S, class L>
void expect_index_agrees(const std::vector<L>& levels, const std::vector<S>& samples, std::int64_t count,
                         const char* what) {
  range_transform<S, L> plain{levels.data(), static_cast<int>(levels.size())};
  const auto storage = make_index(plain, count);
  range_transform<S, L> indexed = plain;
  indexed.buckets = reinterpret_cast<const range_buckets*>(storage.get());
  for (S s : samples)
    ASSERT_EQ(indexed(s), plain(s)) << what << ": sample " << static_cast<double>(s) << ", " << levels.size()
                                    << " levels, " << count << " buckets";
}

// Even, uneven (quadratic, clustered, repeated) and extreme levels, every int16 sample, several bucket counts.
TEST(CubCompatRangeBuckets, Int16SamplesAgreeWithThePlainSearch) {
  std::vector<std::int16_t> samples;
  for (int s = -32768; s <= 32767; ++s) samples.push_back(static_cast<std::int16_t>(s));
  std::mt19937 rng(11);
  for (int num_levels : {2, 3, 33, 257, 4097}) {
    std::vector<std::vector<int>> level_sets(5, std::vector<int>(static_cast<std::size_t>(num_levels)));
    for (int i = 0; i < num_levels; ++i) {
      level_sets[0][i] = -30000 + i * (60000 / num_levels);              // even
      level_sets[1][i] = -100 + (i * i) / 3;                             // quadratic: dense first, sparse last
      level_sets[2][i] = i < num_levels - 1 ? i : 1 << 30;               // all but the last clustered at 0..n-2
      level_sets[3][i] = std::numeric_limits<int>::min() / 2 + i * 17;  // far below the samples
    }
    int v = -32768;  // random steps, with repeated levels (empty bins)
    for (int& l : level_sets[4]) l = (v += static_cast<int>(rng() % 3));
    for (const auto& levels : level_sets)
      for (std::int64_t count :
           {std::int64_t(1), std::int64_t(2), std::int64_t(7), range_buckets::count_for(num_levels)})
        expect_index_agrees<std::int16_t, int>(levels, samples, count, "int16");
  }
}

// Float levels and samples: NaN, infinities, signed zeros, denormals, levels that span the whole float range (the
// width overflows: one bucket) or a tiny one, and random samples.
TEST(CubCompatRangeBuckets, FloatSamplesAgreeWithThePlainSearch) {
  const float inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min();
  std::mt19937 rng(5);
  std::vector<float> samples = {std::nanf(""), inf, -inf, 0.f, -0.f, tiny, -tiny, big, -big, 1.f, -1.f};
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (int i = 0; i < 20000; ++i) samples.push_back(u(rng));
  for (int i = 0; i < 2000; ++i) samples.push_back(static_cast<float>(i) * tiny);
  std::vector<std::vector<float>> level_sets = {{-1.f, 0.f, 0.25f, 10.f},
                                                {-big, 0.f, big},
                                                {-inf, -1.f, 1.f, inf},
                                                {0.f, tiny, 2 * tiny, 3 * tiny, 100 * tiny}};
  std::vector<float> even(65537), quadratic(1001);
  for (std::size_t i = 0; i < even.size(); ++i) even[i] = -1.f + 2.f * static_cast<float>(i) / 65536.f;
  for (std::size_t i = 0; i < quadratic.size(); ++i) quadratic[i] = static_cast<float>(i * i) * 1e-6f - 0.5f;
  level_sets.push_back(even);
  level_sets.push_back(quadratic);
  for (const auto& levels : level_sets) {
    std::vector<float> s = samples;
    s.insert(s.end(), levels.begin(), levels.end());  // every level itself, and its neighbours
    for (float l : levels) {
      s.push_back(std::nextafter(l, -inf));
      s.push_back(std::nextafter(l, inf));
    }
    for (std::int64_t count :
         {std::int64_t(1), std::int64_t(3), range_buckets::count_for(static_cast<std::int64_t>(levels.size()))})
      expect_index_agrees<float, float>(levels, s, count, "float");
  }
}

// 64-bit integer samples with levels across the whole int64 range (their width rounds in double).
TEST(CubCompatRangeBuckets, Int64ExtremesAgreeWithThePlainSearch) {
  constexpr std::int64_t mn = std::numeric_limits<std::int64_t>::min(), mx = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> levels = {mn, mn + 1, -(std::int64_t(1) << 53) - 1, -1, 0, 1, std::int64_t(1) << 53,
                                            (std::int64_t(1) << 53) + 1, mx - 1, mx};
  std::vector<std::int64_t> samples;
  for (std::int64_t l : levels)
    for (std::int64_t d : {-2, -1, 0, 1, 2})
      if (!((d < 0 && l < mn - d) || (d > 0 && l > mx - d))) samples.push_back(l + d);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20000; ++i) samples.push_back(static_cast<std::int64_t>(rng()));
  for (std::int64_t count : {std::int64_t(1), std::int64_t(4), std::int64_t(18), std::int64_t(1) << 21})
    expect_index_agrees<std::int64_t, std::int64_t>(levels, samples, count, "int64");
}

// Levels out of order (CUB's result is undefined): the indexed search stays within the array and gives some bin
// or none, never crashes.
TEST(CubCompatRangeBuckets, UnorderedLevelsStayInBounds) {
  const std::vector<int> levels = {50, 10, 40, 20, 30, -5, 100};
  range_transform<int, int> t{levels.data(), static_cast<int>(levels.size())};
  const auto storage = make_index(t, 12);
  t.buckets = reinterpret_cast<const range_buckets*>(storage.get());
  for (int s = -20; s <= 120; ++s) {
    const std::int64_t b = t(s);
    ASSERT_TRUE(b >= -1 && b < static_cast<std::int64_t>(levels.size()) - 1) << s;
  }
}

}  // namespace
