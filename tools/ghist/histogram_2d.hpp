// 2-D histograms of two CSV columns (--csv-column X --csv-column2 Y): even bins along each axis, computed on the
// chosen backend as a bincount of the combined key bin_x * bins_y + bin_y, chunk by chunk in bounded memory.
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "cli_options.hpp"
#include "stream_input.hpp"

namespace ghist::cli {

/// The output text (CSV: bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value; or JSON with x_edges, y_edges and
/// values[bin_x][bin_y]) of the 2-D histogram of the two columns that `input` gives (x, y), with `weights` (or
/// null) in step. A range taken from the data costs a first pass of min/max (of a spooled copy when `input` is not
/// seekable). Throws cli_error; prints nothing.
std::string histogram_2d(const cli_options& options, column_stream& input, column_stream* weights,
                         backend_kind backend);

}  // namespace ghist::cli
