// Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0): every element of a numeric array, flattened.
#pragma once

#include <string>
#include <string_view>

#include "input_reader.hpp"

namespace ghist::cli {

/// True when `bytes` starts with the .npy magic string "\x93NUMPY".
bool looks_like_npy(std::string_view bytes);

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
