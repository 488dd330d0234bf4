// Probe: one histogram spread over the shared memory of a thread-block cluster (distributed shared memory, sm_90),
// for seed 000's packed argmax at H = 49152 told RF 1, where ghist partitions (~400 us on the lent H200, 5x CUB needs
// ~350). 49152 bins of 8 bytes do not fit one SM's shared memory but do fit 2 or 4: each block of a cluster owns
// H / C bins, and every input goes to its bin's owner through the cluster's shared window, a remote load first and a
// compare-and-swap only where the argmax would change the bin (the unchanged-bins rule of ghist's idempotent
// operators). What it is for: is an SM-to-SM access per input fast enough to beat the partition's three passes
// over memory (read, write, read) for H between one SM's shared memory and C times it?
//
// One block of 1024 threads per SM, clusters of C = 1 (H / 2 bins, only to price the local loop), 2 or 4, as many
// clusters as fit at once, each walking a grid-stride share of N = 50M uniform 32-bit inputs (`unroll` inputs in
// flight per thread), then a second kernel folds the clusters' rows. Checked against a host argmax. Not part of the
// build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cluster_shared_argmax_probe cluster_shared_argmax_probe.cu
//   ./cluster_shared_argmax_probe
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe_check.cuh"

namespace cg = cooperative_groups;

constexpr unsigned H = 49152;
constexpr std::int64_t N = 50'000'000;
constexpr int threads = 1024;

__host__ __device__ __forceinline__ std::uint64_t packed_value(std::uint32_t x) {
  return (std::uint64_t(x ^ 0x80000000u) << 32) | (x / 64);
}
__host__ __device__ __forceinline__ std::uint64_t argmax(std::uint64_t a, std::uint64_t b) {
  const std::uint32_t va = std::uint32_t(a >> 32), vb = std::uint32_t(b >> 32);
  if (va != vb) return va > vb ? a : b;
  return std::uint32_t(a) <= std::uint32_t(b) ? a : b;
}
constexpr std::uint64_t identity = 0xffffffffull;

__device__ __forceinline__ std::uint64_t peek(std::uint64_t* at) { return *reinterpret_cast<volatile std::uint64_t*>(at); }
// `old`: the bin as peeked.
__device__ __forceinline__ void update(std::uint64_t* at, std::uint64_t v, std::uint64_t old) {
  while (argmax(old, v) != old) {  // unchanged bins are not written
    const std::uint64_t seen = atomicCAS(reinterpret_cast<unsigned long long*>(at), old, argmax(old, v));
    if (seen == old) break;
    old = seen;
  }
}

template <int C, int Unroll>
__global__ void __launch_bounds__(threads, 1) cluster_argmax(const std::uint32_t* input, std::uint64_t* rows) {
  extern __shared__ std::uint64_t part[];  // this block's H / C bins (C = 1: H / 2, the local loop's price only)
  constexpr unsigned per = C == 1 ? H / 2 : H / C;
  cg::cluster_group cluster = cg::this_cluster();
  for (unsigned i = threadIdx.x; i < per; i += threads) part[i] = identity;
  cluster.sync();
  std::uint64_t* owners[C];
#pragma unroll
  for (int r = 0; r < C; ++r) owners[r] = cluster.map_shared_rank(part, r);
  const std::int64_t stride = std::int64_t{gridDim.x} * threads;
  std::int64_t i = std::int64_t{blockIdx.x} * threads + threadIdx.x;
  for (; i + (Unroll - 1) * stride < N; i += Unroll * stride) {
    std::uint32_t x[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) x[u] = input[i + u * stride];
    std::uint64_t* at[Unroll];
    std::uint64_t old[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {  // all peeks in flight before the first compare
      const unsigned bin = (C == 1 ? x[u] % (H / 2) : x[u] % H);
      const unsigned owner = bin / per;
      at[u] = owners[C == 1 ? 0 : owner] + (bin - owner * per);
      old[u] = peek(at[u]);
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u) update(at[u], packed_value(x[u]), old[u]);
  }
  for (; i < N; i += stride) {
    const unsigned bin = (C == 1 ? input[i] % (H / 2) : input[i] % H), owner = bin / per;
    std::uint64_t* at = owners[C == 1 ? 0 : owner] + (bin - owner * per);
    update(at, packed_value(input[i]), peek(at));
  }
  cluster.sync();
  const unsigned cluster_id = blockIdx.x / C, rank = cluster.block_rank();
  for (unsigned b = threadIdx.x; b < per; b += threads) rows[std::int64_t{cluster_id} * H + rank * per + b] = part[b];
}

__global__ void fold_rows(const std::uint64_t* rows, int count, std::uint64_t* dest) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= H) return;
  std::uint64_t acc = identity;
  for (int r = 0; r < count; ++r) acc = argmax(acc, rows[std::int64_t{r} * H + b]);
  dest[b] = acc;
}

__global__ void fill(std::uint32_t* x, std::int64_t n) {
  for (std::int64_t i = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint32_t s = static_cast<std::uint32_t>(i) * 2654435761u + 12345u;
    s ^= s << 13; s ^= s >> 17; s ^= s << 5; s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    x[i] = s;
  }
}

template <int C, int Unroll>
void run(const std::uint32_t* d_in, const std::vector<std::uint64_t>& expected) {
  constexpr unsigned per = C == 1 ? H / 2 : H / C;
  const int shared = static_cast<int>(per * sizeof(std::uint64_t));
  auto kernel = cluster_argmax<C, Unroll>;
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = C;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  config.blockDim = threads;
  config.dynamicSmemBytes = shared;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  config.gridDim = sms / C * C;
  int clusters = 0;
  CK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  config.gridDim = clusters * C;
  std::uint64_t *rows, *dest;
  CK(cudaMalloc(&rows, std::size_t(clusters) * H * sizeof(std::uint64_t)));
  CK(cudaMalloc(&dest, H * sizeof(std::uint64_t)));
  const double main_us = event_median_us([] {}, [&] { CK(cudaLaunchKernelEx(&config, kernel, d_in, rows)); }, 9, 1);
  const double fold_us = event_median_us([] {}, [&] { fold_rows<<<(H + 255) / 256, 256>>>(rows, clusters, dest); }, 9, 1);
  std::vector<std::uint64_t> got(H);
  CK(cudaMemcpy(got.data(), dest, H * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  const unsigned bins = C == 1 ? H / 2 : H;
  bool same = true;
  for (unsigned b = 0; b < bins && same; ++b) same = got[b] == expected[(C == 1 ? H : 0) + b];
  std::printf("cluster %d  unroll %d  %3d clusters  %7.1f us + fold %5.1f us  %s\n", C, Unroll, clusters, main_us,
              fold_us, same ? "matches the host" : "WRONG");
  CK(cudaFree(rows));
  CK(cudaFree(dest));
}

int main() {
  std::uint32_t* d_in;
  CK(cudaMalloc(&d_in, N * sizeof(std::uint32_t)));
  fill<<<1024, 256>>>(d_in, N);
  CK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> x(N);
  CK(cudaMemcpy(x.data(), d_in, N * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  // expected[0, H): H bins; expected[H, H + H / 2): the C = 1 probe's H / 2 bins.
  std::vector<std::uint64_t> expected(H + H / 2, identity);
  for (std::uint32_t v : x) {
    expected[v % H] = argmax(expected[v % H], packed_value(v));
    expected[H + v % (H / 2)] = argmax(expected[H + v % (H / 2)], packed_value(v));
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: packed argmax, N = %lld, H = %u, one block of %d per SM\n", prop.name, static_cast<long long>(N), H,
              threads);
  run<1, 1>(d_in, expected);
  run<1, 4>(d_in, expected);
  run<2, 1>(d_in, expected);
  run<2, 4>(d_in, expected);
  run<2, 8>(d_in, expected);
  run<4, 1>(d_in, expected);
  run<4, 4>(d_in, expected);
  run<4, 8>(d_in, expected);
  return 0;
}
