// Compiled instances of ghist::weighted_histogram_even_async (types listed in ghist/histogram.hpp).
#include <cstdint>

#include "ghist/detail/histogram_impl.cuh"

#define GHIST_INSTANTIATE(S, W, OP)                                                                      \
  template void ghist::weighted_histogram_even_async<S, W, ghist::OP<W>>(                                \
      const S*, const W*, std::int64_t, W*, std::int64_t, S, S, ghist::OP<W>, cudaStream_t, const options&);
#define GHIST_INSTANTIATE_OPS(S, W) GHIST_INSTANTIATE(S, W, plus) GHIST_INSTANTIATE(S, W, min) GHIST_INSTANTIATE(S, W, max)
#define GHIST_INSTANTIATE_WEIGHTS(S) GHIST_INSTANTIATE_OPS(S, float) GHIST_INSTANTIATE_OPS(S, double)

GHIST_INSTANTIATE_WEIGHTS(std::int32_t)
GHIST_INSTANTIATE_WEIGHTS(std::uint32_t)
GHIST_INSTANTIATE_WEIGHTS(std::int64_t)
GHIST_INSTANTIATE_WEIGHTS(std::uint64_t)
GHIST_INSTANTIATE_WEIGHTS(float)
GHIST_INSTANTIATE_WEIGHTS(double)
