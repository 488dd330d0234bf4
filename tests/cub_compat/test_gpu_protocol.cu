// The calling convention of ghist::cub_compat::DeviceHistogram on the GPU: the two-phase temporary storage, errors
// returned (never thrown) with the histogram untouched, streams and graph capture (no hidden synchronization), any
// random-access iterator as input, 64-bit sample counts, and counters that wrap as CUB's do.
#include <cstdint>
#include <vector>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cub_compat_test_support.cuh"

namespace cub_compat_test {
namespace {

using Hist = ghist::cub_compat::DeviceHistogram;

TEST(CubCompatProtocol, QueryGivesNonZeroBytesAndTooSmallIsRefused) {
  std::vector<float> h(1000, 0.5f);
  device_buffer<float> d(h);
  device_buffer<int> hist(4);
  for (int num_levels : {5, 70001, (1 << 21) + 1}) {
    device_buffer<int> big(static_cast<std::size_t>(num_levels - 1));
    std::size_t bytes = 0;
    ASSERT_EQ(Hist::HistogramEven(nullptr, bytes, d.get(), big.get(), num_levels, 0.f, 1.f, 1000), cudaSuccess);
    EXPECT_GT(bytes, 0u);
    if (bytes > 1) {
      device_buffer<unsigned char> temp(bytes - 1);
      std::size_t small = bytes - 1;
      EXPECT_EQ(Hist::HistogramEven(temp.get(), small, d.get(), big.get(), num_levels, 0.f, 1.f, 1000),
                cudaErrorInvalidValue);
    }
    device_buffer<unsigned char> temp(bytes);
    ASSERT_EQ(Hist::HistogramEven(temp.get(), bytes, d.get(), big.get(), num_levels, 0.f, 1.f, 1000), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto counts = big.download();
    EXPECT_EQ(counts[static_cast<std::size_t>((num_levels - 1) / 2)], 1000);
  }
}

TEST(CubCompatProtocol, HostPointersAreRefusedAndTheHistogramIsUntouched) {
  std::vector<float> host_samples(100, 0.5f);
  device_buffer<float> d(host_samples);
  device_buffer<int> hist(std::vector<int>{7, 7, 7, 7});
  std::size_t bytes = 0;
  ASSERT_EQ(Hist::HistogramEven(nullptr, bytes, d.get(), hist.get(), 5, 0.f, 1.f, 100), cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  // Host samples: refused before anything runs.
  EXPECT_EQ(Hist::HistogramEven(temp.get(), bytes, host_samples.data(), hist.get(), 5, 0.f, 1.f, 100),
            cudaErrorInvalidValue);
  // Too many samples for the allocation.
  EXPECT_EQ(Hist::HistogramEven(temp.get(), bytes, d.get(), hist.get(), 5, 0.f, 1.f, 101), cudaErrorInvalidValue);
  // Host histogram.
  std::vector<int> host_hist(4);
  EXPECT_EQ(Hist::HistogramEven(temp.get(), bytes, d.get(), host_hist.data(), 5, 0.f, 1.f, 100),
            cudaErrorInvalidValue);
  // Host levels for Range.
  const float levels[3] = {0.f, 0.5f, 1.f};
  EXPECT_EQ(Hist::HistogramRange(temp.get(), bytes, d.get(), hist.get(), 3, levels, 100), cudaErrorInvalidValue);
  // Range with enough levels for the bucket index (made on the device before the histogram): host samples or a
  // host histogram are refused before it is made.
  device_buffer<float> d_levels(std::vector<float>{0.f, 0.25f, 0.5f, 0.75f, 1.f});
  std::size_t range_bytes = 0;
  ASSERT_EQ(Hist::HistogramRange(nullptr, range_bytes, d.get(), hist.get(), 5, d_levels.get(), 100), cudaSuccess);
  device_buffer<unsigned char> range_temp(range_bytes);
  EXPECT_EQ(Hist::HistogramRange(range_temp.get(), range_bytes, host_samples.data(), hist.get(), 5, d_levels.get(),
                                 100),
            cudaErrorInvalidValue);
  EXPECT_EQ(Hist::HistogramRange(range_temp.get(), range_bytes, d.get(), host_hist.data(), 5, d_levels.get(), 100),
            cudaErrorInvalidValue);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(hist.download(), (std::vector<int>{7, 7, 7, 7}));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // nothing left pending
}

TEST(CubCompatProtocol, EmptyRangeAndEmptyInputZeroTheHistogram) {
  device_buffer<float> d(std::vector<float>{1.f, 2.f});
  device_buffer<unsigned> hist(std::vector<unsigned>{5, 5, 5});
  EXPECT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, d.get(), hist.get(), 4, 3.f, 3.f, 2);
            }),
            cudaSuccess);
  EXPECT_EQ(hist.download(), (std::vector<unsigned>{0, 0, 0}));
  hist.upload({5, 5, 5});
  EXPECT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, d.get(), hist.get(), 4, 0.f, 3.f, 0);
            }),
            cudaSuccess);
  EXPECT_EQ(hist.download(), (std::vector<unsigned>{0, 0, 0}));
}

TEST(CubCompatProtocol, StreamAndGraphCapture) {
  std::vector<std::uint8_t> h(1 << 20);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7);
  device_buffer<std::uint8_t> d(h);
  device_buffer<long long> hist(256);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  std::size_t bytes = 0;
  ASSERT_EQ(Hist::HistogramEven(nullptr, bytes, d.get(), hist.get(), 257, 0, 256, static_cast<int>(h.size()), s),
            cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  const cudaError_t e =
      Hist::HistogramEven(temp.get(), bytes, d.get(), hist.get(), 257, 0, 256, static_cast<int>(h.size()), s);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  ASSERT_EQ(e, cudaSuccess);
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  const auto counts = hist.download();
  for (int b = 0; b < 256; ++b) ASSERT_EQ(counts[static_cast<std::size_t>(b)], 4096) << b;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

struct square_mod {
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return (i * i) % 1000; }
};

// Any random-access iterator as input, and 64-bit counts: 2^32 + 1001 samples of a counting iterator.
TEST(CubCompatProtocol, IteratorsAnd64BitSampleCounts) {
  const std::int64_t n = (std::int64_t(1) << 32) + 1001;
  thrust::counting_iterator<std::int64_t> first(0);
  device_buffer<unsigned long long> hist(1000);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, first, hist.get(), 1001, std::int64_t(0), n, n);
            }),
            cudaSuccess);
  const auto counts = hist.download();
  for (std::int64_t k = 0; k < 1000; ++k) {
    // Bin k holds the s with floor(s * 1000 / n) == k: s in [ceil(k n / 1000), ceil((k + 1) n / 1000)).
    const auto first_of = [&](std::int64_t b) {
      return static_cast<std::int64_t>((static_cast<__int128>(b) * n + 999) / 1000);
    };
    ASSERT_EQ(counts[static_cast<std::size_t>(k)], static_cast<unsigned long long>(first_of(k + 1) - first_of(k)))
        << k;
  }
  // A transform iterator: (i * i) mod 1000 for i < 10^6, with int32 counters, against the host.
  auto squares = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), square_mod{});
  device_buffer<int> h2(10);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, squares, h2.get(), 11, std::int64_t(0), std::int64_t(1000), 1000000);
            }),
            cudaSuccess);
  std::vector<int> want(10, 0);
  for (std::int64_t i = 0; i < 1000000; ++i) ++want[static_cast<std::size_t>(((i * i) % 1000) / 100)];
  EXPECT_EQ(h2.download(), want);
}

// int32 counters wrap like CUB's atomicAdd on int; uint32 likewise; int64 counts past 2^32 without wrapping.
TEST(CubCompatProtocol, CountersPast2To32) {
  const std::int64_t n = (std::int64_t(1) << 32) + 5;
  thrust::counting_iterator<std::int64_t> first(0);
  device_buffer<int> h32(1);
  device_buffer<long long> h64(1);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, first, h32.get(), 2, std::int64_t(0), n, n);
            }),
            cudaSuccess);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, first, h64.get(), 2, std::int64_t(0), n, n);
            }),
            cudaSuccess);
  EXPECT_EQ(h32.download()[0], 5);
  EXPECT_EQ(h64.download()[0], n);
}

// Regression tests on the device for the CUB bugs (the host tests pin the arithmetic; these pin the whole call).
TEST(CubCompatProtocolRegression, Cccl10975FullRangeInt16OnDevice) {
  std::vector<std::int16_t> h;
  for (int v = -32768; v <= 32767; ++v) h.push_back(static_cast<std::int16_t>(v));
  device_buffer<std::int16_t> d(h);
  device_buffer<int> hist(100);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, d.get(), hist.get(), 101, std::int16_t(-32768), std::int16_t(32767),
                                         static_cast<int>(h.size()));
            }),
            cudaSuccess);
  const auto counts = hist.download();
  std::vector<int> want(100, 0);
  for (int v = -32768; v < 32767; ++v) ++want[static_cast<std::size_t>((std::int64_t(v) + 32768) * 100 / 65535)];
  EXPECT_EQ(counts, want);
}

TEST(CubCompatProtocolRegression, Cccl10976HalfBeyond2048BinsOnDevice) {
  std::vector<__half> h;
  for (int b = 0; b < 4000; b += 2) h.push_back(__float2half(static_cast<float>(b)));
  device_buffer<__half> d(h);
  device_buffer<int> hist(4000);
  ASSERT_EQ(two_phase([&](void* t, std::size_t& b) {
              return Hist::HistogramEven(t, b, d.get(), hist.get(), 4001, __float2half(0.f), __float2half(4000.f),
                                         static_cast<int>(h.size()));
            }),
            cudaSuccess);
  const auto counts = hist.download();
  for (int b = 0; b < 4000; ++b) ASSERT_EQ(counts[static_cast<std::size_t>(b)], b % 2 == 0 ? 1 : 0) << b;
}

}  // namespace
}  // namespace cub_compat_test
