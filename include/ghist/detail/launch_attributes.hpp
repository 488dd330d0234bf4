// A kernel's opt-in to more than 48 KiB of dynamic shared memory, made once per kernel, device and size.
//
// Why: cudaFuncSetAttribute costs the host ~0.5 us a call, and the benchmark (as a caller would) times each call
// from an idle GPU, so the host's work before the launch is on the clock: an event-timed empty launch with the
// attribute set before it took 6.9 us against 5.7-6.1 without (lent H100, 2026-11-26, the host probe in
// bench/results/2026-11-26-h100-overwrite-gate.txt).
#pragma once

#include <cstddef>

namespace ghist::detail {

/// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) on the current device, skipped
/// when the last call for this kernel and device set the same size. `kernel` is the host-side address a launch
/// uses: each translation unit's instance of a kernel template has its own (nvcc's static template stubs), so each
/// is set up for itself. Throws ghist::error if the runtime refuses.
void allow_dynamic_shared_bytes(const void* kernel, std::size_t bytes);

template <class Kernel>
void allow_dynamic_shared(Kernel* kernel, std::size_t bytes) {
  allow_dynamic_shared_bytes(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace ghist::detail
