// Fused generalized histograms on the GPU (seed 000 IV-B): k histograms, each with its own operator, value type and
// number of bins, computed in one pass over the input. The GPU twin of cpu_fused.hpp (same semantics, arguments in
// the same order, same errors; the mode comes in options as for every GPU call).
//
//   for every input x: (u_1, ..., u_k) = f(x); for each j: if 0 <= u_j.bin < H_j: dest_j[u_j.bin] (+)_j= u_j.value
//
// f returns a cuda::std::tuple<bin_update<T_1>, ..., bin_update<T_k>> (a std::tuple also works when compiled with
// --expt-relaxed-constexpr). The plan (detail/multi/multi_plan.hpp): when the k histograms fit side by side in a
// block's shared memory, M copies of all k per block, merged into the destinations with each operator's global
// atomic; otherwise every update goes to its destination with the global atomic. Either way the input is read once.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/cpu_fused.hpp"  // histogram_target, make_target
#include "ghist/detail/input_source.cuh"
#include "ghist/detail/multi/fused_kernels.cuh"
#include "ghist/detail/multi/launch_support.cuh"
#include "ghist/device_info.hpp"
#include "ghist/options.hpp"

namespace ghist {

namespace detail::multi {

template <class... Ops>
std::vector<target_shape> shapes_of(const std::tuple<histogram_target<Ops>...>& targets) {
  std::vector<target_shape> ts;
  cpu::detail::for_each_index(std::index_sequence_for<Ops...>{}, [&](auto J) {
    using Op = std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>;
    ts.push_back(shape_of<Op>(std::get<decltype(J)::value>(targets).num_bins));
  });
  return ts;
}

template <class... Ops>
void check_targets(const std::tuple<histogram_target<Ops>...>& targets) {
  cpu::detail::for_each_index(std::index_sequence_for<Ops...>{}, [&](auto J) {
    using T = typename std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>::value_type;
    const auto& tg = std::get<decltype(J)::value>(targets);
    const std::string name = "targets[" + std::to_string(decltype(J)::value) + "]";
    if (tg.num_bins <= 0) throw error(name + ".num_bins must be > 0, got " + std::to_string(tg.num_bins));
    if (tg.dest == nullptr) throw error(name + ".dest is null");
    check_device_range(tg.dest, bytes_of<T>(tg.num_bins, name + ".num_bins"), (name + ".dest").c_str());
  });
}

template <class Source, class... Ops>
void run_fused(const Source& src, std::int64_t n, const std::tuple<histogram_target<Ops>...>& targets,
               cudaStream_t stream, const options& opts) {
  static_assert(sizeof...(Ops) > 0, "fused_histogram needs at least one target");
  check_non_negative(n, "n");
  check_targets(targets);
  check_options(opts);
  const std::vector<target_shape> shapes = shapes_of(targets);
  const multi_plan pl = plan_fused(n, shapes, device_info::current(), opts.overrides);
  check_workspace(opts, pl);

  using seq = std::index_sequence_for<Ops...>;
  if (opts.how == mode::overwrite)
    cpu::detail::for_each_index(seq{}, [&](auto J) {
      using Op = std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>;
      const auto& tg = std::get<decltype(J)::value>(targets);
      fill_async(tg.dest, tg.num_bins, Op::identity(), stream);
    });
  if (pl.grid == 0) return;

  scratch_space scratch(opts.scratch, stream);
  auto* locks = pl.temp_bytes > 0 ? static_cast<unsigned char*>(scratch.get(pl.temp_bytes)) : nullptr;
  if (locks != nullptr) GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, pl.temp_bytes, stream));
  const std::vector<std::size_t> offsets = region_offsets(shapes, pl.M);
  fused_slots<Ops...> slots;
  std::size_t lock_offset = 0;
  cpu::detail::for_each_index(seq{}, [&](auto J) {
    constexpr std::size_t j = decltype(J)::value;
    using Op = std::tuple_element_t<j, std::tuple<Ops...>>;
    const auto& tg = std::get<j>(targets);
    int* tl = nullptr;
    if constexpr (atomic_class_of<Op> == atomic_class::xcg) {
      tl = reinterpret_cast<int*>(locks + lock_offset);
      lock_offset += round_up(static_cast<std::size_t>(tg.num_bins) * lock_bytes, 256);
    }
    cuda::std::get<j>(slots) = fused_slot<Op>{tg.op, tg.dest, tg.num_bins, tl, offsets[j]};
  });
  if (pl.kind == strategy::shared_memory) launch(fused_shared_kernel<Source, Ops...>, pl, stream, src, slots, pl.M);
  else launch(fused_global_kernel<Source, Ops...>, pl, stream, src, slots);
}

}  // namespace detail::multi

/// k histograms in one pass over the elements of a device array: f(const In&) -> cuda::std::tuple<bin_update<T_1>,
/// ..., bin_update<T_k>>, T_j = Ops_j::value_type; targets: std::tuple<histogram_target<Ops_j>...> with device
/// destinations (make_target and std::make_tuple build it). opts.how applies to every target; opts.overrides may
/// force the strategy (kind), M, block and grid (S must be 0 or 1). Asynchronous on `stream`; temporaries (the lock
/// class's per-bin locks) from ghist's memory pool unless opts.scratch is given. Throws ghist::error naming the argument,
/// before anything is enqueued (every dest untouched): n < 0, input null or not device memory with n > 0, a target
/// with num_bins <= 0 or a null, host or too small dest ("targets[1].dest"), an override that cannot work, a
/// workspace too small. The destinations must not overlap.
template <class In, class UpdatesOf, class... Ops>
void fused_histogram_async(const In* input, std::int64_t n, UpdatesOf f,
                           const std::tuple<histogram_target<Ops>...>& targets, cudaStream_t stream = 0,
                           const options& opts = {}) {
  detail::check_non_negative(n, "n");
  if (input == nullptr && n > 0) throw error("input is null with n = " + std::to_string(n) + " > 0");
  detail::check_device_range(input, static_cast<std::size_t>(n) * sizeof(In), "input");
  detail::multi::run_fused(detail::element_source<In, UpdatesOf>{input, n, f}, n, targets, stream, opts);
}

/// The same over input indices: f(std::int64_t i) -> cuda::std::tuple<bin_update<T_j>...>, i in [0, n). f reads
/// whatever it needs; ghist checks the destinations only.
template <class UpdatesAt, class... Ops>
void fused_histogram_indexed_async(std::int64_t n, UpdatesAt f, const std::tuple<histogram_target<Ops>...>& targets,
                                   cudaStream_t stream = 0, const options& opts = {}) {
  detail::multi::run_fused(detail::index_source<UpdatesAt>{n, f}, n, targets, stream, opts);
}

}  // namespace ghist
