// --plot FILE.svg / FILE.png: the histogram as a bar chart with labelled axes (svg_plot.cpp, png_plot.cpp).
#pragma once

#include <string>
#include <vector>

#include "histogram_report.hpp"

namespace ghist::cli {

/// What a plot shows: bars between edges, one series per channel (NaN: no bar), and the labels.
struct plot_series {
  std::vector<double> edges;               ///< num_bins + 1
  std::vector<std::string> names;          ///< one per series
  std::vector<std::vector<double>> values; ///< [series][bin]
  std::string title, x_label, y_label;
};

/// The bytes of the plot file for `path` (.svg or .png). Throws cli_error when PNG is not supported.
template <class Sample>
std::string render_plot(const histogram_report<Sample>& report, const std::string& path);

/// The value axis of a plot: [min(0, smallest finite value), max(0, largest)], never empty.
void value_axis(const plot_series& p, double& lo, double& hi);

/// Tick positions: round numbers (1, 2 or 5 times a power of ten) covering [lo, hi], about `target` of them.
std::vector<double> nice_ticks(double lo, double hi, int target);
/// A tick label: the value with up to 12 significant digits (%.12g).
std::string tick_label(double v);

}  // namespace ghist::cli
