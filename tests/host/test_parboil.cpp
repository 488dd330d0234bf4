// The real sparse case: Parboil histo's default data set (tests/data/README.md), 1,048,576 bins and an 8-bit
// saturating add, through the CPU backend; the result must equal the benchmark's expected output exactly.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ghist/cpu.hpp"

namespace {

// Saturating add capped at 255 on uint32 (an 8-bit saturating counter): a user operator.
struct sat8_add {
  using value_type = std::uint32_t;
  static constexpr std::uint32_t identity() { return 0; }
  std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t s = a + b;  // both <= 255: no wrap
    return s > 255u ? 255u : s;
  }
};

// Reads a gzip file of raw little-endian int32.
std::vector<std::int32_t> read_i32_gz(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  if (g == nullptr) throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> bytes;
  unsigned char buf[1 << 16];
  int got;
  while ((got = gzread(g, buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + got);
  const bool failed = got < 0;
  gzclose(g);
  if (failed || bytes.size() % 4 != 0) throw std::runtime_error("bad gzip of int32: " + path);
  std::vector<std::int32_t> out(bytes.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::int32_t>(std::uint32_t(bytes[4 * i]) | std::uint32_t(bytes[4 * i + 1]) << 8 |
                                       std::uint32_t(bytes[4 * i + 2]) << 16 | std::uint32_t(bytes[4 * i + 3]) << 24);
  return out;
}

TEST(Parboil, HistoDefaultSaturating8BitEqualsExpectedFile) {
  const std::string dir = GHIST_TEST_DATA_DIR;
  const auto bins = read_i32_gz(dir + "/parboil-histo-default.bins.i32.gz");
  const auto expected = read_i32_gz(dir + "/parboil-histo-default.expected.i32.gz");
  const std::int64_t H = 1048576;
  ASSERT_EQ(bins.size(), 1035840u);
  ASSERT_EQ(expected.size(), static_cast<std::size_t>(H));
  for (int threads : {1, 4, 0}) {
    std::vector<std::uint32_t> hist(H, 77);
    ghist::cpu::generalized_histogram(
        bins.data(), static_cast<std::int64_t>(bins.size()),
        [](std::int32_t b) { return ghist::bin_update<std::uint32_t>{b, 1u}; }, sat8_add{}, hist.data(), H,
        ghist::mode::overwrite, threads);
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t b = 0; b < H; ++b)
      if (hist[b] != static_cast<std::uint32_t>(expected[b])) {
        if (first < 0) first = b;
        ++mismatches;
      }
    EXPECT_EQ(mismatches, 0) << "threads=" << threads << ", first at bin " << first;
  }
}

}  // namespace
