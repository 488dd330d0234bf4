// The arithmetic of a streaming histogram's staging (host-only, tested without a GPU): how many samples a staging
// buffer holds, how a push is cut into pieces, and how many threads copy a pageable piece into pinned memory.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "ghist/error.hpp"
#include "ghist/streaming.hpp"

namespace ghist::detail {

inline constexpr int max_stream_buffers = 16;
inline constexpr int max_copy_threads = 64;
/// Below this, one extra copy thread costs more to start (tens of microseconds) than it saves: 2 MiB takes ~0.2 ms
/// for one core at ~10 GB/s. (A default 32 MiB staging buffer is then copied by up to 16 threads.)
inline constexpr std::size_t bytes_per_copy_thread = std::size_t(2) << 20;
/// The automatic thread count stops here. On the lent H100's host (16 cores, 2026-11-22) a 1 GiB pageable-to-pinned
/// copy ran at 45.4 GB/s with 16 threads against 37.9 with 8 (20.9 in another run) and 35.2 with 4.
inline constexpr int auto_copy_threads_cap = 16;

struct staging_plan {
  std::size_t chunk_elements = 0;  ///< samples (and weights) per staging buffer
  int buffers = 0;
  int copy_threads = 0;  ///< 0: automatic per piece (copy_threads_for)
};

/// Checks the options (ghist::error naming the field) and sizes the buffers for samples of `sample_bytes`.
inline staging_plan plan_staging(const streaming_options& o, std::size_t sample_bytes) {
  if (o.chunk_bytes < sample_bytes)
    throw error("streaming_options.chunk_bytes (" + std::to_string(o.chunk_bytes) + ") holds no sample of " +
                std::to_string(sample_bytes) + " bytes");
  if (o.buffers < 2 || o.buffers > max_stream_buffers)
    throw error("streaming_options.buffers must be in 2.." + std::to_string(max_stream_buffers) + ", got " +
                std::to_string(o.buffers));
  if (o.copy_threads < 0 || o.copy_threads > max_copy_threads)
    throw error("streaming_options.copy_threads must be in 0.." + std::to_string(max_copy_threads) + ", got " +
                std::to_string(o.copy_threads));
  return {o.chunk_bytes / sample_bytes, o.buffers, o.copy_threads};
}

/// Number of pieces a push of n samples is cut into (each at most chunk_elements).
inline std::int64_t piece_count(std::int64_t n, std::size_t chunk_elements) {
  if (n <= 0) return 0;
  const auto c = static_cast<std::int64_t>(chunk_elements);
  return n / c + (n % c != 0);
}

/// Threads for copying `bytes` of pageable memory: the requested count (never more than one per byte), or,
/// automatically, one per bytes_per_copy_thread up to min(cores, auto_copy_threads_cap).
inline int copy_threads_for(std::size_t bytes, int requested, unsigned cores = std::thread::hardware_concurrency()) {
  if (bytes == 0) return 1;
  if (requested > 0) return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(requested), bytes));
  const int cap = std::max(1, std::min(static_cast<int>(cores), auto_copy_threads_cap));
  return static_cast<int>(std::clamp<std::size_t>(bytes / bytes_per_copy_thread, 1, static_cast<std::size_t>(cap)));
}

/// [begin, end) of part `i` of `parts` of a copy of `bytes`: boundaries on 64-byte lines so that two threads never
/// write one cache line; the parts cover every byte exactly once.
struct byte_range {
  std::size_t begin, end;
};
inline byte_range copy_part(std::size_t bytes, int parts, int i) {
  const std::size_t lines = (bytes + 63) / 64;
  const auto p = static_cast<std::size_t>(parts), k = static_cast<std::size_t>(i);
  const std::size_t lo = lines / p * k + std::min(k, lines % p);
  const std::size_t hi = lo + lines / p + (k < lines % p ? 1 : 0);
  return {std::min(bytes, lo * 64), std::min(bytes, hi * 64)};
}

}  // namespace ghist::detail
