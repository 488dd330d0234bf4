// Host tests of cpu_fused.hpp: k histograms in one pass against k plain sequential loops on random data (sizes 0,
// 1, small and multi-threaded, both modes, both parallel paths), the element form, and argument errors that leave
// every dest untouched.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ghist/cpu.hpp"
#include "ghist/cpu_fused.hpp"

namespace {

constexpr std::int64_t H1 = 37, H2 = 5, H3 = 1000;

struct inputs {
  std::vector<std::int64_t> b1, b2, b3;  // bins, some out of range for each target independently
  std::vector<std::int64_t> v1;
  std::vector<double> v2;  // integer-valued: sums exact in any order
  std::vector<std::uint32_t> v3;
};

inputs make_inputs(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  inputs in;
  for (std::int64_t i = 0; i < n; ++i) {
    in.b1.push_back(static_cast<std::int64_t>(r() % (H1 + 4)) - 2);
    in.b2.push_back(r() % 7 == 0 ? ghist::no_bin : static_cast<std::int64_t>(r() % H2));
    in.b3.push_back(static_cast<std::int64_t>(r() % (H3 + 50)));
    in.v1.push_back(static_cast<std::int64_t>(r() % 2001) - 1000);
    in.v2.push_back(static_cast<double>(static_cast<std::int64_t>(r() % 201) - 100));
    in.v3.push_back(static_cast<std::uint32_t>(r()));
  }
  return in;
}

template <class Op, class T>
void sequential(const std::vector<std::int64_t>& bins, const std::vector<T>& values, std::vector<T>& hist, Op op) {
  for (std::size_t i = 0; i < bins.size(); ++i)
    if (bins[i] >= 0 && bins[i] < static_cast<std::int64_t>(hist.size())) hist[bins[i]] = op(hist[bins[i]], values[i]);
}

TEST(CpuFused, MatchesSequentialLoops) {
  std::uint64_t seed = 1;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(1000),
                         3 * ghist::cpu::detail::min_inputs_per_thread + 5}) {
    const inputs in = make_inputs(n, seed++);
    for (int threads : {1, 2, 3, 0}) {
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        for (std::size_t budget : {ghist::cpu::detail::sub_histogram_budget_bytes, std::size_t(0)}) {
          const std::string where = "n=" + std::to_string(n) + " threads=" + std::to_string(threads) +
                                    " budget=" + std::to_string(budget) +
                                    (how == ghist::mode::overwrite ? " overwrite" : " accumulate");
          std::vector<std::int64_t> h1(H1, 7), r1(H1, 7);
          std::vector<double> h2(H2, -3.0), r2(H2, -3.0);
          std::vector<std::uint32_t> h3(H3, 0xABCDu), r3(H3, 0xABCDu);
          if (how == ghist::mode::overwrite) {
            std::fill(r1.begin(), r1.end(), 0);
            std::fill(r2.begin(), r2.end(), -std::numeric_limits<double>::infinity());
            std::fill(r3.begin(), r3.end(), 0u);
          }
          sequential(in.b1, in.v1, r1, ghist::plus<std::int64_t>{});
          sequential(in.b2, in.v2, r2, ghist::max<double>{});
          sequential(in.b3, in.v3, r3, ghist::bit_xor<std::uint32_t>{});
          auto targets = std::make_tuple(ghist::make_target(ghist::plus<std::int64_t>{}, h1.data(), H1),
                                         ghist::make_target(ghist::max<double>{}, h2.data(), H2),
                                         ghist::make_target(ghist::bit_xor<std::uint32_t>{}, h3.data(), H3));
          auto f = [&](std::int64_t i) {
            return std::make_tuple(ghist::bin_update<std::int64_t>{in.b1[i], in.v1[i]},
                                   ghist::bin_update<double>{in.b2[i], in.v2[i]},
                                   ghist::bin_update<std::uint32_t>{in.b3[i], in.v3[i]});
          };
          ghist::cpu::detail::run_fused(n, f, targets, how, threads, budget);
          EXPECT_EQ(h1, r1) << where;
          EXPECT_EQ(h2, r2) << where;
          EXPECT_EQ(h3, r3) << where;
        }
      }
    }
  }
}

// Floating-point sums with rounding: each target equals generalized_histogram_indexed alone with the same threads.
TEST(CpuFused, EachTargetEqualsTheSingleHistogramForTheSameThreadCount) {
  const std::int64_t n = 4 * ghist::cpu::detail::min_inputs_per_thread + 11;
  std::mt19937_64 r(77);
  std::vector<std::int64_t> b(n);
  std::vector<float> v(n);
  for (std::int64_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::int64_t>(r() % 300);
    v[i] = static_cast<float>(r() % 1000003) * 1e-3f;
  }
  for (int threads : {1, 2, 4}) {
    std::vector<float> a(300), c(64), single_a(300), single_c(64);
    auto f = [&](std::int64_t i) {
      return std::make_tuple(ghist::bin_update<float>{b[i], v[i]}, ghist::bin_update<float>{b[i] % 64, v[i] * 0.5f});
    };
    ghist::cpu::fused_histogram_indexed(
        n, f,
        std::make_tuple(ghist::make_target(ghist::plus<float>{}, a.data(), 300),
                        ghist::make_target(ghist::plus<float>{}, c.data(), 64)),
        ghist::mode::overwrite, threads);
    ghist::cpu::generalized_histogram_indexed(
        n, [&](std::int64_t i) { return ghist::bin_update<float>{b[i], v[i]}; }, ghist::plus<float>{},
        single_a.data(), 300, ghist::mode::overwrite, threads);
    ghist::cpu::generalized_histogram_indexed(
        n, [&](std::int64_t i) { return ghist::bin_update<float>{b[i] % 64, v[i] * 0.5f}; }, ghist::plus<float>{},
        single_c.data(), 64, ghist::mode::overwrite, threads);
    EXPECT_EQ(a, single_a) << "threads=" << threads;
    EXPECT_EQ(c, single_c) << "threads=" << threads;
  }
}

TEST(CpuFused, ElementFormCountsAndSumsInOnePass) {
  std::vector<int> input(100001);
  std::mt19937_64 r(5);
  for (auto& x : input) x = static_cast<int>(r() % 1000) - 100;  // some negative: out of range for both
  std::vector<std::int32_t> counts(10), ref_counts(10);
  std::vector<std::int64_t> sums(1000), ref_sums(1000);
  for (int x : input) {
    if (x >= 0) ref_counts[x / 100]++;
    if (x >= 0) ref_sums[x] += x;
  }
  std::int64_t calls = 0;
  ghist::cpu::fused_histogram(
      input.data(), static_cast<std::int64_t>(input.size()),
      [&calls](int x) {
        ++calls;  // one thread: one call per input
        return std::make_tuple(ghist::bin_update<std::int32_t>{x < 0 ? ghist::no_bin : x / 100, 1},
                               ghist::bin_update<std::int64_t>{x, x});
      },
      std::make_tuple(ghist::make_target(ghist::plus<std::int32_t>{}, counts.data(), 10),
                      ghist::make_target(ghist::plus<std::int64_t>{}, sums.data(), 1000)),
      ghist::mode::overwrite, 1);
  EXPECT_EQ(calls, static_cast<std::int64_t>(input.size()));
  EXPECT_EQ(counts, ref_counts);
  EXPECT_EQ(sums, ref_sums);
}

TEST(CpuFused, ErrorsNameTheArgumentAndLeaveEveryDestUntouched) {
  std::vector<std::int32_t> a(8, 42);
  std::vector<float> b(4, 42.0f);
  auto f = [](std::int64_t i) {
    return std::make_tuple(ghist::bin_update<std::int32_t>{i, 1}, ghist::bin_update<float>{i, 1.0f});
  };
  auto expect_error = [&](auto call, const std::string& needle) {
    ghist_test::expect_ghist_error(call, needle);
    EXPECT_EQ(a, std::vector<std::int32_t>(8, 42)) << needle;
    EXPECT_EQ(b, std::vector<float>(4, 42.0f)) << needle;
  };
  auto good_a = ghist::make_target(ghist::plus<std::int32_t>{}, a.data(), 8);
  auto good_b = ghist::make_target(ghist::plus<float>{}, b.data(), 4);
  expect_error([&] { ghist::cpu::fused_histogram_indexed(-1, f, std::make_tuple(good_a, good_b)); }, "n must be");
  expect_error([&] { ghist::cpu::fused_histogram_indexed(3, f, std::make_tuple(good_a, good_b), ghist::mode::overwrite, -1); },
               "threads");
  expect_error(
      [&] {
        ghist::cpu::fused_histogram_indexed(
            3, f, std::make_tuple(good_a, ghist::make_target(ghist::plus<float>{}, b.data(), 0)));
      },
      "targets[1].num_bins");
  expect_error(
      [&] {
        ghist::cpu::fused_histogram_indexed(
            3, f, std::make_tuple(good_a, ghist::make_target(ghist::plus<float>{}, nullptr, 4)));
      },
      "targets[1].dest");
  expect_error(
      [&] {
        ghist::cpu::fused_histogram_indexed(
            3, f, std::make_tuple(ghist::make_target(ghist::plus<std::int32_t>{}, a.data(), -2), good_b));
      },
      "targets[0].num_bins");
  expect_error(
      [&] {
        ghist::cpu::fused_histogram(static_cast<const int*>(nullptr), 3,
                                    [](int x) {
                                      return std::make_tuple(ghist::bin_update<std::int32_t>{x, 1},
                                                             ghist::bin_update<float>{x, 1.0f});
                                    },
                                    std::make_tuple(good_a, good_b));
      },
      "input is null");
}

}  // namespace
