// The real sparse case on the GPU (issue 5 item 4): Parboil histo's default data set (tests/data/README.md),
// 1,048,576 bins, an 8-bit saturating add (CAS class), must give exactly the expected file with the auto plan and
// with global-memory and partitioned plans forced; also through the index form, which cannot be partitioned.
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "parboil_data.hpp"
#include "test_support.cuh"

namespace {

using ghist_huge::parboil_histo;

struct parboil_fixture : ::testing::Test {
  static void SetUpTestSuite() {
    try {
      data = new parboil_histo(ghist_huge::load_parboil_histo(GHIST_TEST_DATA_DIR));
    } catch (const std::exception& e) {
      load_error = e.what();
    }
  }
  static void TearDownTestSuite() {
    delete data;
    data = nullptr;
  }
  void SetUp() override { ASSERT_NE(data, nullptr) << "cannot load the Parboil data: " << load_error; }
  static parboil_histo* data;
  static std::string load_error;

  /// Runs one plan (overwrite mode over garbage, or accumulate over zeros, the identity) and compares with the file.
  void expect_exact(ghist::strategy kind, int groups, ghist::mode how) {
    SCOPED_TRACE(std::string("strategy=") + ghist::to_string(kind) + " groups=" + std::to_string(groups) +
                 (how == ghist::mode::overwrite ? " overwrite" : " accumulate"));
    const std::int64_t H = parboil_histo::num_bins;
    ghist_test::device_buffer<std::int32_t> d_bins(data->bins);
    ghist_test::device_buffer<std::uint32_t> d_hist(static_cast<std::size_t>(H));
    CUDA_OK(cudaMemset(d_hist.get(), how == ghist::mode::overwrite ? 0x3c : 0, H * sizeof(std::uint32_t)));
    ghist::options opts;
    opts.how = how;
    opts.overrides.kind = kind;
    opts.overrides.S = groups;
    const auto n = static_cast<std::int64_t>(data->bins.size());
    const ghist::plan pl = ghist::plan_for_elements<ghist_huge::sat8_add, std::int32_t>(n, H, opts);
    if (kind != ghist::strategy::automatic) EXPECT_EQ(pl.kind, kind) << pl.to_string();
    ghist::generalized_histogram_async(d_bins.get(), n, ghist_huge::parboil_update{}, ghist_huge::sat8_add{},
                                       d_hist.get(), H, 0, opts);
    CUDA_OK(cudaDeviceSynchronize());
    expect_equal(d_hist.download());
  }

  static void expect_equal(const std::vector<std::uint32_t>& got) {
    ASSERT_EQ(got.size(), data->expected.size());
    std::int64_t mismatches = 0;
    for (std::size_t b = 0; b < got.size(); ++b)
      if (got[b] != data->expected[b] && ++mismatches <= 3)
        ADD_FAILURE() << "bin " << b << ": got " << got[b] << ", expected " << data->expected[b];
    EXPECT_EQ(mismatches, 0);
  }
};
parboil_histo* parboil_fixture::data = nullptr;
std::string parboil_fixture::load_error;

TEST_F(parboil_fixture, AutoEqualsExpectedFile) {
  expect_exact(ghist::strategy::automatic, 0, ghist::mode::overwrite);
  expect_exact(ghist::strategy::automatic, 0, ghist::mode::accumulate);
}

TEST_F(parboil_fixture, ForcedGlobalEqualsExpectedFile) {
  expect_exact(ghist::strategy::global_memory, 0, ghist::mode::overwrite);
  expect_exact(ghist::strategy::global_memory, 0, ghist::mode::accumulate);
}

TEST_F(parboil_fixture, ForcedPartitionedEqualsExpectedFile) {
  // The planner's groups, few large groups, and the most groups: the hit bins (a 52.5K-bin window) fall in one
  // group or spread over several.
  for (int groups : {0, 32, 1024}) {
    expect_exact(ghist::strategy::partitioned, groups, ghist::mode::overwrite);
    expect_exact(ghist::strategy::partitioned, groups, ghist::mode::accumulate);
  }
}

struct parboil_indexed_update {
  const std::int32_t* bins;
  __device__ ghist::bin_update<std::uint32_t> operator()(std::int64_t i) const { return {bins[i], 1u}; }
};

TEST_F(parboil_fixture, IndexFormEqualsExpectedFile) {
  const std::int64_t H = parboil_histo::num_bins;
  ghist_test::device_buffer<std::int32_t> d_bins(data->bins);
  ghist_test::device_buffer<std::uint32_t> d_hist(static_cast<std::size_t>(H));
  CUDA_OK(cudaMemset(d_hist.get(), 0x3c, H * sizeof(std::uint32_t)));
  ghist::generalized_histogram_indexed_async(static_cast<std::int64_t>(data->bins.size()),
                                             parboil_indexed_update{d_bins.get()}, ghist_huge::sat8_add{},
                                             d_hist.get(), H);
  CUDA_OK(cudaDeviceSynchronize());
  expect_equal(d_hist.download());
}

}  // namespace
