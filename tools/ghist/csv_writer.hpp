// The CSV output: one line per bin, "bin,lower,upper,value" (or r,g,b), written whole to stdout or a file.
#pragma once

#include <optional>
#include <string>

#include "histogram_report.hpp"

namespace ghist::cli {

/// The CSV text of a result. Float edges (the nominal lower + i * width) and values are the shortest decimals that
/// read back exactly; integer edges are exact (see --help); counts are integers; an empty bin's min or max is empty.
/// Columns: bin,lower,upper then one value column per channel ("value", or r,g,b for a colour image).
template <class Sample>
std::string format_csv(const histogram_report<Sample>& report);

/// Writes `text` to the file (replacing it) or to stdout. Throws cli_error (exit_failure) if it cannot.
void write_output(const std::string& text, const std::optional<std::string>& path);

}  // namespace ghist::cli
