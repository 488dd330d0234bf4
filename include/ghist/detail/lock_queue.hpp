#pragma once
// The lock class's queue of updates that change their bin (plan::lock_queue), in the shared memory of a partitioned
// second-pass block after its copies: sizes, for the planner and dispatch. The queue itself is group_in_shared's
// (kernel_partition.cuh: visit_queued, apply_queued).
//
// Why: an idempotent operator's update seldom changes a bin that has seen a few inputs (the shortcut before the lock,
// atomic_update.cuh), but a warp whose 32 lanes each take one such chance per step mostly has one lane that does
// change its bin, and then the whole warp runs the locked section for it. Queued, the warp runs it once per 32
// updates that change something, with every lane busy.
#include <cstddef>

#include "ghist/atomic_class.hpp"
#include "ghist/config.hpp"

namespace ghist::detail {

/// The operators whose updates may queue: idempotent lock-class values of 4 or 8 bytes, which the shortcut before the
/// lock reads whole. The planner asks with a problem's fields, the kernels and dispatch with an operator's.
GHIST_HD constexpr bool lock_queue_takes(atomic_class op_class, bool idempotent, std::size_t value_bytes) {
  return op_class == atomic_class::xcg && idempotent && (value_bytes == 4 || value_bytes == 8);
}

/// Entries per warp: a warp step adds at most 32, and the warp applies 32 once it holds 32 or more, so at most 63.
inline constexpr int lock_queue_capacity = 64;

/// Where the queue starts: after the block's copies (values and locks), 16-byte aligned.
GHIST_HD constexpr std::size_t lock_queue_offset(std::size_t copies_bytes) { return (copies_bytes + 15) / 16 * 16; }

/// The queue's bytes for a block of `threads`: per warp, lock_queue_capacity bin positions (4 bytes) and values.
GHIST_HD constexpr std::size_t lock_queue_bytes(int threads, std::size_t value_bytes) {
  return static_cast<std::size_t>(threads / 32) * lock_queue_capacity * (4 + value_bytes);
}

}  // namespace ghist::detail
