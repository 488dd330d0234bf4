// Helpers of the huge-histogram GPU tests (issue 5 item 4): the plans a test runs (auto and each forced strategy),
// cheap per-bin initial values for accumulate mode, and one check that runs every plan in both modes against the
// CPU backend's answer on the same input.
//
// At H = 100M a bin array is 400 MB, so a check computes the CPU answer once per input (overwrite mode) and derives
// the accumulate answer as op(initial[b], overwrite[b]), which is what accumulate means for an associative and
// commutative operator whose identity leaves untouched bins alone.
#pragma once

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "ghist/cpu.hpp"
#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "test_support.cuh"

namespace ghist_huge_test {

using i64 = std::int64_t;

/// One plan to run: the strategy and the overrides of options.hpp (0: planner decides).
struct variant {
  const char* name;
  ghist::strategy kind;
  int M;
  int S;  ///< for partitioned: the number of groups
  int counted = 0;  ///< for partitioned: overrides.counted_groups (1 the counted layout, -1 the tile layout)
  int dest_offset = 0;  ///< dest starts this many bins past a 256-byte boundary (0..3: a group's 16-byte stores)
  int grid = 0;         ///< for partitioned: overrides.grid, the second pass's blocks shared out among the groups
};

inline const variant v_auto{"auto", ghist::strategy::automatic, 0, 0};
inline const variant v_global{"global", ghist::strategy::global_memory, 0, 0};
inline const variant v_global_m1{"global M=1", ghist::strategy::global_memory, 1, 0};  // one atomic per element
inline const variant v_part{"partitioned", ghist::strategy::partitioned, 0, 0};
inline const variant v_part32{"partitioned S=32", ghist::strategy::partitioned, 0, 32};
inline const variant v_part256{"partitioned S=256", ghist::strategy::partitioned, 0, 256};
inline const variant v_part1024{"partitioned S=1024", ghist::strategy::partitioned, 0, 1024};
inline const variant v_part_tiles{"partitioned tiles", ghist::strategy::partitioned, 0, 0, -1};
inline const variant v_part_counted{"partitioned counted", ghist::strategy::partitioned, 0, 0, 1};
inline const variant v_part_counted4096{"partitioned counted S=4096", ghist::strategy::partitioned, 0, 4096, 1};

inline std::uint64_t mix(std::uint64_t z) {  // splitmix64: cheap per-bin values for 100M bins
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The initial value of a bin in accumulate mode, from a hash. Saturating 8-bit add needs values <= 255.
inline std::int32_t initial_value(ghist::plus<std::int32_t>, std::uint64_t h) { return std::int32_t(h % 5000); }
inline std::int32_t initial_value(ghist::max<std::int32_t>, std::uint64_t h) { return std::int32_t(std::uint32_t(h)); }
template <class Op>
std::uint32_t initial_value(Op, std::uint64_t h) {  // sat8_add
  return std::uint32_t(h % 256);
}

inline std::string options_text(const variant& v, ghist::mode how) {
  return std::string(v.name) + (how == ghist::mode::overwrite ? ", overwrite" : ", accumulate") +
         (v.dest_offset != 0 ? ", dest " + std::to_string(v.dest_offset) + " bins past 16-byte alignment" : "");
}

/// Runs every variant in both modes on `input` (n elements) and compares each GPU result bin by bin with the CPU
/// backend's. A variant whose forced plan the planner refuses must throw ghist::error before enqueueing anything:
/// the destination keeps its contents (checked when check_refusal_untouched, once per test, as it costs a 4H-byte
/// download).
template <class Op, class In, class Fn>
void check_variants(const std::string& what, const std::vector<In>& input, i64 H, Fn f,
                   const std::vector<variant>& variants, std::uint64_t seed, bool* check_refusal_untouched = nullptr) {
  using T = typename Op::value_type;
  const i64 n = static_cast<i64>(input.size());
  std::ostringstream trace;
  trace << what << " n=" << n << " H=" << H << " seed=" << seed;
  SCOPED_TRACE(trace.str());

  std::vector<T> over(static_cast<std::size_t>(H));
  ghist::cpu::generalized_histogram(input.data(), n, f, Op{}, over.data(), H, ghist::mode::overwrite, 0);
  std::vector<T> initial(static_cast<std::size_t>(H)), acc(static_cast<std::size_t>(H));
  for (i64 b = 0; b < H; ++b) {
    initial[b] = initial_value(Op{}, mix(seed ^ static_cast<std::uint64_t>(b)));
    acc[b] = Op{}(initial[b], over[b]);
  }

  ghist_test::device_buffer<In> d_in(input);
  ghist_test::device_buffer<T> d_hist_buffer(static_cast<std::size_t>(H) + 3);
  ghist_test::device_buffer<T> d_initial(initial);  // accumulate runs start from a device-to-device copy
  const std::size_t hist_bytes = static_cast<std::size_t>(H) * sizeof(T);
  std::vector<T> got(static_cast<std::size_t>(H));
  for (const variant& v : variants) {
    for (ghist::mode how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      SCOPED_TRACE(options_text(v, how));
      ghist::options opts;
      opts.how = how;
      opts.overrides.kind = v.kind;
      opts.overrides.M = v.M;
      opts.overrides.S = v.S;
      opts.overrides.counted_groups = v.counted;
      opts.overrides.grid = v.grid;
      T* const dest = d_hist_buffer.get() + v.dest_offset;
      auto call = [&] { ghist::generalized_histogram_async(d_in.get(), n, f, Op{}, dest, H, 0, opts); };

      bool accepted = true;
      std::string why;
      try {
        (void)ghist::plan_for_elements<Op, In>(n, H, opts);
      } catch (const ghist::error& e) {
        accepted = false;
        why = e.what();
      }
      if (!accepted) {
        if (how == ghist::mode::accumulate) continue;  // the refusal does not depend on the mode
        if (v.kind == ghist::strategy::partitioned)
          EXPECT_NE(why.find("partitioned"), std::string::npos) << "the refusal names the strategy: " << why;
        CUDA_OK(cudaMemset(dest, 0x5a, hist_bytes));
        EXPECT_THROW(call(), ghist::error) << "planner refused: " << why;
        if (check_refusal_untouched && *check_refusal_untouched) {
          *check_refusal_untouched = false;
          CUDA_OK(cudaDeviceSynchronize());
          CUDA_OK(cudaMemcpy(got.data(), dest, hist_bytes, cudaMemcpyDeviceToHost));
          const auto* bytes = reinterpret_cast<const unsigned char*>(got.data());
          i64 changed = 0;
          for (std::size_t i = 0; i < hist_bytes; ++i) changed += bytes[i] != 0x5a;
          EXPECT_EQ(changed, 0) << "a refused call wrote the destination";
        }
        continue;
      }

      // Garbage that overwrite mode must replace, and around dest, which no mode may touch.
      CUDA_OK(cudaMemset(d_hist_buffer.get(), 0xa7, hist_bytes + 3 * sizeof(T)));
      if (how == ghist::mode::accumulate)
        CUDA_OK(cudaMemcpy(dest, d_initial.get(), hist_bytes, cudaMemcpyDeviceToDevice));
      try {
        call();
      } catch (const ghist::error& e) {
        ADD_FAILURE() << "the planner accepted the plan but the call threw: " << e.what();
        continue;
      }
      CUDA_OK(cudaDeviceSynchronize());
      CUDA_OK(cudaGetLastError());
      CUDA_OK(cudaMemcpy(got.data(), dest, hist_bytes, cudaMemcpyDeviceToHost));
      const std::vector<T>& expected = how == ghist::mode::overwrite ? over : acc;
      i64 mismatches = 0;
      for (i64 b = 0; b < H; ++b) {
        if (std::memcmp(&got[b], &expected[b], sizeof(T)) != 0 && ++mismatches <= 3)
          ADD_FAILURE() << "bin " << b << ": got " << +got[b] << ", CPU backend " << +expected[b];
      }
      EXPECT_EQ(mismatches, 0) << "bins that differ from the CPU backend";
      unsigned char around[3 * sizeof(T)];
      CUDA_OK(cudaMemcpy(around, d_hist_buffer.get(), v.dest_offset * sizeof(T), cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(around + v.dest_offset * sizeof(T), dest + H, (3 - v.dest_offset) * sizeof(T),
                         cudaMemcpyDeviceToHost));
      for (unsigned char byte : around) EXPECT_EQ(byte, 0xa7) << "a write outside dest";
    }
  }
}

// ---- bin functions (host and device, so that the CPU backend runs the same f) ----

/// HDW: the input is the bin (int32, out-of-range values ignored); int32 add of 1.
struct count_one {
  __host__ __device__ ghist::bin_update<std::int32_t> operator()(std::int32_t bin) const { return {bin, 1}; }
};
/// count_one saying that it counts (ghist::is_counting): unit increments, which the partitioned strategy's counted
/// layout keeps as 16-bit bins within a group instead of the inputs.
struct count_one_declared : count_one {
  static constexpr bool counts = true;
};

/// CAS: bin in the low word, a value 1..3 from the high word, for the 8-bit saturating add.
struct sat8_update {
  __host__ __device__ ghist::bin_update<std::uint32_t> operator()(std::uint64_t e) const {
    return {static_cast<std::int32_t>(static_cast<std::uint32_t>(e)), 1u + static_cast<std::uint32_t>(e >> 32) % 3u};
  }
};

/// HDW max: bin in the low word, the high word as a signed value.
struct max_update {
  __host__ __device__ ghist::bin_update<std::int32_t> operator()(std::uint64_t e) const {
    return {static_cast<std::int32_t>(static_cast<std::uint32_t>(e)),
            static_cast<std::int32_t>(static_cast<std::uint32_t>(e >> 32))};
  }
};

}  // namespace ghist_huge_test
