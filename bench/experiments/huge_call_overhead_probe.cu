// Probe: how much of a huge histogram call's measured time is the host's (planning, occupancy queries, launch
// setup) rather than the GPU's. The benchmark records an event, makes the call and records a second event, so the
// GPU idles from the first event until the call's first kernel is enqueued. Here each call is timed three ways
// (N = 50M uniform uint32, seed 000's bin function, int32 counts, H given on the command line, default 100M):
//   plain:   event, call, event (as the benchmark does);
//   queued:  a ~2 ms spin kernel first, then event, call, event: the host enqueues the whole call while the GPU
//            spins, so the events see the GPU's time alone (kernels and the gaps between them);
//   host:    the wall time of the call itself on the host (std::chrono), in the plain runs.
// Medians of 21. Results: bench/results/2026-11-27-h100-narrow-counts.txt, section 5. Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr --extended-lambda -Iinclude -Ibench \
//     -o huge_call_overhead_probe bench/experiments/huge_call_overhead_probe.cu build-gpu/libghist.a
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/generalized_histogram.cuh"
#include "seed000_ops.cuh"

#define PROBE_CHECK(call)                                                               \
  do {                                                                                  \
    const cudaError_t e = (call);                                                       \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void fill_uniform(std::uint32_t* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    x[i] = static_cast<std::uint32_t>(z ^ (z >> 31));
  }
}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const std::int64_t n = 50'000'000, H = argc > 1 ? std::atoll(argv[1]) : 100'000'000;
  std::uint32_t* in = nullptr;
  std::int32_t* hist = nullptr;
  PROBE_CHECK(cudaMalloc(&in, n * sizeof(std::uint32_t)));
  PROBE_CHECK(cudaMalloc(&hist, H * sizeof(std::int32_t)));
  fill_uniform<<<1024, 256>>>(in, n);
  const bench::hdw_fn f{bench::seed000_bin::make(H, 1)};
  ghist::options opts;
  opts.race_factor = 1;
  auto call = [&] { ghist::generalized_histogram_async(in, n, f, ghist::plus<std::int32_t>{}, hist, H, 0, opts); };
  call();
  PROBE_CHECK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  PROBE_CHECK(cudaEventCreate(&a));
  PROBE_CHECK(cudaEventCreate(&b));
  std::vector<double> plain, queued, host;
  for (int rep = 0; rep < 21; ++rep) {
    PROBE_CHECK(cudaEventRecord(a));
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const auto t1 = std::chrono::steady_clock::now();
    PROBE_CHECK(cudaEventRecord(b));
    PROBE_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
    plain.push_back(1000.0 * ms);
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());

    spin<<<1, 1>>>(4'000'000);  // ~2 ms
    PROBE_CHECK(cudaEventRecord(a));
    call();
    PROBE_CHECK(cudaEventRecord(b));
    PROBE_CHECK(cudaEventSynchronize(b));
    PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
    queued.push_back(1000.0 * ms);
  }
  std::printf("H = %lld: plain %.1f us, queued (GPU alone) %.1f us, host time of the call %.1f us\n",
              static_cast<long long>(H), median(plain), median(queued), median(host));
  return 0;
}
