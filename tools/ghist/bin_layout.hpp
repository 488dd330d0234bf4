// Choosing the bins from the options and the data: the explicit or automatic range and the number of bins.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "cli_options.hpp"
#include "histogram_job.hpp"

namespace ghist::cli {

/// What the layout needs to know of the data, gathered chunk by chunk: the count, the smallest and largest value
/// (finite ones for floats) and the largest key >= 0.
template <class Sample>
struct sample_summary {
  std::uint64_t count = 0;
  std::optional<Sample> lo, hi, largest_key;
  void add(const std::vector<Sample>& samples) {
    count += samples.size();
    for (Sample x : samples) {
      if (!(x < 0) && (!largest_key || x > *largest_key)) largest_key = x;
      if constexpr (std::is_floating_point_v<Sample>) {
        if (!std::isfinite(x)) continue;
      }
      if (!lo || x < *lo) lo = x;
      if (!hi || x > *hi) hi = x;
    }
  }
};

/// resolve_layout from a summary of the data.
template <class Sample>
bin_layout<Sample> resolve_layout(const cli_options& options, const sample_summary<Sample>& summary);

/// The layout for `samples` (int64_t, uint64_t or double) under the options:
///  - --bincount: bins = --bins, or the largest key + 1 (an error if there is no key >= 0);
///  - --range LO:HI: even bins over [LO, HI) (integer data needs integer bounds that fit its type);
///  - no range: [min, max] of the data with the maximum in the last bin (see --help); NaN and infinities are left
///    out; an error when there is no such value.
/// Throws cli_error.
template <class Sample>
bin_layout<Sample> resolve_layout(const cli_options& options, const std::vector<Sample>& samples);

}  // namespace ghist::cli
