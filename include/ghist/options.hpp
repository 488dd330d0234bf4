// Options shared by every histogram call: accumulate mode, race factor, plan overrides, caller's workspace.
#pragma once

#include <cstddef>

#include "ghist/plan.hpp"

namespace ghist {

/// overwrite: dest[b] = (+) of the updates to b, starting from the operator's identity (bins with no update get it).
/// accumulate: dest[b] = dest[b] (+) updates to b; dest must hold valid values on entry.
enum class mode { overwrite, accumulate };

/// Caller-provided device scratch memory; when empty, ghist takes temporaries from its own stream-ordered memory
/// pool on the current device (cudaMallocFromPoolAsync on the call's stream), which keeps the memory between calls
/// so that the next call does not map it again. Ask plan_for / workspace_bytes how much a call needs.
struct workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

/// Device memory that ghist's pool on the current device holds now (in use or cached for the next call).
std::size_t cached_workspace_bytes();

/// Waits for the current device (cudaDeviceSynchronize), then gives the cached memory of ghist's pool on it back
/// to the driver. Memory that calls without options.scratch allocate is otherwise kept until the process ends.
void release_cached_workspace();

struct options {
  mode how = mode::overwrite;
  /// Race factor of seed 000 (>= 1: only H/RF bins are hit by H consecutive inputs). 0 means unknown: when the
  /// planner must choose global-memory sub-histograms, or for the lock class the partitioned strategy or shared
  /// memory in several passes, a GPU call then samples the input to estimate it, which waits for the stream once
  /// (documented on each call). Give a value to avoid that wait.
  double race_factor = 0.0;
  plan_overrides overrides;
  workspace scratch;
};

}  // namespace ghist
