// The SVG bar chart written by --plot FILE.svg (our own writer, no library).
#pragma once

#include <string>

#include "plot_writer.hpp"

namespace ghist::cli {

/// A standalone SVG document (width x height pixels): bars, axes with ticks and labels, a title, a legend for
/// several series.
std::string svg_plot(const plot_series& plot, int width = 800, int height = 450);

}  // namespace ghist::cli
