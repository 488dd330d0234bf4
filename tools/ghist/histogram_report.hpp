// A computed histogram with what the writers (CSV, JSON, bar chart, plots) print about it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "histogram_job.hpp"

namespace ghist::cli {

template <class Sample>
struct histogram_report {
  bin_layout<Sample> layout;
  op_kind op = op_kind::count;
  std::vector<std::string> channel_names;  ///< {"value"}, or {"r", "g", "b"} for a colour image
  std::vector<histogram_result> results;   ///< one per channel, same layout

  // Metadata (JSON, plot titles).
  std::string backend;              ///< "cpu" or "gpu"
  std::string input;                ///< the INPUT path as given ("-" for stdin)
  std::string format;               ///< text, raw, csv, npy, pgm, ppm, png
  std::string element;              ///< the element type read
  std::uint64_t samples = 0;        ///< values read, over all channels
  std::uint64_t ignored = 0;        ///< of which in no bin (outside the range, NaN, bad keys)

  /// The value of bin b of channel c as a double (NaN for the min or max of an empty bin).
  double value(std::size_t c, std::size_t b) const;
  /// Edge e (0..num_bins) as a double, for plots (the CSV and JSON print exact edges).
  double edge(std::int64_t e) const;
};

/// How many of `samples` fall in a bin of `layout` (the rest are ignored by every backend).
template <class Sample>
std::uint64_t count_in_bins(const bin_layout<Sample>& layout, const std::vector<Sample>& samples);

}  // namespace ghist::cli
