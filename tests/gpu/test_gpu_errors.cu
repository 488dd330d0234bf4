// Bad input on the GPU path: each call must throw a ghist::error whose message names the problem, before any work
// is enqueued, so the destination keeps exactly what it held.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "ghist/histogram.hpp"
#include "test_support.cuh"

namespace ghist_test {
namespace {

constexpr std::int64_t H = 4096;
constexpr std::int64_t n = 100000;

struct errors_fixture : ::testing::Test {
  std::vector<std::uint64_t> elements = std::vector<std::uint64_t>(n, 7);
  device_buffer<std::uint64_t> input{elements};
  std::vector<std::uint32_t> sentinel = std::vector<std::uint32_t>(H, 0xdeadbeefu);
  device_buffer<std::uint32_t> dest{sentinel};

  template <class Call>
  void expect_error(Call call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no ghist::error thrown; expected one mentioning '" << words << "'";
    } catch (const ghist::error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << "message: " << e.what();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(dest.download(), sentinel) << "the destination was modified";
  }
};

using plus_u32 = ghist::plus<std::uint32_t>;

TEST_F(errors_fixture, ZeroBins) {
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), 0);
  }, "num_bins");
}

TEST_F(errors_fixture, NegativeN) {
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), -5, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H);
  }, "n must be >= 0");
}

TEST_F(errors_fixture, NullInput) {
  expect_error([&] {
    ghist::generalized_histogram_async(static_cast<const std::uint64_t*>(nullptr), n, element_to_update<plus_u32>{},
                                       plus_u32{}, dest.get(), H);
  }, "input is null");
}

TEST_F(errors_fixture, NullDestination) {
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{},
                                       static_cast<std::uint32_t*>(nullptr), H);
  }, "dest is null");
}

TEST_F(errors_fixture, DestinationTooSmall) {
  // dest holds H bins; ask for H + 1 from its start, and for H from an offset into it.
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H + 1);
  }, "dest is too small");
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get() + 1, H);
  }, "dest is too small");
}

TEST_F(errors_fixture, InputTooSmall) {
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n + 1, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H);
  }, "input is too small");
}

TEST_F(errors_fixture, HostPointerForInput) {
  expect_error([&] {
    ghist::generalized_histogram_async(elements.data(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H);
  }, "host memory");
}

TEST_F(errors_fixture, HostPointerForDestination) {
  std::vector<std::uint32_t> host_dest(H, 1);
  try {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, host_dest.data(), H);
    ADD_FAILURE() << "no error for a host destination";
  } catch (const ghist::error& e) {
    EXPECT_NE(std::string(e.what()).find("dest"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(host_dest, std::vector<std::uint32_t>(H, 1));
}

TEST_F(errors_fixture, WorkspaceTooSmall) {
  // Forced global memory with several sub-histograms needs a workspace; give it 16 bytes.
  device_buffer<unsigned char> tiny(16);
  ghist::options opts;
  opts.overrides.kind = ghist::strategy::global_memory;
  opts.overrides.M = 8;
  opts.race_factor = 1.0;
  opts.scratch = {tiny.get(), 16};
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H, 0,
                                       opts);
  }, "scratch is too small");
  opts.scratch = {nullptr, 1024};
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H, 0,
                                       opts);
  }, "scratch.data is null");
}

TEST_F(errors_fixture, SharedMemoryOverrideThatCannotFit) {
  ghist::options opts;
  opts.overrides.kind = ghist::strategy::shared_memory;
  opts.overrides.M = 1024;
  opts.overrides.S = 1;
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H, 0,
                                       opts);
  }, "shared memory");
}

TEST_F(errors_fixture, BadRaceFactor) {
  ghist::options opts;
  opts.race_factor = 0.5;
  expect_error([&] {
    ghist::generalized_histogram_async(input.get(), n, element_to_update<plus_u32>{}, plus_u32{}, dest.get(), H, 0,
                                       opts);
  }, "race_factor");
}

TEST_F(errors_fixture, ConvenienceRangeErrors) {
  device_buffer<float> samples(std::vector<float>(1000, 1.f));
  auto* counts = reinterpret_cast<std::int32_t*>(dest.get());
  expect_error([&] { ghist::histogram_even_async(samples.get(), 1000, counts, H, 2.f, 1.f); }, "lower < upper");
  expect_error([&] { ghist::histogram_even_async(samples.get(), 1000, counts, 0, 0.f, 1.f); }, "num_bins");
  expect_error([&] { ghist::histogram_even_async(samples.get(), 1000, counts, H, 0.f, INFINITY); }, "finite");
}

}  // namespace
}  // namespace ghist_test
