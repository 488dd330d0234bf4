// HistogramRange / MultiHistogramRange on the GPU: every sample type x counter type x layout against the CPU
// reference (a binary search over the same levels, checked on the host against a linear scan), and against
// cub::DeviceHistogram on the same input.
#include <algorithm>
#include <array>
#include <cstdint>

#include "cub_compat_test_support.cuh"

namespace cub_compat_test {
namespace {

using GhistHist = ghist::cub_compat::DeviceHistogram;

/// num_levels strictly increasing levels of type S over about [lo, hi), unevenly spaced.
template <class S>
std::vector<S> make_levels(int num_levels, double lo, double hi, std::mt19937_64& rng) {
  std::vector<double> raw(static_cast<std::size_t>(num_levels));
  std::uniform_real_distribution<double> u(lo, hi);
  for (double& x : raw) x = u(rng);
  raw.front() = lo;
  std::sort(raw.begin(), raw.end());
  std::vector<S> levels;
  for (double x : raw) {
    const S s = from_double<S>(x);
    if (levels.empty() || ghist::cub_compat::detail::widen(levels.back()) < ghist::cub_compat::detail::widen(s))
      levels.push_back(s);
  }
  return levels;
}

template <class S>
class CubCompatGpuRange : public ::testing::Test {};

using sample_types = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t,
                                      std::uint32_t, std::int64_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
TYPED_TEST_SUITE(CubCompatGpuRange, sample_types);

template <int Channels, int Active, class CounterT, class S>
void check_range_layout(int num_levels, const layout& lay, dist d, std::mt19937_64& rng) {
  SCOPED_TRACE(lay.name() + " " + to_string(d) + " levels " + std::to_string(num_levels) + " counter bytes " +
               std::to_string(sizeof(CounterT)));
  const double lo = std::is_signed_v<S> || !std::is_integral_v<S> ? -100.0 : 2.0;
  const double hi = std::is_integral_v<S> && sizeof(S) == 1 ? 120.0 : 1000.0;
  std::array<std::vector<S>, Active> levels;
  std::array<ghist::cub_compat::detail::range_transform<S, S>, Active> to_bin{};
  std::array<std::int64_t, Active> bins{};
  for (int c = 0; c < Active; ++c) {
    levels[c] = make_levels<S>(num_levels + c, lo, hi, rng);
    to_bin[c] = {levels[c].data(), static_cast<int>(levels[c].size())};
    bins[c] = static_cast<std::int64_t>(levels[c].size()) - 1;
    if (bins[c] < 1) return;  // too few distinct levels in a small type
  }
  const auto samples = make_samples<S>(d, lay.total_samples(), lo, hi, rng);
  device_buffer<S> d_samples(samples);
  const auto want = reference<Active>(lay, samples, to_bin, bins);
  std::array<std::vector<std::uint64_t>, Active> got;
  ASSERT_EQ((run_range<GhistHist, Channels, Active, CounterT>(lay, d_samples.get(), levels, got)), cudaSuccess);
  for (int c = 0; c < Active; ++c) ASSERT_EQ(got[c], want[c]) << "channel " << c;
  // No CUB for int8: it drops negative samples (NVIDIA/cccl#10977).
  if constexpr (std::is_same_v<CounterT, int> && !(sizeof(S) == 1 && std::is_signed_v<S>)) {
    std::array<std::vector<std::uint64_t>, Active> cub_got;
    ASSERT_EQ((run_range<cub::DeviceHistogram, Channels, Active, CounterT>(lay, d_samples.get(), levels, cub_got)),
              cudaSuccess);
    for (int c = 0; c < Active; ++c) EXPECT_EQ(cub_got[c], want[c]) << "CUB differs, channel " << c;
  }
}

template <class CounterT, class S>
void check_range_counter(int num_levels, std::mt19937_64& rng, int& rotate) {
  for (dist d : all_dists) {
    const std::int64_t n = pixel_counts[static_cast<std::size_t>(rotate++) % std::size(pixel_counts)];
    check_range_layout<1, 1, CounterT, S>(num_levels, layout{1, 1, n, n == 0 ? 0 : 1, 0}, d, rng);
    check_range_layout<4, 3, CounterT, S>(num_levels, layout{4, 3, n / 3, 3, 0}, d, rng);
    check_range_layout<1, 1, CounterT, S>(num_levels, layout{1, 1, n / 7, 7, 5}, d, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(CubCompatGpuRange, AllCountersAndLayoutsMatchReferenceAndCub) {
  using S = TypeParam;
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int rotate = 0;
  for (int num_levels : {2, 9, 200}) {
    check_range_counter<int, S>(num_levels, rng, rotate);
    check_range_counter<unsigned, S>(num_levels, rng, rotate);
    check_range_counter<long long, S>(num_levels, rng, rotate);
    check_range_counter<std::uint64_t, S>(num_levels, rng, rotate);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace cub_compat_test
