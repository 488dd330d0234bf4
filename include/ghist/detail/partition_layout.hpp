// The shape and workspace of the partitioned strategy (plan.hpp's strategy::partitioned), shared by the planner
// (pure host code) and the kernels in kernel_partition.cuh.
//
// Workspace of one slice of at most partition_slice_tiles tiles (the input is partitioned slice by slice, so the
// workspace is bounded whatever n is):
//   records  slice_tiles * partition_tile input records, each tile's records grouped by bin range
//   offsets  (groups + 1) rows of slice_tiles: offsets[g * slice_tiles + t] = first record of group g in tile t
//            (row `groups` holds each tile's count of records kept)
//   totals   groups 64-bit counts of records per group in the slice
//   starts   groups + 1: the first second-pass block of each group (blocks per group follow the group's share)
//   locks    num_bins locks of the destination, for the lock class when it merges with locks
//   rows     (grid + groups) rows of H_chk values, one per second-pass block, when the blocks merge through rows
//            (plan::merge_rows: the cas and xcg classes; group_rows_bytes)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "ghist/config.hpp"

namespace ghist::detail {

inline constexpr int partition_block = 512;  ///< threads per block of both passes
inline constexpr int partition_items = 16;   ///< inputs per thread per tile in the first pass
inline constexpr std::int64_t partition_tile = std::int64_t{partition_block} * partition_items;
inline constexpr int max_partition_groups = 1024;  ///< the tile layout's groups (its offsets table has a row each)
/// The counted layout's groups (pass 1 keeps a count, a start and a cursor per group in shared memory).
inline constexpr int max_counted_groups = 4096;
inline constexpr int partition_rank_bits = 13;     ///< a rank within a tile's group is below 2^13 = partition_tile
static_assert(partition_block * partition_items <= (1 << partition_rank_bits), "ranks fit their bits");
static_assert(max_counted_groups <= (1 << (31 - partition_rank_bits)), "group and rank fit an int");
inline constexpr std::int64_t partition_slice_tiles = 8192;  ///< 64M inputs per slice
/// Pass 1 takes a warp's ranks through its skewed-input branch (rank_tile) when more than this many of its 32 lanes
/// fall in lane 0's group. Uniform input puts 1 + Binomial(31, 1 / groups) lanes there: with 8 above that (the
/// rule before) 3.3% of the warps of a tile in 8 groups took the branch, and their blocks waited on them at the next
/// barrier (H200, ncu of pass 1 in 8 groups: 18% of the warps' samples at that barrier, against 2% in 32 groups).
/// 8 + 32 / groups puts it 2.7 (2-4 groups) to 4 (8 groups) and more standard deviations above the uniform count,
/// and at 8 or more groups leaves it 8-12 lanes for a hot group of skewed input, as before.
GHIST_HD constexpr int partition_hot_group_lanes(int groups) { return 8 + 32 / (groups > 0 ? groups : 1); }

/// The passes' occupancy (launch bounds). Pass 1 at 3 blocks per SM spills (40 registers), at 2 it does not (64):
/// H100, HDW H = 196608, 32 groups, ncu --clock-control none: 221 us with 3, 206 us with 2.
inline constexpr int partition_pass1_blocks_per_sm = 2;
inline constexpr int partition_blocks_per_sm = 2;  ///< the second pass's
inline constexpr std::int64_t max_partition_bins = std::int64_t{1} << 31;  ///< bins are divided as 31-bit values

/// n / d for 0 <= n < 2^31 with a multiply-high and a shift (Granlund and Montgomery's round-up method: with
/// l = ceil(log2 d) and m = ceil(2^(31 + l) / d), which fits 32 bits, n / d = floor(m * n / 2^(31 + l))). Group
/// sizes need not be powers of two, so the number of groups can match the number of second-pass blocks.
struct group_divider {
  std::uint32_t d = 1, m = 0;
  int shift = 0;  // l - 1

  static group_divider make(std::uint32_t d) {
    group_divider g;
    g.d = d;
    if (d < 2) return g;
    int l = 0;
    while ((std::uint64_t{1} << l) < d) ++l;
    g.m = static_cast<std::uint32_t>(((std::uint64_t{1} << (31 + l)) + d - 1) / d);
    g.shift = l - 1;
    return g;
  }
  GHIST_HD std::uint32_t operator()(std::uint32_t n) const {
    if (d < 2) return n;
#ifdef __CUDA_ARCH__
    return __umulhi(n, m) >> shift;
#else
    return static_cast<std::uint32_t>((std::uint64_t{n} * m) >> 32) >> shift;
#endif
  }
};

struct partition_layout {
  std::int64_t slice_tiles = 0;
  std::size_t records = 0, offsets = 0, totals = 0, starts = 0, locks = 0, rows = 0, bytes = 0;
  std::size_t record_starts = 0;  ///< the counted layout's first record of each group (groups + 1)
  std::size_t tickets = 0;        ///< the tile layout's next tile of each group for its second pass (groups)
};

inline std::size_t partition_align(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// Bytes of the second pass's rows: one of H_chk values per block, for at most grid + groups blocks.
inline std::size_t group_rows_bytes(int grid, int groups, std::int64_t H_chk, std::size_t value_bytes) {
  return (static_cast<std::size_t>(grid) + static_cast<std::size_t>(groups)) * static_cast<std::size_t>(H_chk) *
         value_bytes;
}

/// with_locks: the destination's locks (xcg merging with locks); rows_bytes: the rows (0: none).
inline partition_layout make_partition_layout(std::int64_t n, int groups, std::size_t record_bytes,
                                              std::int64_t num_bins, bool with_locks, std::size_t rows_bytes = 0) {
  partition_layout l;
  l.slice_tiles = std::max<std::int64_t>(1, std::min((n + partition_tile - 1) / partition_tile, partition_slice_tiles));
  const auto tiles = static_cast<std::size_t>(l.slice_tiles);
  const auto g = static_cast<std::size_t>(groups);
  l.records = 0;
  l.offsets = partition_align(tiles * static_cast<std::size_t>(partition_tile) * record_bytes);
  l.totals = l.offsets + partition_align((g + 1) * tiles * sizeof(std::uint32_t));
  l.starts = l.totals + partition_align(g * sizeof(unsigned long long));
  l.tickets = l.starts + partition_align((g + 1) * sizeof(std::uint32_t));
  l.locks = l.tickets + partition_align(g * sizeof(std::uint32_t));
  l.rows = l.locks + (with_locks ? partition_align(static_cast<std::size_t>(num_bins) * sizeof(int)) : 0);
  l.bytes = l.rows + partition_align(rows_bytes);
  return l;
}

/// The counted layout (plan::counted_groups, kernel_partition_counted.cuh): the first pass's blocks each take one
/// of at most `ranges` equal runs of a slice's tiles, so its table has groups rows of `ranges` counts (then starts),
/// in place of the tile layout's offsets; records of a group are contiguous.
inline partition_layout make_counted_partition_layout(std::int64_t n, int groups, int ranges, std::size_t record_bytes,
                                                      std::int64_t num_bins, bool with_locks,
                                                      std::size_t rows_bytes = 0) {
  partition_layout l = make_partition_layout(n, groups, record_bytes, num_bins, with_locks, rows_bytes);
  const auto tiles = static_cast<std::size_t>(l.slice_tiles);
  const auto g = static_cast<std::size_t>(groups);
  l.records = 0;
  // Room for padded ranges (ring_partition_kernel<..., Padded>): each group's part of each range may be rounded up
  // to whole 32-byte sectors of records.
  const std::size_t per_sector = record_bytes < 32 ? 32 / record_bytes : 1;
  const std::size_t padding = g * static_cast<std::size_t>(ranges) * (per_sector - 1);
  l.offsets = partition_align((tiles * static_cast<std::size_t>(partition_tile) + padding) * record_bytes);
  l.totals = l.offsets + partition_align(g * static_cast<std::size_t>(ranges) * sizeof(std::uint32_t));
  l.starts = l.totals + partition_align(g * sizeof(unsigned long long));
  l.record_starts = l.starts + partition_align((g + 1) * sizeof(std::uint32_t));
  l.tickets = 0;  // its second pass takes no tickets
  l.locks = l.record_starts + partition_align((g + 1) * sizeof(std::uint32_t));
  l.rows = l.locks + (with_locks ? partition_align(static_cast<std::size_t>(num_bins) * sizeof(int)) : 0);
  l.bytes = l.rows + partition_align(rows_bytes);
  return l;
}

/// The counted layout's first-pass ranges on a device: one per resident block of its partitioning kernel.
inline int counted_partition_ranges(int sm_count) { return sm_count * partition_pass1_blocks_per_sm; }

/// The partitioned strategy's records for unit increments (problem::unit_increments), in both layouts: each input's
/// bin within its group in 16 bits instead of the input, so that the partition writes and the second pass reads
/// half the bytes of 4-byte inputs (H100, 50M inputs: bench/NOTES.md, twelfth session). A group then holds at most
/// 2^16 bins.
inline constexpr std::int64_t max_local_bin_group = std::int64_t{1} << 16;
inline constexpr std::size_t partition_record_bytes(std::size_t input_bytes, bool unit_increments) {
  return unit_increments ? sizeof(std::uint16_t) : input_bytes;
}

/// Whether the counted layout's partitioning kernel can keep a 32-byte sector per group (its head, written whole
/// once complete; kernel_partition_counted.cuh): records whose size divides 32.
inline constexpr bool counted_sector_records(std::size_t record_bytes) {
  return record_bytes > 0 && record_bytes <= 16 && 32 % record_bytes == 0;
}

/// Shared memory of the counted layout's partitioning kernel: the staging tile and each staged record's group
/// (16 bits), with sector_buffers a 32-byte head sector per group, and per group its count, start (groups + 1)
/// and cursor, and the block scan's warp sums.
inline constexpr std::size_t counted_pass1_shared_bytes(std::size_t record_bytes, int groups,
                                                        bool sector_buffers = false) {
  return static_cast<std::size_t>(partition_tile) * (record_bytes + sizeof(std::uint16_t)) +
         (sector_buffers ? 32 * static_cast<std::size_t>(groups) : 0) +
         (3 * static_cast<std::size_t>(groups) + 1 + partition_block / 32) * sizeof(std::uint32_t);
}

/// The counted layout keeps head sectors from this many groups on. They cost instructions (the kernel is then bound
/// by issue) and save DRAM traffic once a tile's runs are short: H100, 50M inputs, 16-bit records, partitioning
/// pass alone (ncu): H = 16M, 289 groups (runs of ~28 records), 312 us without, 406 with; H = 100M, 1721 groups
/// (~5 records), 817 us without (560 MB read, 395 MB written), 570 with (241 / 118 MB).
inline constexpr int counted_sector_buffer_min_groups = 512;

/// Whether the counted layout's partitioning kernel keeps head sectors (counted_sector_records) on a device whose
/// blocks may opt in to shared_optin bytes.
inline constexpr bool counted_sector_buffers(std::size_t record_bytes, int groups, std::size_t shared_optin) {
  return groups >= counted_sector_buffer_min_groups && counted_sector_records(record_bytes) &&
         counted_pass1_shared_bytes(record_bytes, groups, true) <= shared_optin;
}

/// ring_partition_kernel (kernel_partition_ring.cuh), the counted layout's pass 3 for 16-bit records with head
/// sectors where its rings fit.
inline constexpr int ring_block = 1024;  ///< threads per block (one block per SM: the rings take the memory)
inline constexpr int ring_items = 16;    ///< inputs per thread per tile

/// Shared memory of ring_partition_kernel<Sectors, FirstAside>: per group the ring (32 bytes a sector), with
/// first_aside the range's first sector (32 bytes), its cursor, the first record past its ring and the range's first
/// record.
inline constexpr std::size_t ring_partition_shared_bytes(int groups, int sectors, bool first_aside = false) {
  return static_cast<std::size_t>(groups) *
         (32 * static_cast<std::size_t>(sectors + (first_aside ? 1 : 0)) + 3 * sizeof(unsigned));
}

/// The most sectors per ring (2, 4 or 8) that fit shared_optin bytes for `groups` groups; 0 when two do not.
inline constexpr int ring_partition_sectors(int groups, std::size_t shared_optin) {
  int sectors = 0;
  for (int s = 2; s <= 8; s *= 2)
    if (ring_partition_shared_bytes(groups, s) <= shared_optin) sectors = s;
  return sectors;
}

/// Whether ring_partition_kernel with `sectors` (ring_partition_sectors) also keeps each range's first sector aside.
inline constexpr bool ring_partition_first_aside(int groups, int sectors, std::size_t shared_optin) {
  return sectors > 0 && ring_partition_shared_bytes(groups, sectors, true) <= shared_optin;
}

/// narrow_group_count_kernel (kernel_partition_narrow.cuh): a block with at most this many records counts them in
/// 16-bit counters.
inline constexpr std::int64_t narrow_count_limit = 0xffff;

/// Shared memory of narrow_group_count_kernel for groups of group_bins bins: group_bins 16-bit counters and one for
/// the padding records (local bin group_bins, which padded ranges add: kernel_partition_ring.cuh), or half the bins
/// (rounded up) in 32-bit counters; whole 16-byte vectors, which the zeroing stores.
inline constexpr std::size_t narrow_counts_shared_bytes(std::int64_t group_bins) {
  return static_cast<std::size_t>((group_bins + 1 + 7) / 8) * 16;
}

/// The workspace of a partitioned plan in either layout (plan::counted_groups), for inputs of input_bytes.
inline partition_layout make_partition_layout_for(bool counted, std::int64_t n, int groups, int sm_count,
                                                  std::size_t input_bytes, bool unit_increments,
                                                  std::int64_t num_bins, bool with_locks,
                                                  std::size_t rows_bytes = 0) {
  const std::size_t record_bytes = partition_record_bytes(input_bytes, unit_increments);
  if (!counted) return make_partition_layout(n, groups, record_bytes, num_bins, with_locks, rows_bytes);
  return make_counted_partition_layout(n, groups, counted_partition_ranges(sm_count), record_bytes, num_bins,
                                       with_locks, rows_bytes);
}

}  // namespace ghist::detail
