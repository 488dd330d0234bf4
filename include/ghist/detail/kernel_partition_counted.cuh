// The counted layout of the partitioned strategy (plan::counted_groups), for many groups (huge H). The tile layout
// (kernel_partition.cuh) keeps each tile's records in the tile's own slot, so the second pass reads a run per tile
// and group: with hundreds of groups a run is a few records (H = 16777216 in 289 groups: ~28), and the offsets
// table has a row per group. Here a counting pass comes first, so that every group's records end up contiguous:
//
//   1. count_groups_kernel: the slice is cut into `ranges` equal runs of tiles, one per first-pass block; each
//      block counts its range's inputs per group (table[g * ranges + r]).
//   2. scan_group_counts_kernel: each group's row becomes the exclusive scan over ranges (where range r starts
//      within the group) and the group's total; assign_group_blocks_kernel then gives each group its second-pass
//      blocks and its first record (the scan of the totals).
//   3. partition_counted_kernel: block r ranks each tile of its range by group (rank_tile, as the tile layout
//      does), stages it ordered by group in shared memory and appends each group's run at the group's cursor: its
//      writes land in ranges of their own, with no global atomics. With many groups (short runs per tile) each
//      group's partly written sector waits in shared memory until it is whole (sector_buffers).
//   4. contiguous_group_histogram_kernel: a block histograms its share of one group's records, read as one
//      contiguous stream, in shared memory (group_in_shared, as the tile layout's second pass).
// The count reads the input once more, which the long contiguous reads of the second pass pay for when the
// groups are many; the planner takes this layout from planner_constants::partition_counted_min_groups groups
// (partition_counted_min_groups_hdw for the hardware-atomic class).
// Records are the inputs, or for unit increments their 16-bit bins within the group (partition_record_t).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/detail/kernel_partition.cuh"

namespace ghist::detail {

/// The tiles [first, last) of range r of `ranges` (the same split in passes 1 and 3).
struct range_tiles {
  std::int64_t first, last;
};
__device__ __forceinline__ range_tiles tiles_of_range(std::int64_t tiles, int r, int ranges) {
  return {tiles * r / ranges, tiles * (r + 1) / ranges};
}

/// Pass 1: block r (of gridDim.x = ranges) counts its range's inputs per group into column r of the table. Blocks
/// of partition_block threads, or of 1024 where pass 3 runs one block per SM (ring_partition_kernel): the count
/// then takes as many ranges as that pass, and 512 threads per SM counted them 30% slower (H100, H = 100M: 105
/// against 81 us under ncu). The range is read 16 bytes a load where aligned (element_source::for_each; 4 bytes a
/// load before: H = 60M 504.0 / 496.7 -> 494.6 / 493.1 us for the whole call on the lent H100, 100M within 3 us).
template <class In, class BinFn>
__global__ void __launch_bounds__(1024) count_groups_kernel(const In* input, std::int64_t n, BinFn f,
                                                            std::int64_t num_bins, group_divider group_of,
                                                            int groups, unsigned* table) {
  extern __shared__ unsigned group_counts[];  // groups
  const int r = blockIdx.x, ranges = gridDim.x;
  for (int g = threadIdx.x; g < groups; g += blockDim.x) group_counts[g] = 0;
  __syncthreads();
  const range_tiles t = tiles_of_range((n + partition_tile - 1) / partition_tile, r, ranges);
  const std::int64_t end = t.last * partition_tile < n ? t.last * partition_tile : n;
  auto count = [&](const auto& update) {
    const std::int64_t bin = update.bin;
    if (static_cast<std::uint64_t>(bin) < static_cast<std::uint64_t>(num_bins))  // 0 <= bin < num_bins
      atomicAdd(&group_counts[group_of(static_cast<std::uint32_t>(bin))], 1u);
  };
  const std::int64_t first = t.first * partition_tile;
  element_source<In, BinFn>{input + first, end - first, f}.for_each(threadIdx.x, blockDim.x, count);
  __syncthreads();
  for (int g = threadIdx.x; g < groups; g += blockDim.x) table[std::int64_t{g} * ranges + r] = group_counts[g];
}

/// Pass 2, a warp per group: row g of the table (`ranges` counts) becomes its exclusive scan, and totals[g] the
/// row's sum, each count first rounded up to a multiple of `pad` (ring_partition_kernel's padded ranges: pad = the
/// records of a sector). (A template only so that the header can define it in every translation unit.)
template <class Count = unsigned>
__global__ void __launch_bounds__(256) scan_group_counts_kernel(Count* table, int groups, int ranges,
                                                                unsigned long long* totals, unsigned pad = 1) {
  wait_for_prior_kernels();
  const std::int64_t g = (std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  if (g >= groups) return;
  const int lane = threadIdx.x % 32;
  Count* row = table + g * ranges;
  const int per = (ranges + 31) / 32;
  const int begin = lane * per, end = begin + per < ranges ? begin + per : ranges;
  auto padded = [pad](unsigned c) { return (c + pad - 1) / pad * pad; };
  unsigned own = 0;
  for (int i = begin; i < end; ++i) own += padded(row[i]);
  const unsigned inclusive = warp_inclusive_scan(own);
  unsigned before = inclusive - own;
  for (int i = begin; i < end; ++i) {
    const unsigned c = padded(row[i]);
    row[i] = before;
    before += c;
  }
  if (lane == 31) totals[g] = inclusive;
}

/// Pass 3's records per 32-byte sector, the unit in which L2 and DRAM take writes.
template <class Record>
inline constexpr int records_per_sector = sizeof(Record) <= 32 ? static_cast<int>(32 / sizeof(Record)) : 1;

/// Pass 3: block r (of gridDim.x = ranges, as in pass 1) writes each group's records of its range at the group's
/// first record (record_starts) plus the range's start within the group (the scanned table). Record is In or, for
/// unit increments, the 16-bit bin within the group.
///
/// With many groups a tile holds a few records of each (H = 100M in 1721 groups: ~5), so writing them where they go
/// leaves partly written 32-byte sectors all over the workspace, which L2 evicts before the block's next tile
/// completes them: each is then merged with a DRAM read and written again (H100, H = 100M: 560 MB read and 395 MB
/// written for 200 MB of input and 100 MB of records, 817 us). With `sector_buffers` each group keeps the sector
/// its cursor is in (the head) in shared memory, and the records of a tile go to (A) the head, or straight to
/// global memory when they fill a whole sector of their own, then (B) a head that the tile completed is written as
/// one 32-byte store, then (C) the records past it start the new head. Only a range's first and last sector of
/// each group are written in part.
///
/// `Direct` (launch_counted_partition takes it for 16-bit records with sector buffers where ring_partition_kernel's
/// rings do not fit shared memory, from ~3000 groups; below, the ring kernel is faster): a tile's runs are shorter
/// than a sector (H = 100M in 1721 groups: ~5 records of 16), so almost every record goes to its group's head, and
/// ordering the tile by group first (a scan of the group counts, the staging stores and two passes reading them
/// back) is most of the work. Each thread then places its own records from its registers, where the rank says: (A)
/// to the head or, for a whole sector, straight to global memory (the sector's records come from several threads of
/// the block, all within the tile), (B) as above, (C) the records past the last whole sector to the new head.
template <class In, class BinFn, class Record, bool Direct = false>
__global__ void __launch_bounds__(partition_block, partition_pass1_blocks_per_sm) partition_counted_kernel(
    const In* input, std::int64_t n, BinFn f, std::int64_t num_bins, group_divider group_of, int groups,
    const unsigned* table, const unsigned* record_starts, Record* records, bool sector_buffers) {
  static_assert(!Direct || !std::is_same_v<Record, In>, "direct writes are for local-bin records");
  constexpr bool local_bins = !std::is_same_v<Record, In>;
  constexpr int per = records_per_sector<Record>;
  const int hot_lanes = partition_hot_group_lanes(groups);
  wait_for_prior_kernels();  // launched after the scan and assign_group_blocks_kernel (launch_after_prior)
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Record* staging = reinterpret_cast<Record*>(shared_bytes);  // the tile ordered by group
  Record* heads = staging + partition_tile;                 // sector_buffers: per records per group
  auto* staged_group = reinterpret_cast<std::uint16_t*>(heads + (sector_buffers ? std::int64_t{groups} * per : 0));
  unsigned* counts = reinterpret_cast<unsigned*>(staged_group + partition_tile);
  unsigned* starts = counts + groups;   // groups + 1
  unsigned* cursors = starts + groups + 1;
  unsigned* warp_sums = cursors + groups;  // partition_block / 32
  const int r = blockIdx.x, ranges = gridDim.x;
  auto range_start_in_table = [&](int g) { return record_starts[g] + table[std::int64_t{g} * ranges + r]; };
  // Where this range's records of group g start. Direct keeps them in `starts` (the block scan's array, which it
  // does not use): (B) asks at every completed head, and its two global loads there were the pass's costliest wait
  // (H100, H = 100M, ncu: 12% of the stall samples, and the barrier waits behind them).
  auto range_start = [&](int g) {
    if constexpr (Direct) return starts[g];
    else return range_start_in_table(g);
  };
  for (int g = threadIdx.x; g < groups; g += partition_block) {
    const unsigned first = range_start_in_table(g);
    if constexpr (Direct) starts[g] = first;
    cursors[g] = first;
    counts[g] = 0;
  }
  __syncthreads();
  // Writes head records [from, to) of group g one by one: the part of a sector that the range shares with another.
  auto write_part = [&](int g, unsigned from, unsigned to) {
    for (unsigned d = from; d < to; ++d) records[d] = heads[g * per + d % per];
  };
  // (B): the heads that this tile completed, one group per thread; `tile_count(g)`: g's records in the tile.
  auto write_completed_heads = [&](auto tile_count) {
    for (int g = threadIdx.x; g < groups; g += partition_block) {
      const unsigned head = cursors[g] / per;
      if ((cursors[g] + tile_count(g)) / per == head) continue;
      const unsigned first = range_start(g);
      if (first > head * per) {
        write_part(g, first, (head + 1) * per);
      } else {
        const uint4* from = reinterpret_cast<const uint4*>(heads + g * per);
        uint4* to = reinterpret_cast<uint4*>(records + std::int64_t{head} * per);
#pragma unroll
        for (int q = 0; q < per * static_cast<int>(sizeof(Record)) / 16; ++q) to[q] = from[q];
      }
    }
  };
  // Record d of group g, whose records of this tile end at `end`: (A) the head's go to the head and whole sectors to
  // global memory, (C) the ones past the last whole sector start the new head once (B) wrote the completed one.
  // (`record`: a Record, or a local bin in 32 bits, narrowed at the store.)
  auto place_head_or_sector = [&](int g, unsigned d, unsigned end, const auto& record) {
    if (d / per == cursors[g] / per) heads[g * per + d % per] = static_cast<Record>(record);
    else if (d / per < end / per) records[d] = static_cast<Record>(record);
  };
  auto place_tail = [&](int g, unsigned d, unsigned end, const auto& record) {
    if (d / per == end / per && end / per != cursors[g] / per) heads[g * per + d % per] = static_cast<Record>(record);
  };
  // After a tile, every group's cursor moves past its `tile_count(g)` records and its count starts again.
  auto advance_cursors = [&](auto tile_count) {
    for (int g = threadIdx.x; g < groups; g += partition_block) {
      cursors[g] += tile_count(g);
      counts[g] = 0;
    }
  };
  // Direct: every step from the registers of rank_tile (slot: group and rank; local: the record), counts holding the
  // tile's records per group. Ends with the cursors moved on and the counts cleared.
  auto write_direct = [&](const int (&slot)[partition_items], const unsigned (&local)[partition_items]) {
    constexpr int rank_mask = (1 << partition_rank_bits) - 1;
    __syncthreads();  // the tile's counts are complete
    // (A) The head's records to the head, whole sectors to global memory.
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      if (slot[j] < 0) continue;
      const int g = slot[j] >> partition_rank_bits;
      const unsigned d = cursors[g] + (slot[j] & rank_mask);
      place_head_or_sector(g, d, cursors[g] + counts[g], local[j]);
    }
    __syncthreads();
    write_completed_heads([&](int g) { return counts[g]; });
    __syncthreads();
    // (C) The records past the last whole sector of a group whose head this tile completed start its new head.
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      if (slot[j] < 0) continue;
      const int g = slot[j] >> partition_rank_bits;
      const unsigned d = cursors[g] + (slot[j] & rank_mask);
      place_tail(g, d, cursors[g] + counts[g], local[j]);
    }
    __syncthreads();
    advance_cursors([&](int g) { return counts[g]; });
    __syncthreads();
  };
  const range_tiles t = tiles_of_range((n + partition_tile - 1) / partition_tile, r, ranges);
  auto tile_size = [&](std::int64_t tile) {
    return n - tile * partition_tile < partition_tile ? n - tile * partition_tile : partition_tile;
  };
  // The next tile's loads go into the same registers once this tile's inputs are no longer needed: for local-bin
  // records after the block's scan of the group counts, for input records after staging, so that they are in
  // flight while the block stages and writes. Not before the scan: the kernel keeps a few values in local memory
  // (64 registers at two blocks per SM), the scan loads them back, and those loads then waited for the tile's
  // global loads (H100, H = 16M, 289 groups, ncu: 40% of the pass's stall samples in the scan, whose first local
  // load alone had 11%; the pass took 301.7 us with the loads issued after the ranking, 262-270 after the scan).
  In x[partition_items];
  auto load = [&](std::int64_t tile) {
    if (tile >= t.last) return;
    if (tile_size(tile) == partition_tile) load_tile<true>(input + tile * partition_tile, partition_tile, x);
    else load_tile<false>(input + tile * partition_tile, tile_size(tile), x);
  };
  load(t.first);
  for (std::int64_t tile = t.first; tile < t.last; ++tile) {
    const std::int64_t in_tile = tile_size(tile);
    int slot[partition_items];
    unsigned local[partition_items];
    if (in_tile == partition_tile)
      rank_tile<true, local_bins>(in_tile, f, num_bins, group_of, 1, hot_lanes, counts, warp_sums, x, slot,
                                    local);
    else
      rank_tile<false, local_bins>(in_tile, f, num_bins, group_of, 1, hot_lanes, counts, warp_sums, x, slot,
                                    local);
    if constexpr (Direct) {
      load(tile + 1);  // the records are the local bins, in registers
      write_direct(slot, local);
      continue;
    }
    __syncthreads();
    block_exclusive_scan(counts, starts, groups, warp_sums);
    __syncthreads();
    if constexpr (local_bins) load(tile + 1);
    constexpr int rank_mask = (1 << partition_rank_bits) - 1;
#pragma unroll
    for (int j = 0; j < partition_items; ++j) {
      if (slot[j] < 0) continue;
      const int g = slot[j] >> partition_rank_bits, at = static_cast<int>(starts[g]) + (slot[j] & rank_mask);
      if constexpr (local_bins) staging[at] = static_cast<Record>(local[j]);
      else staging[at] = x[j];
      staged_group[at] = static_cast<std::uint16_t>(g);
    }
    if constexpr (!local_bins) load(tile + 1);
    __syncthreads();
    // (A) Consecutive threads take consecutive records of a group's run.
    auto end_of = [&](int g) { return cursors[g] + (starts[g + 1] - starts[g]); };
    const int kept = static_cast<int>(starts[groups]);
    for (int i = threadIdx.x; i < kept; i += partition_block) {
      const int g = staged_group[i];
      const unsigned d = cursors[g] + (i - starts[g]);
      if (!sector_buffers) records[d] = staging[i];
      else place_head_or_sector(g, d, end_of(g), staging[i]);
    }
    if (sector_buffers) {
      __syncthreads();
      // (B) Heads this tile completed.
      write_completed_heads([&](int g) { return starts[g + 1] - starts[g]; });
      __syncthreads();
      // (C) The records past the last whole sector start the new head.
      for (int i = threadIdx.x; i < kept; i += partition_block) {
        const int g = staged_group[i];
        place_tail(g, cursors[g] + (i - starts[g]), end_of(g), staging[i]);
      }
    }
    __syncthreads();
    advance_cursors([&](int g) { return starts[g + 1] - starts[g]; });
    __syncthreads();
  }
  if (sector_buffers) {  // the heads left: the part of each last sector that this range wrote
    for (int g = threadIdx.x; g < groups; g += partition_block) {
      const unsigned head_first = cursors[g] / per * per, first = range_start(g);
      write_part(g, first > head_first ? first : head_first, cursors[g]);
    }
  }
}

/// Pass 4 over 16-bit local-bin records [begin, end): 16-byte loads of 8 records, four in flight per thread (two
/// bytes per thread and load would keep a quarter of the bytes in flight that the read rate needs); the records
/// array is 16-byte aligned, the unaligned head and tail go one record per thread.
template <class Acc>
__device__ __forceinline__ void count_local_bin_records(const std::uint16_t* records, std::int64_t begin,
                                                        std::int64_t end, Acc& acc) {
  const std::int64_t step = blockDim.x;
  const std::int64_t body_first = (begin + 7) / 8 * 8 < end ? (begin + 7) / 8 * 8 : end;
  const std::int64_t body_last = end / 8 * 8 > body_first ? end / 8 * 8 : body_first;
  for (std::int64_t i = begin + threadIdx.x; i < body_first; i += step) acc.count(records[i]);
  for (std::int64_t i = body_last + threadIdx.x; i < end; i += step) acc.count(records[i]);
  auto count_vector = [&](const uint4& v) {
    for (const unsigned w : {v.x, v.y, v.z, v.w}) {
      acc.count(w & 0xffffu);
      acc.count(w >> 16);
    }
  };
  for_each_strided<4>(reinterpret_cast<const uint4*>(records), body_first / 8 + threadIdx.x, body_last / 8, step,
                      count_vector);
}

/// Pass 4: block b histograms its share k of group g's K blocks (starts[g] <= b < starts[g + 1]): the records
/// [record_starts[g], record_starts[g + 1]) split in K equal parts. `overwrite`: a group's only block writes all
/// its bins (with groups without records given one block each). Threads: the block's (second_pass_threads).
/// QueuedLocks (plan::lock_queue): the lock class's updates that change a bin wait in the warp's queue after the
/// copies, lock_queue_bytes(Threads, sizeof(value)) bytes from lock_queue_offset(copies).
template <class In, class BinFn, class Op, class Record, bool WarpPrivate = false, int Threads = partition_block,
          bool QueuedLocks = false>
__global__ void __launch_bounds__(Threads, partition_block * partition_blocks_per_sm / Threads)
    contiguous_group_histogram_kernel(
    const Record* records, const unsigned* record_starts, const unsigned* starts, int groups, BinFn f, Op op,
    typename Op::value_type* dest, int* dest_locks, typename Op::value_type* rows, std::int64_t num_bins,
    group_divider group_of, int M, bool overwrite) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const unsigned block = blockIdx.x;
  wait_for_prior_kernels();  // launched after the first pass (launch_after_prior): starts, records
  group_share share;
  if (!group_of_block(starts, groups, block, share)) return;
  const int g = share.group;
  group_in_shared<In, BinFn, Op, WarpPrivate> acc(shared_bytes, f, op, static_cast<int>(group_of.d),
                                                  group_low(g, group_of), group_length(g, group_of, num_bins), M);
  const std::int64_t first = record_starts[g], count = std::int64_t{record_starts[g + 1]} - first;
  const std::int64_t begin = first + count * share.k / share.K, end = first + count * (share.k + 1) / share.K;
  constexpr int loads = 8;  // in flight per thread
  const std::int64_t step = blockDim.x;
  if constexpr (!std::is_same_v<Record, In>) {
    count_local_bin_records(records, begin, end, acc);
  } else if constexpr (WarpPrivate || QueuedLocks) {
    // Every lane of a warp steps together: a step runs while any lane of the warp has a record.
    if constexpr (QueuedLocks) acc.attach_lock_queue(shared_bytes + lock_queue_offset(acc.copies_bytes()));
    const std::int64_t warp_first = begin + threadIdx.x / 32 * 32, lane = threadIdx.x % 32;
    for (std::int64_t i0 = warp_first; i0 < end; i0 += loads * step) {
      In y[loads];
#pragma unroll
      for (int q = 0; q < loads; ++q)
        if (i0 + lane + q * step < end) y[q] = records[i0 + lane + q * step];
#pragma unroll
      for (int q = 0; q < loads; ++q) {
        if (i0 + q * step >= end) continue;
        if constexpr (QueuedLocks) acc.visit_queued(i0 + lane + q * step < end, y[q]);
        else acc.visit_together(i0 + lane + q * step < end, y[q]);
      }
    }
    if constexpr (QueuedLocks) acc.flush_queued();
  } else {
    for_each_strided<loads>(records, begin + threadIdx.x, end, step, [&](const In& x) { acc.visit(x); });
  }
  acc.finish(block, share.K, overwrite, dest, dest_locks, rows);
}

}  // namespace ghist::detail
