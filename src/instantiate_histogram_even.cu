// Compiled instances of ghist::histogram_even_async (types listed in ghist/histogram.hpp).
#include <cstdint>

#include "ghist/detail/histogram_impl.cuh"

#define GHIST_INSTANTIATE(S, C)                                                                              \
  template void ghist::histogram_even_async<S, C>(const S*, std::int64_t, C*, std::int64_t, S, S, cudaStream_t, \
                                                  const options&);
#define GHIST_INSTANTIATE_COUNTS(S) \
  GHIST_INSTANTIATE(S, std::int32_t) \
  GHIST_INSTANTIATE(S, std::uint32_t) GHIST_INSTANTIATE(S, std::int64_t) GHIST_INSTANTIATE(S, std::uint64_t)

GHIST_INSTANTIATE_COUNTS(std::int32_t)
GHIST_INSTANTIATE_COUNTS(std::uint32_t)
GHIST_INSTANTIATE_COUNTS(std::int64_t)
GHIST_INSTANTIATE_COUNTS(std::uint64_t)
GHIST_INSTANTIATE_COUNTS(float)
GHIST_INSTANTIATE_COUNTS(double)
