// Probe: what in ghist's one-pass HDW kernel costs the ~3 us (lent H100) by which its input loop trails a bare loop
// of the same shape (bench/results/2026-11-28-h100-hdw-merge-order.txt, section 4), and what the overwrite gate costs
// against a memset before the launch. One kernel, one copy of H bins per block (264 blocks of 1024 threads, two per
// SM, 32 registers), grid-stride over 16-byte vectors, a shared atomicAdd per input, and each block's nonzero bins
// added to dest at the end; the variants switch one thing at a time:
//   bin:    "const"  bin = (x % active) * RF with active and RF compile-time constants (the bare kernel);
//           "seed"   the benchmark's bin function (bench::hdw_fn: ghist::invariant_divisor at run time, a 64-bit
//                    bin_update), as ghist's calls get it;
//   check:  "none"   every bin is taken as in range;
//           "range"  the bin compared with num_bins (64-bit, unsigned), as a one-pass kernel could;
//           "range32" the same with num_bins a 32-bit kernel parameter (the compiler then knows its top half is 0);
//           "chunk"  bin - lo compared with the pass's len (64-bit, run-time lo and len), as ghist's loop does;
//   vectors in flight per thread and step: 2 (ghist's element_source::for_each) or 4 (the bare kernel);
//   fill:   "memset" dest zeroed by cudaMemsetAsync before the launch; "gate" by the first block to reach its merge
//           while the others wait (ghist's overwrite gate, overwrite_gate.cuh, with this probe's own words).
// Each line: the median of 21 event-timed launches (with the memset, if any), its ratio to the read floor measured in
// the same run, the kernel's registers and local bytes, and a check of dest against the host's histogram. ghist's
// own call on the same input (generalized_histogram_async, RF told) is timed in the same run.
// Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 --expt-relaxed-constexpr --extended-lambda -Iinclude -Ibench \
//     -o hdw_loop_cost_probe bench/experiments/hdw_loop_cost_probe.cu build-gpu/libghist.a -lcuda
// Usage: hdw_loop_cost_probe [full | gate]: "full" adds the first run's variants, "gate" compares only the library
// kernel's gate with a memset before it, at 8192..49152 bins.
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "experiments/probe_check.cuh"
#include "ghist/detail/kernel_shared_one_pass.cuh"
#include "ghist/detail/overwrite_gate.cuh"
#include "ghist/generalized_histogram.cuh"
#include "seed000_ops.cuh"

/// The bare kernel's bins: compile-time active and RF.
template <unsigned Active, unsigned RF>
struct const_bin {
  __device__ __forceinline__ ghist::bin_update<std::int32_t> operator()(std::uint32_t x) const {
    return {(x % Active) * RF, 1};
  }
};

enum class check { none, range, range32, chunk };

template <class BinFn, check Check, int Vectors, bool Gated>
__global__ void __launch_bounds__(1024, 2)
    loop_kernel(const uint4* v, std::int64_t vectors, BinFn f, std::int64_t num_bins, std::int64_t lo,
                std::int64_t len, int* dest, ghist::detail::overwrite_gate gate, unsigned bins32) {
  extern __shared__ int copy[];
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) copy[b] = 0;
  __syncthreads();
  auto visit = [&](std::uint32_t x) {
    const ghist::bin_update<std::int32_t> u = f(x);
    if constexpr (Check == check::none) {
      atomicAdd(&copy[static_cast<int>(u.bin)], u.value);
    } else if constexpr (Check == check::range) {
      if (static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(num_bins))
        atomicAdd(&copy[static_cast<int>(u.bin)], u.value);
    } else if constexpr (Check == check::range32) {
      if (static_cast<std::uint64_t>(u.bin) < std::uint64_t{bins32}) atomicAdd(&copy[static_cast<int>(u.bin)], u.value);
    } else {
      const std::int64_t b = u.bin - lo;
      if (static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len))
        atomicAdd(&copy[static_cast<int>(b)], u.value);
    }
  };
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; i + (Vectors - 1) * step < vectors; i += Vectors * step) {
    uint4 w[Vectors];
#pragma unroll
    for (int k = 0; k < Vectors; ++k) w[k] = v[i + k * step];
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      visit(w[k].x);
      visit(w[k].y);
      visit(w[k].z);
      visit(w[k].w);
    }
  }
  for (; i < vectors; i += step) {
    const uint4 w = v[i];
    visit(w.x);
    visit(w.y);
    visit(w.z);
    visit(w.w);
  }
  __syncthreads();
  if constexpr (Gated) ghist::detail::pass_overwrite_gate(gate, dest, num_bins, 0);
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    const int c = copy[b];
    if (c != 0) atomicAdd(&dest[b], c);
  }
}

/// The library's input source with the benchmark's bin function.
using seed_source = ghist::detail::element_source<std::uint32_t, bench::hdw_fn>;

/// One variant's kernel, as a type (a lambda's parameter).
template <class BinFn, check Check, int Vectors, bool Gated>
struct kernel_tag {
  static constexpr auto value = loop_kernel<BinFn, Check, Vectors, Gated>;
  static constexpr bool gated = Gated;
};

int main(int argc, char** argv) {
  const bool gate_only = argc > 1 && std::string(argv[1]) == "gate";  // see gate_or_memset below
  const bool full = argc > 1 && !gate_only;  // any other argument: the first run's variants too
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int G = 2 * sms;
  const std::int64_t n = 50000000, vectors = n / 4;  // n is a multiple of 4
  const uniform_words input(n, G);
  unsigned* const d = input.device;
  const std::vector<unsigned>& host = input.host;
  int* dest = nullptr;
  unsigned* sink = nullptr;
  unsigned long long* gate_words = nullptr;
  CK(cudaMalloc(&dest, 65536 * sizeof(int)));
  CK(cudaMalloc(&sink, sizeof(unsigned)));
  CK(cudaMalloc(&gate_words, 2 * sizeof(unsigned long long)));
  CK(cudaMemset(gate_words, 0, 2 * sizeof(unsigned long long)));
  unsigned long long ticket = 0;
  auto median_us = [](auto&& launch) { return event_median_us([] {}, launch, 21, 1); };
  const auto* v = reinterpret_cast<const uint4*>(d);
  const double floor_us = median_us([&] { read_floor_vectors<<<sms * 8, 512>>>(v, vectors, sink); });
  std::printf("read floor %.1f us\n", floor_us);

  auto run_cell = [&](auto h_tag, auto rf_tag) {
    constexpr unsigned H = decltype(h_tag)::value, RF = decltype(rf_tag)::value;
    constexpr unsigned active = H / RF > 1 ? H / RF : 1;
    std::vector<int> want(H, 0);
    for (const unsigned x : host) ++want[(x % active) * RF];
    const std::size_t shared = H * sizeof(int);
    auto check_dest = [&](const char* what, double us, const void* kernel) {
      std::vector<int> got(H);
      CK(cudaMemcpy(got.data(), dest, shared, cudaMemcpyDeviceToHost));
      cudaFuncAttributes attr{};
      if (kernel != nullptr) CK(cudaFuncGetAttributes(&attr, kernel));
      std::printf("H %6u RF %2u  %-34s %6.1f us  %.3fx floor  regs %2d local %3zu  %s\n", H, RF, what, us,
                  us / floor_us, attr.numRegs, attr.localSizeBytes, got == want ? "ok" : "WRONG");
    };
    auto variant = [&](const char* what, auto kernel_tag, auto fn) {
      constexpr auto kernel = decltype(kernel_tag)::value;
      constexpr bool gated = decltype(kernel_tag)::gated;
      CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      auto launch = [&] {
        ghist::detail::overwrite_gate gate{};
        if (gated) gate = {gate_words, ++ticket};
        else CK(cudaMemsetAsync(dest, 0, shared));
        kernel<<<G, 1024, shared>>>(v, vectors, fn, H, 0, H, dest, gate, H);
      };
      CK(cudaMemset(dest, 0x7f, shared));  // a gated launch must fill dest itself
      launch();
      CK(cudaDeviceSynchronize());
      const double us = median_us(launch);
      check_dest(what, us, reinterpret_cast<const void*>(kernel));
    };
    using cb = const_bin<active, RF>;
    using sb = bench::hdw_fn;
    const sb seed{bench::seed000_bin::make(H, RF)};
#define KERNEL(BIN, CHECK, VECTORS, GATED) kernel_tag<BIN, check::CHECK, VECTORS, GATED>{}
    if (full) {
      variant("const none   4 vectors memset", KERNEL(cb, none, 4, false), cb{});
      variant("seed  none   4 vectors memset", KERNEL(sb, none, 4, false), seed);
      variant("seed  range  4 vectors memset", KERNEL(sb, range, 4, false), seed);
      variant("seed  range  2 vectors memset", KERNEL(sb, range, 2, false), seed);
      variant("seed  chunk  2 vectors memset", KERNEL(sb, chunk, 2, false), seed);
      variant("seed  range  4 vectors gate", KERNEL(sb, range, 4, true), seed);
    }
    variant("seed  chunk  2 vectors gate", KERNEL(sb, chunk, 2, true), seed);
    variant("const none   4 vectors gate", KERNEL(cb, none, 4, true), cb{});
    if (full) variant("seed  none   4 vectors gate", KERNEL(sb, none, 4, true), seed);
    if (full) {
      variant("seed  range32 4 vectors gate", KERNEL(sb, range32, 4, true), seed);
      variant("seed  range32 3 vectors gate", KERNEL(sb, range32, 3, true), seed);
    }
    variant("seed  range32 2 vectors gate", KERNEL(sb, range32, 2, true), seed);
#undef KERNEL
    // The library's two kernels for this plan (M = 1, S = 1, gated), launched directly: no host part of a call.
    using source = ghist::detail::element_source<std::uint32_t, sb>;
    const source src{d, n, seed};
    auto library_kernel = [&](const char* what, auto kernel, auto launch_with) {
      CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      auto launch = [&] { launch_with(kernel, ghist::detail::overwrite_gate{gate_words, ++ticket}); };
      CK(cudaMemset(dest, 0x7f, shared));
      launch();
      CK(cudaDeviceSynchronize());
      const double us = median_us(launch);
      check_dest(what, us, reinterpret_cast<const void*>(kernel));
    };
    library_kernel("shared_memory_kernel, gate",
                   ghist::detail::shared_memory_kernel<source, ghist::plus<std::int32_t>,
                                                       ghist::detail::copy_owner::threads, false, false, false, false,
                                                       false, true>,
                   [&](auto kernel, ghist::detail::overwrite_gate gate) {
                     kernel<<<G, 1024, shared>>>(src, ghist::plus<std::int32_t>{}, dest, nullptr, nullptr, gate, H, 1,
                                                 H, 1, 0, 0);
                   });
    library_kernel("hdw_one_pass_kernel, gate",
                   ghist::detail::hdw_one_pass_kernel<source, ghist::plus<std::int32_t>, true>,
                   [&](auto kernel, ghist::detail::overwrite_gate gate) {
                     kernel<<<G, 1024, shared>>>(src, ghist::plus<std::int32_t>{}, dest, gate, H, 1, int(H));
                   });
    ghist::options opts;
    opts.race_factor = RF;
    auto call = [&] {
      ghist::generalized_histogram_async(d, n, seed, ghist::plus<std::int32_t>{}, dest, H, 0, opts);
    };
    call();
    CK(cudaDeviceSynchronize());
    check_dest("ghist's call", median_us(call), nullptr);
  };
  // "gate": only the library's one-pass kernel, its dest filled by the gate or by a memset before the launch (as
  // dispatch does above overwrite_gate_max_bins), around that limit; H = 49152 on one block per SM (192 KiB).
  auto gate_or_memset = [&](auto h_tag, auto rf_tag, int grid) {
    constexpr unsigned H = decltype(h_tag)::value, RF = decltype(rf_tag)::value;
    const bench::seed000_bin bin = bench::seed000_bin::make(H, RF);
    std::vector<int> want(H, 0);
    for (const unsigned x : host) ++want[bin(x)];
    const std::size_t shared = H * sizeof(int);
    const seed_source src{d, n, bench::hdw_fn{bin}};
    for (const bool gated : {true, false}) {
      auto kernel = gated ? ghist::detail::hdw_one_pass_kernel<seed_source, ghist::plus<std::int32_t>, true>
                          : ghist::detail::hdw_one_pass_kernel<seed_source, ghist::plus<std::int32_t>, false>;
      CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
      auto launch = [&] {
        ghist::detail::overwrite_gate gate{};
        if (gated) gate = {gate_words, ++ticket};
        else CK(cudaMemsetAsync(dest, 0, shared));
        kernel<<<grid, 1024, shared>>>(src, ghist::plus<std::int32_t>{}, dest, gate, H, 1, int(H));
      };
      CK(cudaMemset(dest, 0x7f, shared));
      launch();
      CK(cudaDeviceSynchronize());
      std::vector<int> got(H);
      const double us = median_us(launch);
      CK(cudaMemcpy(got.data(), dest, shared, cudaMemcpyDeviceToHost));
      std::printf("H %6u RF %2u  grid %3d  hdw_one_pass_kernel, %-6s %6.1f us  %.3fx floor  %s\n", H, RF, grid,
                  gated ? "gate" : "memset", us, us / floor_us, got == want ? "ok" : "WRONG");
    }
  };
  if (gate_only) {
    for (int round = 0; round < 2; ++round) {
      gate_or_memset(std::integral_constant<unsigned, 8192>{}, std::integral_constant<unsigned, 1>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 12288>{}, std::integral_constant<unsigned, 1>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 16384>{}, std::integral_constant<unsigned, 1>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 24576>{}, std::integral_constant<unsigned, 1>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 49152>{}, std::integral_constant<unsigned, 1>{}, sms);
      gate_or_memset(std::integral_constant<unsigned, 12288>{}, std::integral_constant<unsigned, 63>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 16384>{}, std::integral_constant<unsigned, 63>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 24576>{}, std::integral_constant<unsigned, 63>{}, G);
      gate_or_memset(std::integral_constant<unsigned, 49152>{}, std::integral_constant<unsigned, 63>{}, sms);
    }
    return 0;
  }
  for (int round = 0; round < 2; ++round) {
    run_cell(std::integral_constant<unsigned, 6144>{}, std::integral_constant<unsigned, 1>{});
    run_cell(std::integral_constant<unsigned, 12288>{}, std::integral_constant<unsigned, 1>{});
    run_cell(std::integral_constant<unsigned, 12288>{}, std::integral_constant<unsigned, 63>{});
    run_cell(std::integral_constant<unsigned, 2048>{}, std::integral_constant<unsigned, 1>{});
    run_cell(std::integral_constant<unsigned, 31>{}, std::integral_constant<unsigned, 1>{});
    run_cell(std::integral_constant<unsigned, 6144>{}, std::integral_constant<unsigned, 63>{});
  }
  return 0;
}
