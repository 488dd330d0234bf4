// Probe: can the compare-and-swap class's shared-memory loop read its input while it swaps? Seed 000's 24-bit
// saturating add at RF 1 takes ~135 us for N = 50M on the lent H100, while the read floor is 70 us and the swaps
// alone ~86 us (shared_cas_throughput_probe.cu): each thread holds one 16-byte vector of input prefetched in registers
// and then waits on its swaps. Here the same loop (one copy of H = 12288 bins per block, two blocks of 1024 per SM,
// read-swap-compare, retry on a loss) takes its input four ways:
//   - registers, one vector ahead (ghist's for_each_prefetched<1>);
//   - registers, two vectors ahead (for_each_prefetched<2>);
//   - cp.async into a ring of D 16-byte slots per thread in shared memory (D = 2, 3, 4): D vectors in flight without
//     registers; a slot is refilled after its four inputs are swapped.
// Every variant's histogram is compared with the CPU's. Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cas_input_overlap_probe cas_input_overlap_probe.cu
// Results (lent H100, bench/results/2026-11-26-h100-experiment-cas-input-overlap.txt): the read alone 78.6 us, one
// vector ahead in registers 134 us, two ahead 152, cp.async rings of 2 / 3 / 4 slots 181 / 173 / 211: nothing beats
// what ghist does now. Input in flight is not what the loop waits for; the swaps and the loads share the SM's
// load-store path (MIO), so more loads in flight only queue behind the swaps.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

__device__ __forceinline__ void cp_async16(void* shared, const void* global) {
  const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(at), "l"(global) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// Variant 0: the input read alone (no swaps; its histogram is not checked). Variant < 0: registers, -Variant vectors ahead; Variant = D > 0: a cp.async ring of D slots per thread.
template <int Variant>
__global__ void __launch_bounds__(1024, 2) probe(const uint4* input, long long vectors, unsigned* dest) {
  extern __shared__ __align__(16) unsigned char shared[];
  unsigned* copy = reinterpret_cast<unsigned*>(shared);
  for (unsigned i = threadIdx.x; i < H; i += blockDim.x) copy[i] = 0;
  __syncthreads();
  const long long T = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if constexpr (Variant == 0) {
    // The read alone, for the floor in the same run: fold the vectors into one word no compiler can drop.
    unsigned fold = 0;
    for (long long v = first; v < vectors; v += T) {
      const uint4 q = __ldg(input + v);
      fold ^= q.x ^ q.y ^ q.z ^ q.w;
    }
    if (fold == 0x12345678u) copy[threadIdx.x] = fold;  // practically never; keeps the loads live
  } else if constexpr (Variant == -1) {
    if (first < vectors) {
      uint4 next = __ldg(input + first);
      for (long long v = first; v < vectors; v += T) {
        const uint4 now = next;
        if (v + T < vectors) next = __ldg(input + v + T);
        swap_vector(copy, now);
      }
    }
  } else if constexpr (Variant == -2) {
    uint4 next[2];
    if (first < vectors) next[0] = __ldg(input + first);
    if (first + T < vectors) next[1] = __ldg(input + first + T);
    for (long long v = first; v < vectors; v += 2 * T) {
      const uint4 a = next[0], b = next[1];
      if (v + 2 * T < vectors) next[0] = __ldg(input + v + 2 * T);
      if (v + 3 * T < vectors) next[1] = __ldg(input + v + 3 * T);
      swap_vector(copy, a);
      if (v + T < vectors) swap_vector(copy, b);
    }
  } else {
    constexpr int D = Variant;
    uint4* ring = reinterpret_cast<uint4*>(shared + H * sizeof(unsigned)) + threadIdx.x * D;
#pragma unroll
    for (int d = 0; d < D; ++d) {
      if (first + d * T < vectors) cp_async16(ring + d, input + first + d * T);
      cp_async_commit();  // one group per slot, empty or not, so that the count of groups pending stays D
    }
    int d = 0;
    for (long long v = first; v < vectors; v += T) {
      cp_async_wait<D - 1>();  // the oldest slot's copy has landed
      swap_vector(copy, ring[d]);
      if (v + D * T < vectors) cp_async16(ring + d, input + v + D * T);
      cp_async_commit();
      d = d + 1 == D ? 0 : d + 1;
    }
    cp_async_wait<0>();
  }
  __syncthreads();
  // Each block's copy goes out as its own row (plain stores, ~13 MB in all): a compare-and-swap merge of 264 copies
  // into one global histogram contends on every word and took ~500 us in this probe's first run, hiding the loop.
  for (unsigned i = threadIdx.x; i < H; i += blockDim.x) dest[static_cast<std::size_t>(blockIdx.x) * H + i] = copy[i];
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

template <int Variant>
void run(const char* name, const unsigned* input, long long n, unsigned* dest, const std::vector<unsigned>& want,
         int sms) {
  const std::size_t shared = H * sizeof(unsigned) + (Variant > 0 ? 1024 * Variant * 16 : 0);
  CK(cudaFuncSetAttribute(probe<Variant>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, probe<Variant>, 1024, shared));
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int rep = 0; rep < 12; ++rep) {
    CK(cudaEventRecord(start));
    probe<Variant><<<2 * sms, 1024, shared>>>(reinterpret_cast<const uint4*>(input), n / 4, dest);
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    if (rep > 1) times.push_back(ms * 1000.0f);
  }
  std::vector<unsigned> rows(static_cast<std::size_t>(2 * sms) * H), got(H, 0);
  CK(cudaMemcpy(rows.data(), dest, rows.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (std::size_t r = 0; r < rows.size(); r += H)
    for (unsigned i = 0; i < H; ++i) got[i] = saturating_add24(got[i], rows[r + i]);
  std::sort(times.begin(), times.end());
  std::printf("%-44s %2d blocks/SM  %7.1f us (median of 10, min %.1f)  %s\n", name, per_sm, times[times.size() / 2],
              times[0], Variant == 0 ? "(read only)" : got == want ? "matches the CPU" : "WRONG");
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const long long n = 50000000;  // a multiple of 4: vectors only
  unsigned *input, *dest;
  CK(cudaMalloc(&input, n * sizeof(unsigned)));
  CK(cudaMalloc(&dest, static_cast<std::size_t>(2 * sms) * H * sizeof(unsigned)));
  make_input<<<4 * sms, 1024>>>(input, n);
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> x(n), want(H, 0);
  CK(cudaMemcpy(x.data(), input, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (unsigned v : x) want[v % H] = saturating_add24(want[v % H], v >> 30);
  std::printf("%s, %d SMs; N = %lld uniform uint32, H = %u, seed 000's 24-bit saturating add at RF 1, one copy per "
              "block, grid 2 x SMs of 1024\n",
              prop.name, sms, n, H);
  run<0>("the read alone (no swaps)", input, n, dest, want, sms);
  run<-1>("registers, one vector ahead (ghist now)", input, n, dest, want, sms);
  run<-2>("registers, two vectors ahead", input, n, dest, want, sms);
  run<2>("cp.async ring, 2 slots per thread", input, n, dest, want, sms);
  run<3>("cp.async ring, 3 slots per thread", input, n, dest, want, sms);
  run<4>("cp.async ring, 4 slots per thread", input, n, dest, want, sms);
  run<-1>("registers, one vector ahead (again)", input, n, dest, want, sms);
  return 0;
}
