// Alternatives to the library's default tunings of the byte kernels (pair_counters_tuning for the packed_counters
// method, shared_atomics_tuning). bench/bytes times them next to the defaults and tests/bytes checks them, so that a
// default can be replaced by one of these on the strength of a measurement, without new code.
#pragma once

#include "ghist/detail/byte_histogram/packed8_counters.cuh"
#include "ghist/detail/byte_histogram/pair_counters.cuh"
#include "ghist/detail/byte_histogram/shared_atomics.cuh"

namespace ghist::detail::bytes {

/// 8-bit packed counters incremented with one shared atomic each (the thread's own column: never a conflict).
struct packed8_atomic_increment_tuning : packed8_tuning {
  static constexpr bool atomic_increment = true;
};

/// 8-bit packed counters incremented as bytes (no per-byte shift).
struct packed8_byte_stores_tuning : packed8_tuning {
  static constexpr bool byte_stores = true;
};

/// 8-bit packed counters with 48-byte tiles (3 vectors per thread), flushed every 5 tiles (240 bytes): fewer registers.
struct packed8_unroll3_tuning : packed8_tuning {
  static constexpr int unroll = 3;
};

/// A histogram copy per lane (32 KiB per warp), so that no data can cause a bank conflict; 7 warps per SM (224 KiB
/// of the H100's 227 KiB per block), 8 vectors per thread per tile, double-buffered. Slower than the default's 8
/// copies on the H100 for every data set measured (see shared_atomics_tuning).
struct atomics_per_lane_tuning {
  static constexpr int block = 224;
  static constexpr int unroll = 8;
  static constexpr int min_blocks_per_sm = 1;
  static constexpr int replicas = 32;
};

/// The copy per lane with 12 vectors per thread per tile: 42 KiB per SM in flight ahead of the counting instead of
/// 28 KiB, for coarser tiles (up to 0.5% load imbalance at 1 GiB instead of 0.1%).
struct atomics_per_lane_unroll12_tuning : atomics_per_lane_tuning {
  static constexpr int unroll = 12;
};

/// The default before 2026-11-22: warp histograms in 8 interleaved copies (8 KiB per warp; lane l on copy l % 8),
/// 3 blocks of 8 warps per SM, 4 vectors per thread per tile.
struct eight_copies_tuning {
  static constexpr int block = 256;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 3;
  static constexpr int replicas = 8;
};

/// 8 copies with byte_slot's swizzle (values 4 apart no longer share a bank): smooth images 0.80 of the read floor
/// instead of 0.77, still well below one swizzled copy per warp.
struct eight_copies_swizzled_tuning : eight_copies_tuning {
  static constexpr bool swizzle = true;
};

/// One copy per warp without the swizzle (the default otherwise).
struct atomics_per_warp_unswizzled_tuning : shared_atomics_tuning {
  static constexpr bool swizzle = false;
};

/// The pair counters as they were before 2026-11-28 but for the layout: 4 vectors per thread per tile, no atomics.
struct pair_counters_unroll4_tuning : pair_counters_tuning {
  static constexpr int unroll = 4;
  static constexpr int atomics_every = 0;
  static constexpr int flush_tiles = max_pair_count / (unroll * vector_bytes);
};

/// 12 vectors per thread, with a quarter of the bytes through shared atomics (z and w of bytes 0 and 2 of each
/// word) or none.
struct pair_counters_quarter_atomics_tuning : pair_counters_tuning {
  static constexpr int atomics_every = 2;
};
struct pair_counters_no_atomics_tuning : pair_counters_tuning {
  static constexpr int atomics_every = 0;
};

/// Pair counters that flush before every tile after the first (the default flushes every 170 tiles, so only inputs
/// of ~1.6 GB and more flush inside the loop on an H100): the tests' way to run the flush on small inputs.
struct pair_counters_flush_every_tile_tuning : pair_counters_tuning {
  static constexpr int flush_tiles = 1;
};

/// A quarter of the bytes through atomics, flushed before every tile after the first.
struct pair_counters_quarter_atomics_flush_every_tile_tuning : pair_counters_quarter_atomics_tuning {
  static constexpr int flush_tiles = 1;
};

}  // namespace ghist::detail::bytes
