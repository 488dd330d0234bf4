// An overwrite call's fill of dest with the identity, done inside the histogram kernel instead of as a memset before
// it: the hardware-atomic class's shared-memory plans, up to overwrite_gate_max_bins bins (times a told race factor).
//
// Why: the benchmark (as a caller would) times each call from an idle GPU, so the host's ~4 us enqueueing a memset
// of dest is on the clock before the kernel's own launch: event-timed, a 48 KiB memset before a 200 MB read took it
// from 70.2-70.6 to 74.2-74.9 us (lent H100, 2026-11-26, bench/results/2026-11-26-h100-overwrite-gate.txt). That was
// most of what HDW lost against the read floor at H = 2048..12288.
//
// How: the first block of the launch to reach its merge into dest fills dest, then opens the gate; the other blocks
// wait at the gate before their first merge. Only a block that is already running is waited for, so blocks that
// are not resident yet cannot hang the launch. The gate is two 64-bit words (claimed, open) that hold a ticket
// unique to the launch, so they never need resetting: a later launch's ticket differs from whatever an earlier
// launch left. Two launches must never share the words at once, so each stream has its own (by the runtime's stream
// id, which is never reused); a stream being captured into a graph gets none (its launches may be replayed side by
// side), and neither do streams beyond the first overwrite_gate_max_streams of a device: their calls keep the memset.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "ghist/detail/cuda_check.hpp"

namespace ghist::detail {

struct overwrite_gate {
  unsigned long long* words = nullptr;  ///< [0] claimed, [1] open; null: dest needs no fill in the kernel
  unsigned long long ticket = 0;        ///< this launch's stamp (never 0, which fresh words hold)
};

inline constexpr int overwrite_gate_max_streams = 4096;

/// Calls whose merge is larger keep the memset: the fill at the first merge makes the blocks that finish their input
/// while it runs wait, and with many bins to merge their merges then bunch up. A block merges only the bins it hit,
/// so the merge's size is about H / RF bins for a told race factor (overwrite_gate_wanted). Seed 000's HDW, same run,
/// memset -> gate, us (lent H100, 2026-11-26, bench/results/2026-11-26-h100-overwrite-gate.txt, experiment 5): RF 1
/// H = 8192 / 10000 / 12288 / 16384 / 24576 / 49152 83.5 / 84.8 / 85.9 / 86.3 / 90.2 / 94.5 -> 81.9 / 83.2 / 86.2 /
/// 87.7 / 94.2 / 99.9; RF 63 82.5 / 82.3 / 82.2 / 84.6 / 86.1 / 91.5 -> 78.7 / 79.1 / 79.6 / 79.7 / 80.6 / 85.9. With
/// hdw_one_pass_kernel (lent H200, 2026-11-28, bench/results/2026-11-28-h200-hdw-one-pass.txt, section 8), two
/// rounds: RF 1 H = 8192 / 12288 / 16384 / 24576 / 49152 62.1 / 62.6 / 64.3 / 68.1 / 77.2 and 60.9 / 62.9 / 63.2 /
/// 67.4 / 76.4 -> 60.3 / 62.2 / 63.7 / 71.3 / 81.5 and 60.2 / 62.7 / 63.9 / 70.2 / 81.4; RF 63 H = 12288 / 16384 /
/// 24576 / 49152 60.1 / 61.1 / 61.8 / 72.6 and 60.9 / 60.9 / 63.3 / 71.2 -> 57.4 / 57.3 / 58.2 / 68.5 and 57.2 / 57.3 /
/// 58.6 / 68.2.
inline constexpr std::int64_t overwrite_gate_max_bins = 12288;

/// Whether an overwrite call of the hardware-atomic class over num_bins bins, on a plan made for race_factor, fills
/// dest at the gate: where each block's merge is about as small as a uniform input's over overwrite_gate_max_bins bins.
inline bool overwrite_gate_wanted(std::int64_t num_bins, double race_factor) {
  return static_cast<double>(num_bins) <= overwrite_gate_max_bins * (race_factor > 1.0 ? race_factor : 1.0);
}

/// A stream's gate words (src/overwrite_gate.cpp): `fresh` when just handed out (the caller zeroes them on the stream),
/// null words when the device has gates for overwrite_gate_max_streams streams already.
struct overwrite_gate_words {
  unsigned long long* words = nullptr;
  bool fresh = false;
  unsigned long long ticket = 0;
};
overwrite_gate_words overwrite_gate_words_for(unsigned long long stream_id);

/// A gate for one launch on `stream` (current device), or a null gate (the caller then fills dest before the launch)
/// when the stream is being captured, its id cannot be read, or the device has gates for too many streams. Inline,
/// so that the stream is asked about in the translation unit that launches: there, as for the launch, stream 0 is the
/// legacy or the per-thread default stream (nvcc's --default-stream).
inline overwrite_gate overwrite_gate_for(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long stream_id = 0;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone ||
      cudaStreamGetId(stream, &stream_id) != cudaSuccess) {
    (void)cudaGetLastError();  // a refused query is not an error of the call: it fills dest as before
    return {};
  }
  const overwrite_gate_words got = overwrite_gate_words_for(stream_id);
  // Zeroed on the stream itself: only this stream's launches read these words, after this in stream order.
  if (got.fresh) throw_on_cuda_error(cudaMemsetAsync(got.words, 0, 2 * sizeof(unsigned long long), stream),
                                     "cudaMemsetAsync(overwrite gate words)");
  return {got.words, got.ticket};
}

}  // namespace ghist::detail
