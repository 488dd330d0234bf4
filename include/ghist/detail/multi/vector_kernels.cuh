// The vector-valued histogram kernel (seed 000 IV-D): a bin holds d values and the operator applies per component
// with the component type's own atomic (hdw or cas), never a lock over the whole vector. A group of G lanes (G the
// power of two >= d, at most 32) takes one input: one lane computes the bin, the group shares it with a shuffle, and
// lane c of the group updates components c, c + G, ... (neighbouring addresses, so a warp's updates coalesce).
// Shared: each warp updates copy (warp % M) of all num_bins * d values in shared memory, merged into dest at the end.
#pragma once

#include <cstdint>

#include "ghist/detail/multi/sub_histograms.cuh"

namespace ghist::detail::multi {

/// Inputs given by two functions of the index: bin_of(i) and component(i, c).
template <class BinOf, class Component>
struct vector_indexed {
  BinOf bin_of;
  Component component;
  __device__ __forceinline__ std::int64_t bin(std::int64_t i) const { return static_cast<std::int64_t>(bin_of(i)); }
  __device__ __forceinline__ auto value(std::int64_t i, std::int64_t c) const { return component(i, c); }
};

/// Inputs stored as records of d components back to back; bin_of(const T* record).
template <class T, class BinOfRecord>
struct vector_records {
  const T* input;
  std::int64_t d;
  BinOfRecord bin_of;
  __device__ __forceinline__ std::int64_t bin(std::int64_t i) const {
    return static_cast<std::int64_t>(bin_of(input + i * d));
  }
  __device__ __forceinline__ T value(std::int64_t i, std::int64_t c) const { return input[i * d + c]; }
};

template <bool Shared, class Source, class Op>
__global__ void vector_kernel(Source src, std::int64_t n, std::int64_t d, Op op, typename Op::value_type* dest,
                              std::int64_t num_bins, int M, int G) {
  using T = typename Op::value_type;
  constexpr memory_level level = Shared ? memory_level::shared : memory_level::global;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const std::int64_t values = num_bins * d;
  T* target = dest;
  if constexpr (Shared) {
    T* copies = reinterpret_cast<T*>(shared_bytes);
    for (std::int64_t i = threadIdx.x; i < M * values; i += blockDim.x) copies[i] = Op::identity();
    __syncthreads();
    target = copies + static_cast<std::int64_t>((threadIdx.x / 32) % M) * values;
  }
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int per_warp = 32 / G;
  const int group = lane / G, member = lane % G;
  const std::int64_t warp = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / 32;
  // i0 is the same on every lane of the warp, so the whole warp takes part in each shuffle.
  for (std::int64_t i0 = warp * per_warp; i0 < n; i0 += warps * per_warp) {
    const std::int64_t i = i0 + group;
    const bool valid = i < n;
    long long b = -1;
    if (valid && member == 0) b = src.bin(i);
    b = __shfl_sync(0xffffffffu, b, group * G);
    if (valid && b >= 0 && b < num_bins) {
      T* row = target + b * d;
      for (std::int64_t c = member; c < d; c += G)
        atomic_update<level>(op, row + c, static_cast<T>(src.value(i, c)), nullptr);
    }
  }
  if constexpr (Shared) {
    __syncthreads();
    const T* copies = reinterpret_cast<const T*>(shared_bytes);
    const T identity = Op::identity();
    for (std::int64_t v = threadIdx.x; v < values; v += blockDim.x) {
      T acc = copies[v];
      for (int m = 1; m < M; ++m) acc = op(acc, copies[m * values + v]);
      if (!bitwise_equal(acc, identity)) atomic_update<memory_level::global>(op, dest + v, acc, nullptr);
    }
  }
}

}  // namespace ghist::detail::multi
