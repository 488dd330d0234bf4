// Argument errors of ghist::cub_compat::DeviceHistogram that are found before any device call: they return
// cudaErrorInvalidValue (never throw) and touch nothing, so they are checked without a GPU. The temporary-storage
// protocol needs the device (the plan depends on it): tests/cub_compat/test_gpu_protocol.cu.
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "ghist/cub_compat.cuh"

namespace {

using Hist = ghist::cub_compat::DeviceHistogram;

// Never dereferenced: every call below fails its argument checks first.
float* const fake_samples = reinterpret_cast<float*>(std::uintptr_t(0x1000));
int* const fake_hist = reinterpret_cast<int*>(std::uintptr_t(0x2000));

TEST(CubCompatApiErrors, TooFewLevels) {
  std::size_t bytes = 0;
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 1, 0.f, 1.f, 10), cudaErrorInvalidValue);
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 0, 0.f, 1.f, 10), cudaErrorInvalidValue);
  const float* levels = nullptr;
  EXPECT_EQ(Hist::HistogramRange(nullptr, bytes, fake_samples, fake_hist, 1, levels, 10), cudaErrorInvalidValue);
  EXPECT_EQ(bytes, 0u);  // a failed query leaves temp_storage_bytes alone
}

TEST(CubCompatApiErrors, NonFiniteFloatLevels) {
  std::size_t bytes = 0;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, -inf, 1.f, 10), cudaErrorInvalidValue);
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, 0.f, nan, 10), cudaErrorInvalidValue);
}

TEST(CubCompatApiErrors, NegativeCounts) {
  std::size_t bytes = 0;
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, 0.f, 1.f, -1), cudaErrorInvalidValue);
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, 0.f, 1.f, std::int64_t(4), std::int64_t(-2),
                                std::size_t(64)),
            cudaErrorInvalidValue);
}

TEST(CubCompatApiErrors, PixelCountOverflowsInt64) {
  std::size_t bytes = 0;
  const std::int64_t big = std::int64_t(1) << 40;
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, 0.f, 1.f, big, big, std::size_t(1) << 42),
            cudaErrorInvalidValue);
}

TEST(CubCompatApiErrors, StrideNotAMultipleOfTheSampleSize) {
  std::size_t bytes = 0;
  EXPECT_EQ(Hist::HistogramEven(nullptr, bytes, fake_samples, fake_hist, 5, 0.f, 1.f, 10, 3, std::size_t(42)),
            cudaErrorInvalidValue);
  int* hist[3] = {fake_hist, fake_hist, fake_hist};
  const int num_levels[3] = {5, 5, 5};
  const float lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  EXPECT_EQ((Hist::MultiHistogramEven<4, 3>(nullptr, bytes, fake_samples, hist, num_levels, lo, hi, 10, 3,
                                            std::size_t(4 * 4 * 10 + 2))),
            cudaErrorInvalidValue);
}

TEST(CubCompatApiErrors, OneBadChannelFailsTheCall) {
  std::size_t bytes = 0;
  ::cuda::std::array<int*, 3> hist{fake_hist, fake_hist, fake_hist};
  ::cuda::std::array<int, 3> num_levels{5, 1, 5};
  ::cuda::std::array<float, 3> lo{0, 0, 0}, hi{1, 1, 1};
  EXPECT_EQ((Hist::MultiHistogramEven<4, 3>(nullptr, bytes, fake_samples, hist, num_levels, lo, hi, 10)),
            cudaErrorInvalidValue);
}

}  // namespace
