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
#include "seed000_cas_probe.cuh"

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
  zero_copy(copy);
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
    swap_one_ahead(input, vectors, copy);
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
  write_row(copy, dest);  // its own row: a compare-and-swap merge of 264 copies took ~500 us here, hiding the loop
}

int main() {
  const probe_setup in;
  std::printf("%s, %d SMs; N = %lld uniform uint32, H = %u, seed 000's 24-bit saturating add at RF 1, one copy per "
              "block, grid 2 x SMs of 1024\n",
              in.prop.name, in.sms, in.n, H);
  auto run = [&](const char* name, auto kernel, int slots) {
    run_probe(in, name, kernel, 1024, H * sizeof(unsigned) + std::size_t(1024) * slots * 16, kernel != probe<0>);
  };
  run("the read alone (no swaps)", probe<0>, 0);
  run("registers, one vector ahead (ghist now)", probe<-1>, 0);
  run("registers, two vectors ahead", probe<-2>, 0);
  run("cp.async ring, 2 slots per thread", probe<2>, 2);
  run("cp.async ring, 3 slots per thread", probe<3>, 3);
  run("cp.async ring, 4 slots per thread", probe<4>, 4);
  run("registers, one vector ahead (again)", probe<-1>, 0);
  return 0;
}
