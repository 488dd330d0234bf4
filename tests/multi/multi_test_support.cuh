// Helpers of the fused, batched and vector-valued GPU tests: the k-target bin function, checks of a GPU result
// against the CPU reference, and the list of (strategy, mode) pairs every case runs under.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda/std/tuple>
#include <gtest/gtest.h>

#include "ghist/options.hpp"
#include "ghist/plan.hpp"
#include "test_support.cuh"

namespace ghist_test {

inline const char* to_string(ghist::mode m) { return m == ghist::mode::overwrite ? "overwrite" : "accumulate"; }

/// The (forced or automatic) strategies and modes every case runs under.
struct run_config {
  ghist::strategy kind;
  ghist::mode how;
};
inline std::vector<run_config> all_configs() {
  std::vector<run_config> out;
  for (auto kind : {ghist::strategy::automatic, ghist::strategy::shared_memory, ghist::strategy::global_memory})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) out.push_back({kind, how});
  return out;
}

/// Target j's update of a test element: target 0 takes the element's bin as it is; target j > 0 scatters valid
/// bins over [0, H_j + 2) (so some fall out of range) and keeps invalid ones; payloads differ per target.
template <class Op>
__host__ __device__ ghist::bin_update<typename Op::value_type> target_update(std::uint64_t e, std::size_t j,
                                                                             std::int64_t H) {
  std::int64_t b = static_cast<std::int32_t>(static_cast<std::uint32_t>(e));
  if (j > 0 && b >= 0) b = (b * static_cast<std::int64_t>(2 * j + 1) + static_cast<std::int64_t>(j)) % (H + 2);
  const auto payload = static_cast<std::uint32_t>(e >> 32) ^ static_cast<std::uint32_t>(j * 0x9e3779b9u);
  return {b, op_case<Op>::value(payload)};
}

/// f of the fused tests: one update per target, as a cuda::std::tuple.
template <class... Ops>
struct fused_updates {
  std::int64_t H[sizeof...(Ops)];

  template <std::size_t... J>
  __host__ __device__ cuda::std::tuple<ghist::bin_update<typename Ops::value_type>...> make(
      std::uint64_t e, std::index_sequence<J...>) const {
    return cuda::std::make_tuple(target_update<Ops>(e, J, H[J])...);
  }
  __host__ __device__ cuda::std::tuple<ghist::bin_update<typename Ops::value_type>...> operator()(
      std::uint64_t e) const {
    return make(e, std::index_sequence_for<Ops...>{});
  }
  /// The same as a std::tuple, for the CPU reference.
  template <std::size_t... J>
  std::tuple<ghist::bin_update<typename Ops::value_type>...> host(std::uint64_t e, std::index_sequence<J...>) const {
    return std::make_tuple(target_update<Ops>(e, J, H[J])...);
  }
};

/// Counts the bins where got and expected differ under op_case<Op>::equal; reports the first three.
template <class Op>
std::int64_t count_mismatches(const std::vector<typename Op::value_type>& got,
                              const std::vector<typename Op::value_type>& expected, const std::string& what) {
  EXPECT_EQ(got.size(), expected.size()) << what;
  std::int64_t bad = 0;
  for (std::size_t b = 0; b < got.size() && b < expected.size(); ++b)
    if (!op_case<Op>::equal(got[b], expected[b]) && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << b << " differs from the CPU reference";
  return bad;
}

inline std::string config_name(const run_config& c) {
  std::ostringstream s;
  s << "strategy=" << ghist::to_string(c.kind) << " mode=" << to_string(c.how);
  return s.str();
}

}  // namespace ghist_test
