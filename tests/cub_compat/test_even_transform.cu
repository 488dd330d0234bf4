// HistogramEven's bin arithmetic (even_transform) against exact references: exhaustively for 8- and 16-bit integer
// samples, at the extremes and on random samples for 32- and 64-bit, CUB's own formula for float and double, and
// CUDA's host __half operators for the 16-bit emulation. One regression test per CUB bug it must not have.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/cub_compat/even_transform.hpp"

namespace {

using ghist::cub_compat::detail::even_kind;
using ghist::cub_compat::detail::even_status;
using ghist::cub_compat::detail::even_transform;
using ghist::cub_compat::detail::make_even_transform;

template <class S, class L = S>
even_transform<S, L> make(int num_levels, L lo, L hi) {
  even_transform<S, L> t;
  EXPECT_EQ(make_even_transform(num_levels, lo, hi, t), even_status::ok);
  return t;
}

/// The exact bin of an integer sample: floor((s - lo) * bins / (hi - lo)) in 128-bit arithmetic, or -1.
std::int64_t exact_int_bin(__int128 s, __int128 lo, __int128 hi, std::int64_t bins) {
  if (s < lo || s >= hi) return -1;
  return static_cast<std::int64_t>((s - lo) * bins / (hi - lo));
}

template <class T>
void check_all_samples(T lo, T hi, int num_levels) {
  auto t = make<T>(num_levels, lo, hi);
  for (std::int64_t v = std::numeric_limits<T>::min(); v <= std::numeric_limits<T>::max(); ++v) {
    const std::int64_t want = exact_int_bin(v, lo, hi, num_levels - 1);
    ASSERT_EQ(t(static_cast<T>(v)), want) << "sample " << v << " levels [" << +lo << ", " << +hi << ") bins "
                                          << num_levels - 1;
  }
}

template <class T>
void exhaustive_small_type() {
  constexpr T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
  const int width = static_cast<int>(static_cast<std::int64_t>(mx) - mn);
  for (int num_levels : {2, 3, 8, 101, 257, width, width + 1, 70001})
    for (auto [lo, hi] : {std::pair<T, T>{mn, mx}, {mn, T(mn + 1)}, {T(0), mx}, {T(mn / 2 + 3), T(mx / 3)}})
      check_all_samples<T>(lo, hi, num_levels);
}

// Levels wider than 2^16 apart: the reciprocal path up to 2^32, the double-estimate path beyond. Every int16 sample
// against wide int and int64 levels, for several bin counts.
TEST(CubCompatEven, ExhaustiveInt16WithWideLevels) {
  for (int num_levels : {2, 7, 1000, 65537, 300001}) {
    for (auto [lo, hi] : {std::pair<int, int>{-70000, 70000}, {-32768, 40000}, {-1, 1 << 30}}) {
      auto t = make<std::int16_t, int>(num_levels, lo, hi);
      ASSERT_TRUE(t.reciprocal);
      for (int v = -32768; v <= 32767; ++v)
        ASSERT_EQ(t(static_cast<std::int16_t>(v)), exact_int_bin(v, lo, hi, num_levels - 1)) << v;
    }
    for (auto [lo, hi] : {std::pair<std::int64_t, std::int64_t>{-(std::int64_t(1) << 32), 1},
                          {-40000, std::int64_t(1) << 40}}) {
      auto t = make<std::int16_t, std::int64_t>(num_levels, lo, hi);
      ASSERT_FALSE(t.reciprocal);
      for (int v = -32768; v <= 32767; ++v)
        ASSERT_EQ(t(static_cast<std::int16_t>(v)), exact_int_bin(v, lo, hi, num_levels - 1)) << v;
    }
  }
}

// Ranges just below, at and just above 2^32, where the reciprocal path ends: random samples and the first sample
// of bins near both ends, for bin counts up to 2^31 - 1 (more bins than values included).
TEST(CubCompatEven, ReciprocalPathAtItsLimit) {
  std::mt19937_64 rng(2026);
  constexpr std::int64_t two32 = std::int64_t(1) << 32;
  for (std::int64_t range : {two32 - 1, two32, two32 + 1, std::int64_t(3), std::int64_t(1) << 31})
    for (int num_levels : {2, 3, 255, 65537, 1 << 20, std::numeric_limits<int>::max()}) {
      const std::int64_t lo = -(range / 2) - 5, hi = lo + range;
      auto t = make<std::int64_t>(num_levels, lo, hi);
      ASSERT_EQ(t.reciprocal, range <= two32);
      const std::int64_t bins = num_levels - 1;
      std::vector<std::int64_t> samples = {lo, hi - 1, lo + range / 2};
      for (std::int64_t b : {std::int64_t(1), bins / 2, bins - 1}) {
        const __int128 first = lo + (static_cast<__int128>(b) * range + bins - 1) / bins;
        samples.push_back(static_cast<std::int64_t>(first));
        samples.push_back(static_cast<std::int64_t>(first - 1));
      }
      for (int i = 0; i < 4000; ++i) samples.push_back(lo + static_cast<std::int64_t>(rng() % std::uint64_t(range)));
      for (std::int64_t s : samples)
        ASSERT_EQ(t(s), exact_int_bin(s, lo, hi, bins)) << "sample " << s << " range " << range << " bins " << bins;
    }
}

TEST(CubCompatEven, ExhaustiveInt8) { exhaustive_small_type<std::int8_t>(); }
TEST(CubCompatEven, ExhaustiveUint8) { exhaustive_small_type<std::uint8_t>(); }
TEST(CubCompatEven, ExhaustiveInt16) { exhaustive_small_type<std::int16_t>(); }
TEST(CubCompatEven, ExhaustiveUint16) { exhaustive_small_type<std::uint16_t>(); }

/// 32- and 64-bit: the samples next to every edge of several bins, the type's extremes, and random samples.
template <class T>
void extremes_type() {
  constexpr T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
  std::mt19937_64 rng(12345);
  for (int num_levels : {2, 3, 7, 257, 65537, 1 << 21, std::numeric_limits<int>::max()})
    for (auto [lo, hi] : {std::pair<T, T>{mn, mx}, {T(mn + 1), T(mx - 1)}, {T(0), mx}, {mn, T(0)}, {T(-7), T(1000)}}) {
      if (!(lo < hi)) continue;
      auto t = make<T>(num_levels, lo, hi);
      const std::int64_t bins = num_levels - 1;
      std::vector<__int128> samples = {mn, mx, lo, hi, __int128(lo) + 1, __int128(hi) - 1};
      // The first sample of bins near the start, middle and end: ceil(lo + b * (hi - lo) / bins) and one below.
      for (std::int64_t b : {std::int64_t(1), bins / 2, bins - 1, bins}) {
        const __int128 range = __int128(hi) - lo;
        const __int128 first = lo + (b * range + bins - 1) / bins;
        samples.push_back(first);
        samples.push_back(first - 1);
      }
      for (int i = 0; i < 2000; ++i) samples.push_back(static_cast<T>(rng()));
      for (__int128 s : samples) {
        if (s < mn || s > mx) continue;
        ASSERT_EQ(t(static_cast<T>(s)), exact_int_bin(s, lo, hi, bins))
            << "sample " << static_cast<long double>(s) << " bins " << bins;
      }
    }
}

TEST(CubCompatEven, ExtremesInt32) { extremes_type<std::int32_t>(); }
TEST(CubCompatEven, ExtremesUint32) { extremes_type<std::uint32_t>(); }
TEST(CubCompatEven, ExtremesInt64) { extremes_type<std::int64_t>(); }
TEST(CubCompatEven, ExtremesUint64) { extremes_type<std::uint64_t>(); }

TEST(CubCompatEven, MixedIntegerTypesBinInTheCommonType) {
  // uint8 samples with int levels (CUB's CommonT = int): the full byte range into 256 bins is the identity.
  auto t = make<std::uint8_t, int>(257, 0, 256);
  for (int v = 0; v < 256; ++v) EXPECT_EQ(t(static_cast<std::uint8_t>(v)), v);
  // int64 levels with int16 samples, levels beyond the sample type.
  auto w = make<std::int16_t, std::int64_t>(5, -100000, 100000);
  EXPECT_EQ(w(std::int16_t(-32768)), 1);  // (100000 - 32768) * 4 / 200000 = 1.34
  EXPECT_EQ(w(std::int16_t(32767)), 2);
}

// ---- floating point --------------------------------------------------------------------------------------------

/// CUB's floating formula written out independently: int((s - lo) * (T(bins) / (hi - lo))).
template <class T>
std::int64_t cub_float_bin(T s, T lo, T hi, int bins) {
  if (!(s >= lo && s < hi)) return -1;
  const T recip = static_cast<T>(bins) / (hi - lo);
  return static_cast<std::int64_t>((s - lo) * recip);
}

template <class T>
void float_matches_cub() {
  std::mt19937_64 rng(777);
  for (int num_levels : {2, 11, 257, 2049, 65537, 1 << 21}) {
    for (auto [lo, hi] : {std::pair<T, T>{0, 1}, {-3.5, 1e3}, {1e-3, 1.5e-3}, {-1e30, 1e30}}) {
      auto t = make<T>(num_levels, lo, hi);
      ASSERT_EQ(t.kind, even_kind::cub_float);
      std::uniform_real_distribution<T> in(lo - (hi - lo) / 10, hi + (hi - lo) / 10);
      std::vector<T> samples = {lo, hi, std::nextafter(hi, lo), std::nextafter(lo, hi), std::nextafter(lo, T(-1e300)),
                                std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                                -std::numeric_limits<T>::infinity()};
      for (int i = 0; i < 20000; ++i) samples.push_back(in(rng));
      for (T s : samples) {
        std::int64_t want = cub_float_bin(s, lo, hi, num_levels - 1);
        if (want >= num_levels - 1) want = num_levels - 2;  // CUB's out-of-bounds bin (cccl#10976), the last here
        ASSERT_EQ(t(s), want) << "sample " << s << " levels [" << lo << ", " << hi << ")";
      }
    }
  }
}

TEST(CubCompatEven, FloatMatchesCubFormula) { float_matches_cub<float>(); }
TEST(CubCompatEven, DoubleMatchesCubFormula) { float_matches_cub<double>(); }

/// Exhaustive over every __half: the transform equals CUB's half formula computed with CUDA's own host
/// __hsub/__hmul (the kernel's operations), clamped to the last bin.
TEST(CubCompatEven, HalfMatchesCubHalfArithmeticExhaustively) {
  for (int num_levels : {2, 9, 257, 1025, 2049}) {
    for (auto [lo, hi] : {std::pair<float, float>{0.f, 1.f}, {-100.f, 300.f}, {-65504.f, 0.f}, {0.5f, 0.75f},
                                {-100.3f, 299.7f}}) {
      const __half hlo = __float2half(lo), hhi = __float2half(hi);
      auto t = make<__half>(num_levels, hlo, hhi);
      ASSERT_EQ(t.kind, even_kind::cub_half);
      // CUB's host-side reciprocal (ScaleTransform::Init runs on the host): a float division, rounded to half.
      const __half recip =
          __float2half(static_cast<float>(num_levels - 1) / (__half2float(hhi) - __half2float(hlo)));
      for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
        const __half s = __ushort_as_half(static_cast<unsigned short>(bits));
        std::int64_t want = -1;
        if (__hge(s, hlo) && __hlt(s, hhi)) {
          want = static_cast<std::int64_t>(__half2float(__hmul(__hsub(s, hlo), recip)));
          if (want >= num_levels - 1) want = num_levels - 2;
        }
        ASSERT_EQ(t(s), want) << "half bits " << bits << " levels [" << lo << ", " << hi << ") bins "
                              << num_levels - 1;
      }
    }
  }
}

/// Monotone and in range for every finite bfloat16 (CUB's bfloat16 formula, emulated).
TEST(CubCompatEven, Bfloat16IsMonotoneAndInRange) {
  for (int num_levels : {2, 17, 257, 301, 5000}) {
    const __nv_bfloat16 lo = __float2bfloat16(-2.f), hi = __float2bfloat16(6.f);
    auto t = make<__nv_bfloat16>(num_levels, lo, hi);
    std::int64_t last = -1;
    // Every bfloat16 in [-2, 6) in increasing order: the positive ones by bit pattern, after the negative ones.
    std::vector<float> values;
    for (std::uint32_t bits = 0x8000; bits < 0x10000; ++bits)
      values.push_back(__bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(bits))));
    std::reverse(values.begin(), values.end());
    for (std::uint32_t bits = 0; bits < 0x8000; ++bits)
      values.push_back(__bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(bits))));
    for (float v : values) {
      if (!(v >= -2.f && v < 6.f)) continue;
      const std::int64_t b = t(__float2bfloat16(v));
      ASSERT_GE(b, last) << v;
      ASSERT_LT(b, num_levels - 1) << v;
      last = b;
    }
    EXPECT_GE(last, (num_levels - 1) * 9 / 10);  // the top bins are reached
    EXPECT_EQ(t(__float2bfloat16(6.f)), -1);
    EXPECT_EQ(t(__float2bfloat16(-2.01f)), -1);
  }
}

// ---- regression tests, one per CUB bug --------------------------------------------------------------------------

// NVIDIA/cccl#10975: full-range int8/int16 levels put every sample in bin 0 (the range wrapped in the narrow type);
// an int32 range of 3e9 with 100 bins was rejected.
TEST(CubCompatEvenRegression, Cccl10975FullRangeSmallTypes) {
  auto t16 = make<std::int16_t>(101, std::int16_t(-32768), std::int16_t(32767));
  EXPECT_EQ(t16(std::int16_t(-32768)), 0);
  EXPECT_EQ(t16(std::int16_t(0)), 50);  // 32768 * 100 / 65535 = 50.0008
  EXPECT_EQ(t16(std::int16_t(32766)), 99);
  auto t8 = make<std::int8_t>(101, std::int8_t(-128), std::int8_t(127));
  EXPECT_EQ(t8(std::int8_t(126)), 99);
  EXPECT_EQ(t8(std::int8_t(0)), 50);
  auto t32 = make<std::int32_t>(101, -1500000000, 1500000000);
  EXPECT_EQ(t32.kind, even_kind::integral);
  EXPECT_EQ(t32(0), 50);
  EXPECT_EQ(t32(1499999999), 99);
  EXPECT_EQ(t32(-1500000000), 0);
}

// NVIDIA/cccl#11121: small sample types rejected ranges whose range * bins product exceeds 2^32 (and int128 misbins,
// no int128 here): uint16 samples over [0, 65535) into 100000 bins are accepted and exact.
TEST(CubCompatEvenRegression, Cccl11121ProductsAbove2To32Accepted) {
  auto t = make<std::uint16_t>(100001, std::uint16_t(0), std::uint16_t(65535));
  for (std::uint32_t v = 0; v < 65535; ++v)
    ASSERT_EQ(t(static_cast<std::uint16_t>(v)), exact_int_bin(v, 0, 65535, 100000)) << v;
  // 64-bit: a full-range uint64 histogram with 2^31 - 2 bins (product ~2^95).
  auto w = make<std::uint64_t>(std::numeric_limits<int>::max(), std::uint64_t(0), ~std::uint64_t(0));
  EXPECT_EQ(w(~std::uint64_t(0) - 1), std::numeric_limits<int>::max() - 2);
}

// NVIDIA/cub#619: int samples and levels over [0, 65536) with 65536 bins failed; every sample is its own bin.
TEST(CubCompatEvenRegression, Cub619UnitBins) {
  auto t = make<int>(65537, 0, 65536);
  for (int v = -3; v < 65540; ++v) ASSERT_EQ(t(v), (v < 0 || v >= 65536) ? -1 : v);
  auto f = make<double, float>(65537, 0.f, 65536.f);
  for (int v = 0; v < 65536; ++v) ASSERT_EQ(f(v + 0.5), v);
}

// NVIDIA/cccl#10976: bins beyond what the sample type holds exactly merged neighbours (bfloat16 > 256 bins, half
// > 2048) and a float result rounded up to `bins` was written past the end. Here: one sample per bin centre lands
// in its own bin, and nothing ever leaves [0, bins).
TEST(CubCompatEvenRegression, Cccl10976BinsBeyondExactIntegers) {
  {
    auto t = make<__nv_bfloat16>(301, __float2bfloat16(0.f), __float2bfloat16(300.f));
    EXPECT_EQ(t.kind, even_kind::wide);
    for (int b = 0; b < 300; ++b) {
      const __nv_bfloat16 s = __float2bfloat16(static_cast<float>(b));
      if (__bfloat162float(s) != static_cast<float>(b)) continue;  // bfloat16 holds 256.. only in steps of 2
      ASSERT_EQ(t(s), b);
    }
  }
  {
    auto t = make<__half>(4001, __float2half(0.f), __float2half(4000.f));
    EXPECT_EQ(t.kind, even_kind::wide);
    for (int b = 0; b < 4000; b += 2) ASSERT_EQ(t(__float2half(static_cast<float>(b))), b);
  }
  {
    // float: the largest float below 1 times a reciprocal that rounds up would give bins; it is the last bin.
    auto t = make<float>(16777217, 0.f, 1.f);
    EXPECT_EQ(t(std::nextafter(1.f, 0.f)), 16777215);
    auto u = make<float>(1 << 25, 0.f, 1.f);  // beyond 2^24 bins: computed in double
    EXPECT_EQ(u.kind, even_kind::wide);
    EXPECT_EQ(u(0.5f), ((1 << 25) - 1) / 2);
  }
}

TEST(CubCompatEven, EmptyAndInvalidLevels) {
  even_transform<float, float> t;
  EXPECT_EQ(make_even_transform(1, 0.f, 1.f, t), even_status::bad_levels);
  EXPECT_EQ(make_even_transform(3, 0.f, std::numeric_limits<float>::infinity(), t), even_status::bad_levels);
  EXPECT_EQ(make_even_transform(3, std::numeric_limits<float>::quiet_NaN(), 1.f, t), even_status::bad_levels);
  ASSERT_EQ(make_even_transform(3, 1.f, 1.f, t), even_status::ok);
  EXPECT_EQ(t.kind, even_kind::empty);
  EXPECT_EQ(t(1.f), -1);
  even_transform<int, int> i;
  ASSERT_EQ(make_even_transform(3, 5, -5, i), even_status::ok);
  EXPECT_EQ(i.kind, even_kind::empty);
  EXPECT_EQ(i(0), -1);
}

}  // namespace
