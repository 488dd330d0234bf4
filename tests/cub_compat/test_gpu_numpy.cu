// The GPU NumPy mode (numpy_histogram_gpu) against ghist::cpu::numpy_histogram: counts and edges exactly, weighted
// sums and densities to a tolerance (the summation order differs), the same errors with the same messages.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/numpy_histogram_gpu.cuh"
#include "test_support.cuh"

namespace {

using ghist_test::device_buffer;

template <class T>
std::vector<T> numpy_samples(int kind, std::int64_t n, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::normal_distribution<double> normal(3.0, 10.0);
  for (std::int64_t i = 0; i < n; ++i) {
    double x = normal(rng);
    if (kind == 1) x = 7.0;                                     // one value: the +-0.5 range
    if (kind == 2) x = static_cast<double>(i % 101) - 50;       // values on the edges
    v[static_cast<std::size_t>(i)] = static_cast<T>(std::is_integral_v<T> ? std::floor(x) : x);
  }
  return v;
}

template <class T>
class CubCompatGpuNumpy : public ::testing::Test {};
using numpy_types = ::testing::Types<float, double, std::int32_t, std::int64_t, std::uint8_t, std::int16_t>;
TYPED_TEST_SUITE(CubCompatGpuNumpy, numpy_types);

TYPED_TEST(CubCompatGpuNumpy, MatchesCpuReference) {
  using T = TypeParam;
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(4099), std::int64_t(300007)})
    for (int kind : {0, 1, 2})
      for (std::int64_t bins : {std::int64_t(1), std::int64_t(10), std::int64_t(1001)})
        for (bool given : {false, true}) {
          SCOPED_TRACE("n " + std::to_string(n) + " kind " + std::to_string(kind) + " bins " + std::to_string(bins));
          const auto a = numpy_samples<T>(kind, n, rng);
          device_buffer<T> d_a(a);
          std::optional<std::pair<double, double>> range;
          if (given) range = std::make_pair(-20.0, 25.5);
          const auto want = ghist::cpu::numpy_histogram(a.data(), n, bins, range);
          const auto got = ghist::numpy_histogram_gpu(d_a.get(), n, bins, range);
          ASSERT_EQ(got.edges, want.edges);
          ASSERT_EQ(got.counts, want.counts);
          ASSERT_EQ(got.values, want.values);
          // Weighted and density: the same bins, sums to a relative tolerance.
          std::vector<double> w(static_cast<std::size_t>(n));
          std::uniform_real_distribution<double> uw(-1.0, 2.0);
          for (double& x : w) x = uw(rng);
          device_buffer<double> d_w(w);
          for (bool density : {false, true}) {
            const auto want_w = ghist::cpu::numpy_histogram(a.data(), n, bins, range, w.data(), density);
            const auto got_w = ghist::numpy_histogram_gpu(d_a.get(), n, bins, range, d_w.get(), density);
            ASSERT_EQ(got_w.values.size(), want_w.values.size());
            for (std::size_t b = 0; b < want_w.values.size(); ++b) {
              const double tol = 1e-9 * (1.0 + std::fabs(want_w.values[b])) * (1.0 + std::sqrt(double(n)));
              if (std::isnan(want_w.values[b])) EXPECT_TRUE(std::isnan(got_w.values[b])) << b;
              else EXPECT_NEAR(got_w.values[b], want_w.values[b], tol) << "bin " << b << " density " << density;
            }
          }
          // Integer weights: exact.
          std::vector<std::int64_t> iw(static_cast<std::size_t>(n));
          for (auto& x : iw) x = static_cast<std::int64_t>(rng() % 1000) - 300;
          device_buffer<std::int64_t> d_iw(iw);
          EXPECT_EQ(ghist::numpy_histogram_gpu(d_a.get(), n, bins, range, d_iw.get()).values,
                    ghist::cpu::numpy_histogram(a.data(), n, bins, range, iw.data()).values);
        }
}

/// The CPU version's message for a call, or "" when it does not throw.
template <class Call>
std::string message_of(Call&& call) {
  try {
    call();
  } catch (const ghist::error& e) {
    return e.what();
  }
  return "";
}

TEST(CubCompatGpuNumpyErrors, SameErrorsAsCpu) {
  const std::vector<double> a = {1.0, NAN, 3.0};
  const std::vector<double> inf = {1.0, INFINITY};
  device_buffer<double> d_a(a), d_inf(inf);
  auto same = [](auto cpu_call, auto gpu_call) {
    const std::string want = message_of(cpu_call), got = message_of(gpu_call);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(got, want);
  };
  same([&] { ghist::cpu::numpy_histogram(a.data(), 3, 4); }, [&] { ghist::numpy_histogram_gpu(d_a.get(), 3, 4); });
  same([&] { ghist::cpu::numpy_histogram(inf.data(), 2, 4); },
       [&] { ghist::numpy_histogram_gpu(d_inf.get(), 2, 4); });
  same([&] { ghist::cpu::numpy_histogram(a.data(), 3, 0); }, [&] { ghist::numpy_histogram_gpu(d_a.get(), 3, 0); });
  same([&] { ghist::cpu::numpy_histogram(a.data(), 3, 4, std::make_pair(2.0, 1.0)); },
       [&] { ghist::numpy_histogram_gpu(d_a.get(), 3, 4, std::make_pair(2.0, 1.0)); });
  same([&] { ghist::cpu::numpy_histogram(a.data(), 3, 4, std::make_pair(0.0, double(INFINITY))); },
       [&] { ghist::numpy_histogram_gpu(d_a.get(), 3, 4, std::make_pair(0.0, double(INFINITY))); });
  // NaN with a given range is ignored, as in NumPy.
  EXPECT_EQ(ghist::numpy_histogram_gpu(d_a.get(), 3, 2, std::make_pair(0.0, 4.0)).counts,
            (std::vector<std::int64_t>{1, 1}));
  // A host pointer is refused before any work.
  EXPECT_FALSE(message_of([&] { ghist::numpy_histogram_gpu(a.data(), 3, 4, std::make_pair(0.0, 4.0)); }).empty());
}

}  // namespace
