// The host half of the race-factor inspector (race_factor.cuh): from sampled bins to an RF estimate.
//
// RF is H over the estimated number of active bins D (1 for uniform bins, 63 for seed 000's RF = 63 input, H when
// everything falls in one bin). D comes from the occupancy law: s uniform draws from D bins show
// D * (1 - exp(-s / D)) distinct bins on average, solved for D given the observed count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ghist::detail {

/// The distinct values among `bins` (all >= 0), counted in an open-addressing set of at least twice their number:
/// linear in the samples. It runs between two launches of an RF-unknown call, with the GPU idle: sorting the
/// inspector's 8192 samples took ~300 us of host time, and seed 000's unpacked argmax with the RF unknown, uniform,
/// H = 32768..1572864, took 1023-1118 us with the sort and 574-591 without (lent H200, 2026-12-02,
/// bench/results/2026-12-02-h200-seed-launch.txt, part 9).
inline std::int64_t distinct_bins(const std::vector<std::int64_t>& bins) {
  int bits = 4;
  while ((std::size_t{1} << bits) < 2 * bins.size()) ++bits;
  std::vector<std::int64_t> table(std::size_t{1} << bits, -1);
  const std::size_t mask = table.size() - 1;
  std::int64_t distinct = 0;
  for (const std::int64_t b : bins) {
    std::size_t at = static_cast<std::size_t>((static_cast<std::uint64_t>(b) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    while (table[at] != -1 && table[at] != b) at = (at + 1) & mask;
    if (table[at] == -1) {
      table[at] = b;
      ++distinct;
    }
  }
  return distinct;
}

/// H / (estimated active bins), in [1, H], from the sampled bins (out-of-range ones, < 0 or >= H, are dropped).
inline double race_factor_from_samples(std::vector<std::int64_t> bins, std::int64_t num_bins) {
  bins.erase(std::remove_if(bins.begin(), bins.end(), [&](std::int64_t b) { return b < 0 || b >= num_bins; }),
             bins.end());
  if (bins.empty()) return 1.0;
  const double s = static_cast<double>(bins.size());
  const double d = static_cast<double>(distinct_bins(bins));
  if (d >= s) return 1.0;  // every sample distinct: as many active bins as we can tell
  // Solve D (1 - exp(-s / D)) = d for D >= d; the left side grows with D.
  double lo = d, hi = d;
  while (hi * (1.0 - std::exp(-s / hi)) < d && hi < 1e18) hi *= 2.0;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (mid * (1.0 - std::exp(-s / mid)) < d ? lo : hi) = mid;
  }
  const double active = std::min<double>(hi, static_cast<double>(num_bins));
  return std::clamp(static_cast<double>(num_bins) / active, 1.0, static_cast<double>(num_bins));
}

}  // namespace ghist::detail
