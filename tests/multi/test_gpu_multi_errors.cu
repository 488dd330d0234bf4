// Bad calls of the fused, batched and vector-valued GPU histograms: each throws ghist::error naming the argument,
// before anything is enqueued, so the destination keeps its contents.
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "error_expectations.hpp"
#include "ghist/batched.cuh"
#include "ghist/fused.cuh"
#include "ghist/vector_histogram.cuh"
#include "multi_test_support.cuh"

namespace ghist_test {
namespace {

constexpr std::uint32_t sentinel = 0xabcdef12u;

struct two_counts {
  __device__ cuda::std::tuple<ghist::bin_update<std::uint32_t>, ghist::bin_update<std::uint32_t>> operator()(
      std::uint32_t x) const {
    return cuda::std::make_tuple(ghist::bin_update<std::uint32_t>{x % 16, 1u},
                                 ghist::bin_update<std::uint32_t>{x % 7, 1u});
  }
};
struct segment_count {
  __device__ ghist::bin_update<std::uint32_t> operator()(std::int64_t, std::int64_t j) const {
    return {j % 16, 1u};
  }
};
struct first_bin {
  __device__ std::int64_t operator()(std::int64_t i) const { return i % 4; }
};
struct one_component {
  __device__ std::uint32_t operator()(std::int64_t, std::int64_t) const { return 1u; }
};
struct record_bin {
  __device__ std::int64_t operator()(const std::uint32_t* r) const { return r[0] % 4; }
};

/// dest must still hold the sentinel everywhere.
void expect_untouched(const device_buffer<std::uint32_t>& d) {
  CUDA_OK(cudaDeviceSynchronize());
  for (auto v : d.download()) ASSERT_EQ(v, sentinel);
}

class MultiErrors : public ::testing::Test {
 protected:
  device_buffer<std::uint32_t> input{std::vector<std::uint32_t>(1000, 3)};
  device_buffer<std::uint32_t> a{std::vector<std::uint32_t>(64, sentinel)};
  device_buffer<std::uint32_t> b{std::vector<std::uint32_t>(64, sentinel)};
  std::vector<std::uint32_t> host = std::vector<std::uint32_t>(64, sentinel);
  ghist::plus<std::uint32_t> add;
};

TEST_F(MultiErrors, Fused) {
  auto targets = [&](std::uint32_t* da, std::int64_t ha, std::uint32_t* db, std::int64_t hb) {
    return std::make_tuple(ghist::make_target(add, da, ha), ghist::make_target(add, db, hb));
  };
  expect_ghist_error([&] { ghist::fused_histogram_async(input.get(), -1, two_counts{}, targets(a.get(), 16, b.get(), 7)); },
                     "n must be >= 0");
  expect_ghist_error(
      [&] { ghist::fused_histogram_async<std::uint32_t>(nullptr, 10, two_counts{}, targets(a.get(), 16, b.get(), 7)); },
      "input is null");
  expect_ghist_error([&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 16, b.get(), 0)); },
                     "targets[1].num_bins must be > 0");
  expect_ghist_error(
      [&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(nullptr, 16, b.get(), 7)); },
      "targets[0].dest is null");
  expect_ghist_error(
      [&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 16, host.data(), 7)); },
      "targets[1].dest");
  expect_ghist_error([&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 65, b.get(), 7)); },
                     "targets[0].dest is too small");
  expect_ghist_error([&] { ghist::fused_histogram_async(input.get(), 1001, two_counts{}, targets(a.get(), 16, b.get(), 7)); },
                     "input is too small");
  ghist::options opts;
  opts.overrides.S = 2;
  expect_ghist_error(
      [&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 16, b.get(), 7), 0, opts); },
      "override S");
  opts = {};
  opts.overrides.kind = ghist::strategy::shared_memory;
  opts.overrides.M = 1 << 20;
  expect_ghist_error(
      [&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 16, b.get(), 7), 0, opts); },
      "plan override M");
  opts = {};
  opts.scratch.bytes = 100;
  expect_ghist_error(
      [&] { ghist::fused_histogram_async(input.get(), 1000, two_counts{}, targets(a.get(), 16, b.get(), 7), 0, opts); },
      "options.scratch.data is null");
  expect_untouched(a);
  expect_untouched(b);
}

TEST_F(MultiErrors, Batched) {
  expect_ghist_error([&] { ghist::batched_histogram_async(-1, 10, segment_count{}, add, a.get(), 16); },
                     "num_segments must be >= 0");
  expect_ghist_error([&] { ghist::batched_histogram_async(4, -1, segment_count{}, add, a.get(), 16); },
                     "segment_length must be >= 0");
  expect_ghist_error([&] { ghist::batched_histogram_async(4, 10, segment_count{}, add, a.get(), 0); },
                     "num_bins must be > 0");
  expect_ghist_error(
      [&] { ghist::batched_histogram_async(std::int64_t(1) << 40, 10, segment_count{}, add, a.get(), 1 << 30); },
      "num_segments * num_bins overflows");
  expect_ghist_error(
      [&] { ghist::batched_histogram_async(4, std::int64_t(1) << 62, segment_count{}, add, a.get(), 16); },
      "num_segments * segment_length overflows");
  expect_ghist_error([&] { ghist::batched_histogram_async(4, 10, segment_count{}, add, nullptr, 16); },
                     "dest is null");
  expect_ghist_error([&] { ghist::batched_histogram_async(4, 10, segment_count{}, add, host.data(), 16); }, "dest");
  expect_ghist_error([&] { ghist::batched_histogram_async(5, 10, segment_count{}, add, a.get(), 16); },
                     "dest is too small");
  device_buffer<std::int64_t> good{std::vector<std::int64_t>{0, 5, 5, 9, 20}};
  device_buffer<std::int64_t> nonzero{std::vector<std::int64_t>{2, 5, 5, 9, 20}};
  device_buffer<std::int64_t> decreasing{std::vector<std::int64_t>{0, 5, 4, 9, 20}};
  std::vector<std::int64_t> host_offsets{0, 5, 5, 9, 20};
  expect_ghist_error(
      [&] { ghist::batched_histogram_offsets_async<std::int64_t>(nullptr, 4, segment_count{}, add, a.get(), 16); },
      "offsets is null");
  expect_ghist_error(
      [&] { ghist::batched_histogram_offsets_async(nonzero.get(), 4, segment_count{}, add, a.get(), 16); },
      "offsets[0] must be 0, got 2");
  expect_ghist_error(
      [&] { ghist::batched_histogram_offsets_async(decreasing.get(), 4, segment_count{}, add, a.get(), 16); },
      "offsets[2] = 4 < offsets[1] = 5");
  expect_ghist_error(
      [&] { ghist::batched_histogram_offsets_async(host_offsets.data(), 4, segment_count{}, add, a.get(), 16); },
      "offsets");
  expect_ghist_error([&] { ghist::batched_histogram_offsets_async(good.get(), 5, segment_count{}, add, a.get(), 8); },
                     "offsets is too small");
  ghist::options opts;
  opts.overrides.grid = -1;
  expect_ghist_error([&] { ghist::batched_histogram_async(4, 10, segment_count{}, add, a.get(), 16, 0, opts); },
                     "override grid");
  expect_untouched(a);
}

TEST_F(MultiErrors, Vector) {
  expect_ghist_error([&] { ghist::vector_histogram_async(-1, 4, first_bin{}, one_component{}, add, a.get(), 16); },
                     "n must be >= 0");
  expect_ghist_error([&] { ghist::vector_histogram_async(10, 0, first_bin{}, one_component{}, add, a.get(), 16); },
                     "d must be > 0");
  expect_ghist_error([&] { ghist::vector_histogram_async(10, 4, first_bin{}, one_component{}, add, a.get(), 0); },
                     "num_bins must be > 0");
  expect_ghist_error(
      [&] { ghist::vector_histogram_async(10, 1 << 20, first_bin{}, one_component{}, add, a.get(), std::int64_t(1) << 50); },
      "num_bins * d overflows");
  expect_ghist_error([&] { ghist::vector_histogram_async(10, 4, first_bin{}, one_component{}, add, nullptr, 16); },
                     "dest is null");
  expect_ghist_error([&] { ghist::vector_histogram_async(10, 4, first_bin{}, one_component{}, add, host.data(), 16); },
                     "dest");
  expect_ghist_error([&] { ghist::vector_histogram_async(10, 4, first_bin{}, one_component{}, add, a.get(), 17); },
                     "dest is too small");
  expect_ghist_error([&] { ghist::vector_histogram_records_async(nullptr, 10, 4, record_bin{}, add, a.get(), 16); },
                     "input is null");
  expect_ghist_error([&] { ghist::vector_histogram_records_async(input.get(), 251, 4, record_bin{}, add, a.get(), 16); },
                     "input is too small");
  ghist::options opts;
  opts.overrides.block = 48;
  expect_ghist_error(
      [&] { ghist::vector_histogram_async(10, 4, first_bin{}, one_component{}, add, a.get(), 16, 0, opts); },
      "multiple of 32");
  expect_untouched(a);
}

}  // namespace
}  // namespace ghist_test
