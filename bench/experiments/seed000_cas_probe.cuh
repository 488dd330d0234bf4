// Seed 000's 24-bit saturating add at RF 1 over H = 12288 bins, as the compare-and-swap probes of this folder swap it
// in a block's copy in shared memory, and the uniform input they generate on the device (a hash of the index).
#pragma once

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_check.cuh"

constexpr unsigned H = 12288;
constexpr unsigned cap = (1u << 24) - 1;
__host__ __device__ __forceinline__ unsigned saturating_add24(unsigned a, unsigned b) {
  const unsigned s = a + b;
  return s > cap || s < a ? cap : s;
}

__device__ __forceinline__ void swap_in(unsigned* copy, unsigned x) {
  unsigned* word = copy + x % H;
  const unsigned v = x >> 30;
  unsigned assumed = *reinterpret_cast<volatile unsigned*>(word), old;
  while ((old = atomicCAS(word, assumed, saturating_add24(assumed, v))) != assumed) assumed = old;
}

__device__ __forceinline__ void swap_vector(unsigned* copy, const uint4& q) {
  swap_in(copy, q.x);
  swap_in(copy, q.y);
  swap_in(copy, q.z);
  swap_in(copy, q.w);
}

// A block's copy: zeroed before the loop; after it, written out as the block's row of dest (plain stores: merging the
// grid's copies by compare-and-swap took ~500 us in the first probe and hid the loop).
__device__ __forceinline__ void zero_copy(unsigned* copy) {
  for (unsigned i = threadIdx.x; i < H; i += blockDim.x) copy[i] = 0;
  __syncthreads();
}
__device__ __forceinline__ void write_row(const unsigned* copy, unsigned* dest) {
  __syncthreads();
  for (unsigned i = threadIdx.x; i < H; i += blockDim.x) dest[static_cast<std::size_t>(blockIdx.x) * H + i] = copy[i];
}

// ghist's loop (for_each_prefetched<1>): each thread swaps one vector while the next is on its way into registers.
__device__ __forceinline__ void swap_one_ahead(const uint4* input, long long vectors, unsigned* copy) {
  const long long T = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first >= vectors) return;
  uint4 next = __ldg(input + first);
  for (long long v = first; v < vectors; v += T) {
    const uint4 now = next;
    if (v + T < vectors) next = __ldg(input + v + T);
    swap_vector(copy, now);
  }
}

__global__ void make_input(unsigned* x, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned s = static_cast<unsigned>(i) * 0x9E3779B1u + 0x7F4A7C15u;
    s ^= s >> 16;
    s *= 0x85EBCA6Bu;
    s ^= s >> 13;
    s *= 0xC2B2AE35u;
    s ^= s >> 16;
    x[i] = s;
  }
}

// N = 50M inputs on the device (a multiple of 4: 16-byte vectors only), room for a row per block of up to two blocks
// per SM, and the CPU's histogram of the inputs.
struct probe_setup {
  int sms = 0;
  cudaDeviceProp prop{};
  long long n = 50000000;
  unsigned* input = nullptr;
  unsigned* dest = nullptr;
  std::vector<unsigned> want = std::vector<unsigned>(H, 0);

  probe_setup() {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaMalloc(&input, n * sizeof(unsigned)));
    CK(cudaMalloc(&dest, static_cast<std::size_t>(2 * sms) * H * sizeof(unsigned)));
    make_input<<<4 * sms, 1024>>>(input, n);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned> x(n);
    CK(cudaMemcpy(x.data(), input, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned v : x) want[v % H] = saturating_add24(want[v % H], v >> 30);
  }
};

// Launches kernel(input as 16-byte vectors, vector count, dest) 14 times on as many blocks as fit per SM, each
// block writing its copy as its row of dest; prints the median of the last 12 event-timed launches and whether the
// rows fold to the CPU's histogram (`checked` false: a read-only variant).
template <class Kernel>
void run_probe(const probe_setup& in, const char* name, Kernel kernel, int threads, std::size_t shared, bool checked) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  const int grid = std::min(2, std::max(1, per_sm)) * in.sms;
  CK(cudaMemset(in.dest, 0, static_cast<std::size_t>(2 * in.sms) * H * sizeof(unsigned)));
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int rep = 0; rep < 14; ++rep) {
    CK(cudaEventRecord(start));
    kernel<<<grid, threads, shared>>>(reinterpret_cast<const uint4*>(in.input), in.n / 4, in.dest);
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    if (rep > 1) times.push_back(ms * 1000.0f);
  }
  std::vector<unsigned> rows(static_cast<std::size_t>(grid) * H), got(H, 0);
  CK(cudaMemcpy(rows.data(), in.dest, rows.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (std::size_t r = 0; r < rows.size(); r += H)
    for (unsigned i = 0; i < H; ++i) got[i] = saturating_add24(got[i], rows[r + i]);
  std::sort(times.begin(), times.end());
  std::printf("%-46s %d blocks/SM  %7.1f us (median of 12, min %.1f)  %s\n", name, per_sm, times[times.size() / 2],
              times[0], !checked ? "(read only)" : got == in.want ? "matches the CPU" : "WRONG");
}
