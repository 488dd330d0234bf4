// Probe: how much of a histogram call's measured time is the host's (checks, planning, gate and launch set-up)
// rather than the GPU's. The benchmark records an event, makes the call and records a second event, so the GPU
// idles from the first event until the call's first kernel is enqueued. Each call (HDW: N = 50M uniform uint32,
// seed 000's bin function, int32 counts, RF told) is timed three ways:
//   plain:   event, call, event (as the benchmark does);
//   queued:  a ~2 ms spin kernel first, then event, call, event: the host enqueues the whole call while the GPU
//            spins, so the events see the GPU's time alone (kernels and the gaps between them);
//   host:    the wall time of the call itself on the host (std::chrono), in the plain runs.
// The read floor's kernel is timed the same two ways (its plain - queued is a bare launch's share), and each runtime
// query a call makes, and each step of a one-pass HDW call's dispatch, is timed on its own (host medians of 1001,
// of 101 for launches; the launches among them queue up, which is what a launch costs the host). Medians of 21.
// Usage: call_overhead_probe [H RF]...   (default: 31 1  6144 1  12288 1  12288 63  100000000 1)
// Results: bench/results/2026-11-27-h100-narrow-counts.txt, section 5 (huge H, as huge_call_overhead_probe.cu);
// bench/results/2026-11-28-h200-hdw-one-pass.txt, sections 1 and 5 (one-pass HDW). Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr --extended-lambda -Iinclude -Ibench \
//     -o call_overhead_probe bench/experiments/call_overhead_probe.cu build-gpu/libghist.a -lcuda
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "experiments/probe_check.cuh"
#include "ghist/device_info.hpp"
#include "ghist/generalized_histogram.cuh"
#include "seed000_ops.cuh"
#include "timing.cuh"

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

__global__ void empty_kernel() {}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using clock_type = std::chrono::steady_clock;

/// Host microseconds of one call of f, median of `reps` (f may enqueue work: up to ~100 launches fit the queue).
template <class F>
double host_us(F&& f, int reps = 1001) {
  std::vector<double> us;
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = clock_type::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - t0).count());
  }
  return median(us);
}

/// plain / queued / host medians of call() (see the top of the file).
template <class Call>
void time_three_ways(const char* what, Call&& call) {
  call();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> plain, queued, host;
  for (int rep = 0; rep < 21; ++rep) {
    float ms = 0;
    CK(cudaEventRecord(a));
    const auto t0 = clock_type::now();
    call();
    const auto t1 = clock_type::now();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    plain.push_back(1000.0 * ms);
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());

    spin<<<1, 1>>>(4'000'000);  // ~2 ms
    CK(cudaEventRecord(a));
    call();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    queued.push_back(1000.0 * ms);
  }
  std::printf("%-28s plain %7.1f us  queued (GPU alone) %7.1f us  plain - queued %5.1f us  "
              "host time of the call %5.1f us\n",
              what, median(plain), median(queued), median(plain) - median(queued), median(host));
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
}

int main(int argc, char** argv) {
  std::vector<std::pair<std::int64_t, std::int64_t>> cells;
  for (int i = 1; i + 1 < argc; i += 2) cells.emplace_back(std::atoll(argv[i]), std::atoll(argv[i + 1]));
  if (cells.empty()) cells = {{31, 1}, {6144, 1}, {12288, 1}, {12288, 63}, {100'000'000, 1}};
  std::int64_t max_h = 12288;  // the dispatch steps below use 12288 bins
  for (const auto& c : cells) max_h = std::max(max_h, c.first);

  const std::int64_t n = 50'000'000;
  std::uint32_t* in = nullptr;
  std::int32_t* hist = nullptr;
  unsigned* sink = nullptr;
  CK(cudaMalloc(&in, n * sizeof(std::uint32_t)));
  CK(cudaMalloc(&hist, max_h * sizeof(std::int32_t)));
  CK(cudaMalloc(&sink, sizeof(unsigned)));
  fill_uniform<<<1024, 256>>>(in, n);
  CK(cudaDeviceSynchronize());
  const int sms = ghist::device_info::current().sm_count;

  std::printf("# host time of each runtime query a call makes (medians of 1001)\n");
  cudaPointerAttributes attr{};
  CUdeviceptr base = 0;
  size_t size = 0;
  cudaStreamCaptureStatus capture{};
  unsigned long long stream_id = 0;
  int device = 0;
  std::printf("cudaGetDevice                %6.2f us\n", host_us([&] { CK(cudaGetDevice(&device)); }));
  std::printf("cudaPointerGetAttributes     %6.2f us\n", host_us([&] { CK(cudaPointerGetAttributes(&attr, in)); }));
  std::printf("cuMemGetAddressRange         %6.2f us\n",
              host_us([&] { (void)cuMemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(in)); }));
  std::printf("cudaStreamIsCapturing        %6.2f us\n", host_us([&] { CK(cudaStreamIsCapturing(0, &capture)); }));
  std::printf("cudaStreamGetId              %6.2f us\n", host_us([&] { CK(cudaStreamGetId(0, &stream_id)); }));
  std::printf("device_info::current         %6.2f us\n", host_us([&] { (void)ghist::device_info::current(); }));
  std::printf("empty kernel launch          %6.2f us\n", host_us([&] { empty_kernel<<<1, 32>>>(); }));
  CK(cudaDeviceSynchronize());
  // The steps of a one-pass HDW call (dispatch.cuh's run_histogram and launch_shared), each on its own.
  {
    namespace gd = ghist::detail;
    const std::int64_t H = 12288;
    const bench::hdw_fn f{bench::seed000_bin::make(H, 1)};
    using source = gd::element_source<std::uint32_t, bench::hdw_fn>;
    using op = ghist::plus<std::int32_t>;
    ghist::problem p = ghist::problem_for<op>(n, H, 1.0);
    p.record_bytes = gd::partition_traits<source>::record_bytes;
    p.unit_increments = gd::unit_increments_v<bench::hdw_fn, op>;
    const ghist::device_info dev = ghist::device_info::current();
    const ghist::plan pl = ghist::make_plan(p, dev, {});
    auto kernel = gd::hdw_one_pass_kernel<source, op, true>;
    std::printf("check_device_range (input)   %6.2f us\n",
                host_us([&] { gd::check_device_range(in, n * sizeof(std::uint32_t), "input"); }));
    std::printf("make_plan                    %6.2f us\n", host_us([&] { (void)ghist::make_plan(p, dev, {}); }));
    std::printf("overwrite_gate_for           %6.2f us\n", host_us([&] { (void)gd::overwrite_gate_for(0); }));
    std::printf("allow_dynamic_shared         %6.2f us\n",
                host_us([&] { gd::allow_dynamic_shared(kernel, pl.shared_bytes); }));
    const gd::overwrite_gate gate = gd::overwrite_gate_for(0);
    std::printf("hdw_one_pass_kernel launch   %6.2f us\n", host_us([&] {
                  kernel<<<pl.grid, pl.block, pl.shared_bytes>>>(source{in, n, f}, op{}, hist, gate, H, pl.M,
                                                                 static_cast<int>(H));
                }, 101));
    CK(cudaDeviceSynchronize());
    ghist::options opts;
    opts.race_factor = 1;
    std::printf("the whole call               %6.2f us\n", host_us([&] {
                  ghist::generalized_histogram_async(in, n, f, op{}, hist, H, 0, opts);
                }, 101));
    CK(cudaDeviceSynchronize());
  }

  std::printf("# the read floor's kernel, and ghist's HDW calls\n");
  time_three_ways("read floor kernel", [&] { bench::read_floor_kernel<<<sms * 8, 512>>>(in, n, sink); });
  for (const auto& cell : cells) {
    const std::int64_t H = cell.first, RF = cell.second;
    const bench::hdw_fn f{bench::seed000_bin::make(H, RF)};
    ghist::options opts;
    opts.race_factor = double(RF);
    const ghist::plan pl =
        ghist::plan_for_elements<ghist::plus<std::int32_t>, std::uint32_t, bench::hdw_fn>(n, H, opts);
    std::printf("# H = %lld RF = %lld: %s; planning alone %.2f us\n", static_cast<long long>(H),
                static_cast<long long>(RF), pl.to_string().c_str(), host_us([&] {
                  (void)ghist::plan_for_elements<ghist::plus<std::int32_t>, std::uint32_t, bench::hdw_fn>(n, H, opts);
                }));
    char what[64];
    std::snprintf(what, sizeof what, "HDW H = %lld RF = %lld", static_cast<long long>(H), static_cast<long long>(RF));
    time_three_ways(what, [&] {
      ghist::generalized_histogram_async(in, n, f, ghist::plus<std::int32_t>{}, hist, H, 0, opts);
    });
  }
  return 0;
}
