// Pitched byte images (rows of row_bytes bytes, stride bytes apart, the gaps between rows holding padding) on the
// byte kernels, which want one contiguous run of bytes: the kernels count the whole span from the first row's start
// to the last row's end, and this kernel, enqueued before them, subtracts the gaps' bytes from the totals. Counts
// are unsigned 64-bit integers, so subtracting first and adding later gives the exact, non-negative result.
// The span costs the gaps' bytes twice (read by both kernels), which is why callers send images whose gaps are
// wider than their rows elsewhere (cub_compat/byte_path.cuh).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"

namespace ghist::detail::bytes {

/// Blocks of subtract_row_gaps per SM: enough warps to keep loads in flight for short gaps.
inline constexpr int gap_blocks_per_sm = 4;

/// totals[v] -= number of bytes equal to v in the `gaps` gaps of gap_bytes bytes starting at first, first + stride,
/// ... A warp per gap (padding is usually short), counts in shared memory (64-bit: one block may see many huge
/// gaps), then one global atomic per value and block. A template, as the counting kernels, so that every
/// translation unit that uses it has its own copy.
/// Interleaved channels (channels.cuh): every gap starts on channel 0 (rows of whole pixels, strides a multiple of
/// Channels), byte i of a gap is channel i % Channels, and totals hold channel a's value v at a * 256 + v for the
/// Active first channels (the others are not counted, so not subtracted).
template <int Block, int Channels = 1, int Active = 1>
__global__ void __launch_bounds__(Block) subtract_row_gaps(const std::uint8_t* first, std::int64_t gaps,
                                                           std::int64_t gap_bytes, std::int64_t stride,
                                                           unsigned long long* totals) {
  static_assert(Block % 32 == 0, "whole warps");
  constexpr int bins = Active * byte_values;
  __shared__ unsigned long long counts[bins];
  for (int v = threadIdx.x; v < bins; v += Block) counts[v] = 0;
  __syncthreads();
  constexpr int warps_per_block = Block / 32;
  const int lane = threadIdx.x % 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * warps_per_block;
  for (std::int64_t g = blockIdx.x * std::int64_t(warps_per_block) + threadIdx.x / 32; g < gaps; g += warps) {
    const std::uint8_t* p = first + g * stride;
    for (std::int64_t i = lane; i < gap_bytes; i += 32) {
      const int c = static_cast<int>(i % Channels);
      if (c < Active) atomicAdd(&counts[c * byte_values + p[i]], 1ull);
    }
  }
  __syncthreads();
  for (int v = threadIdx.x; v < bins; v += Block)
    if (counts[v] != 0) atomicAdd(&totals[v], 0ull - counts[v]);  // modulo 2^64: a subtraction
}

}  // namespace ghist::detail::bytes
