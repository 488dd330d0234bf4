// Batched (segmented) generalized histograms on the GPU (seed 000 IV-C): num_segments segments, each producing its
// own num_bins-bin histogram, in one call. The GPU twin of cpu_batched.hpp (same semantics, arguments in the same
// order, same errors; the mode comes in options).
//
//   for s in [0, num_segments), j in [0, length of s): u = f(s, j); if 0 <= u.bin < num_bins:
//       dest[s * num_bins + u.bin] (+)= u.value
//
// K blocks per segment, K = ceil((T / B) / num_segments) (at least T threads at work however few the segments);
// each block folds its part of its segment into M copies of the H bins in shared memory and merges them into the
// segment's row with the global atomic. Histograms too large for shared memory, or segments shorter than H on
// average, update the rows directly with the global atomic. Unlike one N_out x H histogram of the flattened input,
// a block's copies hold one segment's bins only, so they are H bins, not N_out x H.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/cpu_batched.hpp"  // check_batched_common: the same argument checks as the CPU reference
#include "ghist/detail/multi/batched_kernels.cuh"
#include "ghist/detail/multi/launch_support.cuh"
#include "ghist/device_info.hpp"
#include "ghist/options.hpp"
#include "ghist/update.hpp"

namespace ghist {

namespace detail::multi {

template <class Segments, class BinFn, class Op>
void run_batched(const Segments& segs, std::int64_t num_segments, std::int64_t inputs, BinFn f, Op op,
                 typename Op::value_type* dest, std::int64_t num_bins, cudaStream_t stream, const options& opts) {
  const multi_plan pl = plan_batched(num_segments, inputs, shape_of<Op>(num_bins), device_info::current(),
                                     opts.overrides);
  check_workspace(opts, pl);
  if (opts.how == mode::overwrite) fill_async(dest, num_segments * num_bins, Op::identity(), stream);
  if (pl.grid == 0) return;
  scratch_space scratch(opts.scratch, stream);
  int* locks = nullptr;
  if (pl.temp_bytes > 0) {
    locks = static_cast<int*>(scratch.get(pl.temp_bytes));
    GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, pl.temp_bytes, stream));
  }
  if (pl.kind == strategy::shared_memory)
    launch(batched_shared_kernel<Segments, BinFn, Op>, pl, stream, segs, f, op, dest, locks, num_segments, num_bins,
           pl.M, pl.K);
  else
    launch(batched_global_kernel<Segments, BinFn, Op>, pl, stream, segs, f, op, dest, locks, num_segments, num_bins,
           pl.K);
}

template <class BinFn, class Op>
void check_batched_device(std::int64_t num_segments, std::int64_t num_bins, typename Op::value_type* dest,
                          const options& opts) {
  cpu::detail::check_batched_common(num_segments, num_bins, dest, 0);
  static_assert(std::is_convertible_v<std::invoke_result_t<BinFn, std::int64_t, std::int64_t>,
                                      bin_update<typename Op::value_type>>,
                "ghist: the batched bin function f(s, j) must return ghist::bin_update<Op::value_type>");
  check_device_range(dest, bytes_of<typename Op::value_type>(num_segments * num_bins, "num_segments * num_bins"),
                     "dest");
  check_options(opts);
}

}  // namespace detail::multi

/// Equal segments: segment s is the inputs j in [0, segment_length). f: (std::int64_t s, std::int64_t j) ->
/// bin_update<T>, T = Op::value_type, callable on the device. dest: device memory of num_segments * num_bins values,
/// row-major (row s is segment s's histogram). opts.how: overwrite starts every row from Op::identity(), accumulate
/// folds into dest; opts.overrides may force kind, M, block and grid (S 0 or 1). Asynchronous on `stream`. Throws
/// ghist::error naming the argument, before anything is enqueued (dest untouched): num_segments < 0,
/// segment_length < 0, num_bins <= 0, num_segments * num_bins or num_segments * segment_length overflows, dest null
/// (with num_segments > 0), host or too small, an override that cannot work, a workspace too small.
template <class BinFn, class Op>
void batched_histogram_async(std::int64_t num_segments, std::int64_t segment_length, BinFn f, Op op,
                             typename Op::value_type* dest, std::int64_t num_bins, cudaStream_t stream = 0,
                             const options& opts = {}) {
  detail::multi::check_batched_device<BinFn, Op>(num_segments, num_bins, dest, opts);
  if (segment_length < 0) throw error("segment_length must be >= 0, got " + std::to_string(segment_length));
  if (segment_length > 0 && num_segments > std::numeric_limits<std::int64_t>::max() / segment_length)
    throw error("num_segments * segment_length overflows: num_segments = " + std::to_string(num_segments) +
                ", segment_length = " + std::to_string(segment_length));
  detail::multi::run_batched(detail::multi::equal_segments{segment_length}, num_segments,
                             num_segments * segment_length, f, op, dest, num_bins, stream, opts);
}

/// Variable segments: segment s is the inputs j in [0, offsets[s + 1] - offsets[s]); offsets: device memory of
/// num_segments + 1 integers, offsets[0] == 0, non-decreasing. f, dest, opts as batched_histogram_async.
/// Synchronisation: the offsets are copied to the host to check them and to plan (the total length sets K and the
/// block size), so this call waits for `stream` once, before it enqueues anything. Throws ghist::error naming the
/// argument, with dest untouched: as batched_histogram_async, and when offsets is null or not device memory of
/// num_segments + 1 entries, offsets[0] != 0 or offsets decreases anywhere (the message gives the index).
template <class Offset, class BinFn, class Op>
void batched_histogram_offsets_async(const Offset* offsets, std::int64_t num_segments, BinFn f, Op op,
                                     typename Op::value_type* dest, std::int64_t num_bins, cudaStream_t stream = 0,
                                     const options& opts = {}) {
  static_assert(std::is_integral_v<Offset>, "offsets must be of an integer type");
  detail::multi::check_batched_device<BinFn, Op>(num_segments, num_bins, dest, opts);
  if (offsets == nullptr) throw error("offsets is null");
  detail::check_device_range(offsets, detail::multi::bytes_of<Offset>(num_segments + 1, "num_segments"), "offsets");
  std::vector<Offset> host(static_cast<std::size_t>(num_segments) + 1);
  GHIST_CUDA_CHECK(cudaMemcpyAsync(host.data(), offsets, host.size() * sizeof(Offset), cudaMemcpyDeviceToHost,
                                   stream));
  GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host[0] != 0) throw error("offsets[0] must be 0, got " + std::to_string(host[0]));
  for (std::int64_t s = 0; s < num_segments; ++s)
    if (host[s + 1] < host[s])
      throw error("offsets must be non-decreasing: offsets[" + std::to_string(s + 1) + "] = " +
                  std::to_string(host[s + 1]) + " < offsets[" + std::to_string(s) + "] = " + std::to_string(host[s]));
  detail::multi::run_batched(detail::multi::offset_segments<Offset>{offsets}, num_segments,
                             static_cast<std::int64_t>(host[num_segments]), f, op, dest, num_bins, stream, opts);
}

}  // namespace ghist
