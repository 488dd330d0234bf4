// Host tests of the bin functions (binning.hpp), the operators (operators.hpp) and the compile-time atomic classes
// (atomic_class.hpp). No GPU needed.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ghist/atomic_class.hpp"
#include "ghist/binning.hpp"
#include "ghist/error.hpp"
#include "ghist/operators.hpp"

namespace {

using i128 = __int128;

using ghist_test::expect_ghist_error;

// Keeps the compiler from folding a bin computation at compile time (the tests are about run-time behaviour).
template <class T>
T opaque(T x) {
  volatile T v = x;
  return v;
}

// Exact reference of integer even binning: floor((x - lower) * bins / (upper - lower)), or -1 outside.
template <class S>
std::int64_t int_reference(S x, S lower, S upper, std::int64_t bins) {
  if (x < lower || x >= upper) return -1;
  i128 off = static_cast<i128>(x) - static_cast<i128>(lower);
  i128 range = static_cast<i128>(upper) - static_cast<i128>(lower);
  return static_cast<std::int64_t>(off * static_cast<i128>(bins) / range);
}

// Near-exact reference of floating-point binning in long double (64-bit mantissa on x86).
template <class S>
long double float_reference_q(S x, S lower, S upper, std::int64_t bins) {
  long double off = static_cast<long double>(x) - static_cast<long double>(lower);
  long double range = static_cast<long double>(upper) - static_cast<long double>(lower);
  return off / range * static_cast<long double>(bins);
}

template <class S>
std::vector<S> random_values(std::mt19937_64& rng, std::size_t count) {
  using L = std::numeric_limits<S>;
  std::vector<S> v(count);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<S>) {
      // Half the values come from narrow windows around 0 and the type's extremes, the rest are random bits.
      switch (rng() % 6) {
        case 0: x = static_cast<S>(static_cast<std::int64_t>(rng() % 512) - 256); break;
        case 1: x = static_cast<S>(L::max() - static_cast<S>(rng() % 100)); break;
        case 2: x = static_cast<S>(L::min() + static_cast<S>(rng() % 100)); break;
        default: x = static_cast<S>(rng()); break;
      }
    } else {
      std::uniform_real_distribution<double> mant(-1.0, 1.0);
      std::uniform_int_distribution<int> ex(L::min_exponent - 10, L::max_exponent - 1);
      x = static_cast<S>(std::ldexp(mant(rng), ex(rng)));
    }
  }
  return v;
}

// Whether nextafter(hi, lo) must land in the last bin: the bins are much wider than one ulp at hi.
template <class S>
bool last_bin_reachable(S lo, S hi, std::int64_t bins) {
  long double ulp = static_cast<long double>(hi) - static_cast<long double>(std::nextafter(hi, lo));
  long double width = static_cast<long double>(hi) - static_cast<long double>(lo);
  return static_cast<long double>(bins) * ulp < 0.5L * width;
}

// The bin of x is the long double reference, +-1 at an edge, with a relative slack of a few double ulps.
template <class S>
void expect_near_reference(S x, S lo, S hi, std::int64_t bins, std::int64_t got) {
  long double q = float_reference_q<S>(x, lo, hi, bins);
  long double ref = std::min<long double>(std::floor(q), static_cast<long double>(bins - 1));
  EXPECT_GE(got, 0) << "x=" << x << " [" << lo << ", " << hi << ") bins=" << bins;
  EXPECT_LT(got, bins) << "x=" << x << " [" << lo << ", " << hi << ") bins=" << bins;
  EXPECT_LE(std::fabs(static_cast<long double>(got) - ref), 1.0L + 1e-14L * ref)
      << "x=" << x << " [" << lo << ", " << hi << ") bins=" << bins;
}

template <class S>
class EvenBinsTyped : public ::testing::Test {};
using SampleTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                     std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(EvenBinsTyped, SampleTypes);

TYPED_TEST(EvenBinsTyped, EdgesAreHalfOpen) {
  using S = TypeParam;
  const std::vector<std::pair<S, S>> ranges = {
      {S(0), S(10)}, {S(1), S(2)}, {S(3), S(100)}, {S(0), S(127)}, {S(5), S(6)}};
  for (auto [lo, hi] : ranges) {
    for (std::int64_t bins : {1, 2, 3, 7, 10, 127, 1000}) {
      auto b = ghist::make_even_bins(lo, hi, bins);
      EXPECT_EQ(b(opaque(hi)), -1) << "upper edge must be out of range, bins=" << bins;
      EXPECT_EQ(b(opaque(lo)), 0) << "lower edge must be bin 0";
      if constexpr (std::is_floating_point_v<S>) {
        EXPECT_EQ(b(opaque(std::nextafter(hi, lo))), bins - 1);
        EXPECT_EQ(b(opaque(std::nextafter(lo, hi))), 0);
        EXPECT_EQ(b(opaque(std::nextafter(lo, S(-1000)))), -1);
        EXPECT_EQ(b(opaque(std::nextafter(hi, S(1000)))), -1);
      } else {
        EXPECT_EQ(b(opaque(static_cast<S>(hi - 1))), int_reference<S>(static_cast<S>(hi - 1), lo, hi, bins));
        if (bins <= static_cast<std::int64_t>(hi - lo)) {
          EXPECT_EQ(b(opaque(static_cast<S>(hi - 1))), bins - 1);
        }
        if (lo > std::numeric_limits<S>::min()) {
          EXPECT_EQ(b(opaque(static_cast<S>(lo - 1))), -1);
        }
        EXPECT_EQ(b(opaque(static_cast<S>(hi + 1))), -1);
      }
      // Every value in [lo, hi) lands in [0, bins), monotonically.
      std::int64_t prev = 0;
      for (int k = 0; k <= 200; ++k) {
        S x;
        if constexpr (std::is_floating_point_v<S>) x = static_cast<S>(lo + (hi - lo) * (S(k) / S(201)));
        else x = static_cast<S>(lo + static_cast<S>((static_cast<std::int64_t>(hi - lo) * k) / 201));
        std::int64_t got = b(opaque(x));
        ASSERT_GE(got, 0);
        ASSERT_LT(got, bins);
        ASSERT_GE(got, prev) << "not monotonic at k=" << k;
        prev = got;
      }
    }
  }
}

TYPED_TEST(EvenBinsTyped, FullRangeOfTheType) {
  using S = TypeParam;
  using L = std::numeric_limits<S>;
  const S lo = std::is_floating_point_v<S> ? L::lowest() : L::min();
  const S hi = L::max();
  std::mt19937_64 rng(0x5eed + sizeof(S));
  for (std::int64_t bins : {1, 2, 3, 256, 1000003}) {
    auto b = ghist::make_even_bins(lo, hi, bins);
    std::vector<S> xs = random_values<S>(rng, 4000);
    for (S extra : {lo, hi, S(0), S(1), static_cast<S>(hi - 1), static_cast<S>(hi / 2), static_cast<S>(lo / 2)})
      xs.push_back(extra);
    if constexpr (std::is_integral_v<S>) {
      for (int d = 0; d < 3; ++d) {
        xs.push_back(static_cast<S>(lo + d));
        xs.push_back(static_cast<S>(hi - d));
      }
      // The exact bin boundaries and their neighbours.
      const i128 range = static_cast<i128>(hi) - static_cast<i128>(lo);
      for (std::int64_t k : {std::int64_t(1), bins / 3, bins / 2, bins - 1}) {
        if (k <= 0) continue;
        i128 edge = (static_cast<i128>(k) * range + bins - 1) / bins;  // ceil(k * range / bins)
        xs.push_back(static_cast<S>(static_cast<i128>(lo) + edge));
        xs.push_back(static_cast<S>(static_cast<i128>(lo) + edge - 1));
      }
    } else {
      xs.push_back(std::nextafter(hi, S(0)));
      xs.push_back(std::nextafter(lo, S(0)));
      xs.push_back(L::denorm_min());
      xs.push_back(-L::denorm_min());
      xs.push_back(L::min());
    }
    std::sort(xs.begin(), xs.end());
    std::int64_t prev = 0;
    for (S x : xs) {
      std::int64_t got = b(opaque(x));
      if (x == hi) {
        EXPECT_EQ(got, -1);
        continue;
      }
      ASSERT_GE(got, 0) << "x=" << +x << " bins=" << bins;
      ASSERT_LT(got, bins) << "x=" << +x << " bins=" << bins;
      ASSERT_GE(got, prev) << "not monotonic at x=" << +x << " bins=" << bins;
      prev = got;
      if constexpr (std::is_integral_v<S>) {
        ASSERT_EQ(got, int_reference<S>(x, lo, hi, bins)) << "x=" << +x << " bins=" << bins;
      } else {
        long double q = float_reference_q<S>(x, lo, hi, bins);
        long double ref = std::floor(q);
        if (ref > bins - 1) ref = static_cast<long double>(bins - 1);
        ASSERT_LE(std::fabs(static_cast<long double>(got) - ref), 1.0L) << "x=" << x << " bins=" << bins;
      }
    }
    EXPECT_EQ(b(opaque(lo)), 0);
    if constexpr (std::is_integral_v<S>) {
      EXPECT_EQ(b(opaque(static_cast<S>(lo + 1))), int_reference<S>(static_cast<S>(lo + 1), lo, hi, bins));
      if (static_cast<i128>(bins) < static_cast<i128>(hi) - static_cast<i128>(lo)) {
        EXPECT_EQ(b(opaque(static_cast<S>(lo + 1))), 0);
      }
      const std::int64_t last = int_reference<S>(static_cast<S>(hi - 1), lo, hi, bins);
      EXPECT_EQ(b(opaque(static_cast<S>(hi - 1))), last);
      if (static_cast<i128>(bins) <= static_cast<i128>(hi) - static_cast<i128>(lo)) {
        EXPECT_EQ(last, bins - 1);
      }
    } else {
      EXPECT_EQ(b(opaque(std::nextafter(hi, S(0)))), bins - 1);
      EXPECT_EQ(b(opaque(std::nextafter(lo, S(0)))), 0);
      EXPECT_EQ(b(opaque(L::infinity())), -1);
      EXPECT_EQ(b(opaque(-L::infinity())), -1);
      EXPECT_EQ(b(opaque(L::quiet_NaN())), -1);
      EXPECT_EQ(b.halved, (std::is_same_v<S, double>)) << "only a double range can overflow double";
    }
  }
}

TYPED_TEST(EvenBinsTyped, RandomRangesMatchBruteForce) {
  using S = TypeParam;
  std::mt19937_64 rng(1234 + sizeof(S) * 7 + std::is_signed_v<S>);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<S> ends = random_values<S>(rng, 2);
    if constexpr (std::is_integral_v<S>) {
      if (trial % 3 == 0) ends[1] = static_cast<S>(static_cast<i128>(ends[0]) + static_cast<i128>(rng() % 50));  // narrow, may wrap
    }
    S lo = std::min(ends[0], ends[1]), hi = std::max(ends[0], ends[1]);
    if (!(lo < hi)) continue;
    const std::int64_t choices[] = {1, 2, 3, 5, 16, 255, 256, 1000, 65537, 1000003, std::int64_t(1) << 40};
    std::int64_t bins = choices[rng() % (sizeof(choices) / sizeof(choices[0]))];
    auto b = ghist::make_even_bins(lo, hi, bins);
    std::vector<S> xs;
    if constexpr (std::is_integral_v<S>) {
      const std::uint64_t span = static_cast<std::uint64_t>(static_cast<i128>(hi) - static_cast<i128>(lo));
      for (int k = 0; k < 200; ++k) {
        std::uint64_t off = span == ~std::uint64_t(0) ? rng() : rng() % (span + 1);
        xs.push_back(static_cast<S>(static_cast<i128>(lo) + off));
      }
      for (S x : random_values<S>(rng, 50)) xs.push_back(x);  // mostly outside
      for (S x : xs) ASSERT_EQ(b(opaque(x)), int_reference<S>(x, lo, hi, bins)) << +lo << " " << +hi << " " << bins;
    } else {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      for (int k = 0; k < 200; ++k) {
        S x = static_cast<S>(static_cast<double>(lo) + (static_cast<double>(hi) - static_cast<double>(lo)) * u(rng));
        if (std::isfinite(x)) xs.push_back(x);
      }
      xs.push_back(lo);
      xs.push_back(std::nextafter(hi, lo));
      for (S x : xs) {
        std::int64_t got = b(opaque(x));
        if (x >= hi || x < lo) {
          ASSERT_EQ(got, -1);
          continue;
        }
        ASSERT_GE(got, 0);
        ASSERT_LT(got, bins);
        long double q = float_reference_q<S>(x, lo, hi, bins);
        long double ref = std::min<long double>(std::floor(q), static_cast<long double>(bins - 1));
        // Exact away from the bin edges, and never more than one bin off at an edge.
        if (std::fabs(q - std::nearbyint(q)) > 1e-6L * std::max<long double>(1.0L, q))
          ASSERT_EQ(static_cast<long double>(got), ref) << lo << " " << hi << " " << bins << " x=" << x;
        else
          ASSERT_LE(std::fabs(static_cast<long double>(got) - ref), 1.0L);
      }
      xs.erase(std::remove_if(xs.begin(), xs.end(), [&](S x) { return x < lo || x >= hi; }), xs.end());
      std::sort(xs.begin(), xs.end());
      std::int64_t prev = 0;
      for (S x : xs) {
        std::int64_t got = b(opaque(x));
        ASSERT_GE(got, prev);
        prev = got;
      }
    }
  }
}

template <class S>
class EvenBinsFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EvenBinsFloat, FloatTypes);

TYPED_TEST(EvenBinsFloat, NanAndInfinitiesFallInNoBin) {
  using S = TypeParam;
  using L = std::numeric_limits<S>;
  for (auto [lo, hi] : {std::pair<S, S>{S(-1), S(1)}, {S(0), S(1e6)}, {L::lowest(), L::max()}, {S(-5), S(-4)}}) {
    for (std::int64_t bins : {1, 3, 1000}) {
      auto b = ghist::make_even_bins(lo, hi, bins);
      EXPECT_EQ(b(opaque(L::quiet_NaN())), -1);
      EXPECT_EQ(b(opaque(-L::quiet_NaN())), -1);
      EXPECT_EQ(b(opaque(L::signaling_NaN())), -1);
      EXPECT_EQ(b(opaque(L::infinity())), -1);
      EXPECT_EQ(b(opaque(-L::infinity())), -1);
    }
  }
}

TYPED_TEST(EvenBinsFloat, NegativeZeroIsZero) {
  using S = TypeParam;
  for (auto [lo, hi] : {std::pair<S, S>{S(-1), S(1)}, {S(0), S(1)}, {S(-0.0), S(1)}, {S(-3), S(0.5)},
                        {S(-1e-30), S(1e-30)}, {std::numeric_limits<S>::lowest(), std::numeric_limits<S>::max()}}) {
    for (std::int64_t bins : {1, 2, 3, 7, 1000003}) {
      auto b = ghist::make_even_bins(lo, hi, bins);
      EXPECT_EQ(b(opaque(S(-0.0))), b(opaque(S(0.0)))) << lo << " " << hi << " " << bins;
      EXPECT_GE(b(opaque(S(-0.0))), 0);
    }
  }
  // 0 is the upper edge: -0.0 equals it, so it is out of range too.
  auto b = ghist::make_even_bins(S(-1), S(0), 4);
  EXPECT_EQ(b(opaque(S(-0.0))), -1);
  EXPECT_EQ(b(opaque(S(0.0))), -1);
  EXPECT_EQ(b(opaque(std::nextafter(S(0), S(-1)))), 3);
}

TYPED_TEST(EvenBinsFloat, JustBelowUpperIsTheLastBinNeverNumBins) {
  using S = TypeParam;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(-1000.0, 1000.0);
  const std::int64_t choices[] = {1, 3, 7, 10, 1000, 1000003, std::int64_t(1) << 40, 1000000007,
                                  std::numeric_limits<std::int64_t>::max(),
                                  std::numeric_limits<std::int64_t>::max() - 1000};
  for (int trial = 0; trial < 4000; ++trial) {
    S a = static_cast<S>(u(rng)), c = static_cast<S>(u(rng));
    if (trial % 4 == 0) c = static_cast<S>(a + static_cast<S>(1e-3) * std::fabs(a));  // narrow
    if (a == c) continue;
    S lo = std::min(a, c), hi = std::max(a, c);
    std::int64_t bins = choices[trial % (sizeof(choices) / sizeof(choices[0]))];
    auto b = ghist::make_even_bins(lo, hi, bins);
    const S below = std::nextafter(hi, lo);
    const std::int64_t got = b(opaque(below));
    if (last_bin_reachable(lo, hi, bins)) {
      EXPECT_EQ(got, bins - 1) << lo << " " << hi << " " << bins;
    } else {
      expect_near_reference<S>(below, lo, hi, bins, got);  // bins finer than the samples: never num_bins
    }
    EXPECT_EQ(b(opaque(hi)), -1);
    EXPECT_EQ(b(opaque(lo)), 0);
  }
}

// A num_bins close to 2^63: x * scale can round up to 2^63, which does not fit int64 (found by a random search).
TEST(EvenBins, HugeNumBinsJustBelowUpper) {
  const double lo = -0x1.acb64c62b482p+4, hi = 0x1.6d6351547ff7cp+4;
  const std::int64_t bins = 9223372036854775767;
  auto b = ghist::make_even_bins(lo, hi, bins);
  expect_near_reference<double>(std::nextafter(hi, lo), lo, hi, bins, b(opaque(std::nextafter(hi, lo))));
  const std::int64_t max_bins = std::numeric_limits<std::int64_t>::max();
  auto m = ghist::make_even_bins(0.0, 3.0, max_bins);
  EXPECT_EQ(m(opaque(0.0)), 0);
  std::int64_t got = m(opaque(std::nextafter(3.0, 0.0)));
  EXPECT_GT(got, max_bins - 4096);
  EXPECT_LT(got, max_bins);
}

TEST(EvenBins, DoubleRangeWiderThanDoubleUsesTheHalvedPath) {
  const double M = DBL_MAX;
  const std::vector<std::pair<double, double>> ranges = {{-M, M}, {-M, M / 2}, {-M / 2, M}, {-M, 0.75 * M}};
  std::mt19937_64 rng(99);
  for (auto [lo, hi] : ranges) {
    for (std::int64_t bins : {1, 2, 3, 256, 1000003}) {
      auto b = ghist::make_even_bins(lo, hi, bins);
      EXPECT_TRUE(b.halved);
      std::vector<double> xs = random_values<double>(rng, 3000);
      for (double x : {lo, hi, std::nextafter(lo, hi), std::nextafter(hi, lo), 0.0, -0.0, 1.0, -1.0,
                       DBL_TRUE_MIN, -DBL_TRUE_MIN, M / 2, -M / 2})
        xs.push_back(x);
      std::sort(xs.begin(), xs.end());
      std::int64_t prev = 0;
      for (double x : xs) {
        std::int64_t got = b(opaque(x));
        if (x < lo || x >= hi) {
          EXPECT_EQ(got, -1);
          continue;
        }
        ASSERT_GE(got, prev) << "not monotonic at " << x;
        ASSERT_LT(got, bins);
        long double q = float_reference_q<double>(x, lo, hi, bins);
        long double ref = std::min<long double>(std::floor(q), static_cast<long double>(bins - 1));
        ASSERT_LE(std::fabs(static_cast<long double>(got) - ref), 1.0L) << x;
        prev = got;
      }
      EXPECT_EQ(b(opaque(lo)), 0);
      EXPECT_EQ(b(opaque(std::nextafter(hi, lo))), bins - 1);
      EXPECT_EQ(b(opaque(hi)), -1);
    }
  }
}

// Double ranges so narrow that bins / (upper - lower) overflows double.
TEST(EvenBins, TinyDoubleRanges) {
  // Every multiple of the smallest subnormal is exact: k * denorm_min over [0, 5 * denorm_min) with 5 bins is bin k.
  {
    auto b = ghist::make_even_bins(0.0, 5 * DBL_TRUE_MIN, 5);
    for (int k = 0; k < 5; ++k) EXPECT_EQ(b(opaque(k * DBL_TRUE_MIN)), k);
    EXPECT_EQ(b(opaque(5 * DBL_TRUE_MIN)), -1);
    EXPECT_EQ(b(opaque(-0.0)), 0);
  }
  {
    auto b = ghist::make_even_bins(-2 * DBL_TRUE_MIN, 2 * DBL_TRUE_MIN, 1000003);
    std::int64_t prev = -1;
    for (int k = -2; k < 2; ++k) {
      std::int64_t got = b(opaque(k * DBL_TRUE_MIN));
      EXPECT_EQ(got, (k + 2) * 1000003 / 4) << k;
      EXPECT_GT(got, prev);
      prev = got;
    }
  }
  const std::vector<std::pair<double, double>> ranges = {
      {0.0, 1e-303}, {1e-310, 2e-310}, {-1e-300, 1e-300}, {-3e-308, -1e-308}, {0.0, 1e-320}};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto [lo, hi] : ranges) {
    for (std::int64_t bins : {std::int64_t(1), std::int64_t(3), std::int64_t(1000003), std::int64_t(1) << 50,
                              std::numeric_limits<std::int64_t>::max()}) {
      auto b = ghist::make_even_bins(lo, hi, bins);
      EXPECT_EQ(b(opaque(lo)), 0) << lo << " " << hi << " " << bins;
      const double below = std::nextafter(hi, lo);
      if (last_bin_reachable(lo, hi, bins)) {
        EXPECT_EQ(b(opaque(below)), bins - 1) << lo << " " << hi << " " << bins;
      } else {
        expect_near_reference<double>(below, lo, hi, bins, b(opaque(below)));
      }
      EXPECT_EQ(b(opaque(hi)), -1);
      std::vector<double> xs;
      for (int k = 0; k < 500; ++k) xs.push_back(lo + (hi - lo) * u(rng));
      std::sort(xs.begin(), xs.end());
      std::int64_t prev = 0;
      for (double x : xs) {
        if (x < lo || x >= hi) continue;
        std::int64_t got = b(opaque(x));
        ASSERT_GE(got, prev) << lo << " " << hi << " " << bins << " x=" << x;
        ASSERT_LT(got, bins);
        expect_near_reference<double>(x, lo, hi, bins, got);
        prev = got;
      }
    }
  }
}

TEST(EvenBins, FloatBinsAreExactWithPowerOfTwoWidths) {
  auto b = ghist::make_even_bins(-8.0f, 8.0f, 64);  // width 0.25
  for (int k = 0; k < 64; ++k) {
    float edge = -8.0f + 0.25f * static_cast<float>(k);
    EXPECT_EQ(b(opaque(edge)), k);
    EXPECT_EQ(b(opaque(edge + 0.1875f)), k);
  }
  auto d = ghist::make_even_bins(0.0, 256.0, 256);
  for (int k = 0; k < 256; ++k) {
    EXPECT_EQ(d(opaque(static_cast<double>(k))), k);
    EXPECT_EQ(d(opaque(k + 0.5)), k);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// make_even_bins errors.

template <class S>
class MakeEvenBinsErrors : public ::testing::Test {};
TYPED_TEST_SUITE(MakeEvenBinsErrors, SampleTypes);

TYPED_TEST(MakeEvenBinsErrors, NamesTheBadArgument) {
  using S = TypeParam;
  for (std::int64_t bins : {std::int64_t(0), std::int64_t(-1), std::numeric_limits<std::int64_t>::min()})
    expect_ghist_error([&] { ghist::make_even_bins(S(0), S(10), bins); }, "num_bins");
  expect_ghist_error([] { ghist::make_even_bins(S(5), S(5), 3); }, "lower < upper");
  expect_ghist_error([] { ghist::make_even_bins(S(10), S(5), 3); }, "lower < upper");
  expect_ghist_error([] { ghist::make_even_bins(std::numeric_limits<S>::max(), std::numeric_limits<S>::lowest(), 3); },
                     "lower < upper");
  if constexpr (std::is_floating_point_v<S>) {
    using L = std::numeric_limits<S>;
    expect_ghist_error([] { ghist::make_even_bins(L::quiet_NaN(), S(1), 3); }, "finite");
    expect_ghist_error([] { ghist::make_even_bins(S(0), L::quiet_NaN(), 3); }, "finite");
    expect_ghist_error([] { ghist::make_even_bins(-L::infinity(), S(1), 3); }, "finite");
    expect_ghist_error([] { ghist::make_even_bins(S(0), L::infinity(), 3); }, "finite");
    expect_ghist_error([] { ghist::make_even_bins(-L::infinity(), L::infinity(), 3); }, "finite");
    // -0.0 and 0.0 are equal: an empty range.
    expect_ghist_error([] { ghist::make_even_bins(S(-0.0), S(0.0), 3); }, "lower < upper");
  }
  // Valid arguments do not throw.
  EXPECT_NO_THROW(ghist::make_even_bins(S(0), S(1), 1));
}

// ---------------------------------------------------------------------------------------------------------------
// key_bins.

template <class K>
class KeyBinsTyped : public ::testing::Test {};
using KeyTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                  std::uint32_t, std::int64_t, std::uint64_t>;
TYPED_TEST_SUITE(KeyBinsTyped, KeyTypes);

TYPED_TEST(KeyBinsTyped, KeysMapToThemselvesOrNoBin) {
  using K = TypeParam;
  using L = std::numeric_limits<K>;
  std::mt19937_64 rng(3);
  for (std::int64_t bins : {std::int64_t(1), std::int64_t(7), std::int64_t(100), std::int64_t(300),
                            std::int64_t(1) << 40, std::numeric_limits<std::int64_t>::max()}) {
    ghist::key_bins<K> kb{bins};
    std::vector<K> keys = {L::min(), L::max(), K(0), K(1), static_cast<K>(L::max() - 1), static_cast<K>(L::min() + 1)};
    for (int k = 0; k < 2000; ++k) keys.push_back(static_cast<K>(rng()));
    for (int k = 0; k < 200; ++k) keys.push_back(static_cast<K>(rng() % 400));
    for (K k : keys) {
      i128 wide = static_cast<i128>(k);
      std::int64_t want = (wide >= 0 && wide < static_cast<i128>(bins)) ? static_cast<std::int64_t>(wide) : -1;
      ASSERT_EQ(kb(opaque(k)), want) << "key " << +k << " bins " << bins;
    }
  }
}

TEST(KeyBins, Uint64AboveInt64MaxIsNoBin) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  ghist::key_bins<std::uint64_t> kb{big};
  EXPECT_EQ(kb(opaque(std::uint64_t(big) - 1)), big - 1);
  EXPECT_EQ(kb(opaque(std::uint64_t(big))), -1);
  EXPECT_EQ(kb(opaque(std::uint64_t(big) + 1)), -1);
  EXPECT_EQ(kb(opaque(~std::uint64_t(0))), -1);
  EXPECT_EQ(kb(opaque(std::uint64_t(1) << 63)), -1);
  ghist::key_bins<std::int64_t> ks{big};
  EXPECT_EQ(ks(opaque(big)), -1);
  EXPECT_EQ(ks(opaque(big - 1)), big - 1);
  EXPECT_EQ(ks(opaque(std::numeric_limits<std::int64_t>::min())), -1);
  EXPECT_EQ(ks(opaque(std::int64_t(-1))), -1);
  ghist::key_bins<std::uint32_t> k32{10};
  EXPECT_EQ(k32(opaque(0xFFFFFFFFu)), -1);
  EXPECT_EQ(k32(opaque(9u)), 9);
  EXPECT_EQ(k32(opaque(10u)), -1);
}

// ---------------------------------------------------------------------------------------------------------------
// Atomic classes.

struct sat24_add {  // 24-bit saturating add on uint32
  using value_type = std::uint32_t;
  static constexpr std::uint32_t identity() { return 0; }
  std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    std::uint32_t s = a + b;
    return s > 0xFFFFFFu ? 0xFFFFFFu : s;
  }
};

struct rgba8 {
  std::uint8_t c[4];
};
struct rgba8_max {  // a user operator on a 4-byte struct
  using value_type = rgba8;
  static rgba8 identity() { return rgba8{{0, 0, 0, 0}}; }
  rgba8 operator()(rgba8 a, rgba8 b) const {
    for (int i = 0; i < 4; ++i) a.c[i] = std::max(a.c[i], b.c[i]);
    return a;
  }
};

struct index_value {
  std::uint32_t index;
  std::int32_t value;
};
static_assert(sizeof(index_value) == 8);
struct argmax_struct {  // user argmax on an 8-byte struct
  using value_type = index_value;
  static index_value identity() { return {0xFFFFFFFFu, std::numeric_limits<std::int32_t>::min()}; }
  index_value operator()(index_value a, index_value b) const {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index < b.index ? a : b;
  }
};
struct argmax_packed {  // the same, packed in a uint64: value (biased) in the high half, ~index in the low half
  using value_type = std::uint64_t;
  static constexpr std::uint64_t identity() { return 0; }
  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return a > b ? a : b; }
};

struct f2i {
  float a, b;
  int c;
};
static_assert(sizeof(f2i) == 12);
struct f2i_op {
  using value_type = f2i;
  static f2i identity() { return {0.0f, 0.0f, 0}; }
  f2i operator()(f2i x, f2i y) const { return {x.a + y.a, x.b + y.b, x.c + y.c}; }
};
struct quad {
  std::uint32_t v[4];
};
static_assert(sizeof(quad) == 16);
struct quad_op {
  using value_type = quad;
  static quad identity() { return {{0, 0, 0, 0}}; }
  quad operator()(quad x, quad y) const {
    for (int i = 0; i < 4; ++i) x.v[i] += y.v[i];
    return x;
  }
};
struct forced_xcg_op {  // an 8-byte struct that asks for the lock path
  using value_type = index_value;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static index_value identity() { return argmax_struct::identity(); }
  index_value operator()(index_value a, index_value b) const { return argmax_struct{}(a, b); }
};
struct wants_hdw_on_12_bytes {  // asks for a faster class than the type allows: stays xcg
  using value_type = f2i;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::hdw;
  static f2i identity() { return f2i_op::identity(); }
  f2i operator()(f2i x, f2i y) const { return f2i_op{}(x, y); }
};
struct wants_hdw_on_cas {  // 4-byte user operator asking for hdw: stays cas
  using value_type = std::uint32_t;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::hdw;
  static constexpr std::uint32_t identity() { return 0; }
  std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return sat24_add{}(a, b); }
};
struct wants_cas_on_plus : ghist::plus<float> {  // a slower class than hdw may be asked for
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::cas;
};

TEST(AtomicClass, KnownOperators) {
  using ghist::atomic_class;
  using ghist::atomic_class_of;
  EXPECT_EQ(atomic_class_of<ghist::plus<int>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<unsigned>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<long long>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<unsigned long long>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<std::int64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<std::uint64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<float>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::plus<double>>, atomic_class::hdw);

  EXPECT_EQ(atomic_class_of<ghist::min<float>>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<ghist::max<float>>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<ghist::min<double>>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<ghist::max<double>>, atomic_class::cas);

  EXPECT_EQ(atomic_class_of<ghist::min<std::int64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::max<std::int64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::min<std::uint64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::max<std::int32_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::min<std::uint32_t>>, atomic_class::hdw);

  EXPECT_EQ(atomic_class_of<ghist::bit_and<std::uint32_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::bit_or<std::int32_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::bit_xor<std::uint32_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::bit_and<std::uint64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::bit_or<std::int64_t>>, atomic_class::hdw);
  EXPECT_EQ(atomic_class_of<ghist::bit_xor<unsigned long long>>, atomic_class::hdw);

  // No instruction for 1- and 2-byte types: no CAS on them either, so the lock path.
  EXPECT_EQ(atomic_class_of<ghist::plus<std::int16_t>>, atomic_class::xcg);
  EXPECT_EQ(atomic_class_of<ghist::bit_or<std::uint8_t>>, atomic_class::xcg);
}

TEST(AtomicClass, UserOperators) {
  using ghist::atomic_class;
  using ghist::atomic_class_of;
  EXPECT_EQ(atomic_class_of<sat24_add>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<rgba8_max>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<argmax_struct>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<argmax_packed>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<f2i_op>, atomic_class::xcg);
  EXPECT_EQ(atomic_class_of<quad_op>, atomic_class::xcg);
  EXPECT_EQ(atomic_class_of<forced_xcg_op>, atomic_class::xcg);
  EXPECT_EQ(atomic_class_of<wants_hdw_on_12_bytes>, atomic_class::xcg);
  EXPECT_EQ(atomic_class_of<wants_hdw_on_cas>, atomic_class::cas);
  EXPECT_EQ(atomic_class_of<wants_cas_on_plus>, atomic_class::cas);
  EXPECT_STREQ(ghist::to_string(atomic_class::hdw), "hdw");
  EXPECT_STREQ(ghist::to_string(atomic_class::cas), "cas");
  EXPECT_STREQ(ghist::to_string(atomic_class::xcg), "xcg");
}

// ---------------------------------------------------------------------------------------------------------------
// Operators: identities and NaN handling.

TEST(Operators, Identities) {
  EXPECT_EQ(ghist::min<float>::identity(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(ghist::min<double>::identity(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(ghist::max<float>::identity(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(ghist::max<double>::identity(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ghist::min<std::int32_t>::identity(), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(ghist::max<std::int32_t>::identity(), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(ghist::min<std::uint64_t>::identity(), ~std::uint64_t(0));
  EXPECT_EQ(ghist::max<std::uint64_t>::identity(), 0u);
  EXPECT_EQ(ghist::max<std::int64_t>::identity(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(ghist::plus<double>::identity(), 0.0);
  EXPECT_EQ(ghist::bit_and<std::uint8_t>::identity(), 0xFF);
  EXPECT_EQ(ghist::bit_and<std::uint32_t>::identity(), 0xFFFFFFFFu);
  EXPECT_EQ(ghist::bit_and<std::int64_t>::identity(), -1);
  EXPECT_EQ(ghist::bit_or<std::uint32_t>::identity(), 0u);
  EXPECT_EQ(ghist::bit_xor<std::uint64_t>::identity(), 0u);

  // op(identity, x) == x and op(x, identity) == x over awkward values.
  std::mt19937_64 rng(11);
  for (int k = 0; k < 1000; ++k) {
    auto bits = rng();
    auto i32 = static_cast<std::int32_t>(bits);
    auto u64 = bits;
    double d = std::ldexp(static_cast<double>(static_cast<std::int64_t>(bits)), -40);
    EXPECT_EQ(ghist::min<std::int32_t>{}(ghist::min<std::int32_t>::identity(), i32), i32);
    EXPECT_EQ(ghist::max<std::int32_t>{}(i32, ghist::max<std::int32_t>::identity()), i32);
    EXPECT_EQ(ghist::bit_and<std::uint64_t>{}(ghist::bit_and<std::uint64_t>::identity(), u64), u64);
    EXPECT_EQ(ghist::bit_xor<std::uint64_t>{}(u64, ghist::bit_xor<std::uint64_t>::identity()), u64);
    EXPECT_EQ(ghist::min<double>{}(ghist::min<double>::identity(), d), d);
    EXPECT_EQ(ghist::max<double>{}(d, ghist::max<double>::identity()), d);
  }
  // The identity folds with infinities too.
  EXPECT_EQ(ghist::min<float>{}(ghist::min<float>::identity(), std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(ghist::max<float>{}(ghist::max<float>::identity(), -std::numeric_limits<float>::infinity()),
            -std::numeric_limits<float>::infinity());
}

template <class T>
class FloatOps : public ::testing::Test {};
TYPED_TEST_SUITE(FloatOps, FloatTypes);

TYPED_TEST(FloatOps, NanNeverWins) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  ghist::min<T> mn;
  ghist::max<T> mx;
  for (T x : {T(1), T(-1), T(0), T(-0.0), inf, -inf, std::numeric_limits<T>::denorm_min()}) {
    EXPECT_EQ(mn(nan, x), x);
    EXPECT_EQ(mn(x, nan), x);
    EXPECT_EQ(mx(nan, x), x);
    EXPECT_EQ(mx(x, nan), x);
    EXPECT_EQ(mn(-nan, x), x);
    EXPECT_EQ(mx(x, -nan), x);
  }
  EXPECT_EQ(mn(ghist::min<T>::identity(), nan), inf);
  EXPECT_EQ(mx(nan, ghist::max<T>::identity()), -inf);
  EXPECT_EQ(mn(T(2), T(3)), T(2));
  EXPECT_EQ(mx(T(2), T(3)), T(3));
  // A fold over a sequence with NaNs anywhere, in any order, gives the min/max of the numbers.
  std::vector<T> seq = {nan, T(3), T(-2), nan, T(7), T(0.5), nan};
  for (int rot = 0; rot < static_cast<int>(seq.size()); ++rot) {
    std::rotate(seq.begin(), seq.begin() + 1, seq.end());
    T a = ghist::min<T>::identity(), b = ghist::max<T>::identity();
    for (T x : seq) {
      a = mn(a, x);
      b = mx(b, x);
    }
    EXPECT_EQ(a, T(-2));
    EXPECT_EQ(b, T(7));
  }
  // All NaN: the identity stays.
  EXPECT_EQ(mn(mn(ghist::min<T>::identity(), nan), nan), inf);
  EXPECT_EQ(mx(mx(ghist::max<T>::identity(), nan), nan), -inf);
}

}  // namespace
