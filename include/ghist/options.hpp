// Options shared by every histogram call: accumulate mode, race factor, plan overrides, caller's workspace.
#pragma once

#include <cstddef>

#include "ghist/plan.hpp"

namespace ghist {

/// overwrite: dest[b] = (+) of the updates to b, starting from the operator's identity (bins with no update get it).
/// accumulate: dest[b] = dest[b] (+) updates to b; dest must hold valid values on entry.
enum class mode { overwrite, accumulate };

/// Caller-provided device scratch memory; when empty, ghist takes temporaries from the stream-ordered allocator
/// (cudaMallocAsync on the call's stream). Ask plan_for / workspace_bytes how much a call needs.
struct workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

struct options {
  mode how = mode::overwrite;
  /// Race factor of seed 000 (>= 1: only H/RF bins are hit by H consecutive inputs). 0 means unknown: when the
  /// planner must choose global-memory sub-histograms, a GPU call then samples the input to estimate it, which
  /// waits for the stream once (documented on each call). Give a value to avoid that wait.
  double race_factor = 0.0;
  plan_overrides overrides;
  workspace scratch;
};

}  // namespace ghist
