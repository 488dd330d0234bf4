// GPU tests of ghist::byte_histogram_even_async: both methods and the automatic choice, uint8 and int8 samples,
// every counter type, bin counts and ranges (cut-off and negative ones included), odd sizes, misaligned starting
// pointers, the four byte distributions, accumulate mode and a caller's workspace, each against the CPU backend;
// and the argument errors (destination untouched).
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "byte_inputs.hpp"
#include "error_expectations.hpp"
#include "ghist/binning.hpp"
#include "ghist/byte_histogram.hpp"
#include "ghist/cpu.hpp"
#include "ghist/detail/byte_histogram/pair_counters.cuh"
#include "test_support.cuh"

namespace {

using ghist::byte_method;
using ghist_bytes::byte_dist;
using ghist_test::device_buffer;

constexpr byte_method all_methods[] = {byte_method::automatic, byte_method::packed_counters,
                                       byte_method::shared_atomics};
constexpr int bin_counts[] = {1, 7, 32, 100, 256};
// [lower, upper) for uint8 and int8 samples: the whole type, ranges that cut samples off at either end, ranges wider
// than the type and (for int8) negative ones.
const std::vector<std::pair<int, int>> uint8_ranges = {{0, 256}, {10, 200}, {-50, 300}, {3, 250}, {100, 101}, {0, 255}};
const std::vector<std::pair<int, int>> int8_ranges = {{-128, 128}, {-100, 50}, {-10, 10}, {-200, 300}, {0, 128},
                                                      {-128, -1}};

std::vector<std::uint8_t> make_bytes(byte_dist d, std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = ghist_bytes::byte_at(d, i, seed);
  return v;
}

/// The CPU backend's answer for the bytes at `data` read as uint8 or int8, with the same even bins.
template <class Count>
std::vector<Count> cpu_histogram(const std::uint8_t* data, std::int64_t n, bool is_signed, int bins, int lower,
                                 int upper, const std::vector<Count>& initial, ghist::mode how) {
  std::vector<Count> hist = initial;
  hist.resize(static_cast<std::size_t>(bins));
  const ghist::even_bins<int> eb = ghist::make_even_bins<int>(lower, upper, bins);
  ghist::cpu::generalized_histogram(
      data, n,
      [eb, is_signed](std::uint8_t raw) {
        const int x = is_signed ? static_cast<int>(static_cast<std::int8_t>(raw)) : static_cast<int>(raw);
        return ghist::bin_update<Count>{eb(x), Count(1)};
      },
      ghist::plus<Count>{}, hist.data(), bins, how);
  return hist;
}

/// Runs the GPU call on device bytes d_data (any alignment) and compares with the CPU backend on the host copy.
template <class Count>
void check_one(const std::uint8_t* d_data, const std::uint8_t* h_data, std::int64_t n, bool is_signed, int bins,
               int lower, int upper, byte_method method, ghist::mode how, std::mt19937_64& rng,
               const ghist::options& base = {}) {
  std::vector<Count> initial(static_cast<std::size_t>(bins));
  for (auto& c : initial) c = static_cast<Count>(rng() % 100000);
  device_buffer<Count> d_hist(initial);
  ghist::options opts = base;
  opts.how = how;
  if (is_signed)
    ghist::byte_histogram_even_async(reinterpret_cast<const std::int8_t*>(d_data), n, d_hist.get(), bins, lower,
                                     upper, 0, opts, method);
  else
    ghist::byte_histogram_even_async(d_data, n, d_hist.get(), bins, lower, upper, 0, opts, method);
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<Count> want = cpu_histogram<Count>(h_data, n, is_signed, bins, lower, upper, initial, how);
  const std::vector<Count> got = d_hist.download();
  for (int b = 0; b < bins; ++b)
    ASSERT_EQ(got[static_cast<std::size_t>(b)], want[static_cast<std::size_t>(b)])
        << "bin " << b << " of " << bins << ", n=" << n << ", " << (is_signed ? "int8" : "uint8") << " [" << lower
        << ", " << upper << "), " << ghist::to_string(method) << ", "
        << (how == ghist::mode::overwrite ? "overwrite" : "accumulate");
}

template <class Count>
void every_size_and_binning() {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t sizes[] = {0, 1, 15, 17, 4095, (std::int64_t(1) << 20) + 3};
  int k = 0;
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    SCOPED_TRACE(ghist_bytes::to_string(d));
    for (std::int64_t n : sizes) {
      const std::vector<std::uint8_t> h = make_bytes(d, n, rng());
      device_buffer<std::uint8_t> d_data(h);
      for (byte_method m : all_methods)
        for (bool is_signed : {false, true})
          for (int bins : bin_counts) {
            const auto& ranges = is_signed ? int8_ranges : uint8_ranges;
            const auto [lo, hi] = ranges[static_cast<std::size_t>(k++) % ranges.size()];
            const ghist::mode how = k % 3 == 0 ? ghist::mode::accumulate : ghist::mode::overwrite;
            check_one<Count>(d_data.get(), h.data(), n, is_signed, bins, lo, hi, m, how, rng);
            if (::testing::Test::HasFatalFailure()) return;
          }
    }
  }
}

TEST(ByteHistogramGpu, Int32EverySizeAndBinning) { every_size_and_binning<std::int32_t>(); }
TEST(ByteHistogramGpu, Uint32EverySizeAndBinning) { every_size_and_binning<std::uint32_t>(); }
TEST(ByteHistogramGpu, Int64EverySizeAndBinning) { every_size_and_binning<std::int64_t>(); }
TEST(ByteHistogramGpu, Uint64EverySizeAndBinning) { every_size_and_binning<std::uint64_t>(); }

TEST(ByteHistogramGpu, EveryRangeOnOddSize) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 100003;
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    const std::vector<std::uint8_t> h = make_bytes(d, n, rng());
    device_buffer<std::uint8_t> d_data(h);
    for (byte_method m : all_methods)
      for (bool is_signed : {false, true})
        for (const auto& [lo, hi] : is_signed ? int8_ranges : uint8_ranges)
          for (int bins : bin_counts) {
            check_one<std::uint32_t>(d_data.get(), h.data(), n, is_signed, bins, lo, hi, m,
                                     ghist::mode::overwrite, rng);
            if (HasFatalFailure()) return;
          }
  }
}

TEST(ByteHistogramGpu, MisalignedStarts) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t sizes[] = {1, 15, 17, 31, 4095, (std::int64_t(1) << 20) + 3};
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    const std::int64_t total = (std::int64_t(1) << 20) + 32;
    const std::vector<std::uint8_t> h = make_bytes(d, total, rng());
    device_buffer<std::uint8_t> d_data(h);  // cudaMalloc'd: 256-byte aligned
    for (int offset = 1; offset <= 15; ++offset)
      for (std::int64_t n : sizes)
        for (byte_method m : {byte_method::packed_counters, byte_method::shared_atomics})
          for (bool is_signed : {false, true}) {
            check_one<std::int64_t>(d_data.get() + offset, h.data() + offset, n, is_signed, 256,
                                    is_signed ? -128 : 0, is_signed ? 128 : 256, m, ghist::mode::overwrite, rng);
            if (HasFatalFailure()) return;
          }
  }
}

TEST(ByteHistogramGpu, LargeInputs) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = (std::int64_t(1) << 27) + 11;
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    SCOPED_TRACE(ghist_bytes::to_string(d));
    const std::vector<std::uint8_t> h = make_bytes(d, n + 16, rng());
    device_buffer<std::uint8_t> d_data(h);
    for (byte_method m : all_methods) {
      check_one<std::uint64_t>(d_data.get(), h.data(), n, false, 256, 0, 256, m, ghist::mode::overwrite, rng);
      check_one<std::int32_t>(d_data.get() + 3, h.data() + 3, n, true, 64, -128, 128, m, ghist::mode::accumulate,
                              rng);
      check_one<std::uint32_t>(d_data.get() + 16, h.data() + 16, n - 5, false, 32, 0, 256, m,
                               ghist::mode::overwrite, rng);
      if (HasFatalFailure()) return;
    }
  }
}

// One value in every byte, as much as makes every block of the packed_counters kernel (pair_counters.cuh) count
// flush_tiles whole rounds of tiles and then half a tile more: each lane fills one counter word up to the flush
// limit (32640 of 32767 in its 15-bit total with the default tuning), flushes, and counts its share of the rest, for
// a value of the word's low half (0, 127) and of its high half (128, 255). ~1.7 GB on an H100. The shared-atomics
// kernel runs the same inputs.
TEST(ByteHistogramGpu, OneValueAtTheCountersFlushLimit) {
  using tuning = ghist::detail::bytes::pair_counters_tuning;
  int device = 0, sms = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t tile_bytes = std::int64_t(tuning::block) * tuning::unroll * 16;
  const std::int64_t n = (std::int64_t(tuning::flush_tiles) * sms + sms / 2) * tile_bytes + 5;
  static_assert(tuning::flush_tiles * tuning::unroll * 16 > ghist::detail::bytes::max_pair_count - tuning::unroll * 16,
                "the flush comes within one tile of the limit");
  device_buffer<std::uint8_t> d_data(static_cast<std::size_t>(n));
  device_buffer<std::uint64_t> d_hist(256);
  for (int value : {0, 127, 128, 255}) {
    CUDA_OK(cudaMemset(d_data.get(), value, static_cast<std::size_t>(n)));
    for (byte_method m : {byte_method::packed_counters, byte_method::shared_atomics}) {
      ghist::byte_histogram_even_async(d_data.get(), n, d_hist.get(), 256, 0, 256, 0, {}, m);
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<std::uint64_t> want(256, 0);
      want[static_cast<std::size_t>(value)] = static_cast<std::uint64_t>(n);
      ASSERT_EQ(d_hist.download(), want) << "value " << value << " method " << ghist::to_string(m);
    }
  }
}

TEST(ByteHistogramGpu, CallersWorkspaceAndStream) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 300001;
  const std::vector<std::uint8_t> h = make_bytes(byte_dist::image, n, rng());
  device_buffer<std::uint8_t> d_data(h);
  device_buffer<unsigned char> scratch(ghist::byte_histogram_workspace_bytes());
  ghist::options opts;
  opts.scratch = {scratch.get(), scratch.size()};
  for (byte_method m : all_methods) {
    check_one<std::uint32_t>(d_data.get() + 5, h.data() + 5, n - 5, false, 100, 0, 256, m, ghist::mode::overwrite,
                             rng, opts);
    // Twice with the same workspace: it must be cleared by each call.
    check_one<std::uint32_t>(d_data.get(), h.data(), n, true, 256, -128, 128, m, ghist::mode::overwrite, rng, opts);
  }
  cudaStream_t stream{};
  CUDA_OK(cudaStreamCreate(&stream));
  device_buffer<std::int64_t> d_hist(256);
  ghist::byte_histogram_even_async(d_data.get(), n, d_hist.get(), 256, 0, 256, stream);
  CUDA_OK(cudaStreamSynchronize(stream));
  CUDA_OK(cudaStreamDestroy(stream));
  const auto want = cpu_histogram<std::int64_t>(h.data(), n, false, 256, 0, 256, {}, ghist::mode::overwrite);
  EXPECT_EQ(d_hist.download(), want);
}

TEST(ByteHistogramGpu, ZeroSamples) {
  std::mt19937_64 rng(7);
  device_buffer<std::uint8_t> d_data(16);
  for (byte_method m : all_methods) {
    check_one<std::uint32_t>(d_data.get(), nullptr, 0, false, 7, 0, 256, m, ghist::mode::overwrite, rng);
    check_one<std::uint32_t>(d_data.get(), nullptr, 0, true, 7, -128, 128, m, ghist::mode::accumulate, rng);
  }
  // n = 0 with a null samples pointer is valid: nothing is read.
  const std::vector<std::uint32_t> initial(5, 9u);
  device_buffer<std::uint32_t> d_hist(initial);
  ghist::byte_histogram_even_async(static_cast<const std::uint8_t*>(nullptr), 0, d_hist.get(), 5, 0, 256);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(d_hist.download(), std::vector<std::uint32_t>(5, 0u));
}

TEST(ByteHistogramGpu, ErrorsLeaveTheDestinationUntouched) {
  using ghist_test::expect_ghist_error;
  const std::vector<std::uint32_t> sentinel(16, 0xabcdu);
  device_buffer<std::uint32_t> d_hist(sentinel);
  device_buffer<std::uint32_t> d_small(15);
  device_buffer<std::uint8_t> d_data(1000);
  std::vector<std::uint8_t> host(1000);
  auto* hist = d_hist.get();
  const std::uint8_t* data = d_data.get();
  const std::uint8_t* null_samples = nullptr;
  expect_ghist_error([&] { ghist::byte_histogram_even_async(null_samples, 10, hist, 16, 0, 256); }, "samples");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(host.data(), 10, hist, 16, 0, 256); }, "samples");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 1001, hist, 16, 0, 256); }, "samples");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, d_small.get(), 16, 0, 256); }, "hist");
  std::uint32_t* null_hist = nullptr;
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, null_hist, 16, 0, 256); }, "hist");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 0, 0, 256); }, "num_bins");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 257, 0, 256); }, "num_bins");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 16, 256, 0); }, "lower < upper");
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, -5, hist, 16, 0, 256); }, "n must be >= 0");
  device_buffer<unsigned char> small_scratch(ghist::byte_histogram_workspace_bytes() - 1);
  ghist::options opts;
  opts.scratch = {small_scratch.get(), small_scratch.size()};
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 16, 0, 256, 0, opts); },
                     "options.scratch");
  opts.scratch = {nullptr, 64};
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 16, 0, 256, 0, opts); },
                     "options.scratch");
  opts.scratch = {host.data(), host.size()};
  expect_ghist_error([&] { ghist::byte_histogram_even_async(data, 10, hist, 16, 0, 256, 0, opts); },
                     "options.scratch");
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(d_hist.download(), sentinel);
}

}  // namespace
