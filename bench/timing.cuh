// Timing with CUDA events, and the two floors every result is compared with.
//
// A measurement is one warm-up run (timed, to size the rest), then `reps` runs each between two events on the
// default stream, and their median. A variant whose warm-up shows that `reps` runs would take longer than the
// per-variant budget gets fewer runs (never fewer than min_reps), and one whose single run already takes longer
// than the budget is reported from that run alone, so that a slow fixed (M, S) in the sweep (a lock per bin in
// global memory under heavy contention, say) cannot take the whole run. The number of runs is reported with each
// result.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#define BENCH_CHECK(call)                                                                                   \
  do {                                                                                                      \
    const cudaError_t e_ = (call);                                                                          \
    if (e_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "ghist_bench: %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                         \
    }                                                                                                       \
  } while (0)

namespace bench {

struct timing_policy {
  int reps = 25;              ///< timed runs after the warm-up
  int min_reps = 3;           ///< at least this many, whatever the budget
  double budget_ms = 400.0;   ///< per variant: fewer runs when reps of them would take longer than this
};

struct timing {
  double us = NAN;  ///< median
  int reps = 0;     ///< timed runs the median is over
};

/// A benchmark's first CUDA call: false, after one clear line on stderr, when there is no usable GPU.
inline bool require_gpu(const char* program) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe == cudaSuccess && devices > 0) return true;
  std::fprintf(stderr, "%s: no CUDA device available (%s); this benchmark needs a GPU\n", program,
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
  return false;
}

class event_timer {
 public:
  event_timer() {
    BENCH_CHECK(cudaEventCreate(&start_));
    BENCH_CHECK(cudaEventCreate(&stop_));
  }
  ~event_timer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Median time of run() (which enqueues its work on the default stream). first_ms: the time of a run just made
  /// (the correctness check), or < 0; a variant whose one run already exceeds the budget is reported from that run.
  template <class Run>
  timing median(Run&& run, const timing_policy& policy, float first_ms = -1.0f) {
    if (first_ms > policy.budget_ms) return {1000.0 * first_ms, 1};
    const float warm_ms = once(run);
    if (warm_ms > policy.budget_ms) return {1000.0 * warm_ms, 1};
    int reps = policy.reps;
    if (warm_ms > 0 && warm_ms * reps > policy.budget_ms)
      reps = std::max(policy.min_reps, static_cast<int>(policy.budget_ms / warm_ms));
    reps = std::max(1, std::min(reps, policy.reps));
    std::vector<float> ms(static_cast<std::size_t>(reps));
    for (auto& m : ms) m = once(run);
    std::sort(ms.begin(), ms.end());
    const std::size_t mid = ms.size() / 2;
    const double median_ms = ms.size() % 2 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
    return {1000.0 * median_ms, reps};
  }

  /// Milliseconds of one run(), synchronised.
  template <class Run>
  float once(Run&& run) {
    BENCH_CHECK(cudaEventRecord(start_));
    run();
    BENCH_CHECK(cudaEventRecord(stop_));
    BENCH_CHECK(cudaEventSynchronize(stop_));
    BENCH_CHECK(cudaGetLastError());
    float ms = 0;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// ---- floors ----

// Reads every input word once with 16-byte loads (and the tail one word at a time), folds them so that the loads
// stay alive, and writes practically never.
__global__ void read_floor_kernel(const std::uint32_t* in, std::int64_t n, unsigned* sink) {
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t n_vec = n / 4;
  const uint4* vec = reinterpret_cast<const uint4*>(in);
  unsigned acc = 0;
  for (std::int64_t i = rank; i < n_vec; i += threads) {
    const uint4 v = vec[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  for (std::int64_t i = 4 * n_vec + rank; i < n; i += threads) acc ^= in[i];
  if (acc == 0x9e3779b9u) *sink = acc;
}

struct floors {
  timing read;  ///< read-only pass over the input bytes
  timing copy;  ///< device-to-device copy of the input bytes (reads and writes them)
};

/// The read-only floor over the n words at d_in (cudaMalloc'd, so 16-byte aligned).
inline timing measure_read_floor(const std::uint32_t* d_in, std::int64_t n, event_timer& timer,
                                 const timing_policy& policy) {
  int sms = 0, device = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  unsigned* sink = nullptr;
  BENCH_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  const timing t = timer.median([&] { read_floor_kernel<<<sms * 8, 512>>>(d_in, n, sink); }, policy);
  BENCH_CHECK(cudaFree(sink));
  return t;
}

/// Both floors over the n words at d_in (cudaMalloc'd, so 16-byte aligned).
inline floors measure_floors(const std::uint32_t* d_in, std::int64_t n, event_timer& timer,
                             const timing_policy& policy) {
  std::uint32_t* copy = nullptr;
  BENCH_CHECK(cudaMalloc(&copy, static_cast<std::size_t>(n) * sizeof(std::uint32_t)));
  floors f;
  f.read = measure_read_floor(d_in, n, timer, policy);
  f.copy = timer.median(
      [&] {
        BENCH_CHECK(cudaMemcpyAsync(copy, d_in, static_cast<std::size_t>(n) * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToDevice));
      },
      policy);
  BENCH_CHECK(cudaFree(copy));
  return f;
}

}  // namespace bench
