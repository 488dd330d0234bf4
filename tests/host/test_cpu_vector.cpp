// Host tests of cpu_vector.hpp: vector-valued bins (d components, a scalar operator per component) against a plain
// sequential loop on random data (sizes 0, 1, small and multi-threaded, both modes, both parallel paths), the
// k-means centroid sum (1024 clusters x 256 dimensions, and 5 clusters), the record form, and argument errors.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ghist/cpu_vector.hpp"

namespace {

template <class Op, class T>
std::vector<T> sequential(const std::vector<std::int64_t>& bins, const std::vector<T>& comps, std::int64_t d,
                          std::vector<T> hist, Op op) {
  const std::int64_t H = static_cast<std::int64_t>(hist.size()) / d;
  for (std::size_t i = 0; i < bins.size(); ++i)
    if (bins[i] >= 0 && bins[i] < H)
      for (std::int64_t c = 0; c < d; ++c) hist[bins[i] * d + c] = op(hist[bins[i] * d + c], comps[i * d + c]);
  return hist;
}

template <class Op>
void check_random(std::uint64_t seed) {
  using T = typename Op::value_type;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(7), 3 * ghist::cpu::detail::min_inputs_per_thread + 1}) {
    for (std::int64_t d : {1, 3, 17}) {
      if (n > 1000 && d == 17) continue;
      for (std::int64_t H : {1, 5, 300}) {
        std::mt19937_64 r(seed++);
        std::vector<std::int64_t> bins(n);
        std::vector<T> comps(n * d);
        for (auto& b : bins) b = static_cast<std::int64_t>(r() % (H + 2)) - 1;
        for (auto& c : comps) c = static_cast<T>(static_cast<std::int64_t>(r() % 20001) - 10000);
        std::vector<T> prefill(H * d);
        for (auto& p : prefill) p = static_cast<T>(static_cast<std::int64_t>(r() % 2001) - 1000);
        for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
          const std::vector<T> ref = sequential(
              bins, comps, d, how == ghist::mode::overwrite ? std::vector<T>(H * d, Op::identity()) : prefill, Op{});
          for (int threads : {1, 3, 0}) {
            for (std::size_t budget : {ghist::cpu::detail::sub_histogram_budget_bytes, std::size_t(0)}) {
              std::vector<T> dest = prefill;
              auto f = [&](std::int64_t i, T* v) {
                std::copy(&comps[i * d], &comps[i * d] + d, v);
                return bins[i];
              };
              ghist::cpu::detail::run_vector(n, d, f, Op{}, dest.data(), H, how, threads, budget);
              ASSERT_EQ(dest, ref) << "n=" << n << " d=" << d << " H=" << H << " threads=" << threads
                                   << " budget=" << budget;
            }
          }
        }
      }
    }
  }
}

TEST(CpuVector, PlusInt64MatchesSequentialLoop) { check_random<ghist::plus<std::int64_t>>(1); }
TEST(CpuVector, MinFloatMatchesSequentialLoop) { check_random<ghist::min<float>>(100); }  // min: exact in any order

// k-means centroid sums: bin = nearest centroid, components = the point; then centroid = sum / count.
void check_kmeans(std::int64_t K, std::int64_t D, std::int64_t n, int threads, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::uniform_real_distribution<float> uni(-10.0f, 10.0f);
  std::vector<float> centroids(K * D), points(n * D);
  for (auto& c : centroids) c = uni(r);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = static_cast<std::int64_t>(r() % K);
    for (std::int64_t c = 0; c < D; ++c) points[i * D + c] = centroids[k * D + c] + noise(r);
  }
  auto nearest = [&](const float* p) {
    std::int64_t best = 0;
    float best_d = std::numeric_limits<float>::infinity();
    for (std::int64_t k = 0; k < K; ++k) {
      float s = 0;
      for (std::int64_t c = 0; c < D; ++c) {
        const float t = p[c] - centroids[k * D + c];
        s += t * t;
      }
      if (s < best_d) best_d = s, best = k;
    }
    return best;
  };
  std::vector<std::int64_t> label(n);
  for (std::int64_t i = 0; i < n; ++i) label[i] = nearest(&points[i * D]);
  std::vector<double> ref_sum(K * D, 0.0);
  std::vector<std::int64_t> ref_count(K, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    ++ref_count[label[i]];
    for (std::int64_t c = 0; c < D; ++c) ref_sum[label[i] * D + c] += points[i * D + c];
  }
  // Sums (records form, the bin computed from the record) and counts (index form, d = 1).
  std::vector<float> sum(K * D, 123.0f);
  ghist::cpu::vector_histogram_records(points.data(), n, D, nearest, ghist::plus<float>{}, sum.data(), K,
                                       ghist::mode::overwrite, threads);
  std::vector<std::int64_t> count(K, 5);
  ghist::cpu::vector_histogram(
      n, 1,
      [&](std::int64_t i, std::int64_t* v) {
        v[0] = 1;
        return label[i];
      },
      ghist::plus<std::int64_t>{}, count.data(), K, ghist::mode::overwrite, threads);
  EXPECT_EQ(count, ref_count);
  for (std::int64_t j = 0; j < K * D; ++j) {
    ASSERT_NEAR(sum[j], ref_sum[j], 1e-4 * (1.0 + std::abs(ref_sum[j])) + 1e-3) << "component " << j;
    if (ref_count[j / D] > 0) {
      EXPECT_NEAR(sum[j] / ref_count[j / D], ref_sum[j] / ref_count[j / D], 1e-3) << "centroid component " << j;
    }
  }
  // The same thread count gives the same bits.
  std::vector<float> again(K * D);
  ghist::cpu::vector_histogram_records(points.data(), n, D, nearest, ghist::plus<float>{}, again.data(), K,
                                       ghist::mode::overwrite, threads);
  EXPECT_EQ(again, sum);
}

TEST(CpuVector, KMeansCentroidSum1024ClustersBy256Dims) { check_kmeans(1024, 256, 600, 0, 11); }
TEST(CpuVector, KMeansCentroidSum5Clusters) {
  for (int threads : {1, 2, 4}) check_kmeans(5, 3, 300000, threads, 12);
}

TEST(CpuVector, ErrorsNameTheArgumentAndLeaveDestUntouched) {
  std::vector<int> dest(12, 42);
  auto f = [](std::int64_t i, int* v) {
    v[0] = 1;
    return i;
  };
  auto expect_error = [&](auto call, const std::string& needle) {
    ghist_test::expect_ghist_error(call, needle);
    EXPECT_EQ(dest, std::vector<int>(12, 42)) << needle;
  };
  using P = ghist::plus<int>;
  expect_error([&] { ghist::cpu::vector_histogram(-1, 3, f, P{}, dest.data(), 4); }, "n must be");
  expect_error([&] { ghist::cpu::vector_histogram(3, 0, f, P{}, dest.data(), 4); }, "d must be");
  expect_error([&] { ghist::cpu::vector_histogram(3, 3, f, P{}, dest.data(), 0); }, "num_bins must be");
  expect_error([&] { ghist::cpu::vector_histogram(3, 3, f, P{}, nullptr, 4); }, "dest is null");
  expect_error([&] { ghist::cpu::vector_histogram(3, 3, f, P{}, dest.data(), 4, ghist::mode::overwrite, -2); },
               "threads");
  expect_error(
      [&] { ghist::cpu::vector_histogram(3, std::int64_t(1) << 40, f, P{}, dest.data(), std::int64_t(1) << 30); },
      "overflows");
  expect_error(
      [&] {
        ghist::cpu::vector_histogram_records(static_cast<const int*>(nullptr), 2, 3, [](const int*) { return 0; },
                                             P{}, dest.data(), 4);
      },
      "input is null");
}

}  // namespace
