// 2-D histograms of two CSV columns (--csv-column X --csv-column2 Y): even bins along each axis, computed on the
// chosen backend as a bincount of the combined key bin_x * bins_y + bin_y.
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "cli_options.hpp"
#include "input_formats.hpp"

namespace ghist::cli {

/// The output text (CSV: bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value; or JSON with x_edges, y_edges and
/// values[bin_x][bin_y]) of the 2-D histogram of input.channels[0] (x) and [1] (y). Throws cli_error.
std::string histogram_2d(const cli_options& options, input_data& input, const std::vector<double>* weights,
                         backend_kind backend);

}  // namespace ghist::cli
