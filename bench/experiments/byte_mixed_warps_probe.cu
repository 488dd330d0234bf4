// Probe: byte histograms with two kinds of warps in one block (issue 4, item 1: uniform bytes at >= 0.95 of the read
// floor). Each way of counting alone stops short on uniform bytes (bench/NOTES.md, ninth and tenth sessions): one
// shared atomic per byte is bound by the SM's atomic throughput on distinct addresses (~0.76), the pair counters (a
// private column per lane, plain load-add-store) by the latency of their chains with only 12 warps' worth of columns
// in shared memory (~0.85). Here P warps count with pair counters and A more warps with shared atomics into a 1 KiB
// histogram each, taking 2 KiB chunks in turn from a shared counter ("mixed") or in a fixed order ("static"), so
// that each kind would do as much as it can. "pair U depth D" is the library's pair-counters loop with D tiles'
// register buffers taking turns. The library's two methods run in the same process for reference, and every
// variant's 256 counts are compared with a CPU count first (ok / WRONG).
// Data: tests/bytes/byte_inputs.hpp (uniform, zero, linear, image), 1 GiB. Times: CUDA events, median of 15.
// Results: bench/results/2026-11-27-h100-experiment-byte-mixed-warps.txt. Atomic warps beside the pair-counter warps
// gained at most ~3% on uniform bytes (both kinds load the SM's shared-memory pipe); and this probe's own copies of
// the pair-counters loop ran ~10% slower than the library's kernel, their loads arriving late (ncu: long
// scoreboard 0.58 against 0.03 cycles per issue) for a reason not found, so its absolute figures understate.
// `--once`: the uniform input only, each variant once and untimed (for ncu).
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr -I include -I tests/bytes -o byte_mixed_warps_probe \
//     bench/experiments/byte_mixed_warps_probe.cu build-gpu/libghist.a
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../timing.cuh"
#include "byte_inputs.hpp"
#include "ghist/detail/byte_histogram/launch.cuh"
#include "ghist/detail/byte_histogram/pair_counters.cuh"
#include "ghist/detail/byte_histogram/shared_atomics.cuh"
#include "probe_check.cuh"

namespace bytes = ghist::detail::bytes;
// The pair counters' layout as the library had it when this probe ran (2026-11-27): row r of lane l at r * 128 + l * 4
// from the warp's 16 KiB, a byte's bits 0..6 on address bits 7..13 and its bit 7 on bit 14 (14-bit totals). Kept
// here so that the probe still measures what it measured; the library now puts rows at bit 8 (pair_counters.cuh).
constexpr unsigned pair_total_bits = 14;
constexpr int pair_max_count = (1 << pair_total_bits) - 1;

template <int K>
__device__ __forceinline__ unsigned place_byte_at_bit7(unsigned w) {
  if constexpr (K == 0) return w << 7;
  else return w >> (8 * K - 7);
}

__device__ __forceinline__ void count_pair_at_bit7(char* columns, unsigned lane_offset, unsigned one, unsigned s0,
                                                   unsigned s1) {
  auto* p0 = reinterpret_cast<unsigned*>(columns + ((s0 & 0x3f80u) | lane_offset));
  auto* p1 = reinterpret_cast<unsigned*>(columns + ((s1 & 0x3f80u) | lane_offset));
  const unsigned c0 = *p0, c1 = *p1;
  const unsigned n0 = c0 + ((s0 & (1u << pair_total_bits)) | one);
  *p0 = n0;
  *p1 = (p0 == p1 ? n0 : c1) + ((s1 & (1u << pair_total_bits)) | one);
}

template <int K>
__device__ __forceinline__ void count_byte_k_at_bit7(char* columns, unsigned lane_offset, unsigned one,
                                                     const uint4& v) {
  count_pair_at_bit7(columns, lane_offset, one, place_byte_at_bit7<K>(v.x), place_byte_at_bit7<K>(v.y));
  count_pair_at_bit7(columns, lane_offset, one, place_byte_at_bit7<K>(v.z), place_byte_at_bit7<K>(v.w));
}

__device__ __forceinline__ void count_vector_pairs(char* columns, unsigned lane_offset, unsigned one,
                                                   const uint4& v) {
  count_byte_k_at_bit7<0>(columns, lane_offset, one, v);
  count_byte_k_at_bit7<1>(columns, lane_offset, one, v);
  count_byte_k_at_bit7<2>(columns, lane_offset, one, v);
  count_byte_k_at_bit7<3>(columns, lane_offset, one, v);
}

constexpr int chunk_unroll = 4;                       // vectors per lane per chunk
constexpr int chunk_vectors = 32 * chunk_unroll;      // one warp's chunk: 2 KiB
constexpr int flush_chunks = pair_max_count / (chunk_unroll * 16);

/// The pair columns of one warp into the call's totals (64-bit atomics; a warp flushes a handful of times per call).
__device__ void flush_columns_to_totals(unsigned* warp_columns, unsigned long long* totals) {
  __syncwarp();
  const int lane = threadIdx.x % 32;
  for (int r = lane; r < bytes::pair_rows; r += 32) {
    unsigned* row = warp_columns + r * 32;
    unsigned total = 0, high = 0;
    for (int j = 0; j < 32; ++j) {
      const int c = (j + lane) % 32;
      const unsigned w = row[c];
      row[c] = 0;
      total += w & pair_max_count;
      high += w >> pair_total_bits;
    }
    if (total != high) atomicAdd(&totals[r], static_cast<unsigned long long>(total - high));
    if (high != 0) atomicAdd(&totals[r + bytes::pair_rows], static_cast<unsigned long long>(high));
  }
  __syncwarp();
}

template <int P, int A>
constexpr std::size_t mixed_shared_bytes() {
  return std::size_t(P) * bytes::pair_column_bytes + std::size_t(A) * 1024 + 16;
}

/// The chunks of `vec` (see chunk_at); warps < P count with pair counters, the others with atomics.
template <int P, int A, bool Dynamic = true>
__global__ void __launch_bounds__((P + A) * 32, 1) mixed_kernel(const uint4* vec, long long chunks,
                                                                 unsigned long long* totals) {
  extern __shared__ unsigned sh[];
  constexpr int pair_words = P * (bytes::pair_column_bytes / 4);
  unsigned* atomic_hists = sh + pair_words;
  int* next_chunk = reinterpret_cast<int*>(atomic_hists + A * 256);
  for (int k = threadIdx.x; k < pair_words + A * 256; k += blockDim.x) sh[k] = 0;
  if (threadIdx.x == 0) *next_chunk = 0;
  __syncthreads();
  // The block's k-th chunk: chunks are grouped in tiles of one chunk per warp, and the tiles go round-robin to the
  // blocks (as in the library's kernels); a contiguous share per block instead measured the same.
  constexpr int W = P + A;
  auto chunk_at = [&](int k) -> long long {
    return (static_cast<long long>(k / W) * gridDim.x + blockIdx.x) * W + k % W;
  };
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint4* base = vec + lane;
  // Static: warp w takes the block's chunks w, w + W, ... (no shared counter).
  int static_next = warp;
  auto grab = [&] {
    if constexpr (!Dynamic) {
      const int c = static_next;
      static_next += W;
      return c;
    }
    int c = 0;
    if (lane == 0) c = atomicAdd(next_chunk, 1);
    return __shfl_sync(0xffffffffu, c, 0);
  };
  auto load = [&](int c, uint4 (&v)[chunk_unroll]) {
    const long long g = chunk_at(c);
#pragma unroll
    for (int j = 0; j < chunk_unroll; ++j) v[j] = base[g * chunk_vectors + j * 32];
  };
  auto valid = [&](int c) { return chunk_at(c) < chunks; };
  // Each warp: two chunks' loads in flight in two register buffers that take turns (no copy from one to the other:
  // ptxas placed such a copy at the top of the loop, which waited for the loads just issued), and the chunk after
  // them asked for (lane 0's atomic) before the counting, its number read (the shuffle) only after it, so that a
  // shared atomic queued behind the counting's own shared-memory traffic does not stall the warp.
  auto for_each_chunk = [&](auto&& count_chunk) {
    uint4 a[chunk_unroll], b[chunk_unroll];
    int c = grab();
    int c2 = grab();
    if (valid(c)) load(c, a);
    if (valid(c2)) load(c2, b);
    auto step = [&](uint4 (&buf)[chunk_unroll]) {
      int ticket = 0;
      if (Dynamic && lane == 0) ticket = atomicAdd(next_chunk, 1);
      count_chunk(buf);
      c = c2;
      c2 = Dynamic ? __shfl_sync(0xffffffffu, ticket, 0) : grab();
      if (valid(c2)) load(c2, buf);
    };
    while (valid(c)) {
      step(a);
      if (!valid(c)) break;
      step(b);
    }
  };
  if (warp < P) {
    char* columns = reinterpret_cast<char*>(sh);
    const unsigned lane_offset = warp * bytes::pair_column_bytes + lane * 4;
    const unsigned one = blockDim.x / ((P + A) * 32);
    unsigned* warp_columns = sh + warp * (bytes::pair_column_bytes / 4);
    int pending = 0;
    for_each_chunk([&](const uint4 (&v)[chunk_unroll]) {
      if (pending == flush_chunks) {
        flush_columns_to_totals(warp_columns, totals);
        pending = 0;
      }
#pragma unroll
      for (int j = 0; j < chunk_unroll; ++j) count_vector_pairs(columns, lane_offset, one, v[j]);
      ++pending;
    });
    flush_columns_to_totals(warp_columns, totals);
  } else {
    unsigned* h = atomic_hists + (warp - P) * 256;
    for_each_chunk([&](const uint4 (&v)[chunk_unroll]) {
#pragma unroll
      for (int j = 0; j < chunk_unroll; ++j) bytes::add_vector_warp<1, true>(h, v[j]);
    });
    __syncwarp();
    for (int v = lane; v < 256; v += 32) {
      const unsigned c = h[bytes::byte_slot<1, true>(v)];
      if (c != 0) atomicAdd(&totals[v], static_cast<unsigned long long>(c));
    }
  }
}

/// The library's pair-counters kernel (12 warps, tiles of Block x U vectors round-robin over the blocks, thread t
/// reading vectors t, t + Block, ...) with Depth tiles' loads in flight instead of one: Depth register buffers taken
/// in turn, each reloaded right after it is counted.
template <int U, int Depth>
__global__ void __launch_bounds__(384, 1) pair_deep_kernel(const uint4* vec, long long num_vectors,
                                                        unsigned long long* totals) {
  constexpr int Block = 384;
  constexpr long long tile_vectors = Block * U;
  constexpr int flush_tiles = pair_max_count / (U * 16);
  extern __shared__ unsigned sh[];
  constexpr int words = 12 * (bytes::pair_column_bytes / 4);
  for (int k = threadIdx.x; k < words; k += Block) sh[k] = 0;
  __syncthreads();
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  char* columns = reinterpret_cast<char*>(sh);
  const unsigned lane_offset = warp * bytes::pair_column_bytes + lane * 4;
  const unsigned one = blockDim.x / Block;
  unsigned* warp_columns = sh + warp * (bytes::pair_column_bytes / 4);
  const long long tiles = num_vectors / tile_vectors;
  const long long G = gridDim.x;
  auto load = [&](long long t, uint4 (&v)[U]) {
    const uint4* p = vec + t * tile_vectors + threadIdx.x;
#pragma unroll
    for (int j = 0; j < U; ++j) v[j] = p[j * Block];
  };
  uint4 buf[Depth][U];
#pragma unroll
  for (int d = 0; d < Depth; ++d)
    if (blockIdx.x + d * G < tiles) load(blockIdx.x + d * G, buf[d]);
  int pending = 0;
  for (long long t = blockIdx.x; t < tiles; t += Depth * G) {
#pragma unroll
    for (int d = 0; d < Depth; ++d) {
      const long long cur = t + d * G;
      if (cur >= tiles) break;
      if (pending == flush_tiles) {
        flush_columns_to_totals(warp_columns, totals);
        pending = 0;
      }
#pragma unroll
      for (int j = 0; j < U; ++j) count_vector_pairs(columns, lane_offset, one, buf[d][j]);
      ++pending;
      if (cur + Depth * G < tiles) load(cur + Depth * G, buf[d]);
    }
  }
  if (tiles % G == blockIdx.x) {  // the partial tile (at most U vectors per thread)
    if (pending == flush_tiles) flush_columns_to_totals(warp_columns, totals);
    for (long long i = tiles * tile_vectors + threadIdx.x; i < num_vectors; i += Block)
      count_vector_pairs(columns, lane_offset, one, vec[i]);
  }
  flush_columns_to_totals(warp_columns, totals);
}

__global__ void fill(std::uint8_t* out, std::int64_t n, ghist_bytes::byte_dist d, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = ghist_bytes::byte_at(d, i, seed);
}

struct variant {
  const char* name;
  void (*setup)();
  void (*run)(const uint4*, long long, unsigned long long*, int);
};

template <int P, int A, bool Dynamic>
void setup_mixed() {
  CK(cudaFuncSetAttribute(mixed_kernel<P, A, Dynamic>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(mixed_shared_bytes<P, A>())));
}
template <int P, int A, bool Dynamic>
void run_mixed(const uint4* vec, long long chunks, unsigned long long* totals, int sms) {
  mixed_kernel<P, A, Dynamic><<<sms, (P + A) * 32, mixed_shared_bytes<P, A>()>>>(vec, chunks, totals);
}

template <int U, int Depth>
void setup_deep() {
  CK(cudaFuncSetAttribute(pair_deep_kernel<U, Depth>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          12 * bytes::pair_column_bytes));
}
template <int U, int Depth>
void run_deep(const uint4* vec, long long chunks, unsigned long long* totals, int sms) {
  pair_deep_kernel<U, Depth><<<sms, 384, 12 * bytes::pair_column_bytes>>>(vec, chunks * chunk_vectors, totals);
}

#define MIXED(P, A) {"mixed P" #P " A" #A, setup_mixed<P, A, true>, run_mixed<P, A, true>}
#define STATIC(P, A) {"static P" #P " A" #A, setup_mixed<P, A, false>, run_mixed<P, A, false>}
#define DEEP(U, D) {"pair U" #U " depth " #D, setup_deep<U, D>, run_deep<U, D>}
const variant variants[] = {DEEP(4, 1), DEEP(4, 2), DEEP(4, 3), DEEP(2, 2), DEEP(2, 4), DEEP(8, 2),
                            STATIC(12, 0), MIXED(12, 2), MIXED(11, 8)};

int main(int argc, char** argv) {
  // --once: the uniform input only, each variant run once and not timed (for a profiler)
  const bool once = argc > 1 && std::string(argv[1]) == "--once";
  const std::int64_t n = std::int64_t(1) << 30;
  const long long chunks = n / 16 / chunk_vectors;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, 1 GiB of uint8, medians of 15\n", prop.name, sms);
  std::uint8_t* d = nullptr;
  unsigned long long* totals = nullptr;
  std::uint64_t* lib_hist = nullptr;
  CK(cudaMalloc(&d, n));
  CK(cudaMalloc(&totals, 256 * sizeof(unsigned long long)));
  CK(cudaMalloc(&lib_hist, 256 * sizeof(std::uint64_t)));
  for (const variant& v : variants) v.setup();
  bench::event_timer timer;
  bench::timing_policy policy;
  policy.reps = 15;
  policy.budget_ms = 1e9;
  std::vector<std::uint8_t> host(n);
  std::vector<unsigned long long> got(256);
  for (ghist_bytes::byte_dist dist : ghist_bytes::all_byte_dists) {
    fill<<<sms * 8, 512>>>(d, n, dist, 0x5eed0000u + static_cast<unsigned>(dist));
    CK(cudaMemcpy(host.data(), d, n, cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> want(256, 0);
    for (std::uint8_t b : host) ++want[b];
    const double floor_us = once ? 1.0 : bench::measure_floors(reinterpret_cast<const std::uint32_t*>(d), n / 4, timer,
                                                  policy).read.us;
    std::printf("%-8s floor %7.1f us\n", ghist_bytes::to_string(dist), floor_us);
    auto report = [&](const char* name, double us, bool ok) {
      std::printf("  %-22s %7.1f us  %.3f of the floor  %s\n", name, us, floor_us / us, ok ? "ok" : "WRONG");
    };
    const ghist::byte_method lib_methods[] = {ghist::byte_method::packed_counters, ghist::byte_method::shared_atomics};
    const char* lib_names[] = {"library pair counters", "library atomics"};
    for (int m = 0; m < 2; ++m) {
      auto run = [&] {
        bytes::byte_histogram<std::uint64_t>(d, false, n, lib_hist, 256, 0, 256, 0, {}, lib_methods[m]);
      };
      run();
      std::vector<std::uint64_t> h(256);
      CK(cudaMemcpy(h.data(), lib_hist, 256 * 8, cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int b = 0; b < 256; ++b) ok = ok && h[b] == want[b];
      report(lib_names[m], once ? 0.0 : timer.median(run, policy).us, ok);
    }
    for (const variant& v : variants) {
      auto run = [&] {
        CK(cudaMemsetAsync(totals, 0, 256 * sizeof(unsigned long long)));
        v.run(reinterpret_cast<const uint4*>(d), chunks, totals, sms);
      };
      run();
      CK(cudaDeviceSynchronize());
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), totals, 256 * 8, cudaMemcpyDeviceToHost));
      report(v.name, once ? 0.0 : timer.median(run, policy).us, got == want);
    }
    if (once) break;
  }
  return 0;
}
