// The counted layout's partitioning pass for many groups, with a ring of 2, 4 or 8 sectors per group
// (ring_partition_kernel), taken for 16-bit records with head sectors (512 groups and more) where the rings fit.
//
// With ~1700 groups (H = 100M) a tile gives each group a few records, so nearly every record waits in shared memory
// for its 32-byte sector to fill (kernel_partition_counted.cuh, sector_buffers). partition_counted_kernel<Direct>
// ranks each tile by group (a count per group and tile), then places the records in three phases around the write
// of the completed heads, with five barriers and two loops over the groups per tile; under ncu on the H100 at H =
// 100M it issued ~98 instructions per input at 0.38 per cycle and scheduler (the rest waiting at barriers and on
// shared memory), 418 us for 200 MB read and 112 MB written.
//
// Here each group keeps its running cursor (where its next record goes) and a ring of Sectors sectors of records in
// shared memory, starting with the sector its cursor was in when the tile began (`limit`, the first record past the
// ring, is kept instead: one compare per input):
//   1. each input takes its place with one shared atomic on its group's cursor and goes to the ring when its
//      sector is in the ring, else (a group with more than the ring's records in the tile: skewed input) straight
//      to global memory, whose sectors past the ring the tile then writes whole except the last;
//   2. after one barrier, a thread per group writes the ring sectors that the tile completed (32 bytes a store; the
//      range's first sector, whose part below the range's start the range before owns, is kept aside where shared
//      memory allows, else written from the range's start on; with padded ranges no sector is shared), and when the
//      cursor ended past the ring, reads the last sector's records back from global memory into the ring;
//   3. after a second barrier the next tile begins.
// Two barriers per tile and one loop over the groups; ranks need no per-tile counts. The records of a group within
// the range are in no particular order, which a histogram does not mind. The rings take the block's shared memory
// (1721 groups x 2 sectors: 131 KB), so a block of 1024 threads per SM.
// Same run against partition_counted_kernel<Direct> (lent H200, N = 50M uniform, the whole call, us; ncu on the
// H100 and H200): H = 100M (1721 groups, 2 sectors) 681 -> 561, the pass 418 -> 288 under ncu on the H100; 60M (1033,
// 4 sectors) 546 -> 480; 40M (689, 8) 503 -> 436; 30M (517, 8) unchanged. More sectors where they fit: 40M with 2
// sectors was 26% slower than the Direct kernel (a tile's ~24 records per group overflowed two sectors).
#pragma once

#include <cstdint>

#include "ghist/detail/kernel_partition.cuh"
#include "ghist/detail/kernel_partition_counted.cuh"

namespace ghist::detail {

/// Block r of gridDim.x = ranges writes the 16-bit local bins of range r's inputs (the tiles of count_groups_kernel's
/// range r) at record_starts[g] + table[g * ranges + r] on, as partition_counted_kernel does.
/// FirstAside (where it fits shared memory, ring_partition_first_aside): the range's first sector of each group,
/// which it shares with the range before and so writes only in part, is kept aside in shared memory once complete
/// and written at the end with the last sectors, a thread per record; otherwise the thread of its group writes it
/// record by record when it completes. Written early, those partial sectors waited in L2 for the range before to
/// finish theirs at its end, were evicted and merged through DRAM: kept aside, the two parts are written at about
/// the same time. Lent H100, N = 50M uniform, same run: H = 100M (1848 groups, 2 sectors) 604.3 / 604.4 -> 549.8 /
/// 552.2 us, the pass 292 -> 255 us under ncu with 10 MB less read and written; 60M (1188 groups, 4 sectors) 509.8 /
/// 503.3 -> 501.4 / 495.9 (bench/results/2026-11-27-h100-ring-first-aside.txt).
/// Padded (the scan rounded each group's count in each range up to whole sectors, scan_group_counts_kernel's pad):
/// every range starts each group at a sector of its own, so no sector is shared and none is written in part; the
/// unused end of each group's last sector gets padding records (local bin group_of.d, which
/// narrow_group_count_kernel counts in a counter of its own and never writes out). Taken where that kernel is the
/// second pass. Without shared sectors the end needs no pass over records, which was ~7.5% of this kernel's stall
/// samples with FirstAside (H = 100M: 1848 groups x 32 records per block, a 2-byte store each, ~7 lanes of 32 active).
/// Lent H100, N = 50M uniform, same run, three pairs: H = 100M 544.0 / 541.3 / 544.3 -> 517.8 / 519.0 / 520.9 us, 60M
/// 488.1 / 474.8 / 476.3 -> 457.2 / 506.3 / 454.5 (bench/results/2026-11-27-h100-padded-ranges.txt).
/// starts, zero_shared_groups: when overwriting, the bins of groups with several second-pass blocks are zeroed here
/// (instead of by fill_shared_groups_kernel).
template <class In, class BinFn, int Sectors, bool FirstAside, bool Padded = false>
__global__ void __launch_bounds__(ring_block, 1)
    ring_partition_kernel(const In* input, std::int64_t n, BinFn f, std::int64_t num_bins, group_divider group_of,
                          int groups, const unsigned* table, const unsigned* record_starts, std::uint16_t* records,
                          const unsigned* starts, std::uint32_t* zero_shared_groups) {
  static_assert(!(Padded && FirstAside), "padded ranges share no sector");
  constexpr int per = records_per_sector<std::uint16_t>, ring_records = Sectors * per;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto* ring = reinterpret_cast<std::uint16_t*>(shared_bytes);                  // groups x ring_records
  auto* aside = ring + std::int64_t{groups} * ring_records;                      // groups x per, if FirstAside
  auto* cursor = reinterpret_cast<unsigned*>(aside + (FirstAside ? std::int64_t{groups} * per : 0));  // groups
  // The first record past the ring: its window is the sectors [limit / per - Sectors, limit / per), from the sector
  // the cursor was in when the tile began.
  unsigned* limit = cursor + groups;                                              // groups
  unsigned* first = limit + groups;                                               // groups
  const int r = blockIdx.x, ranges = gridDim.x;
  wait_for_prior_kernels();
  if (zero_shared_groups != nullptr) {
    // Overwriting: the bins of the groups that several second-pass blocks merge into start from zero
    // (fill_shared_groups_kernel's work, here a slice of each such group per block: one kernel fewer).
    for (int g = threadIdx.x; g < groups; g += ring_block) {
      if (starts[g + 1] - starts[g] < 2) continue;
      const std::int64_t lo = group_low(g, group_of), len = group_length(g, group_of, num_bins);
      for (std::int64_t b = lo + len * r / ranges; b < lo + len * (r + 1) / ranges; ++b) zero_shared_groups[b] = 0;
    }
  }
  for (int g = threadIdx.x; g < groups; g += ring_block) {
    const unsigned start = record_starts[g] + table[std::int64_t{g} * ranges + r];
    cursor[g] = first[g] = start;
    limit[g] = (start / per + Sectors) * per;
  }
  __syncthreads();
  const range_tiles t = tiles_of_range((n + partition_tile - 1) / partition_tile, r, ranges);
  const std::int64_t begin = t.first * partition_tile, end = t.last * partition_tile < n ? t.last * partition_tile : n;
  constexpr std::int64_t tile = std::int64_t{ring_block} * ring_items;

  // Writes ring records [from, to) of group g one by one (a sector that the range shares with another).
  auto write_part = [&](int g, unsigned from, unsigned to) {
    for (unsigned d = from; d < to; ++d) records[d] = ring[g * ring_records + d % ring_records];
  };
  auto write_sector = [&](int g, unsigned s) {  // ring sector s of group g, whole
    const uint4* from = reinterpret_cast<const uint4*>(ring + g * ring_records + (s % Sectors) * per);
    uint4* to = reinterpret_cast<uint4*>(records + std::int64_t{s} * per);
    to[0] = from[0];
    to[1] = from[1];
  };
  // 1. Input j of this thread's tile share: its place, then the ring or global memory.
  auto place = [&](int g, unsigned d, unsigned local) {
    if (d < limit[g]) ring[g * ring_records + d % ring_records] = static_cast<std::uint16_t>(local);
    else records[d] = static_cast<std::uint16_t>(local);
  };
  // 2. The sectors the tile completed, one group per thread.
  auto write_completed = [&]() {
    for (int g = threadIdx.x; g < groups; g += ring_block) {
      const unsigned c = cursor[g], s = limit[g] / per - Sectors, e = c / per;
      if (e > s) {
        const unsigned f0 = first[g];
        if (!Padded && f0 > s * per) {  // the range's first sector: the range before wrote its records below f0
          if constexpr (FirstAside) {
            const uint4* from = reinterpret_cast<const uint4*>(ring + g * ring_records + (s % Sectors) * per);
            uint4* to = reinterpret_cast<uint4*>(aside + g * per);
            to[0] = from[0];
            to[1] = from[1];
          } else {
            write_part(g, f0, (s + 1) * per);
          }
        } else {
          write_sector(g, s);
        }
        const unsigned in_ring_end = e < s + Sectors ? e : s + Sectors;
#pragma unroll 1
        for (unsigned q = s + 1; q < in_ring_end; ++q) write_sector(g, q);
        if (e >= s + Sectors) {
          // The cursor ended past the ring: sector e was written to global memory in part; read it back.
          for (unsigned d = e * per; d < c; ++d) ring[g * ring_records + d % ring_records] = __ldcg(records + d);
        }
      }
      limit[g] = (e + Sectors) * per;
    }
  };

  In x[ring_items];
  auto load = [&](std::int64_t at) {
    if (at >= end) return;
    if (end - at >= tile) {
#pragma unroll
      for (int j = 0; j < ring_items; ++j) x[j] = input[at + j * ring_block + threadIdx.x];
    } else {
#pragma unroll
      for (int j = 0; j < ring_items; ++j)
        if (at + j * ring_block + threadIdx.x < end) x[j] = input[at + j * ring_block + threadIdx.x];
    }
  };
  const int lane = threadIdx.x % 32;
  load(begin);
  for (std::int64_t at = begin; at < end; at += tile) {
    const std::int64_t in_tile = end - at < tile ? end - at : tile;
    // key: the group in the high 16 bits, the bin within it in the low 16 (-1: dropped), one register per input.
    int key[ring_items];
#pragma unroll
    for (int j = 0; j < ring_items; ++j) {
      key[j] = -1;
      if (j * ring_block + threadIdx.x < in_tile) {
        const std::int64_t bin = f(x[j]).bin;
        if (static_cast<std::uint64_t>(bin) < static_cast<std::uint64_t>(num_bins)) {  // 0 <= bin < num_bins
          const unsigned g = group_of(static_cast<std::uint32_t>(bin));
          key[j] = static_cast<int>(g << 16 | (static_cast<unsigned>(bin) - g * group_of.d));
        }
      }
    }
    load(at + tile);  // the next tile's loads fly while this one is placed and written
    // A warp whose inputs of the tile are all in one group (skewed or sorted input) takes its places with one
    // atomic; otherwise that group's cursor would take the warp's atomics one by one.
    const int g0 = key[0] >> 16;
    bool same = key[0] >= 0;
#pragma unroll
    for (int j = 1; j < ring_items; ++j) same = same && key[j] >> 16 == g0;
    if (__all_sync(0xffffffffu, same && g0 == __shfl_sync(0xffffffffu, g0, 0))) {
      unsigned base = 0;
      if (lane == 0) base = atomicAdd(&cursor[g0], 32u * ring_items);
      base = __shfl_sync(0xffffffffu, base, 0) + lane;
#pragma unroll
      for (int j = 0; j < ring_items; ++j) place(g0, base + 32u * j, key[j] & 0xffff);
    } else {
      // Eight atomics in flight, then their places: sixteen at once spilled registers (a thread of a 1024-thread
      // block has 64).
      constexpr int batch = 8;
#pragma unroll
      for (int j0 = 0; j0 < ring_items; j0 += batch) {
        unsigned d[batch];
#pragma unroll
        for (int j = 0; j < batch; ++j)
          if (key[j0 + j] >= 0) d[j] = atomicAdd(&cursor[key[j0 + j] >> 16], 1u);
#pragma unroll
        for (int j = 0; j < batch; ++j)
          if (key[j0 + j] >= 0) place(key[j0 + j] >> 16, d[j], key[j0 + j] & 0xffff);
      }
    }
    __syncthreads();
    write_completed();
    __syncthreads();
  }
  if constexpr (Padded) {
    // Each group's last sector, its end padded, whole.
    const auto padding = static_cast<std::uint16_t>(group_of.d);
    for (int g = threadIdx.x; g < groups; g += ring_block) {
      const unsigned c = cursor[g];
      if (c % per == 0) continue;
      for (unsigned d = c; d % per != 0; ++d) ring[g * ring_records + d % ring_records] = padding;
      write_sector(g, c / per);
    }
  } else if constexpr (FirstAside) {
    // Thread i of group g's 2 x per: record i of the range's first sector (from the side when it completed, else
    // from the ring), or record i - per of its last sector, each where this range wrote it.
    for (int i = threadIdx.x; i < groups * 2 * per; i += ring_block) {
      const int g = i / (2 * per), j = i % (2 * per);
      const unsigned c = cursor[g], f0 = first[g], s0 = f0 / per, head = c / per;
      if (j < per) {
        const unsigned d = s0 * per + j;
        if (d < f0 || d >= c || (head > s0 && f0 == s0 * per)) continue;  // not ours, or written whole
        records[d] = head > s0 ? aside[g * per + j] : ring[g * ring_records + d % ring_records];
      } else {
        const unsigned d = head * per + (j - per);
        if (head == s0 || d >= c) continue;  // the first sector (above), or past the range's records
        records[d] = ring[g * ring_records + d % ring_records];
      }
    }
  } else {
    // The part of each group's last sector that this range wrote.
    for (int g = threadIdx.x; g < groups; g += ring_block) {
      const unsigned c = cursor[g], head_first = c / per * per, f0 = first[g];
      write_part(g, f0 > head_first ? f0 : head_first, c);
    }
  }
}

}  // namespace ghist::detail
