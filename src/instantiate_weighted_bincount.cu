// Compiled instances of ghist::weighted_bincount_async (types listed in ghist/histogram.hpp).
#include <cstdint>

#include "ghist/detail/histogram_impl.cuh"

#define GHIST_INSTANTIATE(K, W, OP)                                                                  \
  template void ghist::weighted_bincount_async<K, W, ghist::OP<W>>(const K*, const W*, std::int64_t, W*, \
                                                                  std::int64_t, ghist::OP<W>, cudaStream_t, \
                                                                  const options&);
#define GHIST_INSTANTIATE_OPS(K, W) GHIST_INSTANTIATE(K, W, plus) GHIST_INSTANTIATE(K, W, min) GHIST_INSTANTIATE(K, W, max)
#define GHIST_INSTANTIATE_WEIGHTS(K) GHIST_INSTANTIATE_OPS(K, float) GHIST_INSTANTIATE_OPS(K, double)

GHIST_INSTANTIATE_WEIGHTS(std::int32_t)
GHIST_INSTANTIATE_WEIGHTS(std::uint32_t)
GHIST_INSTANTIATE_WEIGHTS(std::int64_t)
GHIST_INSTANTIATE_WEIGHTS(std::uint64_t)
