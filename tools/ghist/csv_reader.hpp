// Reading columns of numbers from CSV text: a column chosen by header name or 0-based index, quoted fields
// (RFC 4180: "a, b" and "" for a quote), an optional header row, a chosen delimiter.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "input_reader.hpp"

namespace ghist::cli {

/// The columns `specs` (each a header name, or a 0-based index) of the CSV text `bytes` read from `path`.
/// The first row is a header when a spec names one of its fields, or when the first row's field at a spec's index
/// is not a number. Blank lines are skipped. Every other row must hold a number in each chosen column.
/// Throws cli_error (exit_failure) naming the file, and the line and the column for a bad or missing field.
std::vector<sample_column> read_csv_columns(const std::string& path, std::string_view bytes,
                                            const std::vector<std::string>& specs, char delimiter,
                                            text_values values);

}  // namespace ghist::cli
