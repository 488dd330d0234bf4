// Probe: the small-even path's counter and tuning (detail/cub_compat/small_even_path.cuh; issue 4, item 5). float
// samples into <= 256 even bins were the one drop-in cell not ahead of CUB: ghist and CUB both took 364-370 us for
// Even 32 / 256 at 2^28 samples, 0.95 of the read floor (bench/results/2026-11-28-h100-issue4-close.txt, section 4).
// Tunings of 256..1024 threads and 2..6 vectors per thread were within 1% of each other on 2026-11-22
// (bench/results/2026-11-22-h100-experiment-float-even-256-tunings.txt). This probe times the library's
// float_even_counter (the levels in registers, a 32-bit bin) against the counter it replaced, which called the
// even_transform per sample (a test of the transform's kind per sample, a 64-bit bin), and five tunings of the new
// counter. Each line: the median of 25 event-timed calls on 2^28 uniform floats in [0, 1), its fraction of the read
// floor and its speedup over CUB's HistogramEven, measured in the same run; every result is compared with CUB's.
// Lent H100, 2026-11-28 (bench/results/2026-11-28-h100-issue4-final.txt, section 1): the new counter 0.975-0.980
// of the floor (1.025-1.036x CUB), the old one 0.954-0.958 (1.002-1.012x); the tunings within 1% of the default.
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

/// The counter before float_even_counter: the call's even_transform on every sample.
struct transform_counter {
  using sample = float;
  cd::even_transform<float, float> to_bin;
  __device__ const cd::even_transform<float, float>& prepare() const { return to_bin; }
  __device__ void count_one(unsigned* h, sample x, const cd::even_transform<float, float>& t) const {
    const std::int64_t b = t(x);
    if (b >= 0) atomicAdd(&h[ghist::detail::bytes::byte_slot<1, true>(static_cast<unsigned>(b))], 1u);
  }
  __device__ void count_vector(unsigned* h, const uint4& v, const cd::even_transform<float, float>& t) const {
    count_one(h, __uint_as_float(v.x), t);
    count_one(h, __uint_as_float(v.y), t);
    count_one(h, __uint_as_float(v.z), t);
    count_one(h, __uint_as_float(v.w), t);
  }
};

__global__ void fill(float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    out[i] = static_cast<float>(static_cast<std::uint32_t>(z >> 40)) * 0x1p-24f;
  }
}

template <class Call>
void line(const char* name, Call&& call, int* hist, const std::vector<int>& expected, double floor_us, double cub_us,
          bench::event_timer& timer, const bench::timing_policy& policy) {
  call();
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<int> got(expected.size());
  BENCH_CHECK(cudaMemcpy(got.data(), hist, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  const bench::timing m = timer.median(call, policy);
  std::printf("  %-30s %8.1f us  %.3f of the floor  %.3fx CUB  %s\n", name, m.us, floor_us / m.us, cub_us / m.us,
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
    std::printf("float, 2^28 samples, %d even bins: read floor %.1f us, CUB %.1f us (%.3f of the floor)\n", bins,
                floor_us, cub_us, floor_us / cub_us);
    const int b = bins;
    const cd::float_even_counter lean{t.lo, t.hi, t.recip, b};
    const transform_counter old{t};
    auto lib = [&] { cd::run_small_even_path<int, float, float>(d, n, t, d_hist, 0); };
    auto old_counter = [&] { cd::launch_small_even<int>(d, n, b, old, d_hist, 0); };
    auto tuned = [&](auto tuning) {
      return [&, tuning] { cd::launch_small_even<int, decltype(tuning)>(d, n, b, lean, d_hist, 0); };
    };
    for (int round = 0; round < 2; ++round) {  // twice, to see the run-to-run spread
      line("library (float_even_counter)", lib, d_hist, expected, floor_us, cub_us, timer, policy);
      line("transform_counter (before)", old_counter, d_hist, expected, floor_us, cub_us, timer, policy);
      line("lean b512 u6 m2", tuned(probe_tuning<512, 6, 2>{}), d_hist, expected, floor_us, cub_us, timer, policy);
      line("lean b384 u8 m2", tuned(probe_tuning<384, 8, 2>{}), d_hist, expected, floor_us, cub_us, timer, policy);
      line("lean b1024 u4 m1", tuned(probe_tuning<1024, 4, 1>{}), d_hist, expected, floor_us, cub_us, timer, policy);
      line("lean b512 u2 m3", tuned(probe_tuning<512, 2, 3>{}), d_hist, expected, floor_us, cub_us, timer, policy);
      line("lean b256 u8 m3", tuned(probe_tuning<256, 8, 3>{}), d_hist, expected, floor_us, cub_us, timer, policy);
      std::printf("  CUB again %.1f us\n", timer.median(cub_call, policy).us);
    }
    BENCH_CHECK(cudaFree(temp));
  }
  return 0;
}
