// The real sparse case: Parboil histo's default data set (tests/data/README.md), 1,048,576 bins and an 8-bit
// saturating add, through the CPU backend; the result must equal the benchmark's expected output exactly. (The GPU
// side is tests/huge/test_gpu_parboil.cu; both read the data with tests/huge/parboil_data.hpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../huge/parboil_data.hpp"
#include "ghist/cpu.hpp"

namespace {

TEST(Parboil, HistoDefaultSaturating8BitEqualsExpectedFile) {
  const ghist_huge::parboil_histo data = ghist_huge::load_parboil_histo(GHIST_TEST_DATA_DIR);
  const std::int64_t H = ghist_huge::parboil_histo::num_bins;
  for (int threads : {1, 4, 0}) {
    std::vector<std::uint32_t> hist(H, 77);
    ghist::cpu::generalized_histogram(data.bins.data(), static_cast<std::int64_t>(data.bins.size()),
                                      ghist_huge::parboil_update{}, ghist_huge::sat8_add{}, hist.data(), H,
                                      ghist::mode::overwrite, threads);
    std::int64_t mismatches = 0, first = -1;
    for (std::int64_t b = 0; b < H; ++b)
      if (hist[b] != data.expected[b]) {
        if (first < 0) first = b;
        ++mismatches;
      }
    EXPECT_EQ(mismatches, 0) << "threads=" << threads << ", first at bin " << first;
  }
}

}  // namespace
