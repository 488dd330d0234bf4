// Fused generalized histograms on the CPU: k histograms, each with its own operator, value type and number of bins,
// computed in one pass over the input. This is the CPU reference of the GPU version to come (same semantics).
//
//   for i in [0, n): (u_1, ..., u_k) = f(i); for each j: if 0 <= u_j.bin < H_j: dest_j[u_j.bin] = op_j(dest_j[u_j.bin], u_j.value)
//
// Each target's out-of-range bins are ignored independently of the others (one input may update target 1 and skip
// target 2). Parallelism and determinism follow cpu.hpp: threads split the input into equal contiguous parts, each
// folding its part into private sub-histograms of every target, merged in thread order; when threads x (sum of the
// targets' sizes in bytes) would exceed the memory budget, each thread instead owns a range of the bins of every
// target and scans the whole input once (f is then called once per thread for each i). Each target's result is
// therefore the same as cpu::generalized_histogram_indexed would give it alone with the same thread count whenever
// both take the same path, always for integer and bitwise operators, and bitwise the sequential loop on the split.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ghist/cpu.hpp"

namespace ghist {

/// One histogram of a fused call: its operator, its destination (num_bins values of Op::value_type) and its size.
template <class Op>
struct histogram_target {
  Op op;
  typename Op::value_type* dest;
  std::int64_t num_bins;
};

/// histogram_target with the operator type deduced: make_target(plus<int>{}, counts, 256).
template <class Op>
histogram_target<Op> make_target(Op op, typename Op::value_type* dest, std::int64_t num_bins) {
  return {op, dest, num_bins};
}

}  // namespace ghist

namespace ghist::cpu {

namespace detail {

template <class F, std::size_t... J>
void for_each_index(std::index_sequence<J...>, F&& f) {
  (f(std::integral_constant<std::size_t, J>{}), ...);
}

template <class UpdatesAt, class... Ops>
void run_fused(std::int64_t n, UpdatesAt& f, const std::tuple<histogram_target<Ops>...>& targets, mode how,
               int threads, std::size_t budget_bytes) {
  constexpr std::size_t K = sizeof...(Ops);
  static_assert(K > 0, "fused_histogram needs at least one target");
  using seq = std::make_index_sequence<K>;
  using ptrs = std::tuple<typename Ops::value_type*...>;
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (threads < 0) throw error("threads must be >= 0, got " + std::to_string(threads));
  std::array<std::int64_t, K> bins{};
  std::size_t bytes_per_copy = 0;  // saturates instead of wrapping
  for_each_index(seq{}, [&](auto J) {
    const auto& tg = std::get<J>(targets);
    using T = typename std::tuple_element_t<J, std::tuple<Ops...>>::value_type;
    const std::string name = "targets[" + std::to_string(J) + "]";
    if (tg.num_bins <= 0) throw error(name + ".num_bins must be > 0, got " + std::to_string(tg.num_bins));
    if (tg.dest == nullptr) throw error(name + ".dest is null");
    bins[J] = tg.num_bins;
    const std::size_t most = std::numeric_limits<std::size_t>::max();
    const std::size_t b = static_cast<std::size_t>(tg.num_bins) > most / sizeof(T)
                              ? most
                              : static_cast<std::size_t>(tg.num_bins) * sizeof(T);
    bytes_per_copy = b > most - bytes_per_copy ? most : bytes_per_copy + b;
  });
  if (how == mode::overwrite)
    for_each_index(seq{}, [&](auto J) {
      const auto& tg = std::get<J>(targets);
      using Op = std::tuple_element_t<J, std::tuple<Ops...>>;
      std::fill(tg.dest, tg.dest + tg.num_bins, Op::identity());
    });
  if (n == 0) return;

  // Applies, in input order, the updates of inputs [begin, end) whose bin lies in [lo_j, hi_j) to hist_j (at bin - lo_j).
  auto fold = [&](std::int64_t begin, std::int64_t end, const ptrs& hist, const std::array<std::int64_t, K>& lo,
                  const std::array<std::int64_t, K>& hi) {
    for (std::int64_t i = begin; i < end; ++i) {
      auto us = f(i);
      static_assert(std::tuple_size_v<decltype(us)> == K, "f must return one bin_update per target");
      for_each_index(seq{}, [&](auto J) {
        const auto& u = std::get<J>(us);
        const std::int64_t b = u.bin;
        if (b >= lo[J] && b < hi[J]) {
          auto* h = std::get<J>(hist) + (b - lo[J]);
          *h = std::get<J>(targets).op(*h, u.value);
        }
      });
    }
  };
  const std::array<std::int64_t, K> zero{};
  ptrs dests;
  for_each_index(seq{}, [&](auto J) { std::get<J>(dests) = std::get<J>(targets).dest; });

  const int t = threads_for(n, threads);
  if (t == 1) {
    fold(0, n, dests, zero, bins);
  } else if (sub_histograms_fit(bytes_per_copy, t, budget_bytes)) {
    std::vector<std::tuple<std::vector<typename Ops::value_type>...>> subs(static_cast<std::size_t>(t));
    run_parts(t, [&](int k) {
      ptrs hist;
      for_each_index(seq{}, [&](auto J) {
        using Op = std::tuple_element_t<J, std::tuple<Ops...>>;
        auto& v = std::get<J>(subs[k]);
        v.assign(static_cast<std::size_t>(bins[J]), Op::identity());
        std::get<J>(hist) = v.data();
      });
      fold(n * k / t, n * (k + 1) / t, hist, zero, bins);
    });
    for_each_index(seq{}, [&](auto J) {
      const auto& tg = std::get<J>(targets);
      for (int k = 0; k < t; ++k) {
        const auto& v = std::get<J>(subs[k]);
        for (std::int64_t b = 0; b < bins[J]; ++b) tg.dest[b] = tg.op(tg.dest[b], v[b]);
      }
    });
  } else {
    // Each thread owns a range of the bins of every target and scans the whole input once.
    run_parts(t, [&](int k) {
      std::array<std::int64_t, K> lo{}, hi{};
      ptrs hist;
      for_each_index(seq{}, [&](auto J) {
        lo[J] = bins[J] * k / t;
        hi[J] = bins[J] * (k + 1) / t;
        std::get<J>(hist) = std::get<J>(targets).dest + lo[J];
      });
      fold(0, n, hist, lo, hi);
    });
  }
}

}  // namespace detail

/// k histograms in one pass over the indices [0, n). f: (std::int64_t) -> std::tuple<bin_update<T_1>, ...,
/// bin_update<T_k>> where T_j = Ops_j::value_type; targets: std::tuple<histogram_target<Ops_1>, ...> (make_target
/// and std::make_tuple build it). mode applies to every target. f must have no side effects (it may be called more
/// than once for the same i, from several threads). threads = 0 uses default_threads(). Throws ghist::error naming
/// the argument (e.g. "targets[1].num_bins") when n < 0, threads < 0, or a target has num_bins <= 0 or a null dest;
/// every dest is then untouched. An exception thrown by f is rethrown once every worker thread has finished (the
/// dests are then unspecified). The destinations must not overlap.
template <class UpdatesAt, class... Ops>
void fused_histogram_indexed(std::int64_t n, UpdatesAt f, const std::tuple<histogram_target<Ops>...>& targets,
                             mode how = mode::overwrite, int threads = 0) {
  detail::run_fused(n, f, targets, how, threads, detail::sub_histogram_budget_bytes);
}

/// Element form: f: (const In&) -> std::tuple<bin_update<T_1>, ...> on input[i] for i in [0, n). Throws ghist::error
/// as fused_histogram_indexed does, and also when input is null with n > 0.
template <class In, class UpdatesOf, class... Ops>
void fused_histogram(const In* input, std::int64_t n, UpdatesOf f, const std::tuple<histogram_target<Ops>...>& targets,
                     mode how = mode::overwrite, int threads = 0) {
  if (input == nullptr && n > 0) throw error("input is null with n = " + std::to_string(n) + " > 0");
  auto at = [&](std::int64_t i) { return f(input[i]); };
  detail::run_fused(n, at, targets, how, threads, detail::sub_histogram_budget_bytes);
}

}  // namespace ghist::cpu
