// Host checks of the streaming histogram: the staging arithmetic (chunk_plan.hpp) and the argument errors that are
// thrown before any CUDA call (so they hold on a machine without a GPU, where a CUDA call would fail differently).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "error_expectations.hpp"
#include "ghist/detail/streaming/chunk_plan.hpp"
#include "ghist/detail/streaming/copy_pool.hpp"
#include "ghist/streaming.hpp"

namespace {

using ghist::streaming_options;
using ghist_test::expect_ghist_error;

streaming_options with(std::size_t chunk_bytes, int buffers, int copy_threads) {
  streaming_options o;
  o.chunk_bytes = chunk_bytes;
  o.buffers = buffers;
  o.copy_threads = copy_threads;
  return o;
}

TEST(StreamingPlan, ChunkElementsAreWholeSamples) {
  EXPECT_EQ(ghist::detail::plan_staging(with(1000, 2, 0), 8).chunk_elements, 125u);
  EXPECT_EQ(ghist::detail::plan_staging(with(1007, 2, 0), 8).chunk_elements, 125u);
  EXPECT_EQ(ghist::detail::plan_staging(with(8, 3, 5), 8).chunk_elements, 1u);
  EXPECT_EQ(ghist::detail::plan_staging(with(8, 3, 5), 8).buffers, 3);
  EXPECT_EQ(ghist::detail::plan_staging(with(8, 3, 5), 8).copy_threads, 5);
  EXPECT_EQ(ghist::detail::plan_staging(streaming_options{}, 4).chunk_elements, (std::size_t(32) << 20) / 4);
}

TEST(StreamingPlan, BadOptionsNameTheField) {
  expect_ghist_error([] { ghist::detail::plan_staging(with(7, 2, 0), 8); }, "streaming_options.chunk_bytes");
  expect_ghist_error([] { ghist::detail::plan_staging(with(0, 2, 0), 1); }, "streaming_options.chunk_bytes");
  expect_ghist_error([] { ghist::detail::plan_staging(with(64, 1, 0), 8); }, "streaming_options.buffers");
  expect_ghist_error([] { ghist::detail::plan_staging(with(64, 17, 0), 8); }, "streaming_options.buffers");
  expect_ghist_error([] { ghist::detail::plan_staging(with(64, 2, -1), 8); }, "streaming_options.copy_threads");
  expect_ghist_error([] { ghist::detail::plan_staging(with(64, 2, 65), 8); }, "streaming_options.copy_threads");
  EXPECT_NO_THROW(ghist::detail::plan_staging(with(64, 16, 64), 8));
}

TEST(StreamingPlan, PieceCount) {
  EXPECT_EQ(ghist::detail::piece_count(0, 5), 0);
  EXPECT_EQ(ghist::detail::piece_count(-3, 5), 0);
  EXPECT_EQ(ghist::detail::piece_count(1, 1), 1);
  EXPECT_EQ(ghist::detail::piece_count(7, 1), 7);
  EXPECT_EQ(ghist::detail::piece_count(9, 3), 3);
  EXPECT_EQ(ghist::detail::piece_count(10, 3), 4);
  EXPECT_EQ(ghist::detail::piece_count(4, 1000), 1);
  EXPECT_EQ(ghist::detail::piece_count(std::int64_t(1) << 40, std::size_t(1) << 20), std::int64_t(1) << 20);
}

TEST(StreamingPlan, CopyThreads) {
  using ghist::detail::bytes_per_copy_thread;
  using ghist::detail::copy_threads_for;
  EXPECT_EQ(copy_threads_for(0, 0, 16), 1);
  EXPECT_EQ(copy_threads_for(100, 0, 16), 1);
  EXPECT_EQ(copy_threads_for(bytes_per_copy_thread - 1, 0, 16), 1);
  EXPECT_EQ(copy_threads_for(3 * bytes_per_copy_thread, 0, 16), 3);
  EXPECT_EQ(copy_threads_for(100 * bytes_per_copy_thread, 0, 16), ghist::detail::auto_copy_threads_cap);
  EXPECT_EQ(copy_threads_for(100 * bytes_per_copy_thread, 0, 2), 2);
  EXPECT_EQ(copy_threads_for(100 * bytes_per_copy_thread, 0, 0), 1);  // hardware_concurrency() may say 0
  EXPECT_EQ(copy_threads_for(5, 12, 16), 5);                           // never more threads than bytes
  EXPECT_EQ(copy_threads_for(1 << 20, 12, 2), 12);                     // a forced count is kept
}

TEST(StreamingPlan, CopyPartsCoverEveryByteOnceOnCacheLines) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::size_t bytes = trial < 200 ? std::size_t(trial) : rng() % (std::size_t(1) << 22);
    const int parts = 1 + static_cast<int>(rng() % 64);
    std::size_t expect = 0;
    for (int i = 0; i < parts; ++i) {
      const ghist::detail::byte_range r = ghist::detail::copy_part(bytes, parts, i);
      SCOPED_TRACE(::testing::Message() << "bytes " << bytes << " parts " << parts << " part " << i);
      ASSERT_EQ(r.begin, expect);
      ASSERT_LE(r.begin, r.end);
      if (r.end != bytes) ASSERT_EQ(r.end % 64, 0u);
      expect = r.end;
    }
    EXPECT_EQ(expect, bytes);
  }
}

TEST(StreamingCopyPool, CopiesEveryByteForAnyThreadCountAndReuse) {
  std::mt19937_64 rng(777);
  ghist::detail::copy_pool pool;
  for (int trial = 0; trial < 300; ++trial) {
    // Up to 1 MiB: one part per thread; up to 6 MiB: several 256 KiB parts per thread, taken in turn.
    const std::size_t most = trial % 3 == 0 ? std::size_t(6) << 20 : std::size_t(1) << 20;
    const std::size_t bytes = trial < 70 ? std::size_t(trial) : 1 + rng() % most;
    const int threads = 1 + static_cast<int>(rng() % 9);
    std::vector<unsigned char> src(bytes), dst(bytes + 1, 0xAB);
    for (auto& b : src) b = static_cast<unsigned char>(rng());
    pool.copy(dst.data(), src.data(), bytes, threads);
    ASSERT_TRUE(std::equal(src.begin(), src.end(), dst.begin())) << "bytes " << bytes << " threads " << threads;
    ASSERT_EQ(dst[bytes], 0xAB) << "wrote past the end";
  }
}

// Constructor and one-shot errors: all raised before the first CUDA call.
TEST(StreamingArguments, BadBins) {
  using H = ghist::streaming_histogram<float>;
  using B = ghist::stream_bins<float>;
  const auto none = ghist::stream_values::none;
  expect_ghist_error([&] { H(B::even(0, 0.f, 1.f), true, none); }, "bins.num_bins");
  expect_ghist_error([&] { H(B::even(-4, 0.f, 1.f), true, none); }, "bins.num_bins");
  expect_ghist_error([&] { H(B::even(4, 1.f, 1.f), true, none); }, "bins.lower");
  expect_ghist_error([&] { H(B::even(4, 2.f, 1.f), true, none); }, "bins.lower");
  expect_ghist_error([&] { H(B::even(4, std::nanf(""), 1.f), true, none); }, "finite");
  expect_ghist_error([&] { H(B::even(4, 0.f, std::numeric_limits<float>::infinity()), true, none); }, "finite");
  expect_ghist_error([&] { H(B::keys(4), true, none); }, "integer Sample");
  using K = ghist::streaming_histogram<std::int64_t>;
  expect_ghist_error([&] { K(ghist::stream_bins<std::int64_t>::keys(0), true, none); }, "bins.num_bins");
  expect_ghist_error([&] { K(ghist::stream_bins<std::int64_t>::even(3, 5, -5), true, none); }, "bins.lower");
}

TEST(StreamingArguments, NothingToComputeAndBadOptions) {
  using H = ghist::streaming_histogram<double>;
  const auto bins = ghist::stream_bins<double>::even(10, 0.0, 1.0);
  expect_ghist_error([&] { H(bins, false, ghist::stream_values::none); }, "nothing to compute");
  expect_ghist_error([&] { H(bins, true, ghist::stream_values::none, with(4, 2, 0)); }, "streaming_options.chunk_bytes");
  expect_ghist_error([&] { H(bins, true, ghist::stream_values::sum, with(64, 0, 0)); }, "streaming_options.buffers");
  expect_ghist_error([&] { H(bins, false, ghist::stream_values::max, with(64, 2, 99)); },
                     "streaming_options.copy_threads");
}

TEST(StreamingArguments, OneShotFormsCheckFirst) {
  std::vector<double> x(8, 0.5), w(8, 1.0);
  expect_ghist_error([&] { ghist::histogram_even_from_host(x.data(), 8, 0, 0.0, 1.0); }, "bins.num_bins");
  expect_ghist_error([&] { ghist::weighted_histogram_even_from_host(x.data(), w.data(), 8, 4, 1.0, 0.0); },
                     "bins.lower");
  std::vector<std::uint32_t> k(8, 1);
  expect_ghist_error([&] { ghist::bincount_from_host(k.data(), 8, -1); }, "bins.num_bins");
  expect_ghist_error(
      [&] { ghist::weighted_bincount_from_host(k.data(), w.data(), 8, 0, ghist::max<double>{}); }, "bins.num_bins");
  streaming_options bad;
  bad.buffers = 1;
  expect_ghist_error([&] { ghist::bincount_from_host(k.data(), 8, 4, bad); }, "streaming_options.buffers");
}

TEST(StreamingArguments, OpMapsToValues) {
  EXPECT_EQ(ghist::detail::stream_values_of<ghist::plus<float>>::value, ghist::stream_values::sum);
  EXPECT_EQ(ghist::detail::stream_values_of<ghist::min<double>>::value, ghist::stream_values::min);
  EXPECT_EQ(ghist::detail::stream_values_of<ghist::max<double>>::value, ghist::stream_values::max);
}

}  // namespace
