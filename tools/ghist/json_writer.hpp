// The JSON output (--format json): edges, values and metadata in one object.
#pragma once

#include <string>

#include "histogram_report.hpp"

namespace ghist::cli {

/// {"backend", "input", "format", "dtype", "op", "bins", "range": [lo, hi] (null for bincount), "closed_last",
///  "bincount", "samples", "ignored", "channels": [names], "edges": [num_bins + 1 edges],
///  "values": [per bin] for one channel, or [[per bin] per channel] for several}.
/// Empty min/max bins and non-finite values are null.
template <class Sample>
std::string format_json(const histogram_report<Sample>& report);

/// `text` as a JSON string literal.
std::string json_string(const std::string& text);

}  // namespace ghist::cli
