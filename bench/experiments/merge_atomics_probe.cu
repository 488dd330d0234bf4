// Probe: what the end of a shared-memory histogram costs when every block adds its whole copy to dest with global
// atomics (seed 000's HDW at RF 1, H = 2048..12288: 264 blocks x H atomics; issue 3's HDW <= 1.10x the read floor
// misses there by 3-8%), and whether a thread-block cluster that first folds its blocks' copies through distributed
// shared memory (block r of C gathers bins [r H / C, (r + 1) H / C) from its C - 1 peers, then one atomic per bin)
// makes it cheaper. Each kernel only fills its copy and merges it, so the times are the merge's isolated cost (in
// the library it overlaps other blocks' input loops). G blocks of 1024 threads (2 per SM on the H100), the copies'
// values block-dependent and nonzero, dest checked against the host's sum. Times: CUDA events, median of 21.
// Not part of the build:
// Results: bench/results/2026-11-27-h100-hdw-merge-bound.txt (264 x 12288 atomics 7.8 us alone; clusters save at most
// 1.5 us). In the output C = 0 is the fill alone, C = 1 plain atomics; "64-bit pairs" two bins per atomic (added
// 2026-11-28: no faster, bench/results/2026-11-28-h100-merge-pairs.txt); "bulk xP" Hopper's bulk reduction of the
// copy in P parts (added 2026-12-07); "cluster C ovl" the cluster fold with all C remote loads in flight (added
// 2026-12-07: slower than the waiting fold at every H and C,
// bench/results/2026-12-07-h100-merge-cluster-overlapped.txt).
//   nvcc -O3 -arch=sm_90 -std=c++17 -o merge_atomics_probe bench/experiments/merge_atomics_probe.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <cooperative_groups.h>

#include "probe_check.cuh"

namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned copy_value(unsigned block, unsigned bin) { return (block * 7 + bin) % 5 + 1; }

/// merge false: the fill alone (the launch and fill to subtract).
__global__ void __launch_bounds__(1024) plain_merge(unsigned* dest, int H, bool merge) {
  extern __shared__ unsigned copy[];
  for (int b = threadIdx.x; b < H; b += blockDim.x) copy[b] = copy_value(blockIdx.x, b);
  __syncthreads();
  if (!merge) {
    if (copy[threadIdx.x % H] == 0) dest[0] = 1;  // never: keeps the fill
    return;
  }
  for (int b = threadIdx.x; b < H; b += blockDim.x) atomicAdd(&dest[b], copy[b]);
}

/// Two neighbouring bins per 64-bit atomic (H even, dest 8-byte aligned): exact while no bin's sum reaches 2^32 (no
/// carry into the next bin), as for counts of fewer than 2^32 inputs added into zeroed bins.
__global__ void __launch_bounds__(1024) paired_merge(unsigned* dest, int H) {
  extern __shared__ unsigned copy[];
  for (int b = threadIdx.x; b < H; b += blockDim.x) copy[b] = copy_value(blockIdx.x, b);
  __syncthreads();
  auto* pairs = reinterpret_cast<unsigned long long*>(dest);
  for (int p = threadIdx.x; p < H / 2; p += blockDim.x)
    atomicAdd(&pairs[p], (static_cast<unsigned long long>(copy[2 * p + 1]) << 32) | copy[2 * p]);
}

/// Hopper's bulk reduction (cp.reduce.async.bulk ... .add.u32): the copy goes to the L2 as whole lines, added there,
/// in place of H single-word atomics. `parts` lanes of warp 0 each issue one contiguous part (H * 4 / parts bytes, a
/// multiple of 16). The block waits until the engine has read its shared memory before it leaves.
__global__ void __launch_bounds__(1024) bulk_merge(unsigned* dest, int H, int parts) {
  extern __shared__ __align__(16) unsigned copy[];
  for (int b = threadIdx.x; b < H; b += blockDim.x) copy[b] = copy_value(blockIdx.x, b);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // this thread's writes, seen by the bulk engine
  __syncthreads();
  if (threadIdx.x < parts) {
    const unsigned bytes = static_cast<unsigned>(H) * 4u / static_cast<unsigned>(parts);
    const unsigned offset = bytes * threadIdx.x;
    const unsigned src = static_cast<unsigned>(__cvta_generic_to_shared(copy)) + offset;
    unsigned char* to = reinterpret_cast<unsigned char*>(dest) + offset;
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;"
                 :: "l"(to), "r"(src), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

__global__ void __launch_bounds__(1024) cluster_merge(unsigned* dest, int H) {
  extern __shared__ unsigned copy[];
  cg::cluster_group cluster = cg::this_cluster();
  for (int b = threadIdx.x; b < H; b += blockDim.x) copy[b] = copy_value(blockIdx.x, b);
  cluster.sync();  // every copy written before its peers read it
  const int C = static_cast<int>(cluster.num_blocks()), r = static_cast<int>(cluster.block_rank());
  const int lo = static_cast<int>(static_cast<long long>(r) * H / C);
  const int hi = static_cast<int>(static_cast<long long>(r + 1) * H / C);
  for (int b = lo + threadIdx.x; b < hi; b += blockDim.x) {
    unsigned sum = 0;
    for (int k = 0; k < C; ++k) sum += cluster.map_shared_rank(copy, k)[b];
    atomicAdd(&dest[b], sum);
  }
  cluster.sync();  // no block leaves while a peer may still read its copy
}

/// cluster_merge with every peer's load in flight at once: block r of C gathers 16-byte units of its share from all C
/// copies (C loads issued before the first add), where cluster_merge's loop waits for each remote load in turn. Added
/// 2026-12-07 (62nd session), not yet measured: whether a fold whose remote loads overlap makes clusters of 4-8 pay
/// (264 x 12288 atomics 7.8 us; a cluster of 8 leaves 33 x 12288). H a multiple of 4 C (checked by the caller).
template <int C>
__global__ void __launch_bounds__(1024) cluster_merge_overlapped(unsigned* dest, int H) {
  extern __shared__ uint4 units[];
  unsigned* copy = reinterpret_cast<unsigned*>(units);
  cg::cluster_group cluster = cg::this_cluster();
  for (int b = threadIdx.x; b < H; b += blockDim.x) copy[b] = copy_value(blockIdx.x, b);
  cluster.sync();  // every copy written before its peers read it
  const int share = H / 4 / C, first = static_cast<int>(cluster.block_rank()) * share;
  const uint4* peer[C];
#pragma unroll
  for (int k = 0; k < C; ++k) peer[k] = cluster.map_shared_rank(units, k);
  for (int u = first + threadIdx.x; u < first + share; u += blockDim.x) {
    uint4 v[C];
#pragma unroll
    for (int k = 0; k < C; ++k) v[k] = peer[k][u];
    uint4 sum = v[0];
#pragma unroll
    for (int k = 1; k < C; ++k) sum.x += v[k].x, sum.y += v[k].y, sum.z += v[k].z, sum.w += v[k].w;
    atomicAdd(&dest[4 * u], sum.x);
    atomicAdd(&dest[4 * u + 1], sum.y);
    atomicAdd(&dest[4 * u + 2], sum.z);
    atomicAdd(&dest[4 * u + 3], sum.w);
  }
  cluster.sync();  // no block leaves while a peer may still read its copy
}

/// `kernel` in clusters of C blocks.
void launch_cluster(void (*kernel)(unsigned*, int), int C, int G, std::size_t shared, unsigned* dest, int H) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(G);
  cfg.blockDim = dim3(1024);
  cfg.dynamicSmemBytes = shared;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = C;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, dest, H));
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int G = 2 * sms;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d blocks of 1024 threads, medians of 21\n", prop.name, G);
  unsigned* dest = nullptr;
  CK(cudaMalloc(&dest, 1 << 20));
  for (int H : {2048, 6144, 12288, 24576}) {
    const std::size_t shared = static_cast<std::size_t>(H) * 4;
    std::vector<unsigned> want(H, 0);
    for (int blk = 0; blk < G; ++blk)
      for (int b = 0; b < H; ++b) want[b] += (static_cast<unsigned>(blk) * 7 + b) % 5 + 1;
    for (int C : {0, 1, -1, -2, -8, -32, 2, 4, 8, 102, 104, 108}) {
      if (C > 100 && (G % (C - 100) || H % (4 * (C - 100)))) continue;
      if (C > 1 && C < 100 && G % C) continue;
      auto launch = [&] {
        if (C == 102) return launch_cluster(cluster_merge_overlapped<2>, 2, G, shared, dest, H);
        if (C == 104) return launch_cluster(cluster_merge_overlapped<4>, 4, G, shared, dest, H);
        if (C == 108) return launch_cluster(cluster_merge_overlapped<8>, 8, G, shared, dest, H);
        if (C <= -2) {  // bulk reductions in -C parts
          CK(cudaFuncSetAttribute(bulk_merge, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
          bulk_merge<<<G, 1024, shared>>>(dest, H, -C);
          return;
        }
        if (C == -1) {
          CK(cudaFuncSetAttribute(paired_merge, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(shared)));
          paired_merge<<<G, 1024, shared>>>(dest, H);
          return;
        }
        if (C <= 1) {
          CK(cudaFuncSetAttribute(plain_merge, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
          plain_merge<<<G, 1024, shared>>>(dest, H, C == 1);
          return;
        }
        launch_cluster(cluster_merge, C, G, shared, dest, H);
      };
      CK(cudaMemset(dest, 0, shared));
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<unsigned> got(H);
      CK(cudaMemcpy(got.data(), dest, shared, cudaMemcpyDeviceToHost));
      const bool ok = C == 0 ? true : got == want;
      const double us = event_median_us([&] { CK(cudaMemset(dest, 0, shared)); }, launch);
      const std::string name =
          C == 0    ? "fill only"
          : C == 1  ? "atomics"
          : C == -1 ? "64-bit pairs"
          : C <= -2 ? "bulk x" + std::to_string(-C)
          : C > 100 ? "cluster " + std::to_string(C - 100) + " ovl"
                    : "cluster " + std::to_string(C);
      std::printf("H %6d  %-12s %7.2f us  %s\n", H, name.c_str(), us, ok ? "ok" : "WRONG");
    }
  }
  return 0;
}
