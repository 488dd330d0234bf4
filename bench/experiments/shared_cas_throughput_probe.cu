// Probe: how fast an SM applies updates to random words of shared memory, with no global memory in the way, for the
// compare-and-swap class's loop (seed 000's 24-bit saturating add) against the hardware atomic (atomicAdd) and a
// plain load and store; and the compare-and-swap loop with one update in flight per thread or four (four reads, four
// swaps, then the results). What it is for: ghist's 24-bit saturating add at RF 1 takes ~135 us for N = 50M on the
// lent H100 (1.9-2.0x the read floor) whatever H between 505 and 49152; is the shared-memory compare-and-swap the
// bound, or the loop around it?
//
// Each thread of 2 blocks of 1024 per SM (two blocks per SM: the planner's shape for that loop) makes `iters` updates
// of 1 at random words (xorshift) of its block's `words` words; 264 x 1024 x 192 = 51.9M updates, about N. Times: CUDA
// events around each kernel (median of 9 runs) and clock64() per block between barriers, so the updates per clock
// per SM need no assumption about the clock. Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o shared_cas_throughput_probe shared_cas_throughput_probe.cu
//   ./shared_cas_throughput_probe [words ...]
// Results: bench/results/2026-11-26-h100-experiment-shared-cas-throughput.txt.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.cuh"

enum kind { atomic_add, cas_loop, cas_loop_four, load_store, kinds };
const char* kind_names[] = {"atomicAdd (hardware atomic)", "compare-and-swap loop, one update in flight",
                            "compare-and-swap loop, four in flight", "plain load and store (racy: throughput only)"};

__device__ __forceinline__ unsigned next_random(unsigned& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
// A word in [0, words) from 32 random bits, without a division.
__device__ __forceinline__ unsigned pick(unsigned r, unsigned words) {
  return static_cast<unsigned>((static_cast<unsigned long long>(r) * words) >> 32);
}
__device__ __forceinline__ unsigned saturating_add24(unsigned a, unsigned v) {
  const unsigned r = a + v;
  return r < a || r > 0xffffffu ? 0xffffffu : r;
}

template <int Kind>
__global__ void __launch_bounds__(1024, 2) probe(unsigned words, int iters, unsigned* sums,
                                                 unsigned long long* cycles) {
  extern __shared__ unsigned w[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) w[i] = 0;
  unsigned s = 0x9E3779B9u * (blockIdx.x * blockDim.x + threadIdx.x + 1);
  __syncthreads();
  const unsigned long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if constexpr (Kind == cas_loop_four) {
      if (it % 4 != 0) continue;  // four updates a step: iters / 4 steps
      unsigned at[4], assumed[4], old[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) at[k] = pick(next_random(s), words);
#pragma unroll
      for (int k = 0; k < 4; ++k) assumed[k] = *reinterpret_cast<volatile unsigned*>(w + at[k]);
#pragma unroll
      for (int k = 0; k < 4; ++k) old[k] = atomicCAS(w + at[k], assumed[k], saturating_add24(assumed[k], 1));
#pragma unroll
      for (int k = 0; k < 4; ++k)
        while (old[k] != assumed[k]) {
          assumed[k] = old[k];
          old[k] = atomicCAS(w + at[k], assumed[k], saturating_add24(assumed[k], 1));
        }
    } else {
      const unsigned at = pick(next_random(s), words);
      if constexpr (Kind == atomic_add) {
        atomicAdd(w + at, 1u);
      } else if constexpr (Kind == cas_loop) {
        unsigned assumed = *reinterpret_cast<volatile unsigned*>(w + at), old;
        while ((old = atomicCAS(w + at, assumed, saturating_add24(assumed, 1))) != assumed) assumed = old;
      } else {
        volatile unsigned* p = w + at;
        *p = saturating_add24(*p, 1);
      }
    }
  }
  __syncthreads();
  const unsigned long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  unsigned sum = 0;  // every update is counted once (but the racy plain one): the sum says so
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sum += w[i];
  atomicAdd(sums + blockIdx.x, sum);
}

template <int Kind>
void run(int sms, unsigned words, int iters) {
  const int blocks = 2 * sms, threads = 1024;
  const std::size_t shared = words * sizeof(unsigned);
  CK(cudaFuncSetAttribute(probe<Kind>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  unsigned* sums;
  unsigned long long* cycles;
  CK(cudaMalloc(&sums, blocks * sizeof(unsigned)));
  CK(cudaMalloc(&cycles, blocks * sizeof(unsigned long long)));
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<float> times;
  std::vector<unsigned long long> c(blocks);
  std::vector<unsigned> got(blocks);
  for (int rep = 0; rep < 10; ++rep) {
    CK(cudaMemset(sums, 0, blocks * sizeof(unsigned)));
    CK(cudaEventRecord(start));
    probe<Kind><<<blocks, threads, shared>>>(words, iters, sums, cycles);
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    if (rep > 0) times.push_back(ms * 1000.0f);  // the first is a warm-up
  }
  CK(cudaMemcpy(c.data(), cycles, blocks * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got.data(), sums, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::sort(times.begin(), times.end());
  const unsigned long long most = *std::max_element(c.begin(), c.end());
  const double updates = static_cast<double>(blocks) * threads * iters;
  const double per_sm_per_clock = updates / sms / static_cast<double>(most);
  unsigned long long total = 0;
  for (unsigned g : got) total += g;
  std::printf("%-48s words %6u  %8.1f us (median of 9)  %10llu cycles (slowest block)  %.2f updates/clock/SM  "
              "%.0f MHz  sum %s\n",
              kind_names[Kind], words, times[times.size() / 2], most, per_sm_per_clock,
              static_cast<double>(most) / times[times.size() / 2], total == updates ? "exact" : "short (racy)");
  CK(cudaFree(sums));
  CK(cudaFree(cycles));
}

// Arguments: the word counts to probe (default: the planner's RF 1 copies below); e.g. 195, seed 000's RF 63 at
// H = 12288 in one copy, to see what contention on few words costs the loop.
int main(int argc, char** argv) {
  std::vector<unsigned> word_counts = {505u * 57u, 24576u};  // the planner's copies at RF 1: H = 505 x 57, 12288 x 2
  if (argc > 1) word_counts.clear();
  for (int i = 1; i < argc; ++i) {
    const long words = std::strtol(argv[i], nullptr, 10);
    if (words < 1 || words > 28928) {
      std::fprintf(stderr, "word count '%s' must be in [1, 28928] (two blocks of 1024 per SM: 113 KiB each)\n", argv[i]);
      return 2;
    }
    word_counts.push_back(static_cast<unsigned>(words));
  }
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; 2 blocks of 1024 threads per SM, 192 updates per thread\n", prop.name, sms);
  for (unsigned words : word_counts) {
    run<atomic_add>(sms, words, 192);
    run<cas_loop>(sms, words, 192);
    run<cas_loop_four>(sms, words, 192);
    run<load_store>(sms, words, 192);
  }
  return 0;
}
