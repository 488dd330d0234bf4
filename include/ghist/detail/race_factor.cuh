// The race-factor inspector that seed 000 describes and its code never built: sample a few runs of consecutive
// inputs, count the distinct bins they hit, and estimate how many bins the whole input keeps active.
// The estimate itself is host code, in race_factor_estimate.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/race_factor_estimate.hpp"

namespace ghist::detail {

inline constexpr int inspector_runs = 8;           // runs of consecutive inputs, spread evenly over the input
inline constexpr int inspector_run_length = 1024;  // inputs per run
inline constexpr int inspector_samples = inspector_runs * inspector_run_length;
inline constexpr std::size_t inspector_bytes = inspector_samples * sizeof(std::int64_t);

template <class Source>
__global__ void sample_bins_kernel(Source src, std::int64_t n, std::int64_t* bins_out) {
  const int run = blockIdx.x;
  const std::int64_t run_length = n < inspector_run_length ? n : inspector_run_length;
  const std::int64_t start = (n - run_length) * run / (inspector_runs > 1 ? inspector_runs - 1 : 1);
  for (int k = threadIdx.x; k < inspector_run_length; k += blockDim.x)
    bins_out[run * inspector_run_length + k] = k < run_length ? src.at(start + k).bin : -1;
}

/// Samples `src` on `stream` and returns the race factor. Waits for `stream` (documented on the public calls).
/// `buffer` is device memory of at least inspector_bytes.
template <class Source>
double estimate_race_factor(const Source& src, std::int64_t n, std::int64_t num_bins, void* buffer,
                            cudaStream_t stream) {
  auto* device_bins = static_cast<std::int64_t*>(buffer);
  sample_bins_kernel<<<inspector_runs, 256, 0, stream>>>(src, n, device_bins);
  GHIST_CUDA_CHECK(cudaGetLastError());
  std::vector<std::int64_t> bins(inspector_samples);
  GHIST_CUDA_CHECK(cudaMemcpyAsync(bins.data(), device_bins, inspector_bytes, cudaMemcpyDeviceToHost, stream));
  GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
  return race_factor_from_samples(std::move(bins), num_bins);
}

}  // namespace ghist::detail
