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

/// H / (estimated active bins), in [1, H], from the sampled bins (out-of-range ones, < 0 or >= H, are dropped).
inline double race_factor_from_samples(std::vector<std::int64_t> bins, std::int64_t num_bins) {
  bins.erase(std::remove_if(bins.begin(), bins.end(), [&](std::int64_t b) { return b < 0 || b >= num_bins; }),
             bins.end());
  if (bins.empty()) return 1.0;
  std::sort(bins.begin(), bins.end());
  const double s = static_cast<double>(bins.size());
  const double d = static_cast<double>(std::unique(bins.begin(), bins.end()) - bins.begin());
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
