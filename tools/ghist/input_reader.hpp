// Reading a column of numbers from a file or stdin: raw little-endian binary of a given dtype, or text with one
// number per line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dtype.hpp"

namespace ghist::cli {

/// Values as the CLI computes on them: integer dtypes widen to int64 (uint64 stays uint64), floats to double.
using sample_column = std::variant<std::vector<std::int64_t>, std::vector<std::uint64_t>, std::vector<double>>;

/// How a text file's numbers are read: as float64, or as integer keys (for --bincount).
enum class text_values { real, integer };

/// Reads every value of `path` ("-" is stdin). With `type`, the bytes are raw values of that dtype; without, text:
/// one number per line, blank lines and lines starting with '#' skipped. Integer text keys beyond int64 are clamped
/// to it (they fall in no bin either way). Throws cli_error (exit_failure) naming the file, and the line for text.
sample_column read_column(const std::string& path, const std::optional<dtype>& type, text_values text);

/// Every byte of `path` ("-" is stdin). Throws cli_error (exit_failure) naming the file.
std::string read_all_bytes(const std::string& path);

/// `bytes` as raw values of `type` (byte order from type.big_endian). A size that is not a multiple of the type's
/// size is an error naming `path` (a truncated record).
sample_column decode_raw(const std::string& path, std::string_view bytes, const dtype& type);

/// `bytes` as text with one number per line (see read_column).
sample_column parse_text(const std::string& path, const std::string& bytes, text_values text);

/// Part of a text file: whole lines, the first of them line first_line + 1. strtod may look at the byte after
/// `piece`: it must not continue a number (a '\n' or the string's terminating NUL). `at_start`: the file's start.
sample_column parse_text_piece(const std::string& path, std::string_view piece, text_values text,
                               std::size_t first_line, bool at_start);

std::size_t column_size(const sample_column& column);

/// The column converted to double (weights are always used as float64).
std::vector<double> to_doubles(sample_column&& column);

/// How messages name a path: quoted, or <stdin> for "-".
std::string display_name(const std::string& path);

}  // namespace ghist::cli
