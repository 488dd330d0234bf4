// Batched histograms on the GPU against cpu::batched_histogram(_offsets): equal and variable segments (empty ones,
// one long one among short ones), the three atomic classes and a float sum, fresh random data of every
// distribution in each segment, each strategy forced and automatic, both modes, int32 and int64 offsets.
#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/batched.cuh"
#include "ghist/cpu_batched.hpp"
#include "ghist/detail/multi/multi_plan.hpp"
#include "multi_test_support.cuh"

namespace ghist_test {
namespace {

/// f(s, j) of the tests: the element at first[s] + j of an array of test elements.
template <class Op, class Offset>
struct segment_update {
  const std::uint64_t* elements;
  const Offset* first;  // first[s]: where segment s starts (equal segments: null, s * length)
  std::int64_t length;
  __host__ __device__ ghist::bin_update<typename Op::value_type> operator()(std::int64_t s, std::int64_t j) const {
    const std::int64_t at = (first != nullptr ? static_cast<std::int64_t>(first[s]) : s * length) + j;
    return element_to_update<Op>{}(elements[at]);
  }
};

template <class Op>
bool refused(std::int64_t segments, std::int64_t inputs, std::int64_t H, const run_config& c) {
  ghist::plan_overrides o;
  o.kind = c.kind;
  try {
    ghist::detail::multi::plan_batched(segments, inputs, ghist::detail::multi::shape_of<Op>(H),
                                       ghist::device_info::current(), o);
    return false;
  } catch (const ghist::error&) {
    return true;
  }
}

/// lengths: one per segment; equal: use batched_histogram_async (all lengths must then be equal).
template <class Op, class Offset = std::int64_t>
void check_batched(distribution dist, const std::vector<std::int64_t>& lengths, std::int64_t H, const run_config& c,
                   bool equal) {
  using T = typename Op::value_type;
  const std::uint64_t seed = fresh_seed();
  const auto S = static_cast<std::int64_t>(lengths.size());
  std::ostringstream what;
  what << "dist=" << to_string(dist) << " segments=" << S << " first length=" << (S > 0 ? lengths[0] : 0)
       << " H=" << H << " " << config_name(c) << " form=" << (equal ? "equal" : "offsets") << " seed=" << seed;
  SCOPED_TRACE(what.str());
  std::mt19937_64 rng(seed);
  std::vector<Offset> offsets(static_cast<std::size_t>(S) + 1, 0);
  std::vector<std::uint64_t> elements;
  for (std::int64_t s = 0; s < S; ++s) {
    const auto part = make_elements(dist, lengths[s], H, rng);  // each segment its own draw
    elements.insert(elements.end(), part.begin(), part.end());
    offsets[s + 1] = static_cast<Offset>(offsets[s] + lengths[s]);
  }
  std::vector<T> initial(static_cast<std::size_t>(S * H));
  for (auto& v : initial) v = op_case<Op>::initial(rng);
  std::vector<T> expected = initial;
  if (equal)
    ghist::cpu::batched_histogram(S, S > 0 ? lengths[0] : 0,
                                  segment_update<Op, Offset>{elements.data(), nullptr, S > 0 ? lengths[0] : 0}, Op{},
                                  expected.data(), H, c.how);
  else
    ghist::cpu::batched_histogram_offsets(offsets.data(), S, segment_update<Op, Offset>{elements.data(),
                                                                                        offsets.data(), 0},
                                          Op{}, expected.data(), H, c.how);

  device_buffer<std::uint64_t> d_elements(elements);
  device_buffer<Offset> d_offsets(offsets);
  device_buffer<T> d_hist(initial);
  ghist::options opts;
  opts.how = c.how;
  opts.overrides.kind = c.kind;
  auto call = [&] {
    if (equal)
      ghist::batched_histogram_async(S, S > 0 ? lengths[0] : 0,
                                     segment_update<Op, Offset>{d_elements.get(), nullptr, S > 0 ? lengths[0] : 0},
                                     Op{}, d_hist.get(), H, 0, opts);
    else
      ghist::batched_histogram_offsets_async(d_offsets.get(), S,
                                             segment_update<Op, Offset>{d_elements.get(), d_offsets.get(), 0}, Op{},
                                             d_hist.get(), H, 0, opts);
  };
  if (refused<Op>(S, static_cast<std::int64_t>(elements.size()), H, c)) {
    EXPECT_THROW(call(), ghist::error);
    EXPECT_EQ(count_mismatches<Op>(d_hist.download(), initial, "untouched dest"), 0);
    return;
  }
  call();
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(count_mismatches<Op>(d_hist.download(), expected, "dest"), 0);
}

std::vector<std::int64_t> equal_lengths(std::int64_t segments, std::int64_t length) {
  return std::vector<std::int64_t>(static_cast<std::size_t>(segments), length);
}

/// Random lengths in [0, max_length], some segments empty, one long one.
std::vector<std::int64_t> ragged_lengths(std::int64_t segments, std::int64_t max_length, std::mt19937_64& rng) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(segments));
  std::uniform_int_distribution<std::int64_t> len(0, max_length);
  for (auto& l : out) l = rng() % 5 == 0 ? 0 : len(rng);
  if (segments > 2) out[static_cast<std::size_t>(segments / 2)] = 50 * max_length + 3;
  return out;
}

TEST(GpuBatched, EqualSegmentsEveryDistribution) {
  for (const auto& c : all_configs())
    for (distribution d : all_distributions)
      for (auto [segments, length] : {std::pair<std::int64_t, std::int64_t>{0, 10}, {1, 0}, {1, 1}, {7, 9973},
                                      {200, 1001}, {1000, 37}})
        check_batched<ghist::plus<std::uint32_t>>(d, equal_lengths(segments, length), 22, c, true);
}

TEST(GpuBatched, EqualSegmentsThreeClasses) {
  for (const auto& c : all_configs())
    for (distribution d : {distribution::uniform, distribution::one_bin, distribution::out_of_range}) {
      check_batched<saturating_add24>(d, equal_lengths(13, 65537), 257, c, true);
      check_batched<unpacked_argmax>(d, equal_lengths(31, 4099), 100, c, true);
      check_batched<ghist::plus<float>>(d, equal_lengths(64, 3001), 1024, c, true);
      check_batched<ghist::min<std::int64_t>>(d, equal_lengths(3, 100003), 1, c, true);
    }
}

TEST(GpuBatched, VariableSegmentsWithEmptyOnes) {
  std::mt19937_64 rng(fresh_seed());
  for (const auto& c : all_configs())
    for (distribution d : all_distributions) {
      check_batched<ghist::plus<std::uint32_t>>(d, ragged_lengths(101, 2000, rng), 22, c, false);
      check_batched<unpacked_argmax, std::int32_t>(d, ragged_lengths(17, 500, rng), 31, c, false);
      check_batched<saturating_add24, std::uint32_t>(d, ragged_lengths(3, 30000, rng), 4096, c, false);
    }
}

TEST(GpuBatched, ManyShortSegmentsAndLargeHistograms) {
  for (const auto& c : all_configs()) {
    check_batched<ghist::plus<std::uint32_t>>(distribution::uniform, equal_lengths(100003, 3), 5, c, true);
    check_batched<ghist::plus<std::uint32_t>>(distribution::zipf, equal_lengths(4, 300007), 70000, c, true);
  }
}

}  // namespace
}  // namespace ghist_test
