// Small kernels around the histogram kernels: filling with the operator's identity, and folding M global-memory
// sub-histograms into the destination.
#pragma once

#include <cstdint>

#include "ghist/options.hpp"

namespace ghist::detail {

template <class T>
__global__ void fill_kernel(T* out, std::int64_t count, T value) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = value;
}

/// dest[lo + b] = fold_m subs[m * stride + b] (overwrite) or dest[lo + b] (+) that fold (accumulate), b < len.
/// Each bin is owned by one thread, so no atomics are needed.
template <class Op>
__global__ void reduce_sub_histograms_kernel(Op op, const typename Op::value_type* subs, int M, std::int64_t stride,
                                             typename Op::value_type* dest, std::int64_t lo, std::int64_t len,
                                             mode how) {
  using T = typename Op::value_type;
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < len;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    T acc = subs[b];
    for (int m = 1; m < M; ++m) acc = op(acc, subs[m * stride + b]);
    dest[lo + b] = how == mode::overwrite ? acc : op(dest[lo + b], acc);
  }
}

}  // namespace ghist::detail
