// Choosing the bins from the options and the data: the explicit or automatic range and the number of bins.
#pragma once

#include <vector>

#include "cli_options.hpp"
#include "histogram_job.hpp"

namespace ghist::cli {

/// The layout for `samples` (int64_t, uint64_t or double) under the options:
///  - --bincount: bins = --bins, or the largest key + 1 (an error if there is no key >= 0);
///  - --range LO:HI: even bins over [LO, HI) (integer data needs integer bounds that fit its type);
///  - no range: [min, max] of the data with the maximum in the last bin (see --help); NaN and infinities are left
///    out; an error when there is no such value.
/// Throws cli_error.
template <class Sample>
bin_layout<Sample> resolve_layout(const cli_options& options, const std::vector<Sample>& samples);

}  // namespace ghist::cli
