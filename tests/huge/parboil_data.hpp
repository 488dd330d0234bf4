// Parboil histo's default data set (tests/data/README.md) for the huge-histogram tests and benchmark: the 1,035,840
// bins of the input, the expected 1,048,576-bin result, and its operator (an 8-bit saturating add, CAS class).
// Host code; the operator is callable on the device when compiled by nvcc.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ghist/config.hpp"
#include "ghist/update.hpp"

namespace ghist_huge {

/// Saturating add capped at 255 on uint32 (Parboil's 8-bit counter). Both operands are at most 255, so the sum
/// never wraps. A user operator: uint32 with a non-hardware fold takes the compare-and-swap path.
struct sat8_add {
  using value_type = std::uint32_t;
  GHIST_HD static constexpr std::uint32_t identity() { return 0; }
  GHIST_HD constexpr std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return a + b > 255u ? 255u : a + b;
  }
};

/// Parboil's bin function: the input already holds the bin; each input adds 1.
struct parboil_update {
  GHIST_HD ghist::bin_update<std::uint32_t> operator()(std::int32_t bin) const { return {bin, 1u}; }
};

/// Reads a gzip file of raw little-endian int32; throws std::runtime_error naming the file when it cannot.
inline std::vector<std::int32_t> read_i32_gz(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (g == nullptr) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> bytes;
  std::vector<unsigned char> buf(1 << 16);
  int got;
  while ((got = gzread(g, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
    bytes.insert(bytes.end(), buf.begin(), buf.begin() + got);
  const bool failed = got < 0;
  gzclose(g);
  if (failed || bytes.size() % 4 != 0) throw std::runtime_error("bad gzip of int32: " + path);
  std::vector<std::int32_t> out(bytes.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::int32_t>(std::uint32_t(bytes[4 * i]) | std::uint32_t(bytes[4 * i + 1]) << 8 |
                                       std::uint32_t(bytes[4 * i + 2]) << 16 | std::uint32_t(bytes[4 * i + 3]) << 24);
  return out;
}

struct parboil_histo {
  static constexpr std::int64_t num_bins = 1048576;  // 256 x 4096
  static constexpr std::size_t num_inputs = 1035840;  // a 996 x 1040 image
  std::vector<std::int32_t> bins;
  std::vector<std::uint32_t> expected;
};

/// Loads both files from `dir` and checks their sizes (std::runtime_error otherwise).
inline parboil_histo load_parboil_histo(const std::string& dir) {
  parboil_histo p;
  p.bins = read_i32_gz(dir + "/parboil-histo-default.bins.i32.gz");
  const auto expected = read_i32_gz(dir + "/parboil-histo-default.expected.i32.gz");
  if (p.bins.size() != parboil_histo::num_inputs)
    throw std::runtime_error("Parboil input holds " + std::to_string(p.bins.size()) + " bins, expected " +
                             std::to_string(parboil_histo::num_inputs));
  if (expected.size() != static_cast<std::size_t>(parboil_histo::num_bins))
    throw std::runtime_error("Parboil expected result holds " + std::to_string(expected.size()) + " values, expected " +
                             std::to_string(parboil_histo::num_bins));
  p.expected.assign(expected.begin(), expected.end());
  return p;
}

}  // namespace ghist_huge
