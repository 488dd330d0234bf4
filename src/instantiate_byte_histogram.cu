// Compiled instances of ghist::byte_histogram_even_async (uint8 and int8 samples; the counter types listed in
// ghist/byte_histogram.hpp).
#include <cstdint>

#include "ghist/detail/byte_histogram/launch.cuh"

#define GHIST_INSTANTIATE_BYTES(S, C)                                                                        \
  template void ghist::byte_histogram_even_async<C>(const S*, std::int64_t, C*, int, int, int, cudaStream_t, \
                                                    const options&, byte_method);
#define GHIST_INSTANTIATE_BYTES_COUNTS(S)                                                             \
  GHIST_INSTANTIATE_BYTES(S, std::int32_t)                                                            \
  GHIST_INSTANTIATE_BYTES(S, std::uint32_t)                                                           \
  GHIST_INSTANTIATE_BYTES(S, std::int64_t) GHIST_INSTANTIATE_BYTES(S, std::uint64_t)

GHIST_INSTANTIATE_BYTES_COUNTS(std::uint8_t)
GHIST_INSTANTIATE_BYTES_COUNTS(std::int8_t)
