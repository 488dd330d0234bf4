// Vector-valued generalized histograms on the GPU (seed 000 IV-D): each bin holds d values (d known at run time) and
// a scalar operator is applied per component, each component with its type's hardware atomic or compare-and-swap
// loop, never a lock over the whole vector. The GPU twin of cpu_vector.hpp (same semantics and errors; dest is
// bin-major, num_bins * d values). Example: k-means centroid sums, bin = nearest centroid, op = plus<float>.
//
//   for every input i with bin b in [0, num_bins): dest[b * d + c] (+)= component c of input i, c in [0, d)
//
// Lanes split the components of one input (coalesced updates); the d components of one bin are updated one by one,
// so concurrent inputs of the same bin interleave, which the per-component atomics make safe. Shared-memory copies
// when num_bins * d values fit, else the destination is updated directly. The indexed form differs from the CPU's
// f(i, v) (a thread cannot hold d values for any run-time d): it takes bin_of(i) and component(i, c).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/multi/launch_support.cuh"
#include "ghist/detail/multi/vector_kernels.cuh"
#include "ghist/device_info.hpp"
#include "ghist/options.hpp"

namespace ghist {

namespace detail::multi {

template <class Op>
void check_vector(std::int64_t n, std::int64_t d, typename Op::value_type* dest, std::int64_t num_bins,
                  const options& opts) {
  static_assert(atomic_class_of<Op> != atomic_class::xcg,
                "ghist: a vector-valued histogram needs an operator whose components have a hardware or "
                "compare-and-swap atomic (4- or 8-byte value_type); per-component locks are what IV-D avoids");
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (d <= 0) throw error("d must be > 0, got " + std::to_string(d));
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  if (num_bins > std::numeric_limits<std::int64_t>::max() / d)
    throw error("num_bins * d overflows: num_bins = " + std::to_string(num_bins) + ", d = " + std::to_string(d));
  if (dest == nullptr) throw error("dest is null");
  check_device_range(dest, bytes_of<typename Op::value_type>(num_bins * d, "num_bins * d"), "dest");
  check_options(opts);
}

template <class Source, class Op>
void run_vector(const Source& src, std::int64_t n, std::int64_t d, Op op, typename Op::value_type* dest,
                std::int64_t num_bins, cudaStream_t stream, const options& opts) {
  const multi_plan pl = plan_vector(n, d, shape_of<Op>(num_bins), device_info::current(), opts.overrides);
  check_workspace(opts, pl);
  if (opts.how == mode::overwrite) fill_async(dest, num_bins * d, Op::identity(), stream);
  if (pl.grid == 0) return;
  if (pl.kind == strategy::shared_memory)
    launch(vector_kernel<true, Source, Op>, pl, stream, src, n, d, op, dest, num_bins, pl.M, pl.group);
  else
    launch(vector_kernel<false, Source, Op>, pl, stream, src, n, d, op, dest, num_bins, pl.M, pl.group);
}

}  // namespace detail::multi

/// Vector-valued histogram over the indices [0, n): bin_of(std::int64_t i) -> integer bin (outside [0, num_bins),
/// e.g. ghist::no_bin, skips the input) and component(std::int64_t i, std::int64_t c) -> T, c in [0, d), both
/// callable on the device; component is only called for inputs with a valid bin. op: a scalar operator on
/// T = Op::value_type of the hdw or cas class (a compile-time error otherwise). dest: device memory of num_bins * d
/// values, bin-major. opts.how as every call; opts.overrides may force kind, M, block (a multiple of 32) and grid.
/// Asynchronous on `stream`, no temporaries. Throws ghist::error naming the argument, before anything is enqueued
/// (dest untouched): n < 0, d <= 0, num_bins <= 0, num_bins * d overflows, dest null, host or too small, an
/// override that cannot work.
template <class BinOf, class Component, class Op>
void vector_histogram_async(std::int64_t n, std::int64_t d, BinOf bin_of, Component component, Op op,
                            typename Op::value_type* dest, std::int64_t num_bins, cudaStream_t stream = 0,
                            const options& opts = {}) {
  detail::multi::check_vector<Op>(n, d, dest, num_bins, opts);
  detail::multi::run_vector(detail::multi::vector_indexed<BinOf, Component>{bin_of, component}, n, d, op, dest,
                            num_bins, stream, opts);
}

/// Element form, as cpu::vector_histogram_records: input holds n records of d components (record i is
/// input[i * d .. i * d + d)), device memory; bin_of(const T* record) -> integer bin, callable on the device (one
/// lane per record calls it). Throws as vector_histogram_async, and when input is null or not device memory of
/// n * d values with n > 0, or n * d overflows.
template <class BinOfRecord, class Op>
void vector_histogram_records_async(const typename Op::value_type* input, std::int64_t n, std::int64_t d,
                                    BinOfRecord bin_of, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                                    cudaStream_t stream = 0, const options& opts = {}) {
  using T = typename Op::value_type;
  detail::multi::check_vector<Op>(n, d, dest, num_bins, opts);
  if (input == nullptr && n > 0) throw error("input is null with n = " + std::to_string(n) + " > 0");
  if (n > 0 && n > std::numeric_limits<std::int64_t>::max() / d)
    throw error("n * d overflows: n = " + std::to_string(n) + ", d = " + std::to_string(d));
  detail::check_device_range(input, detail::multi::bytes_of<T>(n * d, "n * d"), "input");
  detail::multi::run_vector(detail::multi::vector_records<T, BinOfRecord>{input, d, bin_of}, n, d, op, dest,
                            num_bins, stream, opts);
}

}  // namespace ghist
