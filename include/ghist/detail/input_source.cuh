// Input sources: how a kernel walks the N inputs and turns each into a bin_update with the bin function.
//
// element_source reads a typed array with 16-byte loads (the input is read once, as wide as the memory system
// likes), two vectors in flight per thread (for_each) or one prefetched a step ahead (for_each_prefetched, for
// updates that wait on their result; more of them on request); index_source calls f(i) for i in [0, n) and leaves
// loads to f.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/detail/staged_input.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

// Warp-uniform walks (for_each_uniform): every lane of a warp runs the same number of steps and calls
// visit(valid, update) at each, with valid == false where it has no input. Kernels that keep one sub-histogram per
// warp need it: their updates are collective over the full warp. `rank` and `threads` must be multiples of 32 apart
// from the lane (blocks of whole warps).
__device__ __forceinline__ std::int64_t warp_base(std::int64_t rank) { return rank - rank % 32; }

template <class In, class BinFn>
struct element_source {
  const In* input;
  std::int64_t n;
  BinFn f;

  __device__ __forceinline__ auto at(std::int64_t i) const { return f(input[i]); }

  static constexpr int vec_bytes = 16;
  static constexpr bool vectorized = sizeof(In) < vec_bytes && vec_bytes % sizeof(In) == 0;

  /// Inputs before the first 16-byte boundary (all of them when the array is misaligned even for its own type):
  /// those are read one by one, the rest as 16-byte vectors.
  __device__ __forceinline__ std::int64_t scalar_head() const {
    const auto address = reinterpret_cast<std::uintptr_t>(input);
    if (address % sizeof(In) != 0) return n;
    const auto head = static_cast<std::int64_t>(((vec_bytes - address % vec_bytes) % vec_bytes) / sizeof(In));
    return head < n ? head : n;
  }

  // Calls visit(f(input[i])) for the i of this thread, in a grid-stride pattern over `threads` threads.
  template <class Visit>
  __device__ __forceinline__ void for_each(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    if constexpr (vectorized) {
      constexpr int per_vec = vec_bytes / sizeof(In);
      const std::int64_t head = scalar_head();
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

  // The same walk for updates that wait on their own result (a compare-and-swap loop, a lock): `Vectors` vectors
  // per step, the next step's loaded before this step's updates, so that the loads' latency hides behind them
  // (for_each's loads queue behind the atomics instead). On the lent H100 (2026-11-22, seed 000's 24-bit
  // saturating add, H = 505..24576, RF = 1) 141-148 us against 161-204 us with for_each's two vectors per step.
  // The thread-private kernel takes two a step (more were no faster there: src/planner.cpp, thread_private_plan).
  template <int Vectors = 1, class Visit>
  __device__ __forceinline__ void for_each_prefetched(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    if constexpr (vectorized) {
      constexpr int per_vec = vec_bytes / sizeof(In);
      const std::int64_t head = scalar_head();
      for (std::int64_t i = rank; i < head; i += threads) visit(f(input[i]));
      const std::int64_t vectors = (n - head) / per_vec;
      const uint4* vec = reinterpret_cast<const uint4*>(input + head);
      if (rank < vectors) {
        uint4 next[Vectors];
#pragma unroll
        for (int j = 0; j < Vectors; ++j)
          if (j == 0 || rank + j * threads < vectors) next[j] = __ldg(vec + rank + j * threads);
        for (std::int64_t v = rank; v < vectors; v += Vectors * threads) {
          uint4 now[Vectors];
#pragma unroll
          for (int j = 0; j < Vectors; ++j) {
            now[j] = next[j];
            if (v + (Vectors + j) * threads < vectors) next[j] = __ldg(vec + v + (Vectors + j) * threads);
          }
#pragma unroll
          for (int j = 0; j < Vectors; ++j) {
            if (j > 0 && v + j * threads >= vectors) break;
            const In* e = reinterpret_cast<const In*>(&now[j]);
#pragma unroll
            for (int k = 0; k < per_vec; ++k) visit(f(e[k]));
          }
        }
      }
      for (std::int64_t i = head + vectors * per_vec + rank; i < n; i += threads) visit(f(input[i]));
    } else {
      for_each(rank, threads, visit);
    }
  }

  /// for_each_prefetched's walk with the work shared out at run time within the block: the 16-byte vectors go in
  /// tiles of 32 * TileVectors (a lane takes TileVectors of them, 32 apart), block b's tiles are b, b + gridDim.x, ...,
  /// and each warp takes the next of its block's from `next_tile` (shared memory, 0 before the caller's barrier) as it
  /// starts on the last vector of its tile, so that a warp whose updates retry longer takes fewer tiles. The grid walks
  /// the input together, as the grid-stride loop does: a block's own contiguous range sent a sorted input's block into
  /// a few bins at once (seed 000's saturating add, RF 1, H = 24576: 2675 -> 18168 us; lent H200, 2026-12-02). The
  /// inputs before the first vector and after the last whole tile go grid-stride. Whole warps only; every lane calls
  /// it; every block of the kernel must walk this way (the tiles are split by block).
  template <int TileVectors, class Visit>
  __device__ __forceinline__ void for_each_warp_tiles(std::int64_t rank, std::int64_t threads, int* next_tile,
                                                      Visit&& visit) const {
    static_assert(vectorized, "warp tiles of 16-byte vectors");
    constexpr int per_vec = vec_bytes / sizeof(In);
    constexpr int tile_vectors = 32 * TileVectors;
    const std::int64_t head = scalar_head();
    for (std::int64_t i = rank; i < head; i += threads) visit(f(input[i]));
    const uint4* vec = reinterpret_cast<const uint4*>(input + head);
    const std::int64_t tiles = (n - head) / per_vec / tile_vectors;  // whole tiles: no bound checks per vector
    const int lane = static_cast<int>(threadIdx.x % 32);
    auto take = [&]() {
      int k = 0;
      if (lane == 0) k = atomicAdd(next_tile, 1);
      return blockIdx.x + static_cast<std::int64_t>(__shfl_sync(0xffffffffu, k, 0)) * gridDim.x;
    };
    std::int64_t tile = take();
    const uint4* at = vec + tile * tile_vectors + lane;
    int left = TileVectors;  // of the warp's tile, the vectors not yet loaded (the same in every lane)
    uint4 next{};
    if (tile < tiles) next = __ldg(at);
    while (tile < tiles) {
      const uint4 now = next;
      if (--left == 0) {
        __syncwarp();
        tile = take();
        at = vec + tile * tile_vectors + lane;
        left = TileVectors;
      } else {
        at += 32;
      }
      if (tile < tiles) next = __ldg(at);
      const In* e = reinterpret_cast<const In*>(&now);
#pragma unroll
      for (int k = 0; k < per_vec; ++k) visit(f(e[k]));
    }
    for (std::int64_t i = head + tiles * tile_vectors * per_vec + rank; i < n; i += threads) visit(f(input[i]));
  }

  /// The block's walk through its ring of tiles (plan::staged_input, staged_input.cuh): the block takes tiles
  /// blockIdx.x, blockIdx.x + gridDim.x, ... of the 16-byte vectors, one vector per updating thread, which visits its
  /// vector's inputs; the last warp's first lane has the bulk-copy engine fill the ring. The inputs before the first
  /// 16-byte boundary and after the last whole vector are read by the updating threads one by one. Every thread of
  /// the block calls it.
  static constexpr bool stageable = vectorized;
  template <class Visit>
  __device__ __forceinline__ void for_each_staged(staged_ring& ring, Visit&& visit) const {
    static_assert(vectorized, "staged input reads 16-byte vectors of the input");
    constexpr int per_vec = vec_bytes / sizeof(In);
    constexpr int stages = staged_input_stages;
    const int updaters = ring.updaters;
    const bool updates = ring.updates();
    const std::int64_t rank = blockIdx.x * std::int64_t(updaters) + threadIdx.x;
    const std::int64_t threads = std::int64_t(gridDim.x) * updaters;
    const std::int64_t head = scalar_head();
    if (updates)
      for (std::int64_t i = rank; i < head; i += threads) visit(f(input[i]));
    const std::int64_t vectors = (n - head) / per_vec;
    const uint4* vec = reinterpret_cast<const uint4*>(input + head);
    const std::int64_t tiles = (vectors + updaters - 1) / updaters;
    // This block's tiles (tile j is the grid's blockIdx.x + j * gridDim.x); fewer than 2^31.
    const int mine = blockIdx.x < tiles ? static_cast<int>((tiles - blockIdx.x + gridDim.x - 1) / gridDim.x) : 0;
#if GHIST_STAGED_INPUT
    int s = ring.stage;
    unsigned phases = ring.phases;
    if (!updates) {
      if (threadIdx.x == static_cast<unsigned>(updaters)) {  // the producer: the last warp's first lane
        const uint4* from = vec + static_cast<std::int64_t>(blockIdx.x) * updaters;
        std::int64_t left = vectors - static_cast<std::int64_t>(blockIdx.x) * updaters;  // from `from` on
        const std::int64_t step = std::int64_t(gridDim.x) * updaters;
        for (int j = 0; j < mine; ++j, from += step, left -= step) {
          // The stage's previous tile must be read by every updating warp first (in a later pass, the block's
          // __syncthreads between passes saw to that for the first `stages` tiles).
          if (j >= stages) mbarrier_wait(ring.empty_at + 8u * s, ((phases >> s) & 1u) ^ 1u);
          const unsigned bytes = static_cast<unsigned>(left < updaters ? left : updaters) * 16u;
          mbarrier_arrive_expect_bytes(ring.full_at + 8u * s, bytes);
          bulk_copy_to_shared(ring.tiles_at + static_cast<unsigned>(s * updaters) * 16u, from, bytes,
                              ring.full_at + 8u * s);
          phases ^= 1u << s;
          s = s + 1 == stages ? 0 : s + 1;
        }
      }
    } else {
      std::int64_t left = vectors - static_cast<std::int64_t>(blockIdx.x) * updaters - threadIdx.x;
      const std::int64_t step = std::int64_t(gridDim.x) * updaters;
      for (int j = 0; j < mine; ++j, left -= step) {
        mbarrier_wait(ring.full_at + 8u * s, (phases >> s) & 1u);
        if (left > 0) {
          const uint4 q = ring.vector[s * updaters];
          const In* e = reinterpret_cast<const In*>(&q);
#pragma unroll
          for (int k = 0; k < per_vec; ++k) visit(f(e[k]));
        }
        __syncwarp();  // every lane has its vector: the warp is done with the tile
        if (threadIdx.x % 32 == 0) mbarrier_arrive(ring.empty_at + 8u * s);
        phases ^= 1u << s;
        s = s + 1 == stages ? 0 : s + 1;
      }
    }
    // Every thread steps through the same `mine` tiles, so the stage and phases agree across the block.
    ring.stage = s;
    ring.phases = phases;
#else
    // No bulk-copy engine (the planner stages nothing there): the updating threads load their vectors themselves.
    if (updates)
      for (std::int64_t v = rank; v < vectors; v += threads) {
        const uint4 q = vec[v];
        const In* e = reinterpret_cast<const In*>(&q);
#pragma unroll
        for (int k = 0; k < per_vec; ++k) visit(f(e[k]));
      }
    (void)mine;
#endif
    if (updates)
      for (std::int64_t i = head + vectors * per_vec + rank; i < n; i += threads) visit(f(input[i]));
  }

  template <class Visit>
  __device__ __forceinline__ void for_each_uniform(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    const int lane = static_cast<int>(rank % 32);
    std::int64_t head = n;  // inputs before the first 16-byte boundary (all of them when vectors do not apply)
    if constexpr (vectorized) head = scalar_head();
    auto scalar_range = [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i0 = begin + warp_base(rank); i0 < end; i0 += threads) {
        const std::int64_t i = i0 + lane;
        const bool valid = i < end;
        visit(valid, f(input[valid ? i : begin]));
      }
    };
    scalar_range(0, head);
    if constexpr (vectorized) {
      constexpr int per_vec = vec_bytes / sizeof(In);
      const std::int64_t vectors = (n - head) / per_vec;
      const uint4* vec = reinterpret_cast<const uint4*>(input + head);
      for (std::int64_t v0 = warp_base(rank); v0 < vectors; v0 += threads) {
        const std::int64_t v = v0 + lane;
        const bool valid = v < vectors;
        const uint4 a = vec[valid ? v : 0];
        const In* ea = reinterpret_cast<const In*>(&a);
#pragma unroll
        for (int k = 0; k < per_vec; ++k) visit(valid, f(ea[k]));
      }
      scalar_range(head + vectors * per_vec, n);
    }
  }
};

/// visit(f(i)) for i = begin, begin + stride, ... < end, with four calls of f issued before their four visits, so
/// that the loads f does are in flight together: a visit that ends in a shared atomic keeps the next load behind it,
/// and one load in flight per thread leaves the memory system mostly idle. Lent H100, 2026-11-22, bench/multi
/// --quick, two interleaved runs: batched tpacf shape (78 MB) 90.0 / 94.5 -> 74.3 / 75.8 us, batched k-means shape
/// 116.9 / 113.6 -> 92.4 / 90.3 us.
template <class F, class Visit>
__device__ __forceinline__ void for_each_index(std::int64_t begin, std::int64_t end, std::int64_t stride, const F& f,
                                               Visit&& visit) {
  std::int64_t i = begin;
  for (; i + 3 * stride < end; i += 4 * stride) {
    const auto u0 = f(i);
    const auto u1 = f(i + stride);
    const auto u2 = f(i + 2 * stride);
    const auto u3 = f(i + 3 * stride);
    visit(u0);
    visit(u1);
    visit(u2);
    visit(u3);
  }
  for (; i < end; i += stride) visit(f(i));
}

template <class BinFn>
struct index_source {
  std::int64_t n;
  BinFn f;

  __device__ __forceinline__ auto at(std::int64_t i) const { return f(i); }

  template <class Visit>
  __device__ __forceinline__ void for_each(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    // One call of f per step: unrolled four times (for_each_index) the flattened tpacf shape of bench/multi, whose f
    // divides 64-bit indices, went from 88.5 to 112.4 us on the lent H100 (2026-11-22), though a flattened vector
    // shape gained (321 -> 274 us); the batched kernels unroll, where f is the segment's.
    for (std::int64_t i = rank; i < n; i += threads) visit(f(i));
  }
  template <int Vectors = 1, class Visit>  // Vectors: element_source's
  __device__ __forceinline__ void for_each_prefetched(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    for_each(rank, threads, visit);  // f does its own loads
  }

  template <class Visit>
  __device__ __forceinline__ void for_each_uniform(std::int64_t rank, std::int64_t threads, Visit&& visit) const {
    const int lane = static_cast<int>(rank % 32);
    for (std::int64_t i0 = warp_base(rank); i0 < n; i0 += threads) {
      const std::int64_t i = i0 + lane;
      const bool valid = i < n;
      visit(valid, f(valid ? i : 0));
    }
  }
};

/// Whether a source has the staged walk (element_source of a type that divides 16 bytes).
template <class Source, class = void>
struct stageable_source : std::false_type {};
template <class Source>
struct stageable_source<Source, std::void_t<decltype(Source::stageable)>> : std::bool_constant<Source::stageable> {};

}  // namespace ghist::detail
