// Kernels of the batched histogram (seed 000 IV-C): N_out segments, K blocks per segment. A task is one part of one
// segment (the K parts of a segment split it evenly); blocks walk the tasks grid-stride, so a grid of any size covers
// any number of segments. Shared memory: a block folds its part into M copies of the segment's H bins and merges them
// into the segment's row of dest with the global atomic; global memory: every update goes to the row directly.
#pragma once

#include <cstdint>

#include "ghist/detail/input_source.cuh"
#include "ghist/detail/multi/sub_histograms.cuh"

namespace ghist::detail::multi {

/// Segments of one length.
struct equal_segments {
  std::int64_t length;
  __device__ __forceinline__ std::int64_t size(std::int64_t) const { return length; }
};

/// Segments given by device offsets (num_segments + 1 entries, checked on the host).
template <class Offset>
struct offset_segments {
  const Offset* offsets;
  __device__ __forceinline__ std::int64_t size(std::int64_t s) const {
    return static_cast<std::int64_t>(offsets[s + 1]) - static_cast<std::int64_t>(offsets[s]);
  }
};

template <class Segments, class BinFn, class Op>
__global__ void __launch_bounds__(1024)
    batched_shared_kernel(Segments segs, BinFn f, Op op, typename Op::value_type* dest, int* dest_locks,
                          std::int64_t num_segments, std::int64_t num_bins, int M, int K) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const auto copies = block_copies<Op>::at(shared_bytes, M, num_bins);
  const int copy = static_cast<int>(threadIdx.x % M);
  const std::int64_t tasks = num_segments * K;
  for (std::int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
    const std::int64_t s = task / K;
    const int k = static_cast<int>(task % K);
    const std::int64_t len = segs.size(s);
    const std::int64_t j0 = part_begin(len, K, k), j1 = part_begin(len, K, k + 1);
    if (j0 == j1) continue;  // the same for the whole block
    copies.init();
    __syncthreads();
    for_each_index(j0 + threadIdx.x, j1, blockDim.x, [&](std::int64_t j) { return f(s, j); }, [&](const auto& u) {
      if (static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(num_bins))
        copies.update(op, copy, u.bin, static_cast<T>(u.value));
    });
    __syncthreads();
    // merge ends with __syncthreads, so the next task may re-initialise the copies.
    copies.merge(op, dest + s * num_bins, dest_locks != nullptr ? dest_locks + s * num_bins : nullptr);
  }
}

template <class Segments, class BinFn, class Op>
__global__ void batched_global_kernel(Segments segs, BinFn f, Op op, typename Op::value_type* dest, int* dest_locks,
                                      std::int64_t num_segments, std::int64_t num_bins, int K) {
  using T = typename Op::value_type;
  const std::int64_t tasks = num_segments * K;
  for (std::int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
    const std::int64_t s = task / K;
    const int k = static_cast<int>(task % K);
    const std::int64_t len = segs.size(s);
    T* row = dest + s * num_bins;
    int* row_locks = dest_locks != nullptr ? dest_locks + s * num_bins : nullptr;
    for (std::int64_t j = part_begin(len, K, k) + threadIdx.x; j < part_begin(len, K, k + 1); j += blockDim.x) {
      const auto u = f(s, j);
      if (static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(num_bins))
        update_bin<memory_level::global>(op, row, row_locks, u.bin, num_bins, static_cast<T>(u.value));
    }
  }
}

}  // namespace ghist::detail::multi
