// The streaming path of the CLI: INPUT (and the weights) read chunk by chunk into one histogram.
#pragma once

#include <string>

#include "backend.hpp"
#include "cli_options.hpp"
#include "stream_input.hpp"

namespace ghist::cli {

/// The output text (CSV, JSON or bars; the plot into *plot_file when --plot) of a 1-D histogram of `input`.
/// Two passes over `input` when the range comes from the data (the second of a spooled copy when `input` is not
/// seekable). Throws cli_error; prints nothing.
std::string stream_histogram(const cli_options& options, column_stream& input, column_stream* weights,
                             const backend_choice& backend, std::string* plot_file);

}  // namespace ghist::cli
