// The partitioned strategy (plan.hpp's strategy::partitioned; shape and workspace in partition_layout.hpp), for
// histograms too large for shared memory. Seed 003 sorts the updates partially so that each part fits shared
// memory; here that is one radix pass on the bin's high bits, done tile by tile:
//
//   1. partition_kernel: a block loads a tile of inputs, finds each one's group (bin / bins per group), counts the
//      groups in shared memory, and writes the tile back to the workspace ordered by group through a shared staging
//      buffer (whole-tile coalesced stores), with the start of every group in the tile. No global ordering is
//      needed: each tile keeps its own slot, so there is no global scatter and no count pass over the input.
//   2. assign_group_blocks_kernel: each group gets second-pass blocks in proportion to its inputs (at least one;
//      where they fit one wave, apportioned so that the busiest block's load is least), so an input that is all in
//      one bin still keeps every SM busy, and a skewed one's hot groups get blocks enough.
//   3. group_histogram_kernel: a block histograms one group's runs from a share of the tiles into shared memory and
//      merges it into dest: plain stores when it is the group's only block (overwriting: no fill of dest first;
//      accumulating: a read-modify-write), else the global atomic onto a group filled first with the identity,
//      or (plan::merge_rows, the cas and xcg classes) its row of the workspace, which merge_group_rows_kernel folds
//      into dest: a skewed input gives a hot group hundreds of blocks, whose compare-and-swaps or locks on the same
//      bins would otherwise retry and queue. Overwriting with rows, dest is not filled: the fold writes every bin
//      (in the tile layout a group's only block writes its row too).
//
// The records are the input elements themselves, and the second pass applies the bin function again: for 4-byte
// inputs that moves 4 bytes per input each way, where (bin, value) pairs would take 8. Unit increments (a counting
// bin function with a 32-bit plus) need no value: their record is the bin within the group in 16 bits
// (partition_record_t), half the bytes of a 4-byte input.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_pipeline_primitives.h>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/deferred_cas.cuh"
#include "ghist/detail/input_source.cuh"
#include "ghist/detail/kernel_shared.cuh"
#include "ghist/detail/lock_queue.hpp"
#include "ghist/detail/partition_layout.hpp"
#include "ghist/detail/unit_increments.hpp"
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

/// Inclusive scan of v over the lanes of a (full) warp.
__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const unsigned up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

/// fn(data[i]) for i = first, first + step, ... below end, `Loads` loads in flight per thread (all issued before
/// the first is used), the rest one at a time.
template <int Loads, class T, class Fn>
__device__ __forceinline__ void for_each_strided(const T* data, std::int64_t first, std::int64_t end,
                                                 std::int64_t step, Fn fn) {
  std::int64_t i = first;
  for (; i + (Loads - 1) * step < end; i += Loads * step) {
    T x[Loads];
#pragma unroll
    for (int q = 0; q < Loads; ++q) x[q] = data[i + q * step];
#pragma unroll
    for (int q = 0; q < Loads; ++q) fn(x[q]);
  }
  for (; i < end; i += step) fn(data[i]);
}

/// Waits until the kernels before this one on the stream have finished and their writes are visible: a kernel
/// launched with launch_after_prior (dispatch.cuh, programmatic dependent launch) may start while they finish, so
/// it calls this before reading what they wrote. A no-op for a kernel launched the usual way.
__device__ __forceinline__ void wait_for_prior_kernels() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Exclusive scan of counts[0, count) into offsets[0, count], offsets[count] = total, by one block of
/// partition_block threads, each scanning a run of ceil(count / partition_block) counts (count <=
/// max_counted_groups + 1). `warp_sums` holds partition_block / 32 values. counts and offsets may be the same array.
__device__ __forceinline__ void block_exclusive_scan(const unsigned* counts, unsigned* offsets, int count,
                                                     unsigned* warp_sums) {
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int per = (count + partition_block - 1) / partition_block;
  const int begin = t * per, end = begin + per < count ? begin + per : count;
  unsigned own = 0;
  for (int i = begin; i < end; ++i) own += counts[i];
  const unsigned inclusive = warp_inclusive_scan(own);
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    constexpr int warps = partition_block / 32;
    const unsigned w = warp_inclusive_scan(lane < warps ? warp_sums[lane] : 0u);
    if (lane < warps) warp_sums[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  unsigned before = (warp > 0 ? warp_sums[warp - 1] : 0u) + inclusive - own;
  for (int i = begin; i < end; ++i) {
    const unsigned c = counts[i];  // read before the write: counts may be offsets
    offsets[i] = before;
    before += c;
  }
  if (t == partition_block - 1) offsets[count] = before;
}

/// What the partitioned strategy stores per input: the input (the second pass applies f again), or for unit
/// increments (partition_record_bytes) the input's bin within its group in 16 bits.
template <class In, class BinFn, class Op>
inline constexpr bool local_bin_records = unit_increments_v<BinFn, Op>;
template <class In, class BinFn, class Op>
using partition_record_t = std::conditional_t<local_bin_records<In, BinFn, Op>, std::uint16_t, In>;

/// Whether pass 1 double-buffers its tiles through asynchronous copies (cp.async) into shared memory: 4-byte
/// records, whose two input buffers and staging buffer (96 KiB) still leave two blocks per SM.
template <class In>
inline constexpr bool partition_pipelined = sizeof(In) == 4 && alignof(In) == 4;

/// Pass 1's dynamic shared memory: staging of records (and, pipelined, two input buffers) and the group counts and
/// starts.
template <class In, class Record = In>
constexpr std::size_t partition_shared_bytes() {
  return static_cast<std::size_t>(partition_tile) * (sizeof(Record) + (partition_pipelined<In> ? 2 * sizeof(In) : 0)) +
         (2 * max_partition_groups + 1 + partition_block / 32) * sizeof(unsigned);
}

/// Pipelined pass 1: starts the copy of tile `tile` (in_tile elements) into `buffer`; 16-byte copies when the input
/// is 16-byte aligned (tiles are multiples of 16 bytes), else one per element.
template <class In>
__device__ __forceinline__ void prefetch_tile(const In* input, std::int64_t tile, std::int64_t in_tile, In* buffer) {
  const In* src = input + tile * partition_tile;
  if (reinterpret_cast<std::uintptr_t>(src) % 16 == 0 && in_tile == partition_tile) {
    constexpr int per_vector = 16 / sizeof(In);
    for (int v = threadIdx.x; v < partition_tile / per_vector; v += partition_block)
      __pipeline_memcpy_async(buffer + v * per_vector, src + v * per_vector, 16);
  } else {
    for (int i = threadIdx.x; i < in_tile; i += partition_block) __pipeline_memcpy_async(buffer + i, src + i, sizeof(In));
  }
  __pipeline_commit();
}

/// Pass 1's ranking, shared by both layouts: loads this thread's inputs of a tile (input j is tile element
/// j * partition_block + threadIdx.x, so each load instruction of a warp reads consecutive elements) and gives
/// each its slot: its group and its rank within the group in this tile, packed into one int (-1: dropped), counted
/// in counts[group]. (Ranking a warp's inputs with one ballot per bit of the group, a multisplit without atomics,
/// was slower on the H100: 295 us against 206 us for pass 1 at 32 groups; votes and shuffles issue slower than
/// ATOMS.) Pass 1 is bound by instruction issue, so whole tiles are compiled without the per-input bounds checks.
/// KeepLocalBins: local[j] is also input j's bin within its group (for the counted layout's 16-bit records; the
/// tile layout passes an array that the compiler then drops).
/// `spread`: counters per group. Counter group * spread + lane % spread counts a lane's inputs of the group, and the
/// slot holds the counter in place of the group, so that the caller's scan over groups * spread counters places each
/// counter's inputs inside its group's run (the order within a group's run is free). For few groups, whose adds
/// would fall on few words: H200, seed 000's argmax H = 49152, pass 1 took 183 us in 8 groups against 142 in 32;
/// 4 counters per group gave 176 (the rest of the gap was the skewed branch, see `hot_lanes` below: with both,
/// 147). (Ranking with one vote per bit of the group in place of the adds, one add per group and warp, took 220 us
/// in 8 groups and 246 in 16.)
/// `spare`: a shared word that nothing reads during the ranking (the callers' scan scratch, warp_sums), which takes
/// the adds of dropped inputs (below).
/// load_tile and rank_tile are the two halves, for a caller that loads the next tile while it writes this one.
template <bool Whole, class In>
__device__ __forceinline__ void load_tile(const In* tile_input, std::int64_t in_tile, In (&x)[partition_items]) {
#pragma unroll
  for (int j = 0; j < partition_items; ++j) {
    const int i = j * partition_block + threadIdx.x;
    if (Whole || i < in_tile) x[j] = tile_input[i];  // all loads issued before the first is used
  }
}

template <bool Whole, bool KeepLocalBins, class In, class BinFn>
__device__ __forceinline__ void rank_tile(std::int64_t in_tile, BinFn f, std::int64_t num_bins,
                                          const group_divider& group_of, int spread, int hot_lanes,
                                          unsigned* counts, unsigned* spare, const In (&x)[partition_items],
                                          int (&slot)[partition_items],
                                          unsigned (&local)[partition_items]) {
  constexpr bool whole = Whole;
  const int lane = threadIdx.x % 32;
  const int own_counter = lane % spread;  // added to group * spread
#pragma unroll
  for (int j = 0; j < partition_items; ++j) {
    const int i = j * partition_block + threadIdx.x;
    int group = -1;
    if (whole || i < in_tile) {
      const std::int64_t bin = f(x[j]).bin;
      if (static_cast<std::uint64_t>(bin) < static_cast<std::uint64_t>(num_bins)) {  // 0 <= bin < num_bins
        group = static_cast<int>(group_of(static_cast<std::uint32_t>(bin)));
        if constexpr (KeepLocalBins)
          local[j] = static_cast<unsigned>(bin) - static_cast<unsigned>(group) * group_of.d;
      }
    }
    slot[j] = group;
  }
  // A warp whose inputs of the tile all fall in one group (skewed or sorted input) takes its ranks with one
  // atomic. (Checked once per tile, not per load: a per-load check cost 6 of pass 1's 60 instructions per input.)
  const int first = __shfl_sync(0xffffffffu, slot[0], 0);
  bool same = first >= 0;
#pragma unroll
  for (int j = 0; j < partition_items; ++j) same = same && slot[j] == first;
  if (__all_sync(0xffffffffu, same)) {
    const int counter = first * spread;
    unsigned base = 0;
    if (lane == 0) base = atomicAdd(&counts[counter], 32u * partition_items);
    base = __shfl_sync(0xffffffffu, base, 0) + lane;
#pragma unroll
    for (int j = 0; j < partition_items; ++j)
      slot[j] = (counter << partition_rank_bits) | static_cast<int>(base + 32u * j);
  } else if (__popc(__ballot_sync(0xffffffffu, slot[0] == first)) > hot_lanes) {
    // Skewed input (a hot group, Zipf): lanes in lane 0's group take their ranks with one atomic per load, the
    // others one each; otherwise the hot group's counter would take most of a warp's atomics one by one.
    // This branch waits for lane 0's atomic at every load (the plain one below issues all 16 before it waits), so
    // a warp that takes it holds up its block at the barrier after the ranking: `hot_lanes` keeps uniform input
    // out of it (partition_hot_group_lanes).
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      const int lead = __shfl_sync(0xffffffffu, slot[j], 0);
      const unsigned with_lead = __ballot_sync(0xffffffffu, slot[j] == lead);
      unsigned base = 0;
      if (lane == 0 && lead >= 0) base = atomicAdd(&counts[lead * spread], static_cast<unsigned>(__popc(with_lead)));
      base = __shfl_sync(0xffffffffu, base, 0);
      if (slot[j] >= 0) {
        const int counter = slot[j] == lead ? lead * spread : slot[j] * spread + own_counter;
        const unsigned rank = slot[j] == lead ? base + __popc(with_lead & ((1u << lane) - 1u))
                                              : atomicAdd(&counts[counter], 1u);
        slot[j] = (counter << partition_rank_bits) | static_cast<int>(rank);
      }
    }
  } else {
    // Every load's add is issued, a dropped input's on `spare`, and only the slot's write depends on whether the
    // input was kept, so that the adds need no branch each: with the add inside `if (kept)` ptxas gave each its own
    // branch region and the warp waited for each round trip in turn; now 2-3 are in flight (SASS). Lent H100,
    // same-run A/B: HDW RF 1 H = 196608..1572864 0.977-0.988 of the branchy ranks, the compare-and-swap and lock
    // classes level (bench/results/2026-12-07-h100-pass1-ranks-bulk-merge.txt).
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      const bool kept = slot[j] >= 0;
      const int counter = slot[j] * spread + own_counter;
      const unsigned rank = atomicAdd(kept ? counts + counter : spare, 1u);
      if (kept) slot[j] = (counter << partition_rank_bits) | static_cast<int>(rank);
    }
  }
}

template <bool Whole, bool KeepLocalBins = false, class In, class BinFn>
__device__ __forceinline__ void load_and_rank_tile(const In* tile_input, std::int64_t in_tile, BinFn f,
                                                   std::int64_t num_bins, const group_divider& group_of,
                                                   int spread, int hot_lanes, unsigned* counts, unsigned* spare,
                                                   In (&x)[partition_items],
                                                   int (&slot)[partition_items],
                                                   unsigned (&local)[partition_items]) {
  load_tile<Whole>(tile_input, in_tile, x);
  rank_tile<Whole, KeepLocalBins>(in_tile, f, num_bins, group_of, spread, hot_lanes, counts, spare, x, slot,
                                  local);
}

/// Pass 1 over one slice of n inputs (tiles numbered from 0 within the slice). For 4-byte inputs
/// (partition_pipelined) the next tile's copy into shared memory runs while this one is ranked and written, so that
/// loads stay in flight through the tile's barriers (H100, HDW H = 196608, 32 groups: 208 -> 200 us; then
/// instruction issue bounds it, see the ranking below: 149 us, against 143 us for reading and writing 200 MB).
template <class In, class BinFn, class Record = In>
__global__ void __launch_bounds__(partition_block, partition_pass1_blocks_per_sm) partition_kernel(const In* input, std::int64_t n, BinFn f,
                                                                    std::int64_t num_bins, group_divider group_of,
                                                                    int groups, Record* records, unsigned* offsets,
                                                                    std::int64_t slice_tiles,
                                                                    unsigned long long* totals) {
  constexpr bool pipelined = partition_pipelined<In>;
  constexpr bool local_bins = !std::is_same_v<Record, In>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Record* staging = reinterpret_cast<Record*>(shared_bytes);
  In* buffers = reinterpret_cast<In*>(staging + partition_tile);  // pipelined: two tiles of input
  unsigned* counts = reinterpret_cast<unsigned*>(shared_bytes + partition_shared_bytes<In, Record>() -
                                                 (2 * max_partition_groups + 1 + partition_block / 32) *
                                                     sizeof(unsigned));
  unsigned* starts = counts + max_partition_groups;            // counters + 1
  unsigned* warp_sums = starts + max_partition_groups + 1;     // partition_block / 32
  // Counters per group (rank_tile): 8 groups or fewer get 32 / groups each, so that a warp's and the SM's adds fall
  // on ~32 words, as with 32 groups. (H200, ncu, pass 1 of seed 000's argmax H = 49152 in 8 groups: 183 -> 176 us;
  // HDW H = 196608 in 16 groups with 2 each: 143 -> 148 us, so not there.)
  const int spread = groups <= 8 ? 32 / groups : 1;
  const int counters = groups * spread;  // <= max_partition_groups
  const int hot_lanes = partition_hot_group_lanes(groups);
  const std::int64_t tiles = (n + partition_tile - 1) / partition_tile;
  auto tile_size = [&](std::int64_t t) { return n - t * partition_tile < partition_tile ? n - t * partition_tile : partition_tile; };
  if constexpr (pipelined)
    if (blockIdx.x < tiles) prefetch_tile(input, blockIdx.x, tile_size(blockIdx.x), buffers);

  int parity = 0;
  for (std::int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x, parity ^= 1) {
    const std::int64_t in_tile = tile_size(tile);
    for (int c = threadIdx.x; c < counters; c += partition_block) counts[c] = 0;
    if constexpr (pipelined) {
      // The other buffer was last read before the previous tile's final barrier: start the next tile's copy there.
      const std::int64_t next = tile + gridDim.x;
      if (next < tiles) prefetch_tile(input, next, tile_size(next), buffers + (parity ^ 1) * partition_tile);
      else __pipeline_commit();  // an empty group keeps "all but the newest group" meaning this tile's copy
      __pipeline_wait_prior(1);
    }
    __syncthreads();
    In x[partition_items];
    int slot[partition_items];
    unsigned local[partition_items];
    const In* tile_input = pipelined ? buffers + parity * partition_tile : input + tile * partition_tile;
    if (in_tile == partition_tile)
      load_and_rank_tile<true, local_bins>(tile_input, in_tile, f, num_bins, group_of, spread, hot_lanes, counts,
                                           warp_sums, x, slot, local);
    else
      load_and_rank_tile<false, local_bins>(tile_input, in_tile, f, num_bins, group_of, spread, hot_lanes, counts,
                                            warp_sums, x, slot, local);
    __syncthreads();
    block_exclusive_scan(counts, starts, counters, warp_sums);
    __syncthreads();
    for (int g = threadIdx.x; g <= groups; g += partition_block)
      offsets[std::int64_t{g} * slice_tiles + tile] = starts[g * spread];
    for (int g = threadIdx.x; g < groups; g += partition_block) {
      const unsigned in_group = starts[(g + 1) * spread] - starts[g * spread];
      if (in_group != 0) atomicAdd(&totals[g], static_cast<unsigned long long>(in_group));
    }
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      if (slot[j] < 0) continue;
      Record& to = staging[starts[slot[j] >> partition_rank_bits] + (slot[j] & ((1 << partition_rank_bits) - 1))];
      if constexpr (local_bins) to = static_cast<Record>(local[j]);
      else to = x[j];
    }
    __syncthreads();
    const int kept = static_cast<int>(starts[counters]);
    Record* out = records + tile * partition_tile;
    int copied = 0;
    if constexpr (pipelined || local_bins) {  // whole 16-byte vectors (records and staging are 16-byte aligned)
      constexpr int per_vector = 16 / sizeof(Record);
      copied = kept / per_vector * per_vector;
      for (int v = threadIdx.x; v < kept / per_vector; v += partition_block)
        reinterpret_cast<uint4*>(out)[v] = reinterpret_cast<const uint4*>(staging)[v];
    }
    for (int i = copied + threadIdx.x; i < kept; i += partition_block) out[i] = staging[i];
    __syncthreads();
  }
}

/// Blocks per group where the groups' blocks can all run at once (at most apportioned_max_groups groups, and budget
/// blocks enough for one a group with inputs) and the floors' rule below leaves its busiest block more than
/// apportion_slack times the mean load: the fewest-maximum-load apportionment (Jefferson's method), ceil(totals[g] /
/// L) blocks for the smallest load L per block whose blocks fit the budget (an empty group's blocks, which only
/// write its bins, outside it). Each of apportion_candidates threads tries one L, geometrically spaced from
/// total / budget (no smaller L fits) to the largest group's total (one block a group), so the L found is within ~2%
/// of the best; the blocks are then those of that L times apportion_slack. In floats (a heuristic); the blocks
/// scanned fit the budget: every thread computes them with the same expression (group_blocks_at) from the
/// candidate's own reciprocal of L, and a larger L gives no more blocks.
/// Why: the floors of the rule below give a group with between 1 and 2 budget shares of the input one block with up
/// to twice the mean load, and the blocks the floors drop stay idle. Zipf(1.1) over 1572864 bins in 55 groups with
/// 132 blocks (the packed argmax): the floors gave 108 blocks, the busiest with 1.96x the mean load; this gives 123,
/// the busiest with 1.33x (a host model of the groups' totals). Uniform input keeps the floors' blocks (where the
/// floors are within the slack of the mean load, without the search: the seed's unpacked argmax at H = 1572864 in
/// 128 groups of 132 blocks was ~1% slower with it).
inline constexpr int apportioned_max_groups = partition_block;
inline constexpr int apportion_candidates = 256;
// The blocks are those of the smallest fitting L times this: a block that lowers the busiest block's load by less
// than 4% is not worth its copy's fill and merge. Without it (the smallest L itself), uniform input at H = 1572864
// got a few more blocks for the same busiest load and was 1-3% slower (lent H100, 2026-12-07).
inline constexpr float apportion_slack = 1.04f;
__device__ __forceinline__ unsigned group_blocks_at(float load, float per_block_reciprocal, unsigned min_blocks) {
  if (load == 0.0f) return min_blocks;
  const float blocks = ceilf(__fmul_rn(load, per_block_reciprocal));
  return blocks < 1.0f ? 1u : static_cast<unsigned>(blocks);
}

/// Pass 2 planning, one block: the apportionment above where it applies, else group g gets max(1, floor(totals[g] *
/// budget / total)) blocks when it has inputs, else min_blocks (0, or 1 when pass 2 overwrites dest: every group's
/// bins are written), so at most budget + groups in all; starts[g] is its first block, starts[groups] the number of
/// blocks. With record_starts (the counted layout), also the exclusive scan of the totals: the first record of each
/// group.
/// `fill_last_wave` (budget = the second pass's resident blocks): when the blocks run in more than one wave and
/// the last is partly empty, the groups whose blocks all fall in it get m times their blocks, m = budget / (its
/// blocks), so that the last wave runs budget short blocks instead of a few long ones. At most 2 budget + groups
/// blocks then. `tickets` (the tile layout): zeroed, groups words, the second pass's next tile of each group
/// (group_histogram_kernel). (A template only so that the header can define it in every translation unit.)
template <class Total = unsigned long long>
__global__ void __launch_bounds__(partition_block) assign_group_blocks_kernel(const Total* totals,
                                                                              int groups, int budget,
                                                                              unsigned* starts,
                                                                              unsigned min_blocks = 0,
                                                                              unsigned* record_starts = nullptr,
                                                                              bool fill_last_wave = false,
                                                                              unsigned* tickets = nullptr) {
  __shared__ unsigned long long partial[partition_block / 32];
  __shared__ unsigned blocks[max_counted_groups];
  __shared__ unsigned warp_sums[partition_block / 32];
  __shared__ unsigned tail_start;
  __shared__ unsigned long long partial_max[partition_block / 32];
  __shared__ float partial_busiest[partition_block / 32];
  __shared__ float group_load[apportioned_max_groups];
  __shared__ float candidate_reciprocal[apportion_candidates];
  __shared__ int chosen;
  wait_for_prior_kernels();
  if (tickets != nullptr)
    for (int g = threadIdx.x; g < groups; g += partition_block) tickets[g] = 0;
  const bool may_apportion = groups <= apportioned_max_groups && budget > 0;  // the same for every thread
  unsigned long long sum = 0, heaviest = 0;
  for (int g = threadIdx.x; g < groups; g += partition_block) {
    const unsigned long long t = totals[g];
    sum += t;
    heaviest = t > heaviest ? t : heaviest;
    if (may_apportion) group_load[g] = static_cast<float>(t);
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, d);
    const unsigned long long other = __shfl_xor_sync(0xffffffffu, heaviest, d);
    heaviest = other > heaviest ? other : heaviest;
  }
  if (threadIdx.x % 32 == 0) {
    partial[threadIdx.x / 32] = sum;
    partial_max[threadIdx.x / 32] = heaviest;
  }
  if (threadIdx.x == 0) chosen = apportion_candidates;
  __syncthreads();
  unsigned long long total = 0;
  heaviest = 0;
  for (int w = 0; w < partition_block / 32; ++w) {
    total += partial[w];
    heaviest = partial_max[w] > heaviest ? partial_max[w] : heaviest;
  }
  // The floors' rule first; the apportionment replaces it where the floors' busiest block has more than
  // apportion_slack times the mean load (the least any assignment can give it).
  const float lightest = static_cast<float>(total) / static_cast<float>(budget > 0 ? budget : 1);
  float floors_busiest = 0.0f;
  for (int g = threadIdx.x; g < groups; g += partition_block) {
    const unsigned long long t = totals[g];
    const unsigned long long share = total == 0 ? 0 : t * static_cast<unsigned long long>(budget) / total;
    blocks[g] = t == 0 ? min_blocks : static_cast<unsigned>(share < 1 ? 1 : share);
    if (t > 0) floors_busiest = fmaxf(floors_busiest, static_cast<float>(t) / static_cast<float>(blocks[g]));
  }
#pragma unroll
  for (int d = 16; d > 0; d /= 2)
    floors_busiest = fmaxf(floors_busiest, __shfl_xor_sync(0xffffffffu, floors_busiest, d));
  if (threadIdx.x % 32 == 0) partial_busiest[threadIdx.x / 32] = floors_busiest;
  __syncthreads();
  for (int w = 0; w < partition_block / 32; ++w) floors_busiest = fmaxf(floors_busiest, partial_busiest[w]);
  if (may_apportion && total > 0 && floors_busiest > apportion_slack * lightest) {  // the same for every thread
    // A hair above the largest total, so that its candidate gives every group one block despite the reciprocal's
    // rounding.
    const float most = fmaxf(static_cast<float>(heaviest), lightest) * 1.0001f;
    const int k = static_cast<int>(threadIdx.x);
    if (k < apportion_candidates) {
      const float per_block =
          k == apportion_candidates - 1
              ? most
              : lightest * exp2f(log2f(most / lightest) * static_cast<float>(k) / (apportion_candidates - 1));
      const float reciprocal = 1.0f / per_block;
      candidate_reciprocal[k] = reciprocal;
      unsigned need = 0;  // an empty group's blocks (min_blocks) only write its bins: they take no share
      for (int g = 0; g < groups; ++g) need += group_blocks_at(group_load[g], reciprocal, 0u);
      if (need <= static_cast<unsigned>(budget)) atomicMin(&chosen, k);
    }
    __syncthreads();
    if (chosen < apportion_candidates) {  // the same for every thread
      const float reciprocal = candidate_reciprocal[chosen] / apportion_slack;
      for (int g = threadIdx.x; g < groups; g += partition_block)
        blocks[g] = group_blocks_at(group_load[g], reciprocal, min_blocks);
    }
  }
  __syncthreads();
  block_exclusive_scan(blocks, starts, groups, warp_sums);
  if (fill_last_wave) {
    if (threadIdx.x == 0) tail_start = ~0u;
    __syncthreads();
    const unsigned all = starts[groups], last_wave = all / static_cast<unsigned>(budget) * budget;
    for (int g = threadIdx.x; g < groups; g += partition_block)
      if (starts[g] >= last_wave && starts[g] < all) atomicMin(&tail_start, starts[g]);
    __syncthreads();
    const unsigned in_tail = tail_start == ~0u || last_wave == 0 ? 0u : all - tail_start;
    const unsigned m = in_tail == 0 ? 1u : static_cast<unsigned>(budget) / in_tail;
    if (m >= 2) {  // the same for every thread
      for (int g = threadIdx.x; g < groups; g += partition_block)
        if (starts[g] >= tail_start) blocks[g] *= m;
      __syncthreads();
      block_exclusive_scan(blocks, starts, groups, warp_sums);
    }
  }
  if (record_starts == nullptr) return;
  __syncthreads();
  for (int g = threadIdx.x; g < groups; g += partition_block) blocks[g] = static_cast<unsigned>(totals[g]);
  __syncthreads();
  block_exclusive_scan(blocks, record_starts, groups, warp_sums);
}

/// The second pass's block: which group it histograms (starts[g] <= block < starts[g + 1]; groups without inputs
/// have no blocks unless every group got one), and its share k of the group's K blocks.
struct group_share {
  int group = 0;
  std::int64_t k = 0, K = 0;
};
/// False for a block past starts[groups] (the grid is sized for the most blocks that planning may assign); else a
/// binary search, one dependent load per step. TryBlockFirst (narrow_group_count_kernel): where every group before
/// this block's has one block (huge H, uniform input: starts[g] = g), the group is `block`: tried first, with its
/// two starts and starts[groups] loaded in one round trip (the search's 11 steps for 1848 groups and the exit test
/// before them held 17% of that kernel's stall samples at H = 100M on the H100). Not in the tile layout's second
/// pass: with it, H = 16M (289 groups) ran 331-334 -> 355-368 us on the lent H100 (not found why; both give the
/// same groups).
template <bool TryBlockFirst = false>
__device__ __forceinline__ bool group_of_block(const unsigned* starts, int groups, unsigned block,
                                               group_share& share) {
  if constexpr (TryBlockFirst) {
    const int guess = block < static_cast<unsigned>(groups) ? static_cast<int>(block) : groups - 1;
    const unsigned blocks = starts[groups], guess_first = starts[guess], guess_end = starts[guess + 1];
    if (block >= blocks) return false;
    if (guess_first <= block && block < guess_end) {
      share = {guess, block - guess_first, std::int64_t{guess_end} - guess_first};
      return true;
    }
  } else {
    if (block >= starts[groups]) return false;
  }
  int g = 0;  // the last group whose first block is <= this block
  int step = 1;
  while (step * 2 < groups) step *= 2;
  for (; step > 0; step /= 2)
    if (g + step < groups && starts[g + step] <= block) g += step;
  share = {g, block - starts[g], std::int64_t{starts[g + 1]} - starts[g]};
  return true;
}

/// Overwriting, before the second pass (both layouts): the groups that several blocks merge into (atomics, locks or
/// rows) start from the identity; a group's only block writes its bins itself. The work is chunks of
/// fill_group_chunk bins, `chunks` per group: block b's are b, b + gridDim.x, ...; its threads first check one chunk
/// each (does its group have several blocks?), then the block fills the chunks that need it. A block per chunk had
/// been as fast as a fill of all of dest where every group is shared, but where none is (H = 100M in 1721 groups of
/// one block each) it launched 25,815 blocks that only exited: 19 us under ncu on the H100 (bench/NOTES.md,
/// twenty-seventh session); so did 1056 blocks that checked their chunks one after the other (twenty-eighth).
inline constexpr int fill_group_chunk = 4096;
inline constexpr int fill_group_threads = 256;
template <class T>
__global__ void __launch_bounds__(fill_group_threads) fill_shared_groups_kernel(const unsigned* starts, int groups,
                                                                                int chunks, group_divider group_of,
                                                                                std::int64_t num_bins, T identity,
                                                                                T* dest) {
  __shared__ unsigned todo[fill_group_threads];
  __shared__ int todo_count;
  wait_for_prior_kernels();
  // Groups <= max_counted_groups, each within a block's shared memory: work is far below 2^32.
  const unsigned work = static_cast<unsigned>(groups) * static_cast<unsigned>(chunks);
  const unsigned step = gridDim.x * fill_group_threads;
  for (unsigned first = blockIdx.x; first < work; first += step) {
    if (threadIdx.x == 0) todo_count = 0;
    __syncthreads();
    const unsigned w = first + threadIdx.x * gridDim.x;
    if (w < work) {
      const unsigned g = w / static_cast<unsigned>(chunks);
      if (starts[g + 1] - starts[g] >= 2) todo[atomicAdd(&todo_count, 1)] = w;
    }
    __syncthreads();
    for (int i = 0; i < todo_count; ++i) {
      const unsigned g = todo[i] / static_cast<unsigned>(chunks), chunk = todo[i] % static_cast<unsigned>(chunks);
      const std::int64_t group_first = std::int64_t{g} * static_cast<int>(group_of.d);
      const std::int64_t group_end = group_first + static_cast<int>(group_of.d) < num_bins
                                         ? group_first + static_cast<int>(group_of.d)
                                         : num_bins;
      const std::int64_t lo = group_first + std::int64_t{chunk} * fill_group_chunk;
      const std::int64_t hi = lo + fill_group_chunk < group_end ? lo + fill_group_chunk : group_end;
      for (std::int64_t b = lo + threadIdx.x; b < hi; b += fill_group_threads) dest[b] = identity;
    }
    __syncthreads();  // todo is read before the next round writes it
  }
}

/// The input of group_histogram_kernel's hot-bin sample (hot_bin_slots::choose reads its `n` and the bin of
/// `at(i)`): up to 32 records from each of the block's first n / 32 tiles (k, k + K, ...: a tile's run of the group
/// from its start; with tickets the block then walks other tiles, the sample standing for the group's), so that a
/// group of short runs is sampled as fully as one of long runs. A tile past the slice's
/// end or a run shorter than 32 leaves the rest of its share as bin -1 (outside the group: not counted).
/// With one run only (the block's first tile), seed 000's saturating add on Zipf(1.1) over 1572864 bins in 63 groups
/// (runs of ~80 records in most groups) took 3039 us a call against 589 with 16 tiles (lent H200, 2026-12-02).
template <class In, class BinFn>
struct group_tiles_sample {
  const In* records;
  const unsigned* first;  // the group's row of run starts per tile
  const unsigned* next;   // the next group's row: the runs' ends
  std::int64_t k, K, tiles;
  std::int64_t n;  // 32 per tile sampled
  BinFn f;
  struct sampled {
    std::int64_t bin;  // choose reads only the bin
  };
  __device__ __forceinline__ sampled at(std::int64_t i) const {
    const std::int64_t tile = k + K * (i / 32);
    const unsigned e = static_cast<unsigned>(i % 32);
    if (tile < tiles) {
      const unsigned begin = first[tile];
      if (begin + e < next[tile]) return sampled{f(records[tile * partition_tile + begin + e]).bin};
    }
    return sampled{no_bin};
  }
};

/// One second-pass block's histogram of one group (bins [lo, lo + len), `stride` bins apart for its M copies) in
/// shared memory, shared by both layouts of the partitioned strategy: visit() applies one record, finish() merges
/// the block's sums into dest.
/// WarpPrivate (the lock and compare-and-swap classes, plan::warp_private): M = warps, warp w owns copy w and
/// updates it without locks or atomics (warp_private_update): every lane of the warp calls visit_together() at once.
template <class In, class BinFn, class Op, bool WarpPrivate>
class group_in_shared {
 public:
  using T = typename Op::value_type;
  static constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  static constexpr bool locked = xcg && !WarpPrivate;  // locks in shared memory
  static constexpr bool cas = atomic_class_of<Op> == atomic_class::cas;
  static constexpr bool unit_counts = unit_increments_v<BinFn, Op>;  // the 16-bit-record instances
  /// Copies whose updates that change a bin may wait in the warp's lock queue (plan::lock_queue, lock_queue.hpp):
  /// idempotent lock-class values that the shortcut before the lock reads whole.
  static constexpr bool queueable = locked && lock_queue_takes(atomic_class_of<Op>, is_idempotent_v<Op>, sizeof(T));

  /// Sets the block's M copies to the identity (the whole block calls this; it ends with a barrier).
  __device__ group_in_shared(unsigned char* shared, BinFn f, Op op, int stride, std::int64_t lo, std::int64_t len,
                             int M)
      : f_(f), op_(op), deferred_(op), stride_(stride), lo_(lo), len_(len), M_(M) {
    subs_ = reinterpret_cast<T*>(shared);
    locks_ = locked ? reinterpret_cast<int*>(shared + shared_values_bytes<T>(std::int64_t{M} * stride)) : nullptr;
    const T identity = Op::identity();
    if constexpr (unit_counts) {  // zeros, 16 bytes a store (shared_bytes is 16-byte aligned)
      const int words = M * stride;
      for (int v = threadIdx.x; v < words / 4; v += blockDim.x) reinterpret_cast<uint4*>(subs_)[v] = uint4{};
      for (int i = words / 4 * 4 + threadIdx.x; i < words; i += blockDim.x) subs_[i] = T{};
    } else {
      for (int i = threadIdx.x; i < M * stride; i += blockDim.x) {
        subs_[i] = identity;
        if constexpr (locked) locks_[i] = 0;
      }
    }
    // M copies of the group's bins (warp w updates copy w % M): a few hot bins (RF > 1, skew) are then contended by
    // fewer warps, which the compare-and-swap and lock classes need.
    sub_at_ = (threadIdx.x / 32 % M) * stride;
    __syncthreads();
  }

  __device__ __forceinline__ void visit(const In& x) {
    const bin_update<T> u = f_(x);
    // In [0, len): the first pass kept only this group's inputs. 32-bit arithmetic (bins are below 2^31): the pass
    // is bound by instruction issue.
    const int b = static_cast<int>(u.bin) - static_cast<int>(lo_);
    auto slot = [&](auto bin) {
      const int at = sub_at_ + static_cast<int>(bin);
      return bin_slot<T>{subs_ + at, locked ? locks_ + at : nullptr};
    };
    if constexpr (use_warp_aggregation<Op, memory_level::shared>)
      warp_aggregated_update<memory_level::shared>(op_, std::int64_t{b}, len_, u.value, slot);
    else if constexpr (cas) deferred_.update(subs_, sub_at_ + b, u.value);  // a lost update waits in registers
    else atomic_update<memory_level::shared>(op_, subs_ + sub_at_ + b, u.value, nullptr);
  }

  /// The block's copies in shared memory (values, then locks): the lock queue starts after them.
  __device__ std::size_t copies_bytes() const {
    const std::int64_t bins = std::int64_t{M_} * stride_;
    return locked ? locked_copies_bytes<T>(bins) : shared_values_bytes<T>(bins);
  }

  /// Gives this warp its part of the block's lock queue at `queue` (lock_queue_bytes(blockDim.x, sizeof(T)) bytes):
  /// the warp's lock_queue_capacity bin positions, then (after every warp's positions) its values.
  __device__ void attach_lock_queue(unsigned char* queue) {
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
    queue_at_ = reinterpret_cast<int*>(queue) + warp * lock_queue_capacity;
    queue_values_ =
        reinterpret_cast<T*>(queue + std::size_t(warps) * lock_queue_capacity * sizeof(int)) + warp * lock_queue_capacity;
  }

  /// visit() through the lock queue, every lane of the warp at once (f applied only where `valid`): an update that
  /// would change its bin (judged on one read, as before the lock) joins the warp's queue, and once 32 wait the
  /// warp applies them, one per lane. Exact for any associative and commutative operator: updates may land in any
  /// order, and one that a later read finds changing nothing is dropped as atomic_update drops it.
  __device__ __forceinline__ void visit_queued(bool valid, const In& x) {
    static_assert(queueable, "the lock queue holds idempotent lock-class values of 4 or 8 bytes");
    bin_update<T> u{-1, Op::identity()};
    if (valid) u = f_(x);
    const int at = sub_at_ + (static_cast<int>(u.bin) - static_cast<int>(lo_));
    const bool changes = valid && !shared_update_changes_nothing(op_, subs_ + at, u.value);
    const unsigned changing = __ballot_sync(0xffffffffu, changes);
    if (changes) {
      const int pos = queued_ + __popc(changing & ((1u << (threadIdx.x % 32)) - 1u));
      queue_at_[pos] = at;
      queue_values_[pos] = u.value;
    }
    queued_ += __popc(changing);  // the same in every lane
    if (queued_ >= 32) apply_queued(32);
  }

  /// Applies what is left in the warp's queue (fewer than 32); every lane of the warp calls it, after its last
  /// visit_queued() and before finish().
  __device__ __forceinline__ void flush_queued() {
    if (queued_ > 0) apply_queued(queued_);
  }

  /// visit() for a block whose sample took hot bins off its copies (group_histogram_kernel, hot_bin_slots): a hot
  /// bin's input goes to the thread's own slot word or its lane's replica, the others to the thread's copy, through
  /// one update site (hot_bin_slots::redirect_any: the own word takes the compare-and-swap too, which always wins
  /// there). Lost compare-and-swaps wait in two kept words (deferred_cas_updater::update2), as in the shared
  /// strategy's sampled-hot-bin loop. One site, not three: ncu put 64% of this pass's stall samples on instruction
  /// fetch with find()'s three sites in the unrolled walk (Zipf(1.1), H = 786432; lent H200, 2026-12-02).
  __device__ __forceinline__ void visit_hot(const In& x, const hot_bin_slots<T>& hot) {
    static_assert(cas && !WarpPrivate, "hot-bin slots go with the compare-and-swap class's copies");
    const bin_update<T> u = f_(x);
    const int b = static_cast<int>(u.bin) - static_cast<int>(lo_);
    int at = sub_at_ + b;
    hot.redirect_any(b, at);
    deferred_.update2(subs_, at, u.value);
  }

  /// A 16-bit record of unit increments (counted_record_bytes): adds 1 to the group's bin b.
  __device__ __forceinline__ void count(unsigned b) {
    static_assert(!locked && !cas, "local-bin records are unit increments: the hardware-atomic class");
    atomic_update<memory_level::shared>(op_, subs_ + sub_at_ + b, T{1}, nullptr);
  }

  /// count(b) where `valid`, as one predicated shared-memory reduction: no branch and reconvergence around it, which
  /// the compiler puts around a conditional atomic (three of the short-run walk's ~11 instructions per record load).
  __device__ __forceinline__ void count_if(bool valid, unsigned b) {
    static_assert(sizeof(T) == 4, "unit increments are 32-bit integer adds");
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(subs_ + sub_at_)) + 4 * b;
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.u32 p, %0, 0;\n @p red.shared.add.u32 [%1], 1;\n}" ::"r"(
            static_cast<unsigned>(valid)),
        "r"(at)
        : "memory");
  }

  /// A record of either kind (partition_record_t): an input, or a 16-bit bin of unit increments.
  template <class Record>
  __device__ __forceinline__ void visit_record(const Record& r) {
    if constexpr (std::is_same_v<Record, In>) visit(r);
    else count(r);
  }

  /// Every lane of the warp at once (WarpPrivate, or the locked copies: visit() within lane-dependent branches let
  /// the warp's lanes split around the lock loop, see group_histogram_kernel); f is applied only where `valid` (a
  /// lane past the records' end holds none).
  __device__ __forceinline__ void visit_together(bool valid, const In& x) {
    bin_update<T> u{-1, Op::identity()};
    if (valid) u = f_(x);
    const int b = static_cast<int>(u.bin) - static_cast<int>(lo_);
    if constexpr (WarpPrivate) {
      warp_private_update(op_, subs_ + sub_at_, valid, b, len_, u.value);
    } else {
      static_assert(locked, "the lock class's copies");
      auto slot = [&](auto bin) {
        const int at = sub_at_ + static_cast<int>(bin);
        return bin_slot<T>{subs_ + at, locks_ + at};
      };
      warp_aggregated_update_among<memory_level::shared>(0xffffffffu, op_, std::int64_t{valid ? b : -1}, len_,
                                                         u.value, slot);
    }
  }

  /// Merges the block's sums into dest: the group's only block (K == 1) owns its bins, and with `overwrite` writes
  /// every one without reading dest; otherwise its row of `rows` (merge_group_rows_kernel folds them), or the
  /// global atomic (and lock, for xcg). (Starting the K blocks of a group at different bins, so that they would not
  /// queue on the same addresses, made a Zipf-like input slower on the H100: pass 2 251 -> 401 us at H = 196608.)
  /// `before_merge`: called by every thread after the block's last update is visible (the hot bins' fold into
  /// copy 0, which ends with a barrier).
  /// `every_row`: a group's only block writes its row too (the tile layout's input records when overwriting with
  /// rows: merge_group_rows_kernel then writes every bin of dest, which needs no fill first).
  template <class BeforeMerge>
  __device__ void finish(unsigned block, std::int64_t K, bool overwrite, T* dest, int* dest_locks, T* rows,
                         BeforeMerge&& before_merge, bool every_row = false) {
    if constexpr (cas && !WarpPrivate) deferred_.flush2(subs_);  // visit_hot's second kept word too
    __syncthreads();
    before_merge();
    if constexpr (unit_counts) {
      if (K == 1 && overwrite && M_ == 1) {
        write_own_bins(dest + lo_);
        return;
      }
    }
    const T identity = Op::identity();
    for (std::int64_t b = threadIdx.x; b < len_; b += blockDim.x) {
      T acc = subs_[b];
      for (int m = 1; m < M_; ++m) acc = op_(acc, subs_[m * stride_ + b]);
      if ((K > 1 || every_row) && rows != nullptr) {
        rows[std::int64_t{block} * stride_ + b] = acc;  // every bin: merge_group_rows_kernel reads the whole row
        continue;
      }
      if (K == 1 && overwrite) {
        dest[lo_ + b] = acc;
        continue;
      }
      if (bitwise_equal(acc, identity)) continue;
      if (K == 1) dest[lo_ + b] = op_(dest[lo_ + b], acc);
      else atomic_update<memory_level::global>(op_, dest + lo_ + b, acc, xcg ? dest_locks + lo_ + b : nullptr);
    }
  }

  /// finish() with nothing before the merge.
  __device__ void finish(unsigned block, std::int64_t K, bool overwrite, T* dest, int* dest_locks, T* rows) {
    finish(block, K, overwrite, dest, dest_locks, rows, [] {});
  }

 private:
  /// finish() of a group's only block when overwriting, for 32-bit counts: its bins written 16 bytes a store (one
  /// 64-bit address and branch per bin had taken 12% of the tile layout's second-pass stall samples, H = 16M).
  __device__ void write_own_bins(T* out) const {
    static_assert(sizeof(T) == 4, "unit increments are 32-bit integer adds");
    const int len = static_cast<int>(len_);
    const int skew = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) / sizeof(T) % 4);
    const int head = skew == 0 ? 0 : (4 - skew < len ? 4 - skew : len);  // bins before out's first 16-byte boundary
    for (int b = threadIdx.x; b < head; b += blockDim.x) out[b] = subs_[b];
    const int vectors = (len - head) / 4;
    uint4* to = reinterpret_cast<uint4*>(out + head);
    if (head == 0) {
      const uint4* from = reinterpret_cast<const uint4*>(subs_);
      for (int v = threadIdx.x; v < vectors; v += blockDim.x) to[v] = from[v];
    } else {
      for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
        const T* from = subs_ + head + 4 * v;
        to[v] = uint4{static_cast<unsigned>(from[0]), static_cast<unsigned>(from[1]), static_cast<unsigned>(from[2]),
                      static_cast<unsigned>(from[3])};
      }
    }
    for (int b = head + 4 * vectors + threadIdx.x; b < len; b += blockDim.x) out[b] = subs_[b];
  }

  /// The `count` (<= 32) newest entries of the warp's queue, lane l the l-th, each under its bin's lock
  /// (atomic_update, which first drops it if it no longer changes the bin). Every lane of the warp calls it.
  __device__ __forceinline__ void apply_queued(int count) {
    __syncwarp();  // the entries the other lanes wrote are visible
    const int lane = threadIdx.x % 32, first = queued_ - count;
    const bool mine = lane < count;
    int at = 0;
    T v = Op::identity();
    if (mine) {
      at = queue_at_[first + lane];
      v = queue_values_[first + lane];
    }
    __syncwarp();  // read before the next steps' entries take these places
    queued_ = first;
    if (mine) atomic_update<memory_level::shared>(op_, subs_ + at, v, locks_ + at);
  }

  BinFn f_;
  Op op_;
  deferred_cas_updater<Op> deferred_;
  T* subs_;
  int* locks_;
  int stride_, sub_at_ = 0;
  std::int64_t lo_, len_;
  int M_;
  int* queue_at_ = nullptr;  // the warp's lock queue (attach_lock_queue)
  T* queue_values_ = nullptr;
  int queued_ = 0;  // entries waiting in it, the same in every lane of the warp
};

/// The group's bins: [lo, lo + len).
__device__ __forceinline__ std::int64_t group_low(int g, const group_divider& group_of) {
  return std::int64_t{g} * static_cast<int>(group_of.d);
}
__device__ __forceinline__ std::int64_t group_length(int g, const group_divider& group_of, std::int64_t num_bins) {
  const std::int64_t lo = group_low(g, group_of), stride = static_cast<int>(group_of.d);
  return num_bins - lo < stride ? num_bins - lo : stride;
}

/// Whether the tile layout's one-block groups write dest themselves when overwriting: for 16-bit records of unit
/// increments (measured: H100, H = 16777216 in 289 groups 530 -> 440 us, the fill of all of dest and the read-back
/// gone). Input records do not: the flag in their instances cost ptxas registers (packed argmax spilled 96 bytes
/// instead of 32), for no measured gain. They merge through rows (every block writes its row, the fold writes every
/// bin) or fill dest first.
template <class In, class Record>
inline constexpr bool tile_groups_write_dest = !std::is_same_v<Record, In>;

/// The short-run walk of group_histogram_kernel for 16-bit records: the warp's `count` (<= 32) runs, lane l's
/// starting at record `first` of the slice and `length` <= 32 * Rounds records long (0 for l >= count), InFlight runs
/// at a time with Rounds loads per lane and run, all issued before any is used. Each lane computes its own run's start once, in 32 bits (a slice
/// holds fewer than 2^32 records), and the warp reads it with one shuffle per run.
static_assert(partition_slice_tiles * partition_tile <= (std::int64_t{1} << 32), "a slice's records fit 32 bits");
template <int Rounds, int InFlight, class Record, class Acc>
__device__ __forceinline__ void count_short_runs(const Record* records, unsigned first, unsigned length, int lane,
                                                 Acc& acc, int count) {
  const unsigned my = static_cast<unsigned>(lane);
#pragma unroll 1
  for (int l0 = 0; l0 < count; l0 += InFlight) {
    Record x[InFlight][Rounds] = {};
    unsigned length_of[InFlight];
#pragma unroll
    for (int u = 0; u < InFlight; ++u) {
      const unsigned at = __shfl_sync(0xffffffffu, first, l0 + u);
      length_of[u] = __shfl_sync(0xffffffffu, length, l0 + u);
#pragma unroll
      for (int r = 0; r < Rounds; ++r)
        if (my + 32 * r < length_of[u]) x[u][r] = records[at + my + 32 * r];
    }
#pragma unroll
    for (int u = 0; u < InFlight; ++u)
#pragma unroll
      for (int r = 0; r < Rounds; ++r)
        acc.count_if(my + 32 * r < length_of[u], x[u][r]);
  }
}

/// The second pass's records per ticket (group_histogram_kernel): a ticket is as many consecutive tiles as hold about
/// this many records of the group (its records in the slice over the slice's tiles; at most 32, a lane's each), or
/// where a tile holds more, a part of one tile's run (at most max_ticket_parts parts).
inline constexpr unsigned long long tile_ticket_records = 1024;
inline constexpr unsigned max_ticket_parts = 16;

/// Pass 2 of the tile layout: block b histograms group g (starts[g] <= b < starts[g + 1], k = b - starts[g] of the
/// group's K blocks) over the slice's `tiles` tiles: with `tickets` (zeroed before; totals[g]: the group's records
/// in the slice), the tiles its warps take from tickets[g], a few consecutive ones a ticket; without, tiles k,
/// k + K, k + 2K, ..., each warp taking 32 at a time. slice_tiles is the row length of the offsets table.
/// `overwrite`: the first slice of an overwriting call. With 16-bit records (tile_groups_write_dest) a group's only
/// block then writes all its bins (groups without records given one block each); with input records and rows every
/// block writes its row, a group's only block too, and merge_group_rows_kernel writes every bin. Threads: the block's
/// (second_pass_threads). QueuedLocks (plan::lock_queue): the lock class's updates that change a bin wait in the
/// warp's queue after the copies, lock_queue_bytes(Threads, sizeof(value)) bytes from lock_queue_offset(copies).
template <class In, class BinFn, class Op, class Record = In, bool WarpPrivate = false, int Threads = partition_block,
          int BlocksPerSm = partition_block * partition_blocks_per_sm / Threads, bool QueuedLocks = false>
__global__ void __launch_bounds__(Threads, BlocksPerSm) group_histogram_kernel(const Record* records, const unsigned* offsets,
                                                                          std::int64_t slice_tiles,
                                                                          std::int64_t tiles,
                                                                          const unsigned* starts, int groups,
                                                                          unsigned* tickets,
                                                                          const unsigned long long* totals,
                                                                          BinFn f, Op op,
                                                                          typename Op::value_type* dest,
                                                                          int* dest_locks,
                                                                          typename Op::value_type* rows,
                                                                          std::int64_t num_bins,
                                                                          group_divider group_of, int M,
                                                                          bool overwrite, int hot_slots) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const unsigned block = blockIdx.x;
  wait_for_prior_kernels();  // launched after assign_group_blocks_kernel (launch_after_prior): starts
  group_share share;
  if (!group_of_block(starts, groups, block, share)) return;
  const int g = share.group;
  const std::int64_t K = share.K, k = share.k;
  const unsigned* first = offsets + std::int64_t{g} * slice_tiles;
  const unsigned* next = offsets + std::int64_t{g + 1} * slice_tiles;
  const std::int64_t lo = group_low(g, group_of), len = group_length(g, group_of, num_bins);
  const int stride = static_cast<int>(group_of.d);
  // Dense instances (twice the default threads per SM, 32 registers) take one run at a time (below).
  constexpr bool dense = Threads * BlocksPerSm > partition_block * partition_blocks_per_sm;
  // hot_slots > 0 (plan::hot_slots: the compare-and-swap class with the race factor unknown): the block samples the
  // group's runs of its first tiles (group_tiles_sample) and takes the bins that many of its threads will update at
  // once off its copies (hot_bin_slots, as the shared strategy's passes do). A skewed input puts most of a group's
  // records on one or two bins: Zipf(1.1) over 786432 bins in 32 groups gives the hottest group ~16% of the input,
  // three quarters of it in one bin, and this pass took 4719 us there against 164 for uniform input (ncu, lent H200,
  // 2026-12-02).
  // Dense instances keep no hot bins (told a race factor; 32 registers); nor do values other than 4 bytes (the
  // planner's partition_hot_slots: 8-byte values measured slower).
  using T = typename Op::value_type;
  constexpr bool hot_capable = atomic_class_of<Op> == atomic_class::cas && !WarpPrivate && !dense &&
                               std::is_same_v<Record, In> && sizeof(T) == 4;
  auto hot = [&] {
    if constexpr (hot_capable) return hot_bin_slots<T>(shared_bytes, hot_slots);
    else return 0;
  }();
  hot_bin_pass hot_pass{M, 0, 0, 0};
  if constexpr (hot_capable) {
    if (hot_slots > 0) {
      const std::int64_t sample_count = k < tiles ? blockDim.x : 0;  // one record per thread, 32 per tile
      const group_tiles_sample<In, BinFn> sample{records, first, next, k, K, tiles, sample_count, f};
      // The thresholds of the shared strategy's sampled hot bins (shared_memory_kernel), one input per thread.
      const int slot_hits = M / 2 > hot_bin_slot_min_hits ? M / 2 : hot_bin_slot_min_hits;
      const int lane_hits = M / 4 > hot_bin_lane_min_hits ? M / 4 : hot_bin_lane_min_hits;
      const int weak_hits = M / 4 > hot_bin_weak_min_hits ? M / 4 : hot_bin_weak_min_hits;
      hot_pass = hot.template choose<false, true>(sample, lo, len, M, stride, slot_hits, lane_hits, weak_hits, 1,
                                                  Op::identity());
    }
  }
  group_in_shared<In, BinFn, Op, WarpPrivate> acc(shared_bytes, f, op, stride, lo, len, hot_pass.copies);
  if constexpr (QueuedLocks) acc.attach_lock_queue(shared_bytes + lock_queue_offset(acc.copies_bytes()));
  // Locked copies: every lane of the warp at once, through the lock queue or the warp-aggregated lock.
  auto visit_locked = [&](bool valid, const In& x) {
    if constexpr (QueuedLocks) acc.visit_queued(valid, x);
    else if constexpr (WarpPrivate || decltype(acc)::locked) acc.visit_together(valid, x);
    else (void)valid, (void)x;  // not reached: the walk calls it for warp-private or locked copies only
  };

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  // The warp's tiles, up to 32 at a time: walk_tiles(t0, step, count, part, parts), lane l < count holding tile
  // t0 + l * step, of whose run the walk takes part `part` of `parts` equal parts.
  // With tickets, the group's tiles go to its warps through one counter, `grab` consecutive tiles or a part of one
  // tile's run a ticket (tile_ticket_records), so a warp that runs faster takes more; each warp asks for its next
  // ticket while it walks the current one. Why: with fixed shares, the second of two blocks on an SM at times ran
  // on for up to twice the first's time (per-block clocks, lent H200, 2026-12-04: the packed argmax told RF 1,
  // H = 49152 in 4 groups, blocks of 142 us, on some SMs the second 262-290 us; the pass 155 or 208-240 us from
  // launch to launch, 159 with tickets). Parts of a run: a whole tile a ticket left one bin (every record in one
  // group, ~1.4 tiles a warp) 4-6% slower than fixed shares. dispatch.cuh gives tickets to the compare-and-swap
  // class (its measurements there).
  // Without, block k's tiles are k + K * j and warp w takes j = w, w + warps, ... (so that a block with few tiles
  // still spreads them over its warps), 32 at a time.
  auto for_each_batch = [&](auto&& walk_tiles) {
    if (tickets == nullptr) {
      const std::int64_t step = K * warps;
      for (std::int64_t t0 = k + K * warp; t0 < tiles; t0 += 32 * step) {
        const std::int64_t left = (tiles - t0 + step - 1) / step;
        walk_tiles(t0, step, static_cast<int>(left < 32 ? left : 32), 0u, 1u);
      }
      return;
    }
    const unsigned long long mean_run = totals[g] / static_cast<unsigned long long>(tiles);
    unsigned grab = 1, parts = 1;  // tiles a ticket; parts of a tile's run
    if (mean_run * 32 <= tile_ticket_records) grab = 32;
    else if (mean_run < tile_ticket_records) grab = static_cast<unsigned>((tile_ticket_records + mean_run - 1) / mean_run);
    else parts = static_cast<unsigned>(mean_run / tile_ticket_records < max_ticket_parts ? mean_run / tile_ticket_records
                                                                                         : max_ticket_parts);
    const unsigned taken = static_cast<unsigned>(tiles) * parts;  // tickets past this one find nothing
    unsigned ticket = 0;
    if (lane == 0) ticket = atomicAdd(tickets + g, grab);
    for (;;) {
      const unsigned v = __shfl_sync(0xffffffffu, ticket, 0);
      if (v >= taken) break;
      if (lane == 0) ticket = atomicAdd(tickets + g, grab);  // the next one, in flight during this one's walk
      const std::int64_t t0 = v / parts;
      walk_tiles(t0, std::int64_t{1}, static_cast<int>(tiles - t0 < grab ? tiles - t0 : grab), v % parts, parts);
    }
  };
  // A lane's run [begin, end) cut to its part (for_each_batch).
  auto cut_to_part = [](unsigned& begin, unsigned& end, unsigned part, unsigned parts) {
    if (parts < 2) return;
    const unsigned length = end - begin;
    end = begin + length * (part + 1) / parts;
    begin += length * part / parts;
  };
  // visit_one(record): the update of the walk for input records without warp-private or locked copies.
  auto walk = [&](auto&& visit_one) {
    for_each_batch([&](std::int64_t t0, std::int64_t step, int count, unsigned part, unsigned parts) {
      const std::int64_t tile = t0 + lane * step;
      const bool has_tile = lane < count;
      unsigned begin = has_tile ? first[tile] : 0u;
      unsigned end = has_tile ? next[tile] : 0u;
      cut_to_part(begin, end, part, parts);
      if constexpr (!WarpPrivate && !std::is_same_v<Record, In>) {
        // 16-bit records of unit increments, runs of at most 64 records (many groups: H = 16M in 289 groups has ~28
        // records a run, and the longest of a warp's 32 often more than 32): count_short_runs, eight runs in flight
        // per warp before any is used, each record counted by a predicated shared reduction. The general walk below
        // keeps four runs' first two rounds in flight, half of them empty for such runs. H100, N = 50M uniform, tile
        // layout: H = 16777216 (289 groups) 432 -> 396 us with runs up to 32 taken here (sixteen in flight 405); lent
        // H200, 2026-11-26, same run: up to 64 with 32-bit run starts and predicated counts, 16M 361 -> 326 us, 4M
        // (runs of ~62, mostly the general walk) 263 -> 255 (bench/results/2026-11-26-h200-huge-short-runs.txt).
        // (With this code in the instances for input records, the compare-and-swap class's H = 786432 at RF 63 took
        // 10% longer, in a walk that never takes it.)
        const unsigned longest = __reduce_max_sync(0xffffffffu, end - begin);
        if (longest <= 64u) {
          const unsigned first = static_cast<unsigned>(tile) * static_cast<unsigned>(partition_tile) + begin;
          if (longest <= 32u) count_short_runs<1, 8>(records, first, end - begin, lane, acc, count);
          else count_short_runs<2, 4>(records, first, end - begin, lane, acc, count);
          return;
        }
      }
      // Runs are short (tens of records), so a warp loads the first two rounds of `unroll` runs before using any:
      // one memory latency per `unroll` runs instead of one per run and round.
      // Dense instances take one run at a time: four runs' loads in flight spill there.
      constexpr int unroll = dense ? 1 : 4, rounds = 2;
      for (int l0 = 0; l0 < count; l0 += unroll) {
        unsigned b0[unroll], e0[unroll];
        const Record* run[unroll];
        Record x[unroll][rounds];
#pragma unroll
        for (int u = 0; u < unroll; ++u) {
          b0[u] = __shfl_sync(0xffffffffu, begin, l0 + u);
          e0[u] = __shfl_sync(0xffffffffu, end, l0 + u);
          run[u] = records + (t0 + (l0 + u) * step) * partition_tile;
#pragma unroll
          for (int r = 0; r < rounds; ++r)
            if (b0[u] + lane + 32 * r < e0[u]) x[u][r] = run[u][b0[u] + lane + 32 * r];
        }
        if constexpr (WarpPrivate || decltype(acc)::locked) {
          // The same walk with warp-uniform bounds: a step runs while any lane of the warp has a record.
#pragma unroll
          for (int u = 0; u < unroll; ++u) {
#pragma unroll
            for (int r = 0; r < rounds; ++r)
              if (b0[u] + 32 * r < e0[u]) visit_locked(b0[u] + lane + 32 * r < e0[u], x[u][r]);
            constexpr int loads = 4;
            const Record* at = run[u] + (b0[u] + lane + 32 * rounds);  // see the walk below
            for (unsigned i0 = b0[u] + 32 * rounds; i0 < e0[u]; i0 += loads * 32, at += loads * 32) {
              In y[loads];
#pragma unroll
              for (int q = 0; q < loads; ++q)
                if (i0 + lane + 32 * q < e0[u]) y[q] = at[32 * q];
#pragma unroll
              for (int q = 0; q < loads; ++q)
                if (i0 + 32 * q < e0[u]) visit_locked(i0 + lane + 32 * q < e0[u], y[q]);
            }
          }
        } else {
#pragma unroll
          for (int u = 0; u < unroll; ++u) {
#pragma unroll
            for (int r = 0; r < rounds; ++r)
              if (b0[u] + lane + 32 * r < e0[u]) visit_one(x[u][r]);
            // The rest of long runs (a group's share of a tile is ~256 records at 32 groups; skewed input: a whole
            // tile), four loads in flight at a time (H100, H = 196608, 64 groups: 142 us; 8 loads 160 us, 16 loads
            // 239 us: the guarded loads cost more instructions than the latency they hide).
            // One pointer a lane that steps with i, so that the four loads take immediate offsets from it: indexing
            // the run's start anew made each load a 64-bit address computation with the records' pointer reloaded
            // (six instructions a load in the dense instances, whose 32 registers keep nothing between steps).
            constexpr int loads = 4;
            const Record* at = run[u] + (b0[u] + lane + 32 * rounds);
            for (unsigned i = b0[u] + lane + 32 * rounds; i < e0[u]; i += loads * 32, at += loads * 32) {
              Record y[loads];
#pragma unroll
              for (int q = 0; q < loads; ++q)
                if (i + 32 * q < e0[u]) y[q] = at[32 * q];
#pragma unroll
              for (int q = 0; q < loads; ++q)
                if (i + 32 * q < e0[u]) visit_one(y[q]);
            }
          }
        }
      }
    });
  };
  // The blocks with hot bins: a compact walk, each warp over its ticket's runs one at a time, two records a lane in
  // flight. The walk above (four runs' first rounds in flight, then four loads a step, each with its update inlined)
  // left this kernel bound by instruction fetch once the hot bins' updates were in it (ncu: 64% of the stall samples
  // on no instruction, 12.6 of 32 lanes active; Zipf(1.1), H = 786432, lent H200, 2026-12-02).
  [[maybe_unused]] auto walk_compact = [&](auto&& visit_one) {
    for_each_batch([&](std::int64_t t0, std::int64_t step, int count, unsigned part, unsigned parts) {
      const bool has_tile = lane < count;
      unsigned begin = has_tile ? first[t0 + lane * step] : 0u;
      unsigned end = has_tile ? next[t0 + lane * step] : 0u;
      cut_to_part(begin, end, part, parts);
#pragma unroll 1
      for (int l = 0; l < count; ++l) {
        const unsigned b = __shfl_sync(0xffffffffu, begin, l), e = __shfl_sync(0xffffffffu, end, l);
        const Record* run = records + (t0 + l * step) * partition_tile;
#pragma unroll 1
        for (unsigned i = b + lane; i < e; i += 64) {
          const bool second = i + 32 < e;
          const Record x0 = run[i];
          Record x1{};
          if (second) x1 = run[i + 32];
          visit_one(x0);
          if (second) visit_one(x1);
        }
      }
    });
  };
  auto plain = [&](const Record& r) { acc.visit_record(r); };
  if constexpr (hot_capable) {
    if (hot_pass.slots > 0) walk_compact([&](const In& x) { acc.visit_hot(x, hot); });
    else walk(plain);
  } else {
    walk(plain);
  }
  if constexpr (QueuedLocks) acc.flush_queued();
  acc.finish(
      block, K, tile_groups_write_dest<In, Record> && overwrite, dest, dest_locks, rows,
      [&] {
        if constexpr (hot_capable)
          if (hot_pass.slots > 0) hot.fold_into(op, hot_pass, stride);  // into copy 0
      },
      !tile_groups_write_dest<In, Record> && overwrite);
}

/// After group_histogram_kernel with rows: bin b of a group of at least `least_rows` rows gets their fold (a group
/// with one block wrote dest itself where least_rows is 2). Rows are H_chk values long, row r belonging to
/// second-pass block r. `overwrite`: dest[b] is the fold, every bin written (a group without rows gets the
/// identity), so dest needs no fill before and is not read; otherwise the fold is added to dest where it is not the
/// identity.
template <class Op>
__global__ void __launch_bounds__(256) merge_group_rows_kernel(const typename Op::value_type* rows,
                                                               const unsigned* starts, std::int64_t num_bins,
                                                               group_divider group_of, Op op,
                                                               typename Op::value_type* dest, unsigned least_rows,
                                                               bool overwrite) {
  using T = typename Op::value_type;
  wait_for_prior_kernels();
  const std::int64_t b = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (b >= num_bins) return;
  const unsigned g = group_of(static_cast<std::uint32_t>(b));
  const unsigned first = starts[g], last = starts[g + 1];
  if (last - first < least_rows) return;
  const std::int64_t stride = group_of.d, offset = b - std::int64_t{g} * stride;
  const T identity = Op::identity();
  T acc = identity;
  for (unsigned r = first; r < last; ++r) acc = op(acc, rows[r * stride + offset]);
  if (overwrite) dest[b] = acc;
  else if (!bitwise_equal(acc, identity)) dest[b] = op(dest[b], acc);
}

}  // namespace ghist::detail
