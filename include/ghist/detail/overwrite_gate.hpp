// An overwrite call's fill of dest with the identity, done inside the histogram kernel instead of as a memset before
// it: the hardware-atomic class's shared-memory plans, up to overwrite_gate_max_bins bins.
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

namespace ghist::detail {

struct overwrite_gate {
  unsigned long long* words = nullptr;  ///< [0] claimed, [1] open; null: dest needs no fill in the kernel
  unsigned long long ticket = 0;        ///< this launch's stamp (never 0, which fresh words hold)
};

inline constexpr int overwrite_gate_max_streams = 4096;

/// Larger destinations keep the memset. The fill at the first merge makes the blocks that finish their input while
/// it runs wait, and with many bins to merge (RF 1) their merges then bunch up: seed 000's HDW, same run, memset ->
/// gate, us: RF 1 H = 2048 / 6144 / 12288 / 24576 78.6 / 80.8 / 82.1 / 87.0 -> 75.6 / 79.1 / 84.5 / 92.9; RF 63
/// 79.7 / 79.0 / 80.7 / 81.3 -> 75.8 / 76.3 / 77.1 / 78.4 (lent H100, 2026-11-26,
/// bench/results/2026-11-26-h100-overwrite-gate.txt).
inline constexpr std::int64_t overwrite_gate_max_bins = 8192;

/// A gate for one launch on `stream` (current device), or a null gate (the caller then fills dest before the launch)
/// when the stream is being captured, its id cannot be read, or the device has gates for too many streams already.
overwrite_gate overwrite_gate_for(cudaStream_t stream);

}  // namespace ghist::detail
