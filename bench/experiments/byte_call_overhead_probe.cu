// Probe: where a byte histogram call's time goes besides its counting kernel (issue 4, item 1). A 1 GiB call of the
// packed-counters method timed by events took ~11 us more than its kernel alone (ncu duration), ~3% of the read
// floor, and a 64 KiB call ~20 us against ~7 us for one kernel launch between two events. Each line here is the
// median of 101 event-timed runs of one way of enqueueing (the bench's timing, bench/timing.cuh), on 64 KiB of
// uniform bytes unless said otherwise; "host" lines are the host's own time to return from the call (no sync
// inside the timed part). Results: bench/results/2026-11-28-h100-bytes-pair-atomics.txt, sections 7 and 12 (the
// call's kernel then ended sooner once blocks added into the bins themselves, and the call stopped taking a
// workspace from the pool).
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I include -I tests/bytes -o byte_call_overhead_probe \
//     bench/experiments/byte_call_overhead_probe.cu build-gpu/libghist.a
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "../timing.cuh"
#include "byte_inputs.hpp"
#include "ghist/byte_histogram.hpp"
#include "ghist/detail/byte_histogram/launch.cuh"
#include "ghist/detail/validate.hpp"

namespace bytes = ghist::detail::bytes;

__global__ void empty_kernel(bytes::byte_job job) {
  if (job.num_vectors == -1) job.totals[0] = 1;
}

__global__ void empty_small_kernel(unsigned long long* p, std::int64_t n) {
  if (n == -1) p[0] = 1;
}

__global__ void fill(std::uint8_t* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = ghist_bytes::byte_at(ghist_bytes::byte_dist::uniform, i, seed);
}

template <class Run>
void line(const char* what, Run&& run) {
  bench::event_timer timer;
  bench::timing_policy policy;
  policy.reps = 101;
  policy.budget_ms = 1e9;
  const bench::timing t = timer.median(run, policy);
  std::printf("%-60s %9.2f us\n", what, t.us);
}

template <class Run>
void host_line(const char* what, Run&& run) {
  std::vector<double> us;
  for (int r = 0; r < 101; ++r) {
    BENCH_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  BENCH_CHECK(cudaDeviceSynchronize());
  std::sort(us.begin(), us.end());
  std::printf("%-60s %9.2f us (host)\n", what, us[us.size() / 2]);
}

int main() {
  const std::int64_t big = std::int64_t(1) << 30, small = 65536;
  std::uint8_t* d = nullptr;
  std::uint32_t* hist = nullptr;
  void* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&d, big));
  BENCH_CHECK(cudaMalloc(&hist, 256 * sizeof(std::uint32_t)));
  BENCH_CHECK(cudaMalloc(&scratch, ghist::byte_histogram_workspace_bytes()));
  fill<<<1024, 256>>>(d, big, 12345);
  BENCH_CHECK(cudaDeviceSynchronize());
  ghist::options with_scratch;
  with_scratch.scratch = {scratch, ghist::byte_histogram_workspace_bytes()};
  const auto packed = ghist::byte_method::packed_counters;
  bytes::byte_job job;

  line("empty kernel (byte_job parameter)", [&] { empty_kernel<<<132, 384>>>(job); });
  line("empty kernel (16-byte parameters)", [&] { empty_small_kernel<<<132, 384>>>(nullptr, 0); });
  line("memset of the workspace + empty kernel", [&] {
    BENCH_CHECK(cudaMemsetAsync(scratch, 0, ghist::byte_histogram_workspace_bytes()));
    empty_kernel<<<132, 384>>>(job);
  });
  line("two device-range checks + empty kernel", [&] {
    ghist::detail::check_device_range(d, small, "samples");
    ghist::detail::check_device_range(hist, 1024, "hist");
    empty_kernel<<<132, 384>>>(job);
  });
  for (std::int64_t n : {small, big}) {
    std::printf("-- %lld bytes\n", static_cast<long long>(n));
    line("call, packed, pool workspace", [&] {
      ghist::byte_histogram_even_async(d, n, hist, 256, 0, 256, 0, ghist::options{}, packed);
    });
    line("call, packed, caller's scratch", [&] {
      ghist::byte_histogram_even_async(d, n, hist, 256, 0, 256, 0, with_scratch, packed);
    });
    line("call, shared atomics, caller's scratch", [&] {
      ghist::byte_histogram_even_async(d, n, hist, 256, 0, 256, 0, with_scratch, ghist::byte_method::shared_atomics);
    });
  }
  host_line("call, packed, pool workspace, 64 KiB", [&] {
    ghist::byte_histogram_even_async(d, small, hist, 256, 0, 256, 0, ghist::options{}, packed);
  });
  host_line("call, packed, caller's scratch, 64 KiB", [&] {
    ghist::byte_histogram_even_async(d, small, hist, 256, 0, 256, 0, with_scratch, packed);
  });
  host_line("empty kernel", [&] { empty_kernel<<<132, 384>>>(job); });
  host_line("empty kernel (16-byte parameters)", [&] { empty_small_kernel<<<132, 384>>>(nullptr, 0); });
  host_line("memset", [&] { BENCH_CHECK(cudaMemsetAsync(scratch, 0, ghist::byte_histogram_workspace_bytes())); });
  host_line("two device-range checks", [&] {
    ghist::detail::check_device_range(d, small, "samples");
    ghist::detail::check_device_range(hist, 1024, "hist");
  });
  BENCH_CHECK(cudaFree(d));
  BENCH_CHECK(cudaFree(hist));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
