// Reading grayscale and colour images as per-channel columns of samples: PGM/PPM (P2, P3, P5, P6; maxval up to
// 65535) and PNG (through libpng: 1..16-bit gray, gray+alpha, RGB, RGBA, palette; alpha is ignored, palette
// images become RGB).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "input_reader.hpp"

namespace ghist::cli {

struct image_data {
  std::string format;                      ///< "pgm", "ppm" or "png"
  std::int64_t width = 0, height = 0;
  std::uint32_t maxval = 255;              ///< the largest sample value the image can hold
  std::vector<std::string> channel_names;  ///< {"value"} for gray, {"r", "g", "b"} for colour
  std::vector<sample_column> channels;     ///< one int64 column per channel, width * height values each
};

bool looks_like_pnm(std::string_view bytes);  ///< "P2", "P3", "P5" or "P6" then white space
bool looks_like_png(std::string_view bytes);  ///< the 8-byte PNG signature

/// Throw cli_error (exit_failure) naming the file for a bad header, bad sample or truncated image.
image_data read_pnm(const std::string& path, std::string_view bytes);
image_data read_png(const std::string& path, std::string_view bytes);

/// Whether this build reads PNG (libpng found at configure time).
bool png_supported();

}  // namespace ghist::cli
