// Argument checks run before any work is enqueued, so that a bad call leaves the destination untouched.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ghist::detail {

/// Throws ghist::error unless [ptr, ptr + bytes) is memory the device can read and write: device or managed memory
/// inside one allocation that is large enough, or host memory registered with CUDA. `name` is the argument's name.
/// bytes == 0 accepts anything (nothing will be touched).
void check_device_range(const void* ptr, std::size_t bytes, const char* name);

/// Throws ghist::error naming `name` when count is negative.
void check_non_negative(std::int64_t count, const char* name);

}  // namespace ghist::detail
