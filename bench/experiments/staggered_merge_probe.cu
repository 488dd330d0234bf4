// Probe: can the end merge of a one-pass shared-memory histogram hide behind other blocks' input loops? Issue 3 asks
// HDW (int32 +1) at RF 1 for <= 1.10x the read floor at H <= 12288; ghist's plan there (264 blocks of 1024 threads,
// one copy of H bins per block) runs at 1.19x at H = 12288 and RF 63 at 1.10x: at RF 1 every block adds H nonzero
// bins to dest with global atomics once its input is done, and the blocks finish together, so the merge (~7 us at
// 12288, bench/results/2026-11-28-h100-merge-pairs.txt) runs after the whole read instead of under it.
// Here each block takes a contiguous range of the input whose size is (1 - alpha * s) times the mean, s in [0, 1)
// spread over the blocks (a fixed permutation, so blocks finishing early are spread over the SMs), the ranges
// rescaled to cover the input: with alpha > 0 the blocks finish over a stretch of time and the early ones merge
// while the rest still read. alpha = 0 is the even split. The kernel is the plan's shape, not the library's code:
// 4 inputs per 16-byte load, 4 loads in flight per thread, a shared atomicAdd per input, bin = x % H (seed 000's
// RF 1). Each line: the median of 21 event-timed launches (with the memset of dest), the read floor of the same
// bytes measured in the same run, and a check of dest against the host's histogram. "grid-stride": the order of
// ghist's input loops instead of ranges. Lent H100, 2026-11-28 (bench/results/2026-11-28-h100-hdw-merge-order.txt):
// staggering does not hide the merge; grid-stride reads 3-4 us faster than ranges and runs H = 12288 at 1.105x.
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o staggered_merge_probe bench/experiments/staggered_merge_probe.cu
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "probe_check.cuh"

/// Block b counts vectors [starts[b], starts[b + 1]) into its shared copy, then adds the copy's nonzero bins to dest.
/// merge false: no merge (the copy is kept alive by an impossible store).
/// H a compile-time constant: the modulo becomes a multiply and shifts, as ghist's invariant_divisor makes it.
template <unsigned H>
__global__ void __launch_bounds__(1024, 2)
    one_pass(const uint4* v, std::int64_t total_vectors, const std::int64_t* starts, unsigned* dest, bool merge) {
  extern __shared__ unsigned copy[];
  for (unsigned b = threadIdx.x; b < H; b += blockDim.x) copy[b] = 0;
  __syncthreads();
  // starts == nullptr: the grid-stride order of ghist's input loops (thread t of the grid reads vectors t, t + T,
  // ... for T threads in all), in which every block reads until the end of the input.
  const bool strided = starts == nullptr;
  const std::int64_t begin = strided ? blockIdx.x * std::int64_t(blockDim.x) : starts[blockIdx.x];
  const std::int64_t end = strided ? total_vectors : starts[blockIdx.x + 1];
  const std::int64_t step = strided ? std::int64_t(gridDim.x) * blockDim.x : blockDim.x;
  constexpr int unroll = 4;
  std::int64_t i = begin + threadIdx.x;
  for (; i + (unroll - 1) * step < end; i += unroll * step) {
    uint4 w[unroll];
#pragma unroll
    for (int k = 0; k < unroll; ++k) w[k] = v[i + k * step];
#pragma unroll
    for (int k = 0; k < unroll; ++k) {
      atomicAdd(&copy[w[k].x % H], 1u);
      atomicAdd(&copy[w[k].y % H], 1u);
      atomicAdd(&copy[w[k].z % H], 1u);
      atomicAdd(&copy[w[k].w % H], 1u);
    }
  }
  for (; i < end; i += step) {
    const uint4 w = v[i];
    atomicAdd(&copy[w.x % H], 1u);
    atomicAdd(&copy[w.y % H], 1u);
    atomicAdd(&copy[w.z % H], 1u);
    atomicAdd(&copy[w.w % H], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < H; b += blockDim.x) {
    const unsigned c = copy[b];
    if (merge && c != 0) atomicAdd(&dest[b], c);
    else if (!merge && c == 0xffffffffu) dest[0] = c;  // never
  }
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int G = 2 * sms;
  const std::int64_t n = 50000000 / 4 * 4, vectors = n / 4;
  const uniform_words input(n, G);
  unsigned* const d = input.device;
  const std::vector<unsigned>& host = input.host;
  unsigned *dest = nullptr, *sink = nullptr;
  std::int64_t* d_starts = nullptr;
  CK(cudaMalloc(&dest, 65536 * sizeof(unsigned)));
  CK(cudaMalloc(&sink, sizeof(unsigned)));
  CK(cudaMalloc(&d_starts, (G + 1) * sizeof(std::int64_t)));
  auto median_us = [](auto&& launch) { return event_median_us([] {}, launch, 21, 1); };
  const auto* v = reinterpret_cast<const uint4*>(d);
  const double floor_us = median_us([&] { read_floor_vectors<<<sms * 8, 512>>>(v, vectors, sink); });
  std::printf("read floor %.1f us\n", floor_us);
  auto run_h = [&](auto h_tag) {
    constexpr unsigned H = decltype(h_tag)::value;
    std::vector<unsigned> want(H, 0);
    for (const unsigned x : host) ++want[x % H];
    const std::size_t shared = H * sizeof(unsigned);
    CK(cudaFuncSetAttribute(one_pass<H>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    for (double alpha : {-1.0, 0.0, 0.05, 0.1, 0.2}) {  // -1: grid-stride order
      // Block b's share: 1 - alpha * s_b, s_b = ((b * 97) % G) / G, scaled so that the shares cover the input.
      std::vector<double> share(G);
      double total = 0;
      for (int b = 0; b < G; ++b) total += share[b] = 1.0 - alpha * static_cast<double>((b * 97) % G) / G;
      std::vector<std::int64_t> starts(G + 1, 0);
      double acc = 0;
      for (int b = 0; b < G; ++b) {
        acc += share[b];
        starts[b + 1] = b + 1 == G ? vectors : static_cast<std::int64_t>(acc / total * static_cast<double>(vectors));
      }
      CK(cudaMemcpy(d_starts, starts.data(), starts.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice));
      for (bool merge : {false, true}) {
        auto launch = [&] {
          CK(cudaMemsetAsync(dest, 0, shared));
          one_pass<H><<<G, 1024, shared>>>(v, vectors, alpha < 0 ? nullptr : d_starts, dest, merge);
        };
        launch();
        CK(cudaDeviceSynchronize());
        std::vector<unsigned> got(H);
        CK(cudaMemcpy(got.data(), dest, shared, cudaMemcpyDeviceToHost));
        const double us = median_us(launch);
        char order[32];
        if (alpha < 0) std::snprintf(order, sizeof order, "grid-stride");
        else std::snprintf(order, sizeof order, "ranges %.2f", alpha);
        std::printf("H %6u  %-12s %-8s %7.1f us  %.3fx floor  %s\n", H, order, merge ? "merge" : "no merge", us,
                    us / floor_us, merge ? (got == want ? "ok" : "WRONG") : "-");
      }
    }
  };
  run_h(std::integral_constant<unsigned, 2048>{});
  run_h(std::integral_constant<unsigned, 6144>{});
  run_h(std::integral_constant<unsigned, 12288>{});
  return 0;
}
