// Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0): every element of a numeric array, flattened.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "input_reader.hpp"

namespace ghist::cli {

/// True when `bytes` starts with the .npy magic string "\x93NUMPY".
bool looks_like_npy(std::string_view bytes);

/// The header of a .npy file: its element type, element count and where the data start.
struct npy_header {
  dtype type;
  std::uint64_t count = 0;
  std::size_t data_start = 0;
};

/// Where the header of `bytes` (at least its first 12 bytes, or all of a shorter file) ends: the data start.
std::size_t npy_header_end(const std::string& path, std::string_view bytes);
/// Parses the header; `bytes` must hold at least npy_header_end(path, bytes) bytes. Errors as read_npy.
npy_header read_npy_header(const std::string& path, std::string_view bytes);
/// An error (as read_npy) unless data_bytes is exactly count * element size.
void check_npy_size(const std::string& path, const npy_header& header, std::uint64_t data_bytes);

struct npy_array {
  sample_column values;
  dtype type;  ///< the element type of the file
};

/// The elements of a .npy file (any shape, C or Fortran order: a histogram only needs the multiset). Element types:
/// bool, int8..int64, uint8..uint64, float16, float32, float64, either byte order. Throws cli_error (exit_failure)
/// naming the file for a bad header, an unsupported dtype (object, structured, complex, strings) or a truncated
/// array.
npy_array read_npy(const std::string& path, std::string_view bytes);

}  // namespace ghist::cli
