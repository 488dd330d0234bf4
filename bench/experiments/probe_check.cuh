// CK(call): the standalone probes in this folder stop with the CUDA error's name at the first failing call.
// event_median_us: a probe's timing of one launch. fill_uniform_words, read_floor_vectors, uniform_words: the uniform
// 32-bit input of the HDW probes (on the device and a host copy) and the read floor over it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                  \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

/// The median of `reps` event-timed runs of launch() on the default stream, in us, after `warmups` untimed ones;
/// prepare() runs before each, outside the timed span (a reset of the output, say).
template <class Prepare, class Launch>
double event_median_us(Prepare&& prepare, Launch&& launch, int reps = 21, int warmups = 0) {
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  std::vector<float> ms;
  for (int rep = 0; rep < warmups + reps; ++rep) {
    prepare();
    CK(cudaEventRecord(t0));
    launch();
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float m = 0;
    CK(cudaEventElapsedTime(&m, t0, t1));
    if (rep >= warmups) ms.push_back(m);
  }
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  std::sort(ms.begin(), ms.end());
  return 1000.0 * ms[ms.size() / 2];
}

/// out[i] = the top half of splitmix64(i * golden + c): uniform 32-bit words, the same for every launch shape.
__global__ void fill_uniform_words(unsigned* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    out[i] = static_cast<unsigned>(z >> 32);
  }
}

/// Reads each of the n vectors once and keeps the loads alive (the read floor a histogram of them is measured against).
__global__ void read_floor_vectors(const uint4* v, std::int64_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint4 w = v[i];
    acc ^= w.x ^ w.y ^ w.z ^ w.w;
  }
  if (acc == 0x12345678u) *sink = acc;
}

/// n words of fill_uniform_words on the device (cudaMalloc'd, never freed: a probe's input lives as long as it) and
/// their host copy; prints the probe's header line (the GPU, n, the grid of `blocks` blocks of 1024 threads).
struct uniform_words {
  unsigned* device = nullptr;
  std::vector<unsigned> host;
  uniform_words(std::int64_t n, int blocks) : host(static_cast<std::size_t>(n)) {
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, N = %lld uint32, %d blocks of 1024 threads, medians of 21\n", prop.name,
                static_cast<long long>(n), blocks);
    CK(cudaMalloc(&device, n * sizeof(unsigned)));
    fill_uniform_words<<<2048, 256>>>(device, n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), device, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  }
};
