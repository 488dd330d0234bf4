// Probe: the interleaved-channel byte kernel's tuning (channels.cuh; issue 4). 2^28 bytes of RGBA pixels, 3 of the
// 4 channels counted into 256 bins each: the library's tuning then (256 threads, 4 vectors per thread per tile, 2
// blocks per SM, 4 copies of the histogram per warp) ran at 0.72-0.73 of the read floor on the lent H100 (2026-11-28,
// the drop-in benchmark), level with CUB's MultiHistogramEven; channel_tuning is now b384 u8 m1 r4 (the results:
// bench/results/2026-11-28-h100-issue4-close.txt, section 3). Each line is one tuning: its median time over 25
// event-timed calls of enqueue_channels, its fraction of the read floor and its speedup over CUB, measured in the
// same run; every result is compared with CUB's (the drop-in benchmark checks the library against it too).
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I include -I tests/bytes -o channel_tuning_probe \
//     bench/experiments/channel_tuning_probe.cu build-gpu/libghist.a
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>

#include "../timing.cuh"
#include "byte_inputs.hpp"
#include "ghist/detail/byte_histogram/channels.cuh"

namespace bytes = ghist::detail::bytes;

/// A tuning with R copies per warp whatever the number of active channels.
template <int Block, int Unroll, int MinBlocks, int R>
struct probe_tuning {
  static constexpr int block = Block;
  static constexpr int unroll = Unroll;
  static constexpr int min_blocks_per_sm = MinBlocks;
  template <int Active>
  static constexpr int replicas = R;
};

__global__ void fill(std::uint8_t* out, std::int64_t n, ghist_bytes::byte_dist d, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = ghist_bytes::byte_at(d, i, seed);
}

constexpr int channels = 4, active = 3, bins = 256;

struct buffers {
  const std::uint8_t* samples = nullptr;
  std::int64_t n = 0;
  std::int32_t* tables = nullptr;
  unsigned* hist = nullptr;  // active x bins
  unsigned long long* totals = nullptr;
};

template <class Tuning>
void enqueue(const buffers& b) {
  void* dests[active] = {b.hist, b.hist + bins, b.hist + 2 * bins};
  const std::int64_t counts[active] = {bins, bins, bins};
  bytes::enqueue_channels<channels, active, Tuning>(b.samples, b.n, 1, b.n, b.tables, dests, counts, 4, b.totals, 0);
}

template <class Tuning>
void line(const char* name, const buffers& b, const std::vector<unsigned>& expected, double floor_us, double cub_us,
          bench::event_timer& timer, const bench::timing_policy& policy) {
  enqueue<Tuning>(b);
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(expected.size());
  BENCH_CHECK(cudaMemcpy(got.data(), b.hist, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const bench::timing t = timer.median([&] { enqueue<Tuning>(b); }, policy);
  std::printf("  %-28s %8.1f us  %.2f of the floor  %.2fx CUB  %s\n", name, t.us, floor_us / t.us, cub_us / t.us,
              got == expected ? "ok" : "MISMATCH");
}

/// "bN uU mM rR" of a tuning (threads per block, vectors per thread per tile, blocks per SM, copies per warp).
template <class Tuning>
std::string tuning_name() {
  return "b" + std::to_string(Tuning::block) + " u" + std::to_string(Tuning::unroll) + " m" +
         std::to_string(Tuning::min_blocks_per_sm) + " r" + std::to_string(Tuning::template replicas<active>);
}

/// One line per tuning, in order.
template <class... Tunings>
void lines(const buffers& b, const std::vector<unsigned>& expected, double floor_us, double cub_us,
           bench::event_timer& timer, const bench::timing_policy& policy) {
  (line<Tunings>(tuning_name<Tunings>().c_str(), b, expected, floor_us, cub_us, timer, policy), ...);
}

int main() {
  if (!bench::require_gpu("channel_tuning_probe")) return 1;
  const std::int64_t n = std::int64_t(1) << 28, pixels = n / channels;
  std::uint8_t* d_samples = nullptr;
  BENCH_CHECK(cudaMalloc(&d_samples, static_cast<std::size_t>(n)));
  buffers b;
  b.samples = d_samples;
  b.n = n;
  std::vector<std::int32_t> tables(active * bytes::byte_values);
  for (std::size_t i = 0; i < tables.size(); ++i) tables[i] = static_cast<std::int32_t>(i % bytes::byte_values);
  BENCH_CHECK(cudaMalloc(&b.tables, tables.size() * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMemcpy(b.tables, tables.data(), tables.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  BENCH_CHECK(cudaMalloc(&b.hist, active * bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&b.totals, bytes::channel_totals_bytes(active)));
  int* d_cub = nullptr;
  BENCH_CHECK(cudaMalloc(&d_cub, active * bins * sizeof(int)));
  bench::event_timer timer;
  bench::timing_policy policy;

  for (const ghist_bytes::byte_dist d : {ghist_bytes::byte_dist::uniform, ghist_bytes::byte_dist::image}) {
    fill<<<2048, 256>>>(d_samples, n, d, 42);
    BENCH_CHECK(cudaDeviceSynchronize());
    const double floor_us =
        bench::measure_read_floor(reinterpret_cast<const std::uint32_t*>(d_samples), n / 4, timer, policy).us;
    ::cuda::std::array<int*, active> hist{d_cub, d_cub + bins, d_cub + 2 * bins};
    ::cuda::std::array<int, active> levels{bins + 1, bins + 1, bins + 1}, lo{0, 0, 0}, hi{256, 256, 256};
    std::size_t temp_bytes = 0;
    BENCH_CHECK((cub::DeviceHistogram::MultiHistogramEven<channels, active>(nullptr, temp_bytes, d_samples, hist,
                                                                             levels, lo, hi, pixels)));
    void* temp = nullptr;
    BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
    const double cub_us = timer
                              .median(
                                  [&] {
                                    BENCH_CHECK((cub::DeviceHistogram::MultiHistogramEven<channels, active>(
                                        temp, temp_bytes, d_samples, hist, levels, lo, hi, pixels)));
                                  },
                                  policy)
                              .us;
    BENCH_CHECK(cudaFree(temp));
    std::vector<unsigned> expected(active * bins);
    BENCH_CHECK(cudaMemcpy(expected.data(), d_cub, expected.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::printf("%s RGBA, 2^28 bytes, 3 channels x 256 bins: read floor %.1f us, CUB %.1f us (%.2f of the floor)\n",
                ghist_bytes::to_string(d), floor_us, cub_us, floor_us / cub_us);
    line<bytes::channel_tuning>("library (channel_tuning)", b, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<256, 4, 2, 4>>("b256 u4 m2 r4 (before)", b, expected, floor_us, cub_us, timer, policy);
    // Round 1 (2026-11-28): b256 u8 m2 r4, u6 m2 r4, u4 m4 r2, u6 m4 r2, u8 m3 r2, b512 u4 m2 r2, b256 u4 m6 r1,
    // u4 m8 r1: none ahead of b256 u4 m2 r4 by more than 1%, most behind; b384 u8 m1 r4 0.80-0.81 against 0.76-0.79.
    lines<probe_tuning<384, 8, 1, 4>, probe_tuning<384, 6, 1, 4>, probe_tuning<384, 10, 1, 4>,
          probe_tuning<384, 12, 1, 4>, probe_tuning<320, 8, 1, 4>, probe_tuning<448, 8, 1, 4>,
          probe_tuning<512, 8, 1, 4>, probe_tuning<512, 6, 1, 4>, probe_tuning<384, 8, 1, 2>,
          probe_tuning<768, 4, 1, 2>, probe_tuning<192, 8, 2, 4>>(b, expected, floor_us, cub_us, timer, policy);
  }
  return 0;
}
