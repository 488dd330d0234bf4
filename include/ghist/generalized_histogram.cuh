// The generic GPU engine (needs nvcc): a generalized histogram with any bin function and any associative and
// commutative operator with an identity (seed 000). For the common cases without nvcc, see ghist/histogram.hpp.
//
//   dest[f(x).bin] = dest[f(x).bin] (+) f(x).value   for every input x; bins outside [0, num_bins) are ignored.
//
// The bin function is a functor callable on the device (a __device__ lambda needs nvcc's --extended-lambda), mapping
// an input element (generalized_histogram_async) or an input index (generalized_histogram_indexed_async) to a
// ghist::bin_update<T>; no array of bins is ever written. The operator (ghist/operators.hpp) decides the atomic
// class at compile time (ghist/atomic_class.hpp).
//
// Both calls are asynchronous on `stream`, with one exception: when the planner chooses global-memory
// sub-histograms, or for an operator of the lock class the partitioned strategy or shared memory in several
// passes, and options.race_factor is 0 (unknown), a short inspector samples the input and waits for `stream` once
// before launching. Temporaries come from ghist's memory pool (stream-ordered on `stream`, kept between calls)
// unless options.scratch is given.
// Errors (ghist::error, thrown before anything is enqueued, so dest is untouched): num_bins <= 0, n < 0, a null
// or host pointer where device memory is expected, a destination, input or workspace allocation too small, a plan
// override that cannot work (e.g. M * H_chk too large for shared memory).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "ghist/detail/dispatch.cuh"
#include "ghist/detail/input_source.cuh"
#include "ghist/detail/validate.hpp"
#include "ghist/operators.hpp"
#include "ghist/options.hpp"
#include "ghist/update.hpp"

namespace ghist {

/// Generalized histogram over the elements of a device array: f(const In&) -> bin_update<Op::value_type>.
/// Elements are read with 16-byte loads where the type and alignment allow.
template <class In, class BinFn, class Op>
void generalized_histogram_async(const In* input, std::int64_t n, BinFn f, Op op, typename Op::value_type* dest,
                                 std::int64_t num_bins, cudaStream_t stream = 0, const options& opts = {}) {
  static_assert(std::is_convertible_v<std::invoke_result_t<BinFn, const In&>, bin_update<typename Op::value_type>>,
                "ghist: the bin function must return ghist::bin_update<Op::value_type>");
  detail::check_non_negative(n, "n");
  detail::check_device_range(input, static_cast<std::size_t>(n) * sizeof(In), "input");
  detail::run_histogram(detail::element_source<In, BinFn>{input, n, f}, n, op, dest, num_bins, stream, opts);
}

/// Generalized histogram over input indices: f(std::int64_t i) -> bin_update<Op::value_type>, i in [0, n).
/// f reads whatever it needs (several arrays, a computed value); ghist only checks dest.
template <class BinFn, class Op>
void generalized_histogram_indexed_async(std::int64_t n, BinFn f, Op op, typename Op::value_type* dest,
                                         std::int64_t num_bins, cudaStream_t stream = 0, const options& opts = {}) {
  static_assert(std::is_convertible_v<std::invoke_result_t<BinFn, std::int64_t>, bin_update<typename Op::value_type>>,
                "ghist: the bin function must return ghist::bin_update<Op::value_type>");
  detail::run_histogram(detail::index_source<BinFn>{n, f}, n, op, dest, num_bins, stream, opts);
}

/// The plan generalized_histogram_async over n elements of type In would run on the current device (before any
/// race-factor sampling: with options.race_factor == 0 it assumes RF = 1). Element inputs may take the
/// partitioned strategy, which index inputs cannot (ghist::plan_for plans as for those). plan.temp_bytes is the
/// workspace needed. Give the bin function's type as BinFn when it counts (ghist::is_counting): the plan differs.
template <class Op, class In, class BinFn = detail::no_bin_function>
plan plan_for_elements(std::int64_t n, std::int64_t num_bins, const options& opts = {}) {
  problem p = problem_for<Op>(n, num_bins, opts.race_factor);
  p.record_bytes = detail::partition_traits<detail::element_source<In, detail::no_bin_function>>::record_bytes;
  p.unit_increments = detail::unit_increments_v<BinFn, Op>;
  return make_plan(p, device_info::current(), opts.overrides);
}

}  // namespace ghist
