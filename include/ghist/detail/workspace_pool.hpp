// The memory pool that ghist's temporaries come from when the caller gives no options.scratch (src/workspace_pool.cpp).
//
// Why not the device's default pool: its release threshold is 0 unless the application raises it, so every
// synchronisation hands its memory back to the driver and the next call maps it again. For the partitioned
// strategy's 200 MB workspace (N = 50M) that cost about 180 us per call on the H100 (544 us instead of 366 us),
// half again the histogram itself. ghist's own pool keeps what it has allocated until
// ghist::release_cached_workspace() (options.hpp) gives it back.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace ghist::detail {

/// ghist's pool on the current device (created on first use, kept for the life of the process).
cudaMemPool_t workspace_pool();

/// cudaMallocFromPoolAsync from workspace_pool(); throws ghist::error on failure. Free with cudaFreeAsync.
void* workspace_malloc_async(std::size_t bytes, cudaStream_t stream);

}  // namespace ghist::detail
