// Probe: the small-even path's tuning (detail/cub_compat/small_even_path.cuh; issue 4, item 5). float samples into
// <= 256 even bins are the one drop-in cell not ahead of CUB: on the lent H100 (2026-11-28, the drop-in benchmark at
// 2^28 samples; bench/results/2026-11-28-h100-issue4-close.txt, section 4) ghist and CUB both took 364-365 us for
// Even 32 / 256, 0.95 of the read floor. The byte kernels went from 0.85 to 0.96 with deeper tiles (more loads in
// flight per SM); the small-even kernel keeps 64 KiB in flight (512 threads x 2 blocks x 4 vectors, 64 registers).
// Each line is one tuning: the median of 25 event-timed calls of run_small_even_path on 2^28 uniform floats in
// [0, 1), its fraction of the read floor and its speedup over CUB's HistogramEven, measured in the same run; every
// result is compared with CUB's. Not yet run (written when the session's device time was spent).
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I include -o small_even_tuning_probe \
//     bench/experiments/small_even_tuning_probe.cu build-gpu/libghist.a
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cub/device/device_histogram.cuh>

#include "../timing.cuh"
#include "ghist/cub_compat.cuh"

namespace cd = ghist::cub_compat::detail;

template <int Block, int Unroll, int MinBlocks>
struct probe_tuning {
  static constexpr int block = Block;
  static constexpr int unroll = Unroll;
  static constexpr int min_blocks_per_sm = MinBlocks;
};

__global__ void fill(float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    out[i] = static_cast<float>(static_cast<std::uint32_t>(z >> 40)) * 0x1p-24f;
  }
}

template <class Tuning>
void line(const char* name, const float* d, std::int64_t n, const cd::even_transform<float, float>& t, int* hist,
          const std::vector<int>& expected, double floor_us, double cub_us, bench::event_timer& timer,
          const bench::timing_policy& policy) {
  cd::run_small_even_path<int, float, float, Tuning>(d, n, t, hist, 0);
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<int> got(expected.size());
  BENCH_CHECK(cudaMemcpy(got.data(), hist, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  const bench::timing m =
      timer.median([&] { cd::run_small_even_path<int, float, float, Tuning>(d, n, t, hist, 0); }, policy);
  std::printf("  %-24s %8.1f us  %.3f of the floor  %.3fx CUB  %s\n", name, m.us, floor_us / m.us, cub_us / m.us,
              got == expected ? "ok" : "MISMATCH");
}

int main() {
  if (!bench::require_gpu("small_even_tuning_probe")) return 1;
  const std::int64_t n = std::int64_t(1) << 28;
  float* d = nullptr;
  BENCH_CHECK(cudaMalloc(&d, static_cast<std::size_t>(n) * sizeof(float)));
  fill<<<2048, 256>>>(d, n);
  BENCH_CHECK(cudaDeviceSynchronize());
  int *d_cub = nullptr, *d_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_cub, 256 * sizeof(int)));
  BENCH_CHECK(cudaMalloc(&d_hist, 256 * sizeof(int)));
  bench::event_timer timer;
  bench::timing_policy policy;
  for (int bins : {32, 256}) {
    cd::even_transform<float, float> t;
    if (cd::make_even_transform(bins + 1, 0.f, 1.f, t) != cd::even_status::ok) return 1;
    std::size_t temp_bytes = 0;
    BENCH_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d, d_cub, bins + 1, 0.f, 1.f, n));
    void* temp = nullptr;
    BENCH_CHECK(cudaMalloc(&temp, temp_bytes));
    auto cub_call = [&] {
      BENCH_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d, d_cub, bins + 1, 0.f, 1.f, n));
    };
    cub_call();
    BENCH_CHECK(cudaDeviceSynchronize());
    std::vector<int> expected(static_cast<std::size_t>(bins));
    BENCH_CHECK(cudaMemcpy(expected.data(), d_cub, expected.size() * sizeof(int), cudaMemcpyDeviceToHost));
    const double floor_us =
        bench::measure_read_floor(reinterpret_cast<const std::uint32_t*>(d), n, timer, policy).us;
    const double cub_us = timer.median(cub_call, policy).us;
    BENCH_CHECK(cudaFree(temp));
    std::printf("float, 2^28 samples, %d even bins: read floor %.1f us, CUB %.1f us (%.3f of the floor)\n", bins,
                floor_us, cub_us, floor_us / cub_us);
    line<cd::small_even_tuning>("library (b512 u4 m2)", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<512, 6, 2>>("b512 u6 m2", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<384, 8, 2>>("b384 u8 m2", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<384, 12, 1>>("b384 u12 m1", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<768, 6, 1>>("b768 u6 m1", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<1024, 4, 1>>("b1024 u4 m1", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
    line<probe_tuning<256, 8, 3>>("b256 u8 m3", d, n, t, d_hist, expected, floor_us, cub_us, timer, policy);
  }
  return 0;
}
