// Input sources: how a kernel walks the N inputs and turns each into a bin_update with the bin function.
//
// element_source reads a typed array with 16-byte loads (the input is read once, as wide as the memory system
// likes), two vectors in flight per thread; index_source calls f(i) for i in [0, n) and leaves loads to f.
#pragma once

#include <cstdint>

#include "ghist/update.hpp"

namespace ghist::detail {

template <class In, class BinFn>
struct element_source {
  const In* input;
  std::int64_t n;
  BinFn f;

  __device__ __forceinline__ auto at(std::int64_t i) const { return f(input[i]); }

  // Calls visit(f(input[i])) for the i of this thread, in a grid-stride pattern over `threads` threads.
  template <class Visit>
  __device__ __forceinline__ void for_each(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    constexpr int vec_bytes = 16;
    if constexpr (sizeof(In) < vec_bytes && vec_bytes % sizeof(In) == 0) {
      constexpr int per_vec = vec_bytes / sizeof(In);
      const auto address = reinterpret_cast<std::uintptr_t>(input);
      std::int64_t head = 0;
      if (address % sizeof(In) == 0) {
        head = static_cast<std::int64_t>(((vec_bytes - address % vec_bytes) % vec_bytes) / sizeof(In));
        if (head > n) head = n;
      } else {
        head = n;  // misaligned even for its own type: scalar loads only
      }
      for (std::int64_t i = rank; i < head; i += threads) visit(f(input[i]));
      const std::int64_t vectors = (n - head) / per_vec;
      const uint4* vec = reinterpret_cast<const uint4*>(input + head);
      std::int64_t v = rank;
      for (; v + threads < vectors; v += 2 * threads) {
        const uint4 a = vec[v];
        const uint4 b = vec[v + threads];
        const In* ea = reinterpret_cast<const In*>(&a);
        const In* eb = reinterpret_cast<const In*>(&b);
#pragma unroll
        for (int k = 0; k < per_vec; ++k) visit(f(ea[k]));
#pragma unroll
        for (int k = 0; k < per_vec; ++k) visit(f(eb[k]));
      }
      for (; v < vectors; v += threads) {
        const uint4 a = vec[v];
        const In* ea = reinterpret_cast<const In*>(&a);
#pragma unroll
        for (int k = 0; k < per_vec; ++k) visit(f(ea[k]));
      }
      for (std::int64_t i = head + vectors * per_vec + rank; i < n; i += threads) visit(f(input[i]));
    } else {
      for (std::int64_t i = rank; i < n; i += threads) visit(f(input[i]));
    }
  }
};

template <class BinFn>
struct index_source {
  std::int64_t n;
  BinFn f;

  __device__ __forceinline__ auto at(std::int64_t i) const { return f(i); }

  template <class Visit>
  __device__ __forceinline__ void for_each(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    for (std::int64_t i = rank; i < n; i += threads) visit(f(i));
  }
};

}  // namespace ghist::detail
