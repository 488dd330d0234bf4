// Host tests of cpu_batched.hpp: equal and variable-length segments against a plain sequential loop per segment
// (sizes 0 and 1, short and long segments, both modes), each row equal to generalized_histogram_indexed on its
// segment with the same threads, the tpacf shape (2 x 100 histograms of 22 bins), and argument errors.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ghist/cpu.hpp"
#include "ghist/cpu_batched.hpp"

namespace {

// Inputs stored back to back; segment s is [start[s], start[s + 1]).
std::vector<std::int64_t> sequential(const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& bins,
                                     const std::vector<std::int64_t>& values, std::int64_t H,
                                     std::vector<std::int64_t> hist) {
  for (std::size_t s = 0; s + 1 < start.size(); ++s)
    for (std::int64_t i = start[s]; i < start[s + 1]; ++i)
      if (bins[i] >= 0 && bins[i] < H) hist[s * H + bins[i]] += values[i];
  return hist;
}

void check(const std::vector<std::int64_t>& start, std::int64_t H, bool equal, std::uint64_t seed) {
  const std::int64_t S = static_cast<std::int64_t>(start.size()) - 1, n = start.back();
  std::mt19937_64 r(seed);
  std::vector<std::int64_t> bins(n), values(n), prefill(S * H);
  for (auto& b : bins) b = static_cast<std::int64_t>(r() % (H + 3)) - 1;
  for (auto& v : values) v = static_cast<std::int64_t>(r() % 1001) - 500;
  for (auto& p : prefill) p = static_cast<std::int64_t>(r() % 1001);
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    const auto ref = sequential(start, bins, values, H,
                                how == ghist::mode::overwrite ? std::vector<std::int64_t>(S * H, 0) : prefill);
    for (int threads : {1, 3, 0}) {
      std::vector<std::int64_t> dest = prefill;
      auto f = [&](std::int64_t s, std::int64_t j) {
        return ghist::bin_update<std::int64_t>{bins[start[s] + j], values[start[s] + j]};
      };
      if (equal) {
        const std::int64_t len = S == 0 ? 0 : start[1];
        ghist::cpu::batched_histogram(S, len, f, ghist::plus<std::int64_t>{}, dest.data(), H, how, threads);
      } else {
        std::vector<std::int32_t> off32(start.begin(), start.end());
        ghist::cpu::batched_histogram_offsets(off32.data(), S, f, ghist::plus<std::int64_t>{}, dest.data(), H, how,
                                              threads);
        ASSERT_EQ(dest, ref) << "int32 offsets S=" << S << " H=" << H << " threads=" << threads;
        dest = prefill;
        ghist::cpu::batched_histogram_offsets(start.data(), S, f, ghist::plus<std::int64_t>{}, dest.data(), H, how,
                                              threads);
      }
      ASSERT_EQ(dest, ref) << (equal ? "equal" : "offsets") << " S=" << S << " n=" << n << " H=" << H
                           << " threads=" << threads;
    }
  }
}

std::vector<std::int64_t> equal_starts(std::int64_t S, std::int64_t len) {
  std::vector<std::int64_t> st(S + 1);
  for (std::int64_t s = 0; s <= S; ++s) st[s] = s * len;
  return st;
}

TEST(CpuBatched, EqualSegmentsMatchSequentialLoops) {
  std::uint64_t seed = 1;
  const std::int64_t big = 3 * ghist::cpu::detail::min_inputs_per_thread + 7;
  for (std::int64_t H : {1, 22, 1000}) {
    for (auto [S, len] : {std::pair<std::int64_t, std::int64_t>{0, 5}, {1, 0}, {1, 1}, {5, 0}, {5, 1}, {200, 100},
                          {3000, 50}, {2, big}})
      check(equal_starts(S, len), H, true, seed++);
  }
}

TEST(CpuBatched, VariableSegmentsMatchSequentialLoops) {
  std::uint64_t seed = 100;
  std::mt19937_64 r(9);
  const std::int64_t big = 2 * ghist::cpu::detail::min_inputs_per_thread + 1;
  for (std::int64_t H : {1, 22, 1000}) {
    for (int shape = 0; shape < 4; ++shape) {
      std::vector<std::int64_t> st{0};
      const int S = shape == 0 ? 0 : shape == 1 ? 1 : 500;
      for (int s = 0; s < S; ++s) {
        std::int64_t len = static_cast<std::int64_t>(r() % 3 == 0 ? 0 : r() % 400);
        if (shape == 3 && (s == 7 || s == 300)) len = big;  // long segments among short ones
        st.push_back(st.back() + len);
      }
      check(st, H, false, seed++);
    }
  }
}

// Each row is exactly generalized_histogram_indexed on its segment with the same threads (float sums included).
TEST(CpuBatched, RowsEqualSingleHistogramsForTheSameThreadCount) {
  const std::int64_t big = 4 * ghist::cpu::detail::min_inputs_per_thread + 3;
  const std::vector<std::int64_t> st{0, 10, big + 10, big + 10, big + 500, 2 * big + 500};
  std::mt19937_64 r(3);
  std::vector<float> v(st.back());
  for (auto& x : v) x = static_cast<float>(r() % 100003) * 1e-3f;
  const std::int64_t H = 97;
  for (int threads : {1, 2, 4}) {
    std::vector<float> dest((st.size() - 1) * H);
    auto f = [&](std::int64_t s, std::int64_t j) {
      const std::int64_t i = st[s] + j;
      return ghist::bin_update<float>{(i * 31) % H, v[i]};
    };
    ghist::cpu::batched_histogram_offsets(st.data(), static_cast<std::int64_t>(st.size()) - 1, f,
                                          ghist::plus<float>{}, dest.data(), H, ghist::mode::overwrite, threads);
    for (std::size_t s = 0; s + 1 < st.size(); ++s) {
      std::vector<float> row(H);
      ghist::cpu::generalized_histogram_indexed(
          st[s + 1] - st[s], [&](std::int64_t j) { return f(static_cast<std::int64_t>(s), j); },
          ghist::plus<float>{}, row.data(), H, ghist::mode::overwrite, threads);
      EXPECT_EQ(std::vector<float>(dest.begin() + s * H, dest.begin() + (s + 1) * H), row)
          << "segment " << s << " threads " << threads;
    }
  }
}

// tpacf's shape: 2 x 100 histograms of 22 angular bins (log-spaced in the angle), one per (set, chunk) segment.
TEST(CpuBatched, TpacfShape2x100Histograms22Bins) {
  const std::int64_t S = 200, len = 2000, H = 22;
  std::mt19937_64 r(21);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> dots(S * len);
  for (auto& d : dots) d = u(r);
  // Bin edges: cos of log-spaced angles from 0.01 to 180 degrees (bins of decreasing cosine).
  std::vector<double> edges(H + 1);
  for (std::int64_t k = 0; k <= H; ++k)
    edges[k] = std::cos(0.01 * std::pow(180.0 / 0.01, double(k) / H) * 3.14159265358979323846 / 180.0);
  auto bin_of = [&](double d) -> std::int64_t {
    for (std::int64_t k = 0; k < H; ++k)
      if (d <= edges[k] && d > edges[k + 1]) return k;
    return ghist::no_bin;
  };
  std::vector<std::uint64_t> ref(S * H, 0), dest(S * H, 9);
  for (std::int64_t s = 0; s < S; ++s)
    for (std::int64_t j = 0; j < len; ++j) {
      std::int64_t b = bin_of(dots[s * len + j]);
      if (b >= 0) ++ref[s * H + b];
    }
  ghist::cpu::batched_histogram(
      S, len,
      [&](std::int64_t s, std::int64_t j) { return ghist::bin_update<std::uint64_t>{bin_of(dots[s * len + j]), 1}; },
      ghist::plus<std::uint64_t>{}, dest.data(), H);
  EXPECT_EQ(dest, ref);
}

TEST(CpuBatched, ErrorsNameTheArgumentAndLeaveDestUntouched) {
  std::vector<int> dest(12, 42);
  auto f = [](std::int64_t, std::int64_t j) { return ghist::bin_update<int>{j, 1}; };
  auto expect_error = [&](auto call, const std::string& needle) {
    ghist_test::expect_ghist_error(call, needle);
    EXPECT_EQ(dest, std::vector<int>(12, 42)) << needle;
  };
  using P = ghist::plus<int>;
  expect_error([&] { ghist::cpu::batched_histogram(-1, 3, f, P{}, dest.data(), 4); }, "num_segments must be");
  expect_error([&] { ghist::cpu::batched_histogram(3, -3, f, P{}, dest.data(), 4); }, "segment_length must be");
  expect_error([&] { ghist::cpu::batched_histogram(3, 3, f, P{}, dest.data(), 0); }, "num_bins must be");
  expect_error([&] { ghist::cpu::batched_histogram(3, 3, f, P{}, nullptr, 4); }, "dest is null");
  expect_error([&] { ghist::cpu::batched_histogram(3, 3, f, P{}, dest.data(), 4, ghist::mode::overwrite, -1); },
               "threads");
  expect_error([&] { ghist::cpu::batched_histogram(std::int64_t(1) << 40, 3, f, P{}, dest.data(), std::int64_t(1) << 30); },
               "num_segments * num_bins overflows");
  expect_error([&] { ghist::cpu::batched_histogram(3, std::int64_t(1) << 62, f, P{}, dest.data(), 4); },
               "num_segments * segment_length overflows");
  const std::int64_t bad0[] = {1, 2, 3, 4};
  const std::int64_t decreasing[] = {0, 2, 1, 4};
  const std::int64_t good[] = {0, 2, 2, 4};
  expect_error([&] { ghist::cpu::batched_histogram_offsets(bad0, 3, f, P{}, dest.data(), 4); }, "offsets[0] must be 0");
  expect_error([&] { ghist::cpu::batched_histogram_offsets(decreasing, 3, f, P{}, dest.data(), 4); },
               "offsets[2] = 1 < offsets[1] = 2");
  expect_error([&] { ghist::cpu::batched_histogram_offsets(static_cast<const std::int64_t*>(nullptr), 3, f, P{},
                                                           dest.data(), 4); },
               "offsets is null");
  expect_error([&] { ghist::cpu::batched_histogram_offsets(good, 3, f, P{}, nullptr, 4); }, "dest is null");
  expect_error([&] { ghist::cpu::batched_histogram_offsets(good, -1, f, P{}, dest.data(), 4); },
               "num_segments must be");
}

}  // namespace
