// Probe: does seed 000's compare-and-swap loop at RF 1 overlap its input read when the input arrives by the SM's
// bulk-copy engine (Hopper's cp.async.bulk, one instruction per tile, no load-store traffic per vector) instead of
// per-thread loads? cas_input_overlap_probe.cu found that loads issued by the swapping threads (one or two vectors
// ahead in registers, cp.async rings) queue behind the swaps on the SM's load-store path: 134 us at best against a
// read floor of ~72 us and ~86 us of swaps alone. Here one warp per block only copies tiles of input into a ring in
// shared memory (mbarriers: "full" counts the bytes landed, "empty" the consumer warps done with a stage), and the
// other 31 warps only swap (read-swap-compare, retry on a loss; one copy of H = 12288 bins per block, 2 blocks per SM).
// Variants: stages in the ring (2, 3, 4) and 16-byte vectors per consumer thread and tile (1, 2), the ring read with no
// swaps (what the copy engine delivers), and ghist's loop (registers, one vector ahead) for the same run's baseline.
// Every swapping variant's histogram is compared with the CPU's. Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cas_bulk_copy_probe cas_bulk_copy_probe.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_check.cuh"
#include "seed000_cas_probe.cuh"

constexpr int consumer_warps = 31;
constexpr int block_threads = (consumer_warps + 1) * 32;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrier_init(std::uint64_t* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void barrier_expect_bytes(std::uint64_t* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(b)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void barrier_arrive(std::uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(b)) : "memory");
}
__device__ __forceinline__ void barrier_wait(std::uint64_t* b, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(b)), "r"(parity)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void bulk_copy(void* to, const void* from, unsigned bytes, std::uint64_t* full) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(to)),
               "l"(from), "r"(bytes), "r"(shared_address(full))
               : "memory");
}

// The bulk-fed loop: warp 31 copies tiles (lane 0 issues), warps 0..30 swap. Swap = false reads the ring only.
template <int Stages, int V, bool Swap>
__global__ void __launch_bounds__(block_threads, 2) bulk_fed(const uint4* input, long long vectors, unsigned* dest) {
  extern __shared__ __align__(128) unsigned char shared[];
  __shared__ std::uint64_t full[Stages], empty[Stages];
  constexpr int tile_vectors = consumer_warps * 32 * V;
  unsigned* copy = reinterpret_cast<unsigned*>(shared);
  uint4* ring = reinterpret_cast<uint4*>(shared + H * sizeof(unsigned));
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], consumer_warps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  zero_copy(copy);  // its __syncthreads publishes the barriers too
  const long long tiles = (vectors + tile_vectors - 1) / tile_vectors;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == consumer_warps) {
    if (lane == 0) {
      int k = 0;
      for (long long t = blockIdx.x; t < tiles; t += gridDim.x, ++k) {
        const int s = k % Stages;
        if (k >= Stages) barrier_wait(&empty[s], (k / Stages - 1) & 1);
        const long long first = t * tile_vectors;
        const unsigned bytes = static_cast<unsigned>(min(static_cast<long long>(tile_vectors), vectors - first) * 16);
        barrier_expect_bytes(&full[s], bytes);
        bulk_copy(ring + s * tile_vectors, input + first, bytes, &full[s]);
      }
    }
  } else {
    unsigned fold = 0;
    int k = 0;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x, ++k) {
      const int s = k % Stages;
      barrier_wait(&full[s], (k / Stages) & 1);
      const long long count = min(static_cast<long long>(tile_vectors), vectors - t * tile_vectors);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const int at = j * consumer_warps * 32 + threadIdx.x;
        if (at < count) {
          const uint4 q = ring[s * tile_vectors + at];
          if constexpr (Swap)
            swap_vector(copy, q);
          else
            fold ^= q.x ^ q.y ^ q.z ^ q.w;
        }
      }
      __syncwarp();
      if (lane == 0) barrier_arrive(&empty[s]);
    }
    if (fold == 0x12345678u) copy[threadIdx.x] = fold;  // practically never; keeps the reads live
  }
  write_row(copy, dest);
}

// ghist's loop: each thread swaps one vector while the next is on its way into registers.
__global__ void __launch_bounds__(1024, 2) registers_one_ahead(const uint4* input, long long vectors, unsigned* dest) {
  extern __shared__ __align__(128) unsigned char shared[];
  unsigned* copy = reinterpret_cast<unsigned*>(shared);
  zero_copy(copy);
  swap_one_ahead(input, vectors, copy);
  write_row(copy, dest);
}

template <int Stages, int V, bool Swap>
void run_bulk(const probe_setup& in) {
  char name[96];
  std::snprintf(name, sizeof name, "bulk copies, %d stages x %d vector(s)%s", Stages, V, Swap ? "" : ", read only");
  const std::size_t shared = H * sizeof(unsigned) + static_cast<std::size_t>(Stages) * consumer_warps * 32 * V * 16;
  run_probe(in, name, bulk_fed<Stages, V, Swap>, block_threads, shared, Swap);
}

int main() {
  const probe_setup in;
  std::printf("%s, %d SMs; N = %lld uniform uint32, H = %u, seed 000's 24-bit saturating add at RF 1, one copy per "
              "block\n",
              in.prop.name, in.sms, in.n, H);
  const std::size_t copy_bytes = H * sizeof(unsigned);
  run_probe(in, "registers, one vector ahead (ghist now)", registers_one_ahead, 1024, copy_bytes, true);
  run_bulk<3, 1, false>(in);
  run_bulk<2, 1, true>(in);
  run_bulk<3, 1, true>(in);
  run_bulk<4, 1, true>(in);
  run_bulk<2, 2, true>(in);
  run_bulk<4, 2, true>(in);
  run_bulk<4, 2, false>(in);
  run_probe(in, "registers, one vector ahead (again)", registers_one_ahead, 1024, copy_bytes, true);
  return 0;
}
