// Compiled instances of ghist::bincount_async (types listed in ghist/histogram.hpp).
#include <cstdint>

#include "ghist/detail/histogram_impl.cuh"

#define GHIST_INSTANTIATE(K, C) \
  template void ghist::bincount_async<K, C>(const K*, std::int64_t, C*, std::int64_t, cudaStream_t, const options&);
#define GHIST_INSTANTIATE_COUNTS(K) \
  GHIST_INSTANTIATE(K, std::int32_t) \
  GHIST_INSTANTIATE(K, std::uint32_t) GHIST_INSTANTIATE(K, std::int64_t) GHIST_INSTANTIATE(K, std::uint64_t)

GHIST_INSTANTIATE_COUNTS(std::int32_t)
GHIST_INSTANTIATE_COUNTS(std::uint32_t)
GHIST_INSTANTIATE_COUNTS(std::int64_t)
GHIST_INSTANTIATE_COUNTS(std::uint64_t)
