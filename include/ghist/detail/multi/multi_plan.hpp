// Plans of the fused, batched and vector-valued histograms (seed 000 sections IV-B..IV-D): pure host arithmetic,
// no CUDA calls, so that host tests check it against hand-computed cases.
//
// All three keep one pass over the input (S = 1): a fused or batched call exists to read the input once, and a
// multi-pass plan would re-read it per chunk. So the choice is shared memory with M sub-histograms per block when
// M = 1 fits (seed 000 eqs. 1-2 applied to the sum of the sizes, footnote 7's one-block-per-SM budget as fallback),
// else global memory with one copy (the destination itself, updated with the operator's global atomic).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ghist/atomic_class.hpp"
#include "ghist/config.hpp"
#include "ghist/device_info.hpp"
#include "ghist/error.hpp"
#include "ghist/plan.hpp"

namespace ghist::detail::multi {

using i64 = std::int64_t;

inline i64 ceil_div(i64 a, i64 b) { return (a + b - 1) / b; }
inline std::size_t round_up(std::size_t a, std::size_t b) { return (a + b - 1) / b * b; }

/// Each target's region in shared memory starts on this boundary (16-byte types, wide stores).
inline constexpr std::size_t region_alignment = 16;
inline constexpr std::size_t lock_bytes = 4;
/// Blocks of the global-memory kernels: planner_constants::global_block, as the engine.
/// Batched blocks shrink to the inputs a block sees, but never below this (two warps keep an SM's issue busy).
inline constexpr int min_batched_block = 64;

/// One histogram as the planner sees it: bins, atomic class and the size of a bin.
struct target_shape {
  i64 num_bins = 0;
  atomic_class op_class = atomic_class::hdw;
  std::size_t value_bytes = 4;
};

template <class Op>
target_shape shape_of(i64 num_bins) {
  return {num_bins, atomic_class_of<Op>, sizeof(typename Op::value_type)};
}

/// Bytes of M sub-histograms of one target in shared memory: values, then (lock class) one 4-byte lock per bin at the
/// next 4-byte boundary, rounded up to region_alignment so the next target's region is aligned.
inline std::size_t region_bytes(const target_shape& t, i64 M) {
  const std::size_t bins = static_cast<std::size_t>(M) * static_cast<std::size_t>(t.num_bins);
  std::size_t b = bins * t.value_bytes;
  if (t.op_class == atomic_class::xcg) b = round_up(b, lock_bytes) + bins * lock_bytes;
  return round_up(b, region_alignment);
}

/// Byte offset of each target's region for M sub-histograms, and the total (last entry).
inline std::vector<std::size_t> region_offsets(const std::vector<target_shape>& ts, i64 M) {
  std::vector<std::size_t> off(ts.size() + 1, 0);
  for (std::size_t j = 0; j < ts.size(); ++j) off[j + 1] = off[j] + region_bytes(ts[j], M);
  return off;
}

/// Shared memory one block may use when blocks_per_sm blocks of B threads are resident (seed 000 footnote 7), as
/// the engine's planner computes it.
inline std::size_t shared_limit(const device_info& dev, int B, int blocks_per_sm) {
  const std::size_t per_block = dev.shared_per_sm / static_cast<std::size_t>(std::max(1, blocks_per_sm));
  const std::size_t usable = per_block > dev.reserved_shared_per_block ? per_block - dev.reserved_shared_per_block : 0;
  (void)B;
  return std::min(dev.shared_per_block_optin, usable);
}

struct multi_plan {
  strategy kind = strategy::shared_memory;
  int M = 1;                     ///< sub-histograms per block (shared); 1 in global memory
  int K = 1;                     ///< batched: blocks per segment (seed 000 IV-C)
  int grid = 0;
  int block = 0;
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
  std::size_t temp_bytes = 0;    ///< global workspace (the lock class's per-bin locks)
  int group = 32;                ///< vector: lanes per input (a power of two <= 32)

  std::string to_string() const {
    return std::string(kind == strategy::shared_memory ? "shared" : "global") + " M=" + std::to_string(M) +
           " K=" + std::to_string(K) + " grid=" + std::to_string(grid) + " block=" + std::to_string(block) +
           " shared_bytes=" + std::to_string(shared_bytes) + " temp_bytes=" + std::to_string(temp_bytes) +
           " group=" + std::to_string(group);
  }
};

inline void check_overrides(const plan_overrides& o) {
  if (o.M < 0) throw error("plan override M must be >= 0 (0 = planner decides), got " + std::to_string(o.M));
  if (o.S > 1) throw error("plan override S must be 0 or 1: fused, batched and vector-valued histograms make one "
                           "pass, got " + std::to_string(o.S));
  if (o.S < 0) throw error("plan override S must be >= 0 (0 = planner decides), got " + std::to_string(o.S));
  if (o.block < 0) throw error("plan override block must be >= 0 (0 = planner decides), got " + std::to_string(o.block));
  if (o.grid < 0) throw error("plan override grid must be >= 0 (0 = planner decides), got " + std::to_string(o.grid));
}

inline void check_device(const device_info& dev) {
  if (dev.sm_count <= 0 || dev.max_threads_per_sm <= 0 || dev.max_threads_per_block <= 0)
    throw error("device_info '" + dev.name + "' has no SMs or threads: query it with device_info::query");
}

/// Global workspace of the lock class: one int per bin of each xcg target, each array 256-byte aligned.
inline std::size_t lock_workspace_bytes(const std::vector<target_shape>& ts) {
  std::size_t b = 0;
  for (const auto& t : ts)
    if (t.op_class == atomic_class::xcg) b += round_up(static_cast<std::size_t>(t.num_bins) * lock_bytes, 256);
  return b;
}

/// The largest M <= M_cap (>= 1) whose regions fit in L, or 0 when even M = 1 does not.
inline i64 largest_fitting_M(const std::vector<target_shape>& ts, i64 M_cap, std::size_t L) {
  if (region_offsets(ts, 1).back() > L) return 0;
  i64 lo = 1, hi = std::max<i64>(1, M_cap);  // region bytes grow with M: binary search
  while (lo < hi) {
    const i64 mid = lo + (hi - lo + 1) / 2;
    if (region_offsets(ts, mid).back() <= L) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// A shared-memory layout for `inputs_per_block` inputs per block, or kind = global_memory when none fits or the
// caller asked for global memory. Sets M and shared_bytes (block and grid are set by the caller first). Returns the
// blocks per SM the shared budget assumed: 1 when only footnote 7's one-block-per-SM budget fits (the caller then
// keeps the grid to one wave of single blocks).
inline int choose_memory(multi_plan& pl, const std::vector<target_shape>& ts, i64 bins_total, double inputs_per_block,
                          bool few_inputs, const device_info& dev, const plan_overrides& o,
                          const planner_constants& k) {
  const int bps = std::max(1, dev.max_threads_per_sm / pl.block);
  std::size_t L = shared_limit(dev, pl.block, bps);
  int bps_used = bps;
  if (region_offsets(ts, 1).back() > L && o.block <= 0 && o.grid <= 0) {
    L = shared_limit(dev, pl.block, 1);
    bps_used = 1;
  }
  const bool fits = region_offsets(ts, 1).back() <= L;
  if (o.kind == strategy::shared_memory && !fits)
    throw error("plan override kind = shared_memory: one copy of the histograms needs " +
                std::to_string(region_offsets(ts, 1).back()) + " bytes of shared memory per block, the device allows " +
                std::to_string(L));
  const bool shared = o.kind == strategy::shared_memory || (o.kind == strategy::automatic && fits && !few_inputs);
  if (!shared) {
    pl.kind = strategy::global_memory;
    if (o.M > 1) throw error("plan override M = " + std::to_string(o.M) + " needs kind = shared_memory here");
    pl.M = 1;
    pl.shared_bytes = 0;
    return bps;
  }
  pl.kind = strategy::shared_memory;
  // Eqs. 1-2 with the sum of the sizes: M copies fit in L, at most the block's threads, and the work bound (init and
  // merge, M x bins per block, at most inputs / q_small).
  const i64 work_bound =
      std::max<i64>(1, static_cast<i64>(inputs_per_block / (double(k.q_small) * double(bins_total))));
  const i64 cap = std::min<i64>(pl.block, work_bound);
  i64 M = largest_fitting_M(ts, cap, L);
  if (o.M > 0) {
    if (region_offsets(ts, o.M).back() > L)
      throw error("plan override M = " + std::to_string(o.M) + " needs " +
                  std::to_string(region_offsets(ts, o.M).back()) + " bytes of shared memory per block, the device "
                  "allows " + std::to_string(L));
    M = o.M;
  }
  pl.M = static_cast<int>(M);
  pl.shared_bytes = region_offsets(ts, M).back();
  return bps_used;
}

inline int block_for(int requested, int fallback, const device_info& dev) {
  return std::max(1, std::min(requested > 0 ? requested : fallback, dev.max_threads_per_block));
}

/// Fused: k histograms over the same n inputs. Shared memory when all k fit side by side (M >= 1) and the inputs
/// outnumber the bins (the engine's switch: with fewer inputs than bins, initialising the copies costs more than
/// the updates); global memory otherwise.
inline multi_plan plan_fused(i64 n, const std::vector<target_shape>& ts, const device_info& dev,
                             const plan_overrides& o = {}, const planner_constants& k = {}) {
  check_device(dev);
  check_overrides(o);
  i64 bins_total = 0;
  for (const auto& t : ts) bins_total += t.num_bins;
  multi_plan pl;
  const bool shared_wanted = o.kind != strategy::global_memory;
  pl.block = block_for(o.block, shared_wanted ? k.shared_block : k.global_block, dev);
  const i64 T = std::min<i64>(n, dev.hardware_threads());
  const int bps = std::max(1, dev.max_threads_per_sm / pl.block);
  i64 grid = std::max<i64>(1, ceil_div(T, pl.block));
  grid = std::min<i64>(grid, static_cast<i64>(dev.sm_count) * bps);
  if (o.grid > 0) grid = o.grid;
  if (n == 0) grid = 0;
  pl.grid = static_cast<int>(grid);
  const int bps_used =
      choose_memory(pl, ts, bins_total, grid > 0 ? double(n) / double(grid) : 0.0, bins_total > n, dev, o, k);
  if (pl.kind == strategy::shared_memory && o.grid <= 0) pl.grid = std::min(pl.grid, dev.sm_count * bps_used);
  if (pl.kind == strategy::global_memory && o.block <= 0) {
    pl.block = block_for(0, k.global_block, dev);
    pl.grid = n == 0 ? 0 : static_cast<int>(o.grid > 0 ? o.grid : ceil_div(T, pl.block));
  }
  pl.temp_bytes = pl.grid > 0 ? lock_workspace_bytes(ts) : 0;
  return pl;
}

/// Batched: num_segments segments holding `inputs` inputs in all, each its own H-bin histogram. K blocks per
/// segment (seed 000 IV-C: K = ceil((T / B) / N_out), so at least T threads work), blocks no larger than the
/// inputs one of them sees. Shared memory when one copy fits and a segment has at least H inputs on average.
inline multi_plan plan_batched(i64 num_segments, i64 inputs, const target_shape& t, const device_info& dev,
                               const plan_overrides& o = {}, const planner_constants& k = {}) {
  check_device(dev);
  check_overrides(o);
  multi_plan pl;
  if (num_segments == 0 || inputs == 0) {
    pl.block = block_for(o.block, k.shared_block, dev);
    pl.grid = 0;
    return pl;
  }
  const double avg_len = double(inputs) / double(num_segments);
  const i64 T = std::min<i64>(inputs, dev.hardware_threads());
  const int B_max = block_for(o.block, k.shared_block, dev);
  const i64 K = std::max<i64>(1, ceil_div(ceil_div(T, B_max), num_segments));
  pl.K = static_cast<int>(std::min<i64>(K, 1 << 20));
  // A block sees avg_len / K inputs: no more threads than that (short segments get small blocks, more per SM).
  int B = B_max;
  if (o.block <= 0) {
    const i64 want = static_cast<i64>(round_up(static_cast<std::size_t>(std::max(1.0, avg_len / double(pl.K))), 32));
    B = static_cast<int>(std::clamp<i64>(want, std::min(min_batched_block, B_max), B_max));
  }
  pl.block = B;
  // One task per (segment, part); a grid-stride loop over tasks bounds the grid for huge segment counts.
  const i64 tasks = num_segments * pl.K;
  const i64 resident = static_cast<i64>(dev.sm_count) * std::max(1, dev.max_threads_per_sm / B);
  i64 grid = std::min<i64>(tasks, std::max<i64>(resident * 8, 1));
  if (o.grid > 0) grid = o.grid;
  pl.grid = static_cast<int>(grid);
  choose_memory(pl, {t}, t.num_bins, avg_len / double(pl.K), double(t.num_bins) > avg_len, dev, o, k);
  pl.temp_bytes = t.op_class == atomic_class::xcg
                      ? round_up(static_cast<std::size_t>(num_segments) * static_cast<std::size_t>(t.num_bins) *
                                     lock_bytes, 256)
                      : 0;
  return pl;
}

/// Start of part k of K of a segment of len inputs: the K parts differ by at most one input, and nothing overflows
/// for any len (a batched block's range is [part_begin(len, K, k), part_begin(len, K, k + 1))).
GHIST_HD inline i64 part_begin(i64 len, int K, int k) { return (len / K) * k + (k < len % K ? k : len % K); }

/// Lanes that share one input of a vector-valued histogram: the next power of two >= d, at most a warp.
inline int vector_group(i64 d) {
  int g = 1;
  while (g < 32 && g < d) g *= 2;
  return g;
}

/// Vector-valued: n inputs, num_bins bins of d components. A group of lanes per input (one lane per component,
/// coalesced); shared memory when num_bins * d values fit (M copies, one per warp at most), global otherwise.
inline multi_plan plan_vector(i64 n, i64 d, const target_shape& component, const device_info& dev,
                              const plan_overrides& o = {}, const planner_constants& k = {}) {
  check_device(dev);
  check_overrides(o);
  multi_plan pl;
  pl.group = vector_group(d);
  target_shape all = component;
  all.num_bins = component.num_bins * d;
  pl.block = block_for(o.block, k.global_block, dev);
  if (pl.block % 32 != 0) throw error("plan override block must be a multiple of 32 for a vector-valued histogram, got " +
                                      std::to_string(pl.block));
  const i64 inputs_per_block_round = pl.block / pl.group;
  const i64 T_groups = std::min<i64>(n, dev.hardware_threads() / pl.group);
  const int bps = std::max(1, dev.max_threads_per_sm / pl.block);
  i64 grid = std::max<i64>(1, ceil_div(T_groups, inputs_per_block_round));
  grid = std::min<i64>(grid, static_cast<i64>(dev.sm_count) * bps);
  if (o.grid > 0) grid = o.grid;
  if (n == 0) grid = 0;
  pl.grid = static_cast<int>(grid);
  const double values_per_block = grid > 0 ? double(n) * double(d) / double(grid) : 0.0;
  const int bps_used = choose_memory(pl, {all}, all.num_bins, values_per_block, all.num_bins > n * d, dev, o, k);
  if (pl.kind == strategy::shared_memory && o.grid <= 0) pl.grid = std::min(pl.grid, dev.sm_count * bps_used);
  // Copies are per warp: more than the block's warps would sit unused.
  if (pl.kind == strategy::shared_memory && o.M <= 0 && pl.M > pl.block / 32) {
    pl.M = pl.block / 32;
    pl.shared_bytes = region_offsets({all}, pl.M).back();
  }
  return pl;
}

}  // namespace ghist::detail::multi
