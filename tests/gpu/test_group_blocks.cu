// assign_group_blocks_kernel (the partitioned strategy's second-pass blocks per group) on fresh random group totals:
// uniform, Zipf-like, one hot group, with empty groups, against a host model. Where the groups with inputs can have
// a block each and the floors' rule leaves a block with more than 4% over the mean load, the kernel apportions the
// blocks (Jefferson's method): at most `budget` blocks for the groups with inputs, and the busiest block's load within
// 7% of the best any such assignment allows (its candidates' spacing, ~2%, and its slack, 4%); elsewhere it keeps
// the floors' rule exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/kernel_partition.cuh"
#include "test_support.cuh"

namespace {

using totals_t = std::vector<unsigned long long>;

std::vector<unsigned> blocks_on_gpu(const totals_t& totals, int budget, unsigned min_blocks) {
  const int groups = static_cast<int>(totals.size());
  ghist_test::device_buffer<unsigned long long> d_totals(totals);
  ghist_test::device_buffer<unsigned> d_starts(totals.size() + 1);
  ghist::detail::assign_group_blocks_kernel<><<<1, ghist::detail::partition_block>>>(d_totals.get(), groups, budget,
                                                                                     d_starts.get(), min_blocks);
  GHIST_CUDA_CHECK(cudaGetLastError());
  const std::vector<unsigned> starts = d_starts.download();
  std::vector<unsigned> blocks(totals.size());
  for (int g = 0; g < groups; ++g) {
    EXPECT_LE(starts[g], starts[g + 1]) << "starts must not decrease, group " << g;
    blocks[g] = starts[g + 1] - starts[g];
  }
  EXPECT_EQ(starts[0], 0u);
  return blocks;
}

/// The floors' rule: max(1, floor(t * budget / total)) for a group with inputs, min_blocks for an empty one.
std::vector<unsigned> floors_rule(const totals_t& totals, int budget, unsigned min_blocks) {
  unsigned long long total = 0;
  for (auto t : totals) total += t;
  std::vector<unsigned> blocks;
  for (auto t : totals) {
    const unsigned long long share = total == 0 ? 0 : t * static_cast<unsigned long long>(budget) / total;
    blocks.push_back(t == 0 ? min_blocks : static_cast<unsigned>(std::max<unsigned long long>(share, 1)));
  }
  return blocks;
}

/// The least possible load of the busiest block when the groups with inputs share `budget` blocks (each at least
/// one; an empty group's blocks only write its bins and take no share): the smallest L with sum ceil(t / L) <=
/// budget over the groups with inputs, found exactly in integers.
unsigned long long best_busiest_load(const totals_t& totals, int budget) {
  unsigned long long lo = 1, hi = 1;
  for (auto t : totals) hi = std::max(hi, t);
  auto fits = [&](unsigned long long L) {
    unsigned long long need = 0;
    for (auto t : totals) need += (t + L - 1) / L;
    return need <= static_cast<unsigned long long>(budget);
  };
  while (lo < hi) {
    const unsigned long long mid = lo + (hi - lo) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

totals_t draw_totals(const std::string& shape, int groups, std::mt19937_64& rng) {
  totals_t t(groups, 0);
  const unsigned long long n = 50'000'000;
  if (shape == "uniform") {
    std::uniform_int_distribution<unsigned long long> jitter(0, n / groups / 50 + 1);
    for (auto& x : t) x = n / groups + jitter(rng);
  } else if (shape == "zipf") {  // Zipf(1.1) ranks over 64 bins a group, in a random order of the bins
    const int bins = groups * 64;
    std::vector<int> order(bins);
    for (int b = 0; b < bins; ++b) order[b] = b;
    std::shuffle(order.begin(), order.end(), rng);
    double norm = 0;
    for (int r = 1; r <= bins; ++r) norm += std::pow(r, -1.1);
    for (int r = 1; r <= bins; ++r)
      t[order[r - 1] / 64] += static_cast<unsigned long long>(n * std::pow(r, -1.1) / norm) + 1;
  } else if (shape == "one_hot") {
    std::uniform_int_distribution<int> which(0, groups - 1);
    for (auto& x : t) x = 1000;
    t[which(rng)] = n;
  } else {  // "sparse": most groups empty, the rest random
    std::uniform_int_distribution<unsigned long long> any(1, n / 4);
    std::bernoulli_distribution kept(0.2);
    for (auto& x : t) x = kept(rng) ? any(rng) : 0;
  }
  return t;
}

TEST(GroupBlocks, ApportionedWithinTheBestLoadElseTheFloors) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int apportioned_cases = 0;
  for (const char* shape : {"uniform", "zipf", "one_hot", "sparse"})
    for (int groups : {1, 7, 32, 55, 63, 200, 300, 512, 513, 2000})
      for (int budget : {132, 264})
        for (unsigned min_blocks : {0u, 1u}) {
          const totals_t totals = draw_totals(shape, groups, rng);
          SCOPED_TRACE(std::string(shape) + " groups " + std::to_string(groups) + " budget " +
                       std::to_string(budget) + " min_blocks " + std::to_string(min_blocks));
          const std::vector<unsigned> blocks = blocks_on_gpu(totals, budget, min_blocks);
          unsigned long long total = 0, nonempty = 0, nonempty_blocks = 0;
          for (int g = 0; g < groups; ++g) {
            total += totals[g];
            if (totals[g] == 0) {
              EXPECT_EQ(blocks[g], min_blocks) << "empty group " << g;
            } else {
              EXPECT_GE(blocks[g], 1u) << "group " << g << " has inputs";
              ++nonempty;
              nonempty_blocks += blocks[g];
            }
          }
          const std::vector<unsigned> floors = floors_rule(totals, budget, min_blocks);
          if (groups > ghist::detail::apportioned_max_groups || nonempty == 0 ||
              nonempty > static_cast<unsigned long long>(budget)) {
            EXPECT_EQ(blocks, floors) << "no apportionment possible: the floors' rule";
            continue;
          }
          auto busiest_of = [&](const std::vector<unsigned>& b) {
            double most = 0;
            for (int g = 0; g < groups; ++g)
              if (totals[g] > 0) most = std::max(most, double(totals[g]) / b[g]);
            return most;
          };
          const double mean = double(total) / budget;
          // The floors are kept where their busiest block is within the slack of the mean load (the float
          // comparison of the kernel, give or take its rounding).
          if (blocks == floors && busiest_of(floors) <= 1.0401 * mean) continue;
          ++apportioned_cases;
          EXPECT_GT(busiest_of(floors), 1.0399 * mean) << "apportioned although the floors were within the slack";
          EXPECT_LE(nonempty_blocks, static_cast<unsigned long long>(budget));
          const double best = double(best_busiest_load(totals, budget));
          EXPECT_LE(busiest_of(blocks), 1.07 * best) << "the busiest block's load against the best possible";
        }
  EXPECT_GT(apportioned_cases, 20);
}

}  // namespace
