// Host tests of the byte-histogram path: the byte -> bin table against an independent exact formula and against
// even_bins of the sample type, method selection, and the argument checks that run before any CUDA call.
#include <cstdint>
#include <random>

#include <gtest/gtest.h>

#include "error_expectations.hpp"
#include "ghist/binning.hpp"
#include "ghist/byte_histogram.hpp"

namespace {

using ghist::byte_bin_table;
using ghist_test::expect_ghist_error;

// floor((x - lower) * bins / (upper - lower)) for x in [lower, upper), -1 otherwise, in 64-bit integers (the
// ranges here are at most 2^33 wide and bins <= 256, so nothing overflows).
int exact_bin(int x, int bins, int lower, int upper) {
  if (x < lower || x >= upper) return -1;
  return static_cast<int>((std::int64_t(x) - lower) * bins / (std::int64_t(upper) - lower));
}

int value_of(bool is_signed, int raw) {
  return is_signed ? static_cast<std::int8_t>(static_cast<std::uint8_t>(raw)) : raw;
}

TEST(ByteBinTable, OneBinPerValue) {
  const auto u = byte_bin_table(false, 256, 0, 256);
  for (int raw = 0; raw < 256; ++raw) EXPECT_EQ(u[raw], raw);
  const auto s = byte_bin_table(true, 256, -128, 128);
  for (int raw = 0; raw < 256; ++raw) EXPECT_EQ(s[raw], value_of(true, raw) + 128) << raw;
}

TEST(ByteBinTable, MatchesExactFormulaOnRandomRanges) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> bound(-400, 400), bins(1, 256);
  for (int trial = 0; trial < 2000; ++trial) {
    int lower = bound(rng), upper = bound(rng);
    if (lower == upper) continue;
    if (lower > upper) std::swap(lower, upper);
    const int b = bins(rng);
    for (bool is_signed : {false, true}) {
      const auto table = byte_bin_table(is_signed, b, lower, upper);
      for (int raw = 0; raw < 256; ++raw)
        ASSERT_EQ(table[raw], exact_bin(value_of(is_signed, raw), b, lower, upper))
            << "signed=" << is_signed << " bins=" << b << " [" << lower << ", " << upper << ") raw=" << raw;
    }
  }
}

TEST(ByteBinTable, ExtremeRangesDoNotOverflow) {
  const int lo = INT32_MIN, hi = INT32_MAX;
  for (bool is_signed : {false, true}) {
    const auto table = byte_bin_table(is_signed, 256, lo, hi);
    for (int raw = 0; raw < 256; ++raw) EXPECT_EQ(table[raw], exact_bin(value_of(is_signed, raw), 256, lo, hi));
  }
}

TEST(ByteBinTable, SameAsEvenBinsOfTheSampleType) {
  // Where the sample type can express the range, the table must agree with even_bins<uint8_t / int8_t>, which the
  // CPU backend's histogram_even uses.
  for (int b : {1, 7, 32, 100, 255}) {
    for (auto [lo, hi] : {std::pair{0, 255}, std::pair{10, 200}, std::pair{100, 101}, std::pair{3, 250}}) {
      const auto bins = ghist::make_even_bins<std::uint8_t>(std::uint8_t(lo), std::uint8_t(hi), b);
      const auto table = byte_bin_table(false, b, lo, hi);
      for (int raw = 0; raw < 256; ++raw) EXPECT_EQ(table[raw], bins(std::uint8_t(raw)));
    }
    for (auto [lo, hi] : {std::pair{-128, 127}, std::pair{-100, 50}, std::pair{-10, 10}, std::pair{0, 127}}) {
      const auto bins = ghist::make_even_bins<std::int8_t>(std::int8_t(lo), std::int8_t(hi), b);
      const auto table = byte_bin_table(true, b, lo, hi);
      for (int raw = 0; raw < 256; ++raw) EXPECT_EQ(table[raw], bins(static_cast<std::int8_t>(std::uint8_t(raw))));
    }
  }
}

TEST(ByteBinTable, RangesOutsideTheSamplesDropEverything) {
  const auto below = byte_bin_table(false, 16, -50, 0);
  const auto above = byte_bin_table(true, 16, 128, 1000);
  for (int raw = 0; raw < 256; ++raw) {
    EXPECT_EQ(below[raw], -1);
    EXPECT_EQ(above[raw], -1);
  }
}

TEST(ByteBinTable, RejectsBadArguments) {
  expect_ghist_error([] { byte_bin_table(false, 0, 0, 256); }, "num_bins");
  expect_ghist_error([] { byte_bin_table(false, 257, 0, 256); }, "num_bins");
  expect_ghist_error([] { byte_bin_table(false, -3, 0, 256); }, "num_bins");
  expect_ghist_error([] { byte_bin_table(true, 8, 5, 5); }, "lower < upper");
  expect_ghist_error([] { byte_bin_table(true, 8, 6, 5); }, "lower < upper");
}

TEST(ByteMethod, AutomaticResolvesToAMethod) {
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1) << 20, std::int64_t(1) << 30,
                         std::int64_t(1) << 40}) {
    const auto m = ghist::resolve_byte_method(ghist::byte_method::automatic, n);
    EXPECT_TRUE(m == ghist::byte_method::packed_counters || m == ghist::byte_method::shared_atomics) << n;
    EXPECT_EQ(ghist::resolve_byte_method(ghist::byte_method::packed_counters, n), ghist::byte_method::packed_counters);
    EXPECT_EQ(ghist::resolve_byte_method(ghist::byte_method::shared_atomics, n), ghist::byte_method::shared_atomics);
  }
  // The measured rule (resolve_byte_method): data-independent counters for large inputs.
  EXPECT_EQ(ghist::resolve_byte_method(ghist::byte_method::automatic, ghist::packed_counters_min_bytes),
            ghist::byte_method::packed_counters);
  EXPECT_EQ(ghist::resolve_byte_method(ghist::byte_method::automatic, ghist::packed_counters_min_bytes - 1),
            ghist::byte_method::shared_atomics);
  EXPECT_STREQ(ghist::to_string(ghist::byte_method::packed_counters), "packed_counters");
  EXPECT_STREQ(ghist::to_string(ghist::byte_method::shared_atomics), "shared_atomics");
  EXPECT_STREQ(ghist::to_string(ghist::byte_method::automatic), "automatic");
}

// These checks run before any CUDA call, so they hold without a GPU (the pointers are never touched).
TEST(ByteHistogramArguments, CheckedBeforeAnyCudaCall) {
  const std::uint8_t* u = nullptr;
  const std::int8_t* s = nullptr;
  std::uint32_t* hist = nullptr;
  expect_ghist_error([&] { ghist::byte_histogram_even_async(u, 10, hist, 0, 0, 256); }, "num_bins");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(s, 10, hist, 300, -128, 128); }, "num_bins");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(u, 10, hist, 16, 200, 100); }, "lower < upper");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(u, -1, hist, 16, 0, 256); }, "n must be >= 0");
  expect_ghist_error(
      [&] {
        ghist::byte_histogram_even_async(u, 10, hist, 16, 0, 256, 0, {}, static_cast<ghist::byte_method>(7));
      },
      "method");
  ghist::options bad_mode;
  bad_mode.how = static_cast<ghist::mode>(5);
  expect_ghist_error([&] { ghist::byte_histogram_even_async(s, 10, hist, 16, -128, 128, 0, bad_mode); },
                     "options.how");
}

}  // namespace
