// Host tests of ghist::invariant_divisor (invariant_divisor.hpp) against the compiler's / and %: every divisor near a
// power of two (where the multiplier's rounding is tightest), small and random divisors, and numerators at the
// edges (0, d - 1, d, multiples, 2^31, 2^32 - 1) and at random. No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "error_expectations.hpp"
#include "ghist/invariant_divisor.hpp"

namespace {

std::vector<std::uint32_t> numerators_for(std::uint32_t d, std::mt19937& rng) {
  std::vector<std::uint32_t> n = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
  for (std::uint64_t k : {1ull, 2ull, 3ull, 1000ull}) {
    const std::uint64_t q = k * d;  // multiples and their neighbours, where the quotient steps
    if (q <= 0xffffffffull) {
      n.push_back(static_cast<std::uint32_t>(q));
      n.push_back(static_cast<std::uint32_t>(q - 1));
      if (q < 0xffffffffull) n.push_back(static_cast<std::uint32_t>(q + 1));
    }
  }
  const std::uint64_t last = 0xffffffffull / d * d;  // the largest multiple: n near 2^32 - 1
  n.push_back(static_cast<std::uint32_t>(last));
  n.push_back(static_cast<std::uint32_t>(last - 1));
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 64; ++i) n.push_back(any(rng));
  return n;
}

void expect_exact(std::uint32_t d, std::mt19937& rng) {
  const ghist::invariant_divisor div = ghist::invariant_divisor::make(d);
  ASSERT_EQ(div.divisor(), d);
  for (std::uint32_t n : numerators_for(d, rng)) {
    ASSERT_EQ(div.divide(n), n / d) << "n = " << n << ", d = " << d;
    ASSERT_EQ(div.remainder(n), n % d) << "n = " << n << ", d = " << d;
  }
}

TEST(InvariantDivisor, SmallDivisors) {
  std::mt19937 rng(1);
  for (std::uint32_t d = 1; d <= 4096; ++d) expect_exact(d, rng);
}

TEST(InvariantDivisor, AroundPowersOfTwo) {
  std::mt19937 rng(2);
  for (int k = 1; k <= 32; ++k) {
    const std::uint64_t p = std::uint64_t{1} << k;
    for (std::int64_t off = -3; off <= 3; ++off) {
      const std::uint64_t d = p + off;
      if (d >= 1 && d <= 0xffffffffull) expect_exact(static_cast<std::uint32_t>(d), rng);
    }
  }
}

TEST(InvariantDivisor, RandomDivisors) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<std::uint32_t> any(1u, 0xffffffffu);
  std::uniform_int_distribution<int> bits(1, 32);
  for (int i = 0; i < 20000; ++i) {
    const int b = bits(rng);  // divisors of every size, not only the large ones a uniform draw gives
    const std::uint32_t d = b == 32 ? any(rng) : 1u + any(rng) % ((std::uint32_t{1} << b) - 1u);
    expect_exact(d, rng);
  }
}

TEST(InvariantDivisor, EveryNumeratorForSeedGridDivisors) {
  // The divisors of seed 000's grid (H / RF for its H and RF = 1, 63): every 257th numerator over the whole range.
  for (std::uint32_t d : {31u, 127u, 505u, 2048u, 6144u, 12288u, 24576u, 49152u, 196608u, 393216u, 786432u,
                          1572864u, 2u, 8u, 32u, 97u, 195u, 390u, 780u, 3120u, 6241u, 12483u, 24966u}) {
    const ghist::invariant_divisor div = ghist::invariant_divisor::make(d);
    for (std::uint64_t n = 0; n <= 0xffffffffull; n += 257) {
      const auto x = static_cast<std::uint32_t>(n);
      if (div.remainder(x) != x % d) FAIL() << "n = " << x << ", d = " << d;
    }
  }
}

TEST(InvariantDivisor, DefaultDividesByOne) {
  const ghist::invariant_divisor div;
  EXPECT_EQ(div.divisor(), 1u);
  EXPECT_EQ(div.divide(0xffffffffu), 0xffffffffu);
  EXPECT_EQ(div.remainder(12345u), 0u);
}

TEST(InvariantDivisor, DivisorOutsideThe32BitRangeIsAnError) {
  ghist_test::expect_ghist_error([] { (void)ghist::invariant_divisor::make(0); }, "divisor d");
  ghist_test::expect_ghist_error([] { (void)ghist::invariant_divisor::make(-5); }, "got -5");
  ghist_test::expect_ghist_error([] { (void)ghist::invariant_divisor::make(std::int64_t{1} << 32); }, "divisor d");
  EXPECT_EQ(ghist::invariant_divisor::make(0xffffffffll).divisor(), 0xffffffffu);
}

}  // namespace
