// The PNG bar chart written by --plot FILE.png (rasterised here, encoded by libpng).
#pragma once

#include <string>

#include "plot_writer.hpp"

namespace ghist::cli {

/// An RGB PNG of width x height: bars, axes, ticks, tick labels in a small built-in digit font.
/// Throws cli_error when this build has no libpng.
std::string png_plot(const plot_series& plot, int width = 800, int height = 450);

}  // namespace ghist::cli
