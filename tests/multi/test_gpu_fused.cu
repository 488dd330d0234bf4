// Fused histograms on the GPU against cpu::fused_histogram: k = 1..4 targets of the three atomic classes (and a
// float sum), fresh random inputs of every distribution, odd sizes, each strategy forced and automatic, both modes,
// the element and the index forms.
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/cpu_fused.hpp"
#include "ghist/detail/multi/multi_plan.hpp"
#include "ghist/fused.cuh"
#include "multi_test_support.cuh"

namespace ghist_test {
namespace {

template <class... Ops>
struct indexed_fused {
  const std::uint64_t* elements;
  fused_updates<Ops...> f;
  __device__ auto operator()(std::int64_t i) const { return f(elements[i]); }
};

/// Whether the GPU plan of this call forces shared memory that does not fit (then the call must throw).
template <class... Ops>
bool refused(std::int64_t n, const std::vector<std::int64_t>& H, const run_config& c) {
  std::vector<ghist::detail::multi::target_shape> ts;
  std::size_t j = 0;
  (ts.push_back(ghist::detail::multi::shape_of<Ops>(H[j++])), ...);
  ghist::plan_overrides o;
  o.kind = c.kind;
  try {
    ghist::detail::multi::plan_fused(n, ts, ghist::device_info::current(), o);
    return false;
  } catch (const ghist::error&) {
    return true;
  }
}

template <class... Ops>
void check_fused(distribution dist, std::int64_t n, const std::vector<std::int64_t>& H, const run_config& c,
                 bool indexed) {
  constexpr std::size_t K = sizeof...(Ops);
  using seq = std::index_sequence_for<Ops...>;
  const std::uint64_t seed = fresh_seed();
  std::ostringstream what;
  what << "dist=" << to_string(dist) << " n=" << n << " H=";
  for (auto h : H) what << h << ",";
  what << " " << config_name(c) << " form=" << (indexed ? "indexed" : "element") << " seed=" << seed;
  SCOPED_TRACE(what.str());
  std::mt19937_64 rng(seed);
  const auto elements = make_elements(dist, n, H[0], rng);
  fused_updates<Ops...> f{};
  for (std::size_t j = 0; j < K; ++j) f.H[j] = H[j];

  // Host copies: the initial contents (garbage to be overwritten, or values to accumulate into) and the expected.
  std::tuple<std::vector<typename Ops::value_type>...> initial, expected;
  ghist::cpu::detail::for_each_index(seq{}, [&](auto J) {
    using Op = std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>;
    auto& v = std::get<decltype(J)::value>(initial);
    v.resize(static_cast<std::size_t>(H[J]));
    for (auto& x : v) x = op_case<Op>::initial(rng);
    std::get<decltype(J)::value>(expected) = v;
  });
  auto cpu_targets = std::apply(
      [&](auto&... v) { return std::make_tuple(ghist::make_target(Ops{}, v.data(), std::int64_t(v.size()))...); },
      expected);
  ghist::cpu::fused_histogram(elements.data(), n, [&](std::uint64_t e) { return f.host(e, seq{}); }, cpu_targets,
                              c.how);

  device_buffer<std::uint64_t> d_elements(elements);
  std::tuple<std::unique_ptr<device_buffer<typename Ops::value_type>>...> d_hist;
  ghist::cpu::detail::for_each_index(seq{}, [&](auto J) {
    using T = typename std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>::value_type;
    std::get<decltype(J)::value>(d_hist) =
        std::make_unique<device_buffer<T>>(std::get<decltype(J)::value>(initial));
  });
  auto gpu_targets = std::apply(
      [&](auto&... d) { return std::make_tuple(ghist::make_target(Ops{}, d->get(), std::int64_t(d->size()))...); },
      d_hist);
  ghist::options opts;
  opts.how = c.how;
  opts.overrides.kind = c.kind;
  auto call = [&] {
    if (indexed)
      ghist::fused_histogram_indexed_async(n, indexed_fused<Ops...>{d_elements.get(), f}, gpu_targets, 0, opts);
    else
      ghist::fused_histogram_async(d_elements.get(), n, f, gpu_targets, 0, opts);
  };
  if (refused<Ops...>(n, H, c)) {
    EXPECT_THROW(call(), ghist::error);
    ghist::cpu::detail::for_each_index(seq{}, [&](auto J) {
      EXPECT_EQ(std::get<decltype(J)::value>(d_hist)->download().size(), std::get<decltype(J)::value>(initial).size());
      using Op = std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>;
      count_mismatches<Op>(std::get<decltype(J)::value>(d_hist)->download(), std::get<decltype(J)::value>(initial),
                           "untouched target " + std::to_string(decltype(J)::value));
    });
    return;
  }
  call();
  CUDA_OK(cudaDeviceSynchronize());
  ghist::cpu::detail::for_each_index(seq{}, [&](auto J) {
    using Op = std::tuple_element_t<decltype(J)::value, std::tuple<Ops...>>;
    EXPECT_EQ(count_mismatches<Op>(std::get<decltype(J)::value>(d_hist)->download(),
                                   std::get<decltype(J)::value>(expected),
                                   "target " + std::to_string(decltype(J)::value)),
              0);
  });
}

const std::int64_t odd_n[] = {0, 1, 1000, 65537, (1 << 20) + 7};

TEST(GpuFused, TwoHdwTargetsEveryDistribution) {
  for (const auto& c : all_configs())
    for (std::int64_t n : odd_n)
      for (distribution d : all_distributions)
        check_fused<ghist::plus<std::uint32_t>, ghist::plus<std::uint32_t>>(d, n, {256, 31}, c, n % 2 == 0);
}

TEST(GpuFused, ThreeClassesSideBySide) {
  for (const auto& c : all_configs())
    for (std::int64_t n : {std::int64_t(1), std::int64_t(4099), std::int64_t((1 << 20) + 7)})
      for (distribution d : all_distributions)
        for (bool indexed : {false, true})
          check_fused<ghist::plus<std::uint32_t>, saturating_add24, unpacked_argmax>(d, n, {257, 22, 1000}, c,
                                                                                  indexed);
}

TEST(GpuFused, FourTargetsWithAFloatSum) {
  for (const auto& c : all_configs())
    for (std::int64_t n : {std::int64_t(999), std::int64_t((1 << 19) - 1)})
      for (distribution d : {distribution::uniform, distribution::one_bin, distribution::zipf})
        check_fused<ghist::plus<float>, ghist::plus<std::uint32_t>, packed_argmax, ghist::max<std::int32_t>>(
            d, n, {100, 4096, 55, 1}, c, false);
}

TEST(GpuFused, OneTargetEqualsAPlainHistogram) {
  for (const auto& c : all_configs())
    for (distribution d : all_distributions) check_fused<saturating_add24>(d, (1 << 20) + 7, {12288}, c, true);
}

TEST(GpuFused, TargetsTooLargeForSharedMemoryTogether) {
  // Each fits a block's shared memory alone; together they do not: automatic goes global, forced shared throws.
  for (const auto& c : all_configs())
    for (distribution d : {distribution::uniform, distribution::out_of_range})
      check_fused<ghist::plus<std::uint32_t>, ghist::plus<std::uint32_t>>(d, (1 << 20) + 7, {40000, 40000}, c, false);
}

TEST(GpuFused, MoreBinsThanInputs) {
  for (const auto& c : all_configs())
    check_fused<ghist::plus<std::uint32_t>, unpacked_argmax>(distribution::uniform, 1000, {196608, 5000}, c, true);
}

}  // namespace
}  // namespace ghist_test
