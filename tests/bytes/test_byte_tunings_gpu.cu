// GPU tests of the alternative tunings of the byte kernels (detail/byte_histogram/tunings.cuh), which the
// benchmark times next to the defaults: each must give the CPU backend's answer on odd sizes, misaligned starts
// (partial tiles and heads/tails of every length) and every distribution before it may become a default.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "byte_inputs.hpp"
#include "ghist/cpu.hpp"
#include "ghist/detail/byte_histogram/launch.cuh"
#include "ghist/detail/byte_histogram/tunings.cuh"
#include "test_support.cuh"

namespace {

namespace bytes = ghist::detail::bytes;
using ghist::byte_method;
using ghist_test::device_buffer;

template <class Packed, class Atomics>
void check_tuning(byte_method method) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t sizes[] = {1, 17, 4095, 100003, (std::int64_t(1) << 22) + 5};
  const std::int64_t largest = (std::int64_t(1) << 22) + 5 + 16;
  for (auto d : ghist_bytes::all_byte_dists) {
    std::vector<std::uint8_t> h(static_cast<std::size_t>(largest));
    const std::uint64_t data_seed = rng();
    for (std::int64_t i = 0; i < largest; ++i) h[static_cast<std::size_t>(i)] = ghist_bytes::byte_at(d, i, data_seed);
    device_buffer<std::uint8_t> d_data(h);
    device_buffer<std::uint32_t> d_hist(100);
    for (std::int64_t n : sizes)
      for (int offset : {0, 7, 13}) {
        for (bool is_signed : {false, true}) {
          const int lower = is_signed ? -100 : 0, upper = is_signed ? 100 : 256, bins = is_signed ? 100 : 7;
          bytes::byte_histogram<std::uint32_t, Packed, Atomics>(d_data.get() + offset, is_signed, n, d_hist.get(),
                                                               bins, lower, upper, 0, {}, method);
          CUDA_OK(cudaDeviceSynchronize());
          std::vector<std::uint32_t> want(static_cast<std::size_t>(bins));
          const auto eb = ghist::make_even_bins<int>(lower, upper, bins);
          ghist::cpu::generalized_histogram(
              h.data() + offset, n,
              [eb, is_signed](std::uint8_t raw) {
                const int x = is_signed ? static_cast<int>(static_cast<std::int8_t>(raw)) : static_cast<int>(raw);
                return ghist::bin_update<std::uint32_t>{eb(x), 1u};
              },
              ghist::plus<std::uint32_t>{}, want.data(), bins);
          std::vector<std::uint32_t> got = d_hist.download();
          got.resize(want.size());
          ASSERT_EQ(got, want) << ghist_bytes::to_string(d) << " n=" << n << " offset=" << offset
                               << (is_signed ? " int8" : " uint8");
        }
      }
  }
}

TEST(ByteTunings, Packed8) {
  check_tuning<bytes::packed8_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, PairCountersFlushEveryTile) {
  check_tuning<bytes::pair_counters_flush_every_tile_tuning, bytes::shared_atomics_tuning>(
      byte_method::packed_counters);
}
TEST(ByteTunings, PairCountersUnroll4) {
  check_tuning<bytes::pair_counters_unroll4_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, PairCountersQuarterAtomics) {
  check_tuning<bytes::pair_counters_quarter_atomics_tuning, bytes::shared_atomics_tuning>(
      byte_method::packed_counters);
}
TEST(ByteTunings, PairCountersQuarterAtomicsFlushEveryTile) {
  check_tuning<bytes::pair_counters_quarter_atomics_flush_every_tile_tuning, bytes::shared_atomics_tuning>(
      byte_method::packed_counters);
}
TEST(ByteTunings, PairCountersNoAtomics) {
  check_tuning<bytes::pair_counters_no_atomics_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, PackedAtomicIncrement) {
  check_tuning<bytes::packed8_atomic_increment_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, PackedByteStores) {
  check_tuning<bytes::packed8_byte_stores_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, PackedUnroll3) {
  check_tuning<bytes::packed8_unroll3_tuning, bytes::shared_atomics_tuning>(byte_method::packed_counters);
}
TEST(ByteTunings, AtomicsPerLane) {
  check_tuning<bytes::pair_counters_tuning, bytes::atomics_per_lane_tuning>(byte_method::shared_atomics);
}
TEST(ByteTunings, AtomicsPerLaneUnroll12) {
  check_tuning<bytes::pair_counters_tuning, bytes::atomics_per_lane_unroll12_tuning>(byte_method::shared_atomics);
}
TEST(ByteTunings, AtomicsPerWarpUnswizzled) {
  check_tuning<bytes::pair_counters_tuning, bytes::atomics_per_warp_unswizzled_tuning>(byte_method::shared_atomics);
}
TEST(ByteTunings, EightCopies) {
  check_tuning<bytes::pair_counters_tuning, bytes::eight_copies_tuning>(byte_method::shared_atomics);
}
TEST(ByteTunings, EightCopiesSwizzled) {
  check_tuning<bytes::pair_counters_tuning, bytes::eight_copies_swizzled_tuning>(byte_method::shared_atomics);
}

}  // namespace
