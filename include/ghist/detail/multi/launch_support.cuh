// Host-side steps the fused, batched and vector-valued calls share: checking options, checking a caller's
// workspace against the plan, and launching a kernel with the plan's dynamic shared memory.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <cuda_runtime_api.h>

#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/launch_attributes.hpp"
#include "ghist/detail/dispatch.cuh"
#include "ghist/detail/multi/multi_plan.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/error.hpp"
#include "ghist/options.hpp"

namespace ghist::detail::multi {

/// Checks the options these calls use (mode, overrides, workspace; the race factor is not used).
inline void check_options(const options& opts) {
  check_overrides(opts.overrides);
  if (opts.scratch.data == nullptr && opts.scratch.bytes > 0)
    throw error("options.scratch.data is null but options.scratch.bytes = " + std::to_string(opts.scratch.bytes));
}

/// After planning: a caller's workspace must hold the plan's temporaries.
inline void check_workspace(const options& opts, const multi_plan& pl) {
  if (opts.scratch.data == nullptr) return;
  if (opts.scratch.bytes < pl.temp_bytes)
    throw error("options.scratch is too small: the plan needs " + std::to_string(pl.temp_bytes) +
                " bytes, the workspace has " + std::to_string(opts.scratch.bytes) + " (" + pl.to_string() + ")");
  check_device_range(opts.scratch.data, opts.scratch.bytes, "options.scratch");
}

/// Bytes of count values of T, or a ghist::error naming `what` when that overflows size_t.
template <class T>
std::size_t bytes_of(std::int64_t count, const std::string& what) {
  if (static_cast<std::uint64_t>(count) > std::numeric_limits<std::size_t>::max() / sizeof(T))
    throw error(what + " is too large: " + std::to_string(count) + " values overflow a byte count");
  return static_cast<std::size_t>(count) * sizeof(T);
}

template <class Kernel, class... Args>
void launch(Kernel kernel, const multi_plan& pl, cudaStream_t stream, Args... args) {
  if (pl.shared_bytes > 0)
    allow_dynamic_shared(kernel, pl.shared_bytes);
  kernel<<<pl.grid, pl.block, pl.shared_bytes, stream>>>(args...);
  GHIST_CUDA_CHECK(cudaGetLastError());
}

}  // namespace ghist::detail::multi
