// Choosing how INPUT (or the weights file) is read: raw binary (--dtype), CSV (--csv-column), .npy, PGM/PPM, PNG
// (by magic bytes, or by extension for a file that should be one), else text with one number per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "input_reader.hpp"

namespace ghist::cli {

/// True when `path` ends with `suffix` (lower case, e.g. ".npy"), ignoring the case of the path.
bool has_suffix(const std::string& path, const char* suffix);

struct input_data {
  std::string format;                      ///< text, raw, csv, npy, pgm, ppm or png
  std::string element;                     ///< the element type: a dtype name, "text" or "uint8"/"uint16" (images)
  std::vector<std::string> channel_names;  ///< {"value"}, or {"r", "g", "b"} for a colour image
  std::vector<sample_column> channels;     ///< one column per channel (CSV 2-D: x then y)
  std::optional<std::uint32_t> image_maxval;
};

/// Reads `path` under the options: `type` (raw when set), CSV columns `csv_columns` (when not empty), else by
/// content. Images only when `images` is true (else an error naming the role). Throws cli_error.
input_data read_input(const std::string& path, const std::optional<dtype>& type,
                      const std::vector<std::string>& csv_columns, char csv_delimiter, text_values text,
                      bool images, const char* role);

/// read_input on the bytes of `path` already read.
input_data read_input_bytes(const std::string& path, const std::string& bytes, const std::optional<dtype>& type,
                            const std::vector<std::string>& csv_columns, char csv_delimiter, text_values text,
                            bool images, const char* role);

}  // namespace ghist::cli
