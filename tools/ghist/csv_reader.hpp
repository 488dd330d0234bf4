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

/// read_csv_columns on a file given piece by piece, each piece whole records (see csv_complete_prefix).
class csv_column_reader {
 public:
  csv_column_reader(const std::string& path, std::vector<std::string> specs, char delimiter, text_values values);
  /// The chosen columns' values in the next `piece` of the file; `at_end`: it is the last one.
  std::vector<sample_column> feed(std::string_view piece, bool at_end);

 private:
  void resolve(const std::vector<std::string>* first_fields);
  std::string path_;
  std::vector<std::string> specs_;
  char delimiter_;
  text_values values_;
  bool resolved_ = false, header_ = false, at_start_ = true;
  std::size_t next_line_ = 1;
  std::vector<std::size_t> indices_;
  std::vector<std::string> labels_;
};

/// The length of the longest prefix of `text` made of whole CSV records: up to the last newline outside a quoted
/// field (0 when there is none).
std::size_t csv_complete_prefix(std::string_view text, char delimiter);

}  // namespace ghist::cli
