// ghist::invariant_divisor on the GPU (its __umulhi path) against the host's / and %: divisors small, near powers of
// two and random (fresh each run), each with numerators at the edges and at random.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/invariant_divisor.hpp"
#include "test_support.cuh"

namespace {

__global__ void divide_kernel(const ghist::invariant_divisor* divisors, const std::uint32_t* numerators,
                              const int* which, int count, std::uint32_t* quotients, std::uint32_t* remainders) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const ghist::invariant_divisor d = divisors[which[i]];
    quotients[i] = d.divide(numerators[i]);
    remainders[i] = d.remainder(numerators[i]);
  }
}

TEST(InvariantDivisorGpu, MatchesHostDivision) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> d_values;
  for (std::uint32_t d = 1; d <= 300; ++d) d_values.push_back(d);
  for (int k = 1; k <= 32; ++k)
    for (std::int64_t off = -2; off <= 2; ++off) {
      const std::uint64_t d = (std::uint64_t{1} << k) + off;
      if (d >= 1 && d <= 0xffffffffull) d_values.push_back(static_cast<std::uint32_t>(d));
    }
  std::uniform_int_distribution<std::uint32_t> any(1u, 0xffffffffu);
  for (int i = 0; i < 300; ++i) d_values.push_back(any(rng) >> (i % 31));
  for (auto& d : d_values) d = d == 0 ? 1 : d;

  std::vector<ghist::invariant_divisor> divisors;
  std::vector<std::uint32_t> numerators;
  std::vector<int> which;
  for (std::size_t j = 0; j < d_values.size(); ++j) {
    const std::uint32_t d = d_values[j];
    divisors.push_back(ghist::invariant_divisor::make(d));
    std::vector<std::uint32_t> n = {0u, 1u, d - 1, d, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    const std::uint64_t last = 0xffffffffull / d * d;
    n.push_back(static_cast<std::uint32_t>(last));
    n.push_back(static_cast<std::uint32_t>(last - 1));
    if (std::uint64_t{d} * 2 <= 0xffffffffull) n.push_back(2 * d - 1);
    for (int i = 0; i < 64; ++i) n.push_back(static_cast<std::uint32_t>(rng()));
    for (std::uint32_t x : n) {
      numerators.push_back(x);
      which.push_back(static_cast<int>(j));
    }
  }
  const int count = static_cast<int>(numerators.size());
  ghist_test::device_buffer<ghist::invariant_divisor> dev_divisors(divisors);
  ghist_test::device_buffer<std::uint32_t> dev_numerators(numerators), quotients(count), remainders(count);
  ghist_test::device_buffer<int> dev_which(which);
  divide_kernel<<<64, 256>>>(dev_divisors.get(), dev_numerators.get(), dev_which.get(), count, quotients.get(),
                             remainders.get());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<std::uint32_t> q = quotients.download(), r = remainders.download();
  int wrong = 0;
  for (int i = 0; i < count && wrong < 10; ++i) {
    const std::uint32_t d = d_values[which[i]], x = numerators[i];
    if (q[i] != x / d || r[i] != x % d) {
      ADD_FAILURE() << x << " / " << d << ": got " << q[i] << " r " << r[i] << ", want " << x / d << " r " << x % d;
      ++wrong;
    }
  }
}

}  // namespace
