// Checking a GPU answer against the CPU backend's: bytewise, bin by bin (every operator of the benchmark is exact,
// so every backend must give the same bits).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "seed000_ops.cuh"

namespace bench {

/// "ok", or "MISMATCH: <count> of <H> bins differ; first bin <b>: got <v>, expected <w>".
template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& expected) {
  std::size_t bad = 0, first = 0;
  for (std::size_t b = 0; b < expected.size(); ++b)
    if (std::memcmp(&got[b], &expected[b], sizeof(T)) != 0 && bad++ == 0) first = b;
  if (bad == 0) return "ok";
  return "MISMATCH: " + std::to_string(bad) + " of " + std::to_string(expected.size()) + " bins differ; first bin " +
         std::to_string(first) + ": got " + value_text(got[first]) + ", expected " + value_text(expected[first]);
}

}  // namespace bench
