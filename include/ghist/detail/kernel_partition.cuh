// The partitioned strategy (plan.hpp's strategy::partitioned; shape and workspace in partition_layout.hpp), for
// histograms too large for shared memory. Seed 003 sorts the updates partially so that each part fits shared
// memory; here that is one radix pass on the bin's high bits, done tile by tile:
//
//   1. partition_kernel: a block loads a tile of inputs, finds each one's group (bin / bins per group), counts the
//      groups in shared memory, and writes the tile back to the workspace ordered by group through a shared staging
//      buffer (whole-tile coalesced stores), with the start of every group in the tile. No global ordering is
//      needed: each tile keeps its own slot, so there is no global scatter and no count pass over the input.
//   2. assign_group_blocks_kernel: each group gets second-pass blocks in proportion to its inputs (at least one),
//      so an input that is all in one bin still keeps every SM busy.
//   3. group_histogram_kernel: a block histograms one group's runs from a share of the tiles into shared memory and
//      merges it into dest: a plain read-modify-write when it is the group's only block, else the global atomic.
//
// The records are the input elements themselves, and the second pass applies the bin function again: for 4-byte
// inputs that moves 4 bytes per input each way, where (bin, value) pairs would take 8.
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/input_source.cuh"
#include "ghist/detail/kernel_shared.cuh"
#include "ghist/detail/partition_layout.hpp"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

/// A placeholder bin function type, for asking partition_traits about an input type alone.
struct no_bin_function {};

/// Which sources can be partitioned: element inputs (the record is the element). index_source cannot (its bin
/// function reads memory ghist does not know).
template <class Source>
struct partition_traits {
  static constexpr std::size_t record_bytes = 0;
};
template <class In, class BinFn>
struct partition_traits<element_source<In, BinFn>> {
  static constexpr std::size_t record_bytes = sizeof(In) <= 16 ? sizeof(In) : 0;
};

/// Exclusive scan of counts[0, count) into offsets[0, count], offsets[count] = total, by one block of
/// partition_block threads (count <= 2 * partition_block). `warp_sums` holds partition_block / 32 values.
__device__ __forceinline__ void block_exclusive_scan(const unsigned* counts, unsigned* offsets, int count,
                                                     unsigned* warp_sums) {
  static_assert(max_partition_groups <= 2 * partition_block, "two counts per thread");
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const unsigned a = 2 * t < count ? counts[2 * t] : 0u;
  const unsigned b = 2 * t + 1 < count ? counts[2 * t + 1] : 0u;
  unsigned inclusive = a + b;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    constexpr int warps = partition_block / 32;
    unsigned w = lane < warps ? warp_sums[lane] : 0u;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const unsigned up = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d) w += up;
    }
    if (lane < warps) warp_sums[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  const unsigned before = (warp > 0 ? warp_sums[warp - 1] : 0u) + inclusive - (a + b);
  if (2 * t < count) offsets[2 * t] = before;
  if (2 * t + 1 < count) offsets[2 * t + 1] = before + a;
  if (t == partition_block - 1) offsets[count] = before + a + b;
}

/// Pass 1 over one slice of n inputs (tiles numbered from 0 within the slice).
template <class In, class BinFn>
__global__ void __launch_bounds__(partition_block, partition_pass1_blocks_per_sm) partition_kernel(const In* input, std::int64_t n, BinFn f,
                                                                    std::int64_t num_bins, group_divider group_of,
                                                                    int groups, In* records, unsigned* offsets,
                                                                    std::int64_t slice_tiles,
                                                                    unsigned long long* totals) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  In* staging = reinterpret_cast<In*>(shared_bytes);
  unsigned* counts = reinterpret_cast<unsigned*>(shared_bytes + partition_tile * sizeof(In));
  unsigned* starts = counts + max_partition_groups;            // groups + 1
  unsigned* warp_sums = starts + max_partition_groups + 1;     // partition_block / 32
  const int lane = threadIdx.x % 32;
  const std::int64_t tiles = (n + partition_tile - 1) / partition_tile;

  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const std::int64_t base = tile * partition_tile;
    const std::int64_t in_tile = n - base < partition_tile ? n - base : partition_tile;
    for (int g = threadIdx.x; g < groups; g += partition_block) counts[g] = 0;
    __syncthreads();

    // Input j of this thread is tile element j * partition_block + threadIdx.x: each load instruction of a warp
    // reads consecutive elements, and all partition_items loads are issued before the first is used.
    In x[partition_items];
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      const std::int64_t i = std::int64_t{j} * partition_block + threadIdx.x;
      if (i < in_tile) x[j] = input[base + i];
    }
    // Each input's group and its rank within the group in this tile, packed into one register (-1: dropped).
    // (Ranking a warp's inputs with one ballot per bit of the group, a multisplit without atomics, was slower on
    // the H100: 295 us against 206 us for pass 1 at 32 groups; votes and shuffles issue slower than ATOMS.)
    int slot[partition_items];
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      const std::int64_t i = std::int64_t{j} * partition_block + threadIdx.x;
      int group = -1;
      if (i < in_tile) {
        const std::int64_t bin = f(x[j]).bin;
        if (bin >= 0 && bin < num_bins) group = static_cast<int>(group_of(static_cast<std::uint32_t>(bin)));
      }
      // A warp whose inputs all fall in one group (skewed or sorted input) takes its ranks with one atomic.
      const int first = __shfl_sync(0xffffffffu, group, 0);
      unsigned rank = 0;
      if (__all_sync(0xffffffffu, group == first && first >= 0)) {
        if (lane == 0) rank = atomicAdd(&counts[first], 32u);
        rank = __shfl_sync(0xffffffffu, rank, 0) + lane;
      } else if (group >= 0) {
        rank = atomicAdd(&counts[group], 1u);
      }
      slot[j] = group < 0 ? -1 : (group << partition_rank_bits) | static_cast<int>(rank);
    }
    __syncthreads();
    block_exclusive_scan(counts, starts, groups, warp_sums);
    __syncthreads();
    for (int g = threadIdx.x; g <= groups; g += partition_block) offsets[std::int64_t{g} * slice_tiles + tile] = starts[g];
    for (int g = threadIdx.x; g < groups; g += partition_block)
      if (counts[g] != 0) atomicAdd(&totals[g], static_cast<unsigned long long>(counts[g]));
#pragma unroll
    for (int j = 0; j < partition_items; ++j)
      if (slot[j] >= 0)
        staging[starts[slot[j] >> partition_rank_bits] + (slot[j] & ((1 << partition_rank_bits) - 1))] = x[j];
    __syncthreads();
    const int kept = static_cast<int>(starts[groups]);
    In* out = records + tile * partition_tile;
    for (int i = threadIdx.x; i < kept; i += partition_block) out[i] = staging[i];
    __syncthreads();
  }
}

/// Pass 2 planning, one block: group g gets max(1, floor(totals[g] * budget / total)) blocks when it has inputs
/// (so at most budget + groups in all); starts[g] is its first block, starts[groups] the number of blocks.
/// (A template only so that the header can define it in every translation unit.)
template <class Total = unsigned long long>
__global__ void __launch_bounds__(partition_block) assign_group_blocks_kernel(const Total* totals,
                                                                              int groups, int budget,
                                                                              unsigned* starts) {
  __shared__ unsigned long long partial[partition_block / 32];
  __shared__ unsigned blocks[max_partition_groups];
  __shared__ unsigned warp_sums[partition_block / 32];
  unsigned long long sum = 0;
  for (int g = threadIdx.x; g < groups; g += partition_block) sum += totals[g];
#pragma unroll
  for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  unsigned long long total = 0;
  for (int w = 0; w < partition_block / 32; ++w) total += partial[w];
  for (int g = threadIdx.x; g < groups; g += partition_block) {
    const unsigned long long t = totals[g];
    const unsigned long long share = total == 0 ? 0 : t * static_cast<unsigned long long>(budget) / total;
    blocks[g] = t == 0 ? 0u : static_cast<unsigned>(share < 1 ? 1 : share);
  }
  __syncthreads();
  block_exclusive_scan(blocks, starts, groups, warp_sums);
}

/// Pass 2: block b histograms group g (starts[g] <= b < starts[g + 1]) over tiles k, k + K, k + 2K, ... of the
/// slice's `tiles` tiles (k = b - starts[g], K = the group's blocks), each warp taking 32 tiles at a time.
/// slice_tiles is the row length of the offsets table.
template <class In, class BinFn, class Op>
__global__ void __launch_bounds__(partition_block, partition_blocks_per_sm) group_histogram_kernel(const In* records, const unsigned* offsets,
                                                                          std::int64_t slice_tiles,
                                                                          std::int64_t tiles,
                                                                          const unsigned* starts, int groups,
                                                                          BinFn f, Op op,
                                                                          typename Op::value_type* dest,
                                                                          int* dest_locks, std::int64_t num_bins,
                                                                          group_divider group_of, int M) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const unsigned block = blockIdx.x;
  if (block >= starts[groups]) return;
  int g = 0;  // the last group whose first block is <= this block (groups without inputs have no blocks)
  for (int step = 1 << 10; step > 0; step /= 2)
    if (g + step < groups && starts[g + step] <= block) g += step;
  const std::int64_t K = starts[g + 1] - starts[g];
  const std::int64_t k = block - starts[g];
  const int stride = static_cast<int>(group_of.d);  // bins per group
  const std::int64_t lo = std::int64_t{g} * stride;
  const std::int64_t len = num_bins - lo < stride ? num_bins - lo : stride;
  // M copies of the group's bins (warp w updates copy w % M): a few hot bins (RF > 1, skew) are then contended by
  // fewer warps, which the compare-and-swap and lock classes need.
  T* subs = reinterpret_cast<T*>(shared_bytes);
  int* locks = xcg ? reinterpret_cast<int*>(shared_bytes + shared_values_bytes<T>(std::int64_t{M} * stride)) : nullptr;
  const T identity = Op::identity();
  for (int i = threadIdx.x; i < M * stride; i += blockDim.x) {
    subs[i] = identity;
    if constexpr (xcg) locks[i] = 0;
  }
  __syncthreads();

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  T* sub = subs + (warp % M) * stride;
  int* sub_locks = xcg ? locks + (warp % M) * stride : nullptr;
  auto update = [&](std::int64_t b, const T& v) {
    atomic_update<memory_level::shared>(op, sub + b, v, xcg ? sub_locks + b : nullptr);
  };
  const unsigned* first = offsets + std::int64_t{g} * slice_tiles;
  const unsigned* next = offsets + std::int64_t{g + 1} * slice_tiles;
  // This block's tiles are k + K * j; warp w takes j = w, w + warps, ... (so that a block with few tiles still
  // spreads them over its warps), 32 at a time: lane l holds the offsets of tile j = (j0 + l) * warps + w.
  auto tile_of = [&](std::int64_t j) { return k + K * (j * warps + warp); };
  for (std::int64_t j0 = 0; tile_of(j0) < tiles; j0 += 32) {
    const std::int64_t tile = tile_of(j0 + lane);
    const bool has_tile = tile < tiles;
    const unsigned begin = has_tile ? first[tile] : 0u;
    const unsigned end = has_tile ? next[tile] : 0u;
    auto visit = [&](const In& x) {
      const bin_update<T> u = f(x);
      const std::int64_t b = u.bin - lo;  // in [0, len): the first pass kept only this group's inputs here
      if constexpr (!use_warp_aggregation<Op, memory_level::shared>) update(b, u.value);
      else warp_aggregated_update(op, b, len, u.value, update);
    };
    // Runs are short (tens of records), so a warp loads the first two rounds of `unroll` runs before using any:
    // one memory latency per `unroll` runs instead of one per run and round.
    constexpr int unroll = 4, rounds = 2;
    for (int l0 = 0; l0 < 32; l0 += unroll) {
      unsigned b0[unroll], e0[unroll];
      const In* run[unroll];
      In x[unroll][rounds];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        b0[u] = __shfl_sync(0xffffffffu, begin, l0 + u);
        e0[u] = __shfl_sync(0xffffffffu, end, l0 + u);
        run[u] = records + tile_of(j0 + l0 + u) * partition_tile;
#pragma unroll
        for (int r = 0; r < rounds; ++r)
          if (b0[u] + lane + 32 * r < e0[u]) x[u][r] = run[u][b0[u] + lane + 32 * r];
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
#pragma unroll
        for (int r = 0; r < rounds; ++r)
          if (b0[u] + lane + 32 * r < e0[u]) visit(x[u][r]);
        // Long runs (skewed input: a whole tile in one group): four loads in flight at a time.
        for (unsigned i = b0[u] + lane + 32 * rounds; i < e0[u]; i += 4 * 32) {
          In y[4];
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (i + 32 * q < e0[u]) y[q] = run[u][i + 32 * q];
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (i + 32 * q < e0[u]) visit(y[q]);
        }
      }
    }
  }
  __syncthreads();
  // Merge: the group's only block owns its bins in dest; otherwise the global atomic (and lock, for xcg).
  for (std::int64_t b = threadIdx.x; b < len; b += blockDim.x) {
    T acc = subs[b];
    for (int m = 1; m < M; ++m) acc = op(acc, subs[m * stride + b]);
    if (bitwise_equal(acc, identity)) continue;
    if (K == 1) dest[lo + b] = op(dest[lo + b], acc);
    else atomic_update<memory_level::global>(op, dest + lo + b, acc, xcg ? dest_locks + lo + b : nullptr);
  }
}

}  // namespace ghist::detail
