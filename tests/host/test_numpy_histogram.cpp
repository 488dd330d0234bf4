// Host tests of numpy_histogram.hpp: NumPy's documented results (even-bin forms, computed by hand), the closed last
// bin, density, weights, the detected range, lo == hi, every NumPy error message, Python's float formatting, and
// the edge-consistency property on random data (double, float, int32, int64; awkward ranges; samples on and next
// to every edge), weighted sums bit-identical to a sequential model of NumPy's block loop for any thread count.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "ghist/numpy_histogram.hpp"

namespace {

using ghist::cpu::numpy_histogram;
using ghist_test::expect_ghist_error;
using range_t = std::optional<std::pair<double, double>>;

// The bin of x by the edges alone: [e[b], e[b+1]) except the last, closed; -1 when outside.
std::int64_t bin_by_edges(const std::vector<double>& e, double x) {
  const std::int64_t H = static_cast<std::int64_t>(e.size()) - 1;
  if (!(x >= e[0] && x <= e[H])) return -1;
  for (std::int64_t b = H - 1; b >= 0; --b)
    if (e[b] <= x) return b;
  return -1;
}

TEST(NumpyHistogram, DocumentedExamples) {
  {
    std::vector<int> a{1, 2, 1};  // np.histogram([1, 2, 1], bins=3, range=(0, 3))
    auto r = numpy_histogram(a.data(), 3, 3, range_t{{0.0, 3.0}});
    EXPECT_EQ(r.counts, (std::vector<std::int64_t>{0, 2, 1}));
    EXPECT_EQ(r.values, (std::vector<double>{0, 2, 1}));
    EXPECT_EQ(r.edges, (std::vector<double>{0, 1, 2, 3}));
  }
  {
    std::vector<std::int64_t> a{0, 1, 2, 3};  // np.histogram(np.arange(4), bins=4, range=(0, 4))
    auto r = numpy_histogram(a.data(), 4, 4, range_t{{0.0, 4.0}});
    EXPECT_EQ(r.counts, (std::vector<std::int64_t>{1, 1, 1, 1}));
    auto d = numpy_histogram(a.data(), 4, 4, range_t{{0.0, 4.0}}, static_cast<const double*>(nullptr), true);
    EXPECT_EQ(d.values, (std::vector<double>{0.25, 0.25, 0.25, 0.25}));
  }
  {
    // np.histogram(np.arange(5), density=True) (bins=10): [0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, 0, 0.5], sums to 1.
    std::vector<double> a{0, 1, 2, 3, 4};
    auto r = numpy_histogram(a.data(), 5, 10, std::nullopt, static_cast<const double*>(nullptr), true);
    const std::vector<double> want{0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, 0, 0.5};
    ASSERT_EQ(r.values.size(), 10u);
    double integral = 0;
    for (std::size_t b = 0; b < 10; ++b) {
      EXPECT_NEAR(r.values[b], want[b], 1e-12) << b;
      integral += r.values[b] * (r.edges[b + 1] - r.edges[b]);
      // NumPy's order of operations: n / width / sum.
      EXPECT_EQ(r.values[b], static_cast<double>(r.counts[b]) / (r.edges[b + 1] - r.edges[b]) / 5.0);
    }
    EXPECT_NEAR(integral, 1.0, 1e-12);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(r.edges[i], i * (4.0 / 10) + 0.0);
    EXPECT_EQ(r.edges[10], 4.0);
  }
}

TEST(NumpyHistogram, LastBinClosedAndOutsideIgnored) {
  std::vector<double> a{0.0, 1.0, 1.0, std::nextafter(1.0, 2.0), -1e-300, std::nan(""), 0.5};
  auto r = numpy_histogram(a.data(), 7, 2, range_t{{0.0, 1.0}});
  EXPECT_EQ(r.counts, (std::vector<std::int64_t>{1, 3}));  // 0.5 opens the last bin, 1.0 closes it
  std::vector<float> f{1.0f, 0.0f};
  auto rf = numpy_histogram(f.data(), 2, 4, range_t{{0.0, 1.0}});
  EXPECT_EQ(rf.counts, (std::vector<std::int64_t>{1, 0, 0, 1}));
}

TEST(NumpyHistogram, Weights) {
  std::vector<int> a{1, 2, 1, 7};
  std::vector<double> w{0.5, 2.0, 0.25, 100.0};
  auto r = numpy_histogram(a.data(), 4, 3, range_t{{0.0, 3.0}}, w.data());
  EXPECT_TRUE(r.counts.empty());
  EXPECT_EQ(r.values, (std::vector<double>{0, 0.75, 2.0}));
  auto d = numpy_histogram(a.data(), 4, 3, range_t{{0.0, 3.0}}, w.data(), true);
  EXPECT_EQ(d.values, (std::vector<double>{0, 0.75 / 1.0 / 2.75, 2.0 / 1.0 / 2.75}));
  std::vector<float> wf{0.5f, 2.0f, 0.25f, 1.0f};
  auto rf = numpy_histogram(a.data(), 4, 3, range_t{{0.0, 3.0}}, wf.data());
  EXPECT_EQ(rf.values, (std::vector<double>{0, 0.75, 2.0}));
  std::vector<std::int32_t> wi{3, -1, 4, 9};
  auto ri = numpy_histogram(a.data(), 4, 3, range_t{{0.0, 3.0}}, wi.data());
  EXPECT_EQ(ri.values, (std::vector<double>{0, 7, -1}));
}

TEST(NumpyHistogram, DetectedRangeEqualBoundsAndEmpty) {
  std::vector<int> a{1, 5, 3};
  auto r = numpy_histogram(a.data(), 3, 2);
  EXPECT_EQ(r.edges, (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(r.counts, (std::vector<std::int64_t>{1, 2}));

  std::vector<double> same{2.0, 2.0};
  auto s = numpy_histogram(same.data(), 2, 1);
  EXPECT_EQ(s.edges, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{2}));
  auto g = numpy_histogram(same.data(), 2, 2, range_t{{2.0, 2.0}});
  EXPECT_EQ(g.edges, (std::vector<double>{1.5, 2.0, 2.5}));
  EXPECT_EQ(g.counts, (std::vector<std::int64_t>{0, 2}));

  // float32 samples: float32 edges, and the +-0.5 applied in float32 (NumPy 2).
  std::vector<float> f{0.1f};
  auto rf = numpy_histogram(f.data(), 1, 1);
  EXPECT_EQ(rf.edges, (std::vector<double>{static_cast<double>(0.1f - 0.5f), static_cast<double>(0.1f + 0.5f)}));
  EXPECT_EQ(rf.counts, (std::vector<std::int64_t>{1}));
  auto rg = numpy_histogram(f.data(), 1, 3, range_t{{0.1, 0.7}});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(rg.edges[i], static_cast<double>(static_cast<float>(i * ((0.7 - 0.1) / 3) + 0.1)));
  EXPECT_EQ(rg.edges[3], static_cast<double>(0.7f));

  auto e = numpy_histogram(static_cast<const double*>(nullptr), 0, 4);
  EXPECT_EQ(e.edges, (std::vector<double>{0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(e.counts, (std::vector<std::int64_t>{0, 0, 0, 0}));
  auto ed = numpy_histogram(static_cast<const double*>(nullptr), 0, 2, std::nullopt,
                            static_cast<const double*>(nullptr), true);
  EXPECT_TRUE(std::isnan(ed.values[0]) && std::isnan(ed.values[1]));  // 0 / width / 0, as NumPy
}

TEST(NumpyHistogram, NumpyErrors) {
  std::vector<double> a{1.0, std::nan(""), 3.0};
  const double inf = std::numeric_limits<double>::infinity();
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2); }, "autodetected range of [nan, nan] is not finite");
  std::vector<double> b{1.0, inf};
  expect_ghist_error([&] { numpy_histogram(b.data(), 2, 2); }, "autodetected range of [1.0, inf] is not finite");
  std::vector<float> c{-std::numeric_limits<float>::infinity(), 2.5f};
  expect_ghist_error([&] { numpy_histogram(c.data(), 2, 2); }, "autodetected range of [-inf, 2.5] is not finite");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2, range_t{{0.0, inf}}); },
                     "supplied range of [0.0, inf] is not finite");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2, range_t{{std::nan(""), 1.0}}); },
                     "supplied range of [nan, 1.0] is not finite");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2, range_t{{inf, 1.0}}); },
                     "max must be larger than min in range parameter.");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2, range_t{{1.0, 0.0}}); },
                     "max must be larger than min in range parameter.");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 0, range_t{{0.0, 1.0}}); },
                     "`bins` must be positive, when an integer");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, -3); }, "`bins` must be positive, when an integer");
  expect_ghist_error([&] { numpy_histogram(a.data(), 3, 2, range_t{{-1e308, 1e308}}); }, "range too wide");
  expect_ghist_error([&] { numpy_histogram(a.data(), -1, 2); }, "n must be >= 0");
  expect_ghist_error([&] { numpy_histogram(static_cast<const double*>(nullptr), 2, 2); }, "a is null");
  // NaN is ignored when the range is given.
  auto r = numpy_histogram(a.data(), 3, 2, range_t{{1.0, 3.0}});
  EXPECT_EQ(r.counts, (std::vector<std::int64_t>{1, 1}));
}

TEST(NumpyHistogram, PythonFloatFormat) {
  using ghist::cpu::detail::python_float;
  EXPECT_EQ(python_float(1.0), "1.0");
  EXPECT_EQ(python_float(0.0), "0.0");
  EXPECT_EQ(python_float(-2.5), "-2.5");
  EXPECT_EQ(python_float(0.1), "0.1");
  EXPECT_EQ(python_float(1234.5), "1234.5");
  EXPECT_EQ(python_float(0.0001), "0.0001");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(1.5e-07), "1.5e-07");
  EXPECT_EQ(python_float(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float(1e16), "1e+16");
  EXPECT_EQ(python_float(-1e20), "-1e+20");
  EXPECT_EQ(python_float(1.7976931348623157e308), "1.7976931348623157e+308");
}

// Every counted sample lies in its bin by the edges; counts equal a brute-force scan of the edges.
template <class Sample>
void check_edge_consistency(const std::vector<Sample>& a, std::int64_t bins, range_t range, int threads) {
  auto r = numpy_histogram(a.data(), static_cast<std::int64_t>(a.size()), bins, range,
                           static_cast<const double*>(nullptr), false, threads);
  ASSERT_EQ(r.edges.size(), static_cast<std::size_t>(bins) + 1);
  for (std::int64_t b = 0; b < bins; ++b) ASSERT_LE(r.edges[b], r.edges[b + 1]);
  std::vector<std::int64_t> want(static_cast<std::size_t>(bins), 0);
  for (Sample x : a) {
    std::int64_t b = bin_by_edges(r.edges, static_cast<double>(x));
    if (b >= 0) ++want[static_cast<std::size_t>(b)];
  }
  EXPECT_EQ(r.counts, want);
}

// Samples on, just below and just above every edge of the given range, plus uniform ones around it.
template <class Sample>
std::vector<Sample> edge_samples(double lo, double hi, std::int64_t bins, std::size_t extra, std::mt19937_64& rng) {
  std::vector<Sample> a;
  const double step = (hi - lo) / static_cast<double>(bins);
  for (std::int64_t i = 0; i <= bins; ++i) {
    double e = static_cast<double>(i) * step + lo;
    if (i == bins) e = hi;
    if constexpr (std::is_floating_point_v<Sample>) {
      Sample s = static_cast<Sample>(e);
      a.push_back(s);
      a.push_back(std::nextafter(s, std::numeric_limits<Sample>::lowest()));
      a.push_back(std::nextafter(s, std::numeric_limits<Sample>::max()));
    } else {
      a.push_back(static_cast<Sample>(std::floor(e)));
      a.push_back(static_cast<Sample>(std::ceil(e)));
      a.push_back(static_cast<Sample>(std::floor(e)) - 1);
      a.push_back(static_cast<Sample>(std::ceil(e)) + 1);
    }
  }
  const double pad = (hi - lo) * 0.1 + 1e-9;
  std::uniform_real_distribution<double> u(lo - pad, hi + pad);
  for (std::size_t i = 0; i < extra; ++i) {
    double v = u(rng);
    a.push_back(std::is_floating_point_v<Sample> ? static_cast<Sample>(v) : static_cast<Sample>(std::llround(v)));
  }
  return a;
}

TEST(NumpyHistogram, EdgeConsistencyFloatingPoint) {
  std::mt19937_64 rng(42);
  const std::vector<std::pair<double, double>> ranges{{0.1, 0.7},   {0.0, 1.0},   {-3.3, 7.1}, {1e-3, 1e-3 + 1e-12},
                                                      {-1e10, 3.7}, {0.3, 0.9},   {1.0, 1.1},  {-0.7, -0.1}};
  for (auto [lo, hi] : ranges)
    for (std::int64_t bins : {1, 3, 7, 10, 49, 1000}) {
      check_edge_consistency(edge_samples<double>(lo, hi, bins, 2000, rng), bins, range_t{{lo, hi}}, 2);
      check_edge_consistency(edge_samples<float>(lo, hi, bins, 2000, rng), bins, range_t{{lo, hi}}, 2);
      check_edge_consistency(edge_samples<double>(lo, hi, bins, 500, rng), bins, std::nullopt, 1);
      check_edge_consistency(edge_samples<float>(lo, hi, bins, 500, rng), bins, std::nullopt, 1);
    }
  // Many samples, several threads: the same counts as one thread.
  auto big = edge_samples<double>(0.1, 0.7, 3, 400000, rng);
  check_edge_consistency(big, 3, range_t{{0.1, 0.7}}, 4);
  auto r1 = numpy_histogram(big.data(), static_cast<std::int64_t>(big.size()), 3, range_t{{0.1, 0.7}},
                            static_cast<const double*>(nullptr), false, 1);
  auto r4 = numpy_histogram(big.data(), static_cast<std::int64_t>(big.size()), 3, range_t{{0.1, 0.7}},
                            static_cast<const double*>(nullptr), false, 4);
  EXPECT_EQ(r1.counts, r4.counts);
}

TEST(NumpyHistogram, EdgeConsistencyIntegers) {
  std::mt19937_64 rng(7);
  const std::vector<std::pair<double, double>> ranges{{0.0, 255.0}, {-100.5, 100.5}, {0.1, 0.7}, {3.0, 1000.0}};
  for (auto [lo, hi] : ranges)
    for (std::int64_t bins : {1, 3, 7, 256, 1000}) {
      check_edge_consistency(edge_samples<std::int32_t>(lo, hi, bins, 2000, rng), bins, range_t{{lo, hi}}, 2);
      check_edge_consistency(edge_samples<std::int64_t>(lo, hi, bins, 2000, rng), bins, std::nullopt, 2);
      check_edge_consistency(edge_samples<std::uint8_t>(0, 255, bins, 500, rng), bins, std::nullopt, 1);
    }
  // int64 beyond 2^53: converted to double as NumPy does.
  std::vector<std::int64_t> big{(std::int64_t(1) << 60) + 1, (std::int64_t(1) << 60) + 3, std::int64_t(1) << 61};
  check_edge_consistency(big, 5, std::nullopt, 1);
  auto r = numpy_histogram(big.data(), 3, 1);
  EXPECT_EQ(r.edges, (std::vector<double>{0x1p60, 0x1p61}));
}

// A sequential model of NumPy's weighted loop: per 65,536-input block, double sums in input order, cast to W.
template <class Sample, class W>
std::vector<W> numpy_weighted_model(const std::vector<Sample>& a, const std::vector<W>& w,
                                    const std::vector<double>& edges) {
  const std::size_t H = edges.size() - 1;
  std::vector<W> hist(H, W(0));
  for (std::size_t b0 = 0; b0 < a.size(); b0 += 65536) {
    std::vector<double> s(H, 0.0);
    for (std::size_t i = b0; i < std::min(a.size(), b0 + 65536); ++i) {
      std::int64_t b = bin_by_edges(edges, static_cast<double>(a[i]));
      if (b >= 0) s[static_cast<std::size_t>(b)] += static_cast<double>(w[i]);
    }
    for (std::size_t b = 0; b < H; ++b) hist[b] = static_cast<W>(hist[b] + static_cast<W>(s[b]));
  }
  return hist;
}

template <class W>
void check_weighted(std::size_t n, std::int64_t bins, int threads, std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<float> a(n);
  std::vector<W> w(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(nd(rng));
    w[i] = static_cast<W>(nd(rng) * 1000.0);
  }
  auto r = numpy_histogram(a.data(), static_cast<std::int64_t>(n), bins, range_t{{-2.0, 2.5}}, w.data(), false,
                           threads);
  auto want = numpy_weighted_model(a, w, r.edges);
  ASSERT_EQ(r.values.size(), want.size());
  for (std::size_t b = 0; b < want.size(); ++b) EXPECT_EQ(r.values[b], static_cast<double>(want[b])) << b;
  auto d = numpy_histogram(a.data(), static_cast<std::int64_t>(n), bins, range_t{{-2.0, 2.5}}, w.data(), true,
                           threads);
  if constexpr (std::is_floating_point_v<W>) {
    double integral = 0, total = 0;
    for (std::size_t b = 0; b < want.size(); ++b) {
      integral += d.values[b] * (r.edges[b + 1] - r.edges[b]);
      total += static_cast<double>(want[b]);
    }
    EXPECT_NEAR(integral, 1.0, 1e-4);
    (void)total;
  }
}

TEST(NumpyHistogram, WeightedMatchesNumpyBlockLoopForAnyThreadCount) {
  std::mt19937_64 rng(3);
  for (int threads : {1, 2, 4}) {
    check_weighted<double>(300000, 37, threads, rng);
    check_weighted<float>(300000, 37, threads, rng);
    check_weighted<std::int64_t>(200000, 5, threads, rng);
    check_weighted<double>(1000, 10, threads, rng);
  }
}

TEST(NumpyHistogram, DensityIntegratesToOne) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::vector<double> a(100000);
  for (auto& x : a) x = nd(rng);
  for (std::int64_t bins : {1, 10, 333}) {
    auto d = numpy_histogram(a.data(), static_cast<std::int64_t>(a.size()), bins, std::nullopt,
                             static_cast<const double*>(nullptr), true);
    double integral = 0;
    for (std::int64_t b = 0; b < bins; ++b) integral += d.values[b] * (d.edges[b + 1] - d.edges[b]);
    EXPECT_NEAR(integral, 1.0, 1e-12);
    std::int64_t total = 0;
    for (auto c : d.counts) total += c;
    EXPECT_EQ(total, static_cast<std::int64_t>(a.size()));  // detected range: every sample counted
  }
}

TEST(NumpyHistogram, PairwiseSumMatchesNumpyStructure) {
  using ghist::cpu::detail::numpy_sum;
  // Exact on small integers in double; a[0] + pairwise(rest) order checked on a case where it matters.
  std::vector<double> v(300);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  EXPECT_EQ(numpy_sum(v), 299.0 * 300 / 2);
  std::vector<float> f{1e8f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  // a[0] + (-0 + 1 + ... + 1 (7 ones)) then + 1: 1e8 + 7 -> 100000008 (float spacing 8), + ... per NumPy:
  // rest has 8 elements -> 8 accumulators, ((1+1)+(1+1))+((1+1)+(1+1)) = 8; 1e8 + 8 = 100000008.
  EXPECT_EQ(numpy_sum(f), 100000008.0f);
}

}  // namespace
