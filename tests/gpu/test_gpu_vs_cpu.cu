// GPU results against the CPU backend on fresh random data: the three atomic classes, many sizes, five input
// distributions, each strategy forced and auto, both accumulate modes, the element and index forms.
#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/cpu.hpp"
#include "ghist/detail/race_factor.cuh"
#include "ghist/generalized_histogram.cuh"
#include "ghist/histogram.hpp"
#include "test_support.cuh"

namespace ghist_test {
namespace {

struct test_case {
  distribution dist;
  std::int64_t n;
  std::int64_t H;
  ghist::strategy kind;
  ghist::mode how;
  bool indexed = false;
  int groups = 0;  ///< overrides.S (the partitioned strategy's groups); 0 = planner decides
  /// > 0: a caller's workspace of this many bytes (options.scratch) in place of ghist's pool
  std::size_t workspace_bytes = 0;
  double race_factor = 0.0;  ///< options.race_factor (0 = unknown)
  int block = 0;             ///< overrides.block; 0 = planner decides
  int counted = 0;           ///< overrides.counted_groups (the partitioned strategy's layout); 0 = planner decides
  std::int64_t offset = 0;   ///< the call reads inputs [offset, n): an input pointer off the 16-byte boundary
  int thread_private = 0;    ///< overrides.thread_private (a copy per thread); 0 = planner decides
  int hot_bins = 0;          ///< overrides.hot_bins (hot-bin slots); 0 = planner decides
  int staged_input = 0;      ///< overrides.staged_input (input through shared memory); 0 = planner decides
  int dense = 0;             ///< overrides.dense_second_pass (partitioned 32-bit cas); 0 = planner decides
  int hashed = 0;            ///< overrides.hashed_bins (a table of the bins met per block); 0 = planner decides
  /// > 0: in-range bins b become (b % max(1, H / stride)) * stride, seed 000's race-factor input: H / stride bins hit
  int stride = 0;
  int hot_split = 0;  ///< overrides.hot_split (the heavy hitters of a call without a race factor); 0 = planner decides
  int seed_launch = 0;  ///< overrides.seed_launch (idempotent operators: a seed launch first); 0 = planner decides
  int lock_queue = 0;   ///< overrides.lock_queue (idempotent lock class: queued locked updates); 0 = planner decides
  std::int64_t dest_offset = 0;  ///< the destination starts this many bins into its allocation (off 16 bytes)
  int copies = 0;                ///< overrides.M (copies per block in shared memory); 0 = planner decides
};

std::string describe(const test_case& c, std::uint64_t seed) {
  std::ostringstream s;
  s << "dist=" << to_string(c.dist) << " n=" << c.n << " H=" << c.H << " strategy=" << ghist::to_string(c.kind)
    << " mode=" << (c.how == ghist::mode::overwrite ? "overwrite" : "accumulate") << " form="
    << (c.indexed ? "indexed" : "element") << " groups=" << c.groups << " workspace=" << c.workspace_bytes
    << " RF=" << c.race_factor << " block=" << c.block << " counted=" << c.counted << " offset=" << c.offset
    << " thread_private=" << c.thread_private << " hot_bins=" << c.hot_bins << " staged_input=" << c.staged_input
    << " dense=" << c.dense << " hashed=" << c.hashed << " stride=" << c.stride << " hot_split=" << c.hot_split
    << " seed_launch=" << c.seed_launch << " lock_queue=" << c.lock_queue << " dest_offset=" << c.dest_offset
    << " copies=" << c.copies << " seed=" << seed;
  return s.str();
}

template <class Op>
struct indexed_update {
  const std::uint64_t* elements;
  __device__ ghist::bin_update<typename Op::value_type> operator()(std::int64_t i) const {
    return element_to_update<Op>{}(elements[i]);
  }
};

template <class Op>
void check_against_cpu(const test_case& c) {
  using T = typename Op::value_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(describe(c, seed));
  std::mt19937_64 rng(seed);
  auto elements = make_elements(c.dist, c.n, c.H, rng);
  if (c.stride > 0) {
    const std::int64_t active = std::max<std::int64_t>(1, c.H / c.stride);
    for (auto& e : elements) {
      const auto b = static_cast<std::int32_t>(e & 0xffffffffu);
      if (b >= 0 && b < c.H) e = (e & 0xffffffff00000000ull) | static_cast<std::uint32_t>(b % active * c.stride);
    }
  }
  // Accumulate: the destination holds values to fold in. Overwrite: it holds garbage that must disappear.
  std::vector<T> initial(static_cast<std::size_t>(c.H));
  for (auto& v : initial) v = op_case<Op>::initial(rng);

  std::vector<T> expected = initial;
  const int cpu_threads = c.H > c.n / 4 ? 1 : 0;  // private sub-histograms cost more than they save when H ~ n
  ghist::cpu::generalized_histogram(elements.data() + c.offset, c.n - c.offset, element_to_update<Op>{}, Op{},
                                    expected.data(), c.H, c.how, cpu_threads);

  device_buffer<std::uint64_t> d_elements(elements);
  std::vector<T> allocation(static_cast<std::size_t>(c.dest_offset), T{});
  allocation.insert(allocation.end(), initial.begin(), initial.end());
  device_buffer<T> d_allocation(allocation);
  T* const d_hist = d_allocation.get() + c.dest_offset;
  ghist::options opts;
  opts.how = c.how;
  opts.overrides.kind = c.kind;
  opts.overrides.S = c.groups;
  opts.overrides.block = c.block;
  opts.overrides.counted_groups = c.counted;
  opts.overrides.thread_private = c.thread_private;
  opts.overrides.hot_bins = c.hot_bins;
  opts.overrides.staged_input = c.staged_input;
  opts.overrides.dense_second_pass = c.dense;
  opts.overrides.hashed_bins = c.hashed;
  opts.overrides.hot_split = c.hot_split;
  opts.overrides.seed_launch = c.seed_launch;
  opts.overrides.lock_queue = c.lock_queue;
  opts.overrides.M = c.copies;
  opts.race_factor = c.race_factor;
  device_buffer<unsigned char> workspace(c.workspace_bytes);
  if (c.workspace_bytes > 0) opts.scratch = {workspace.get(), c.workspace_bytes};
  if (c.indexed)
    ghist::generalized_histogram_indexed_async(c.n - c.offset, indexed_update<Op>{d_elements.get() + c.offset}, Op{},
                                               d_hist, c.H, 0, opts);
  else
    ghist::generalized_histogram_async(d_elements.get() + c.offset, c.n - c.offset, element_to_update<Op>{}, Op{},
                                       d_hist, c.H, 0, opts);
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<T> downloaded = d_allocation.download();
  const std::vector<T> got(downloaded.begin() + c.dest_offset, downloaded.end());
  for (std::int64_t b = 0; b < c.dest_offset; ++b)
    EXPECT_TRUE(op_case<Op>::equal(downloaded[b], T{})) << "the call wrote before the destination";

  std::int64_t mismatches = 0;
  for (std::int64_t b = 0; b < c.H; ++b) {
    if (!op_case<Op>::equal(got[b], expected[b])) {
      if (++mismatches <= 3) ADD_FAILURE() << "bin " << b << " differs from the CPU backend";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

const std::int64_t all_H[] = {1, 2, 31, 255, 256, 257, 4096, 12288, 49152, 196608, 1572864, 5000000};
const std::int64_t small_n[] = {0, 1, 1000, (1 << 20) + 7};

template <class Op>
void full_grid() {
  int k = 0;
  for (std::int64_t H : all_H)
    for (std::int64_t n : small_n)
      for (distribution d : all_distributions) {
        const auto how = (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate;
        check_against_cpu<Op>({d, n, H, ghist::strategy::automatic, how});
      }
}

template <class Op>
void forced_strategies(std::initializer_list<std::int64_t> Hs) {
  for (auto kind : {ghist::strategy::shared_memory, ghist::strategy::global_memory, ghist::strategy::partitioned})
    for (std::int64_t H : Hs)
      for (std::int64_t n : {std::int64_t(1000), std::int64_t((1 << 20) + 7)})
        for (distribution d : {distribution::uniform, distribution::one_bin, distribution::out_of_range})
          for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
            check_against_cpu<Op>({d, n, H, kind, how});
}

template <class Op>
void other_operator_grid() {
  for (std::int64_t H : {1, 31, 257, 12288, 196608})
    for (std::int64_t n : {std::int64_t(1000), std::int64_t((1 << 20) + 7)})
      for (distribution d : all_distributions)
        for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
          check_against_cpu<Op>({d, n, H, ghist::strategy::automatic, how});
}

// A destination that starts off the 16-byte boundary (a caller's pointer into a larger array): one-pass shared plans
// of integer sums with one copy or the planner's, bin counts that are and are not multiples of 4, dense and sparse
// bins (seed 000's race factor 63), both modes; nothing before the destination is written.
template <class Op>
void destination_offset_cases() {
  for (std::int64_t H : {5, 4096, 4099, 12288})
    for (std::int64_t dest_offset : {1, 2})
      for (distribution d : {distribution::uniform, distribution::one_bin})
        for (int stride : {0, 63})
          for (int copies : {0, 1})
            for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
              test_case c{d, (1 << 20) + 7, H, ghist::strategy::shared_memory, how};
              c.dest_offset = dest_offset;
              c.stride = stride;
              c.copies = copies;
              check_against_cpu<Op>(c);
            }
}
TEST(GpuVsCpu, DestinationOffTheBoundaryUint32) { destination_offset_cases<ghist::plus<std::uint32_t>>(); }
TEST(GpuVsCpu, DestinationOffTheBoundaryInt64) { destination_offset_cases<ghist::plus<std::int64_t>>(); }

// ---- the three classes on every size and distribution (auto strategy) ----
TEST(GpuVsCpu, HdwPlusUint32AllSizes) { full_grid<ghist::plus<std::uint32_t>>(); }
TEST(GpuVsCpu, CasSaturatingAdd24AllSizes) { full_grid<saturating_add24>(); }
TEST(GpuVsCpu, XcgUnpackedArgmaxAllSizes) { full_grid<unpacked_argmax>(); }

// ---- each strategy forced ----
TEST(GpuVsCpu, HdwForcedStrategies) { forced_strategies<ghist::plus<std::uint32_t>>({1, 2, 255, 4096, 49152, 196608}); }
TEST(GpuVsCpu, CasForcedStrategies) { forced_strategies<saturating_add24>({1, 2, 255, 4096, 49152, 196608}); }
// (H = 786433: the partitioned strategy's groups of one block per SM for 64-bit compare-and-swap.)
TEST(GpuVsCpu, CasPackedArgmaxForcedStrategies) { forced_strategies<packed_argmax>({1, 257, 12288, 196608, 786433}); }
TEST(GpuVsCpu, XcgForcedStrategies) { forced_strategies<unpacked_argmax>({1, 2, 255, 4096, 49152, 196608}); }
TEST(GpuVsCpu, Xcg12ByteForcedStrategies) { forced_strategies<point_sum_op>({1, 257, 12288}); }
TEST(GpuVsCpu, Xcg16ByteForcedStrategies) { forced_strategies<count_max_op>({1, 257, 12288}); }

// ---- every known operator and type ----
TEST(GpuVsCpu, HdwPlusInt64) { other_operator_grid<ghist::plus<std::int64_t>>(); }
TEST(GpuVsCpu, HdwPlusFloat) { other_operator_grid<ghist::plus<float>>(); }
TEST(GpuVsCpu, HdwPlusDouble) { other_operator_grid<ghist::plus<double>>(); }
TEST(GpuVsCpu, HdwMaxInt32) { other_operator_grid<ghist::max<std::int32_t>>(); }
TEST(GpuVsCpu, HdwMinInt64) { other_operator_grid<ghist::min<std::int64_t>>(); }
TEST(GpuVsCpu, HdwMinUint64) { other_operator_grid<ghist::min<std::uint64_t>>(); }
TEST(GpuVsCpu, HdwXorUint32) { other_operator_grid<ghist::bit_xor<std::uint32_t>>(); }
TEST(GpuVsCpu, CasMinFloat) { other_operator_grid<ghist::min<float>>(); }
TEST(GpuVsCpu, CasMaxDouble) { other_operator_grid<ghist::max<double>>(); }
TEST(GpuVsCpu, CasPackedArgmax) { other_operator_grid<packed_argmax>(); }
TEST(GpuVsCpu, Xcg12Byte) { other_operator_grid<point_sum_op>(); }
TEST(GpuVsCpu, Xcg16Byte) { other_operator_grid<count_max_op>(); }
// The lock class's updates that change nothing, done without the lock (shared_update_changes_nothing): operators
// that are no selection, on bins that saturate, forced through every strategy too.
TEST(GpuVsCpu, XcgSaturatingPairUnchangedBins) {
  other_operator_grid<locked_saturating_pair>();
  forced_strategies<locked_saturating_pair>({1, 257, 12288, 196608});
}
// An idempotent lock-class operator's plans (one copy, slots over few active bins only), at told race factors too.
TEST(GpuVsCpu, XcgIdempotentArgmaxPlans) {
  other_operator_grid<idempotent_unpacked_argmax>();
  for (std::int64_t H : {505, 2048, 6144, 12288, 49152, 1572864})
    for (double rf : {1.0, 63.0})
      for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin}) {
        test_case c{d, (1 << 20) + 7, H, ghist::strategy::automatic, ghist::mode::accumulate};
        c.race_factor = rf;
        c.stride = rf > 1 ? 63 : 0;  // the told RF's active bins
        check_against_cpu<idempotent_unpacked_argmax>(c);
      }
}
// The idempotent 64-bit compare-and-swap's plans told RF < 8 (one copy; H = 127 without a copy per thread).
TEST(GpuVsCpu, CasIdempotentPackedArgmaxPlans) {
  other_operator_grid<idempotent_packed_argmax>();
  for (std::int64_t H : {31, 127, 505, 2048, 12288})
    for (double rf : {1.0, 4.0})
      for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin, distribution::sorted}) {
        test_case c{d, (1 << 20) + 7, H, ghist::strategy::automatic, ghist::mode::overwrite};
        c.race_factor = rf;
        check_against_cpu<idempotent_packed_argmax>(c);
      }
}
// The seed launch (plan::seed_inputs): the idempotent argmax's first inputs into dest, then every input with the
// copies starting from dest. Left to the planner (RF 1 over many bins: a copy sees few inputs of each; H = 24576 in
// blocks of 199 KiB) and asked for (RF 63, H = 12288), overwrite and accumulate, on an input off the 16-byte boundary
// too; every plan checked to have its seed.
TEST(GpuVsCpu, XcgSeededLaunch) {
  const std::int64_t n = (1 << 20) + 7;
  int k = 0;
  const std::pair<std::int64_t, double> cells[] = {{2048, 1.0}, {12288, 1.0}, {24576, 1.0}, {12288, 63.0}};
  for (const auto& [H, rf] : cells)
    for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin, distribution::sorted}) {
      test_case c{d, n, H, ghist::strategy::automatic, ++k % 2 == 0 ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.race_factor = rf;
      c.stride = rf > 1 ? 63 : 0;
      c.seed_launch = rf > 1 ? 1 : 0;
      c.offset = k % 3 == 0 ? 3 : 0;
      ghist::options opts;
      opts.race_factor = rf;
      opts.overrides.seed_launch = c.seed_launch;
      const ghist::plan pl =
          ghist::plan_for_elements<idempotent_unpacked_argmax, std::uint64_t>(n - c.offset, H, opts);
      EXPECT_GT(pl.seed_inputs, 0) << pl.to_string();
      check_against_cpu<idempotent_unpacked_argmax>(c);
    }
  for (std::int64_t H : {2048, 12288}) {
    // Never asked for: the plain lock kernel alone.
    test_case c{distribution::uniform, n, H, ghist::strategy::automatic, ghist::mode::overwrite};
    c.race_factor = 1.0;
    c.seed_launch = -1;
    check_against_cpu<idempotent_unpacked_argmax>(c);
    // A caller's workspace too small for the rows: the blocks merge with locks, and no seed launch.
    c.seed_launch = 0;
    c.workspace_bytes = static_cast<std::size_t>(H) * sizeof(int);
    check_against_cpu<idempotent_unpacked_argmax>(c);
  }
}
// The lock queue (plan::lock_queue): in either partitioned layout, updates that change a bin wait in the warp's
// queue and run 32 at a time under their locks. 8-byte and 4-byte values; one bin puts 32 queued updates of one bin
// in one warp (they take its lock in turn); odd H and n, inputs off the 16-byte boundary, both modes.
template <class Op>
void lock_queue_cells(const std::int64_t (&sizes)[4]) {
  const std::int64_t n = (1 << 21) + 5;
  int k = 0;
  for (std::int64_t H : sizes)
    for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin, distribution::sorted}) {
      test_case c{d, n, H, ghist::strategy::partitioned, ++k % 2 == 0 ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.counted = k % 4 == 1 ? -1 : 1;  // the tile layout in a quarter of the cells
      c.lock_queue = 1;
      c.race_factor = d == distribution::uniform ? 1.0 : 0.0;
      c.offset = k % 3 == 0 ? 3 : 0;
      ghist::options opts;
      opts.race_factor = c.race_factor;
      opts.overrides.kind = c.kind;
      opts.overrides.counted_groups = c.counted;
      opts.overrides.lock_queue = c.lock_queue;
      // Told RF 1: queued (with the RF unknown, the sampled plan may take hot-bin slots or warp-private copies).
      const ghist::plan pl = ghist::plan_for_elements<Op, std::uint64_t>(n - c.offset, H, opts);
      if (d == distribution::uniform) EXPECT_TRUE(pl.lock_queue) << pl.to_string();
      check_against_cpu<Op>(c);
    }
}
TEST(GpuVsCpu, XcgLockQueue) {
  lock_queue_cells<idempotent_unpacked_argmax>({49152, 65537, 196608, 1572864});
  lock_queue_cells<locked_min32>({4097, 49152, 393215, 1572864});
  // The planner's own plan for seed 000's shape at told RF 1, with and without the queue.
  for (int queue : {0, -1}) {
    test_case c{distribution::uniform, (1 << 22) + 1, 196608, ghist::strategy::automatic, ghist::mode::overwrite};
    c.race_factor = 1.0;
    c.lock_queue = queue;
    check_against_cpu<idempotent_unpacked_argmax>(c);
  }
}
// Each strategy forced for the idempotent argmax: in global memory its updates read the bin before the lock
// (global_update_changes_nothing), which the lock holder writes in one 8-byte access.
TEST(GpuVsCpu, XcgIdempotentForcedStrategies) {
  forced_strategies<idempotent_unpacked_argmax>({1, 255, 12288, 196608});
}
TEST(GpuVsCpu, Xcg4ByteSaturatingAddUnchangedBins) {
  other_operator_grid<locked_saturating_add>();
  forced_strategies<locked_saturating_add>({1, 257, 12288});
}

// ---- the index form ----
TEST(GpuVsCpu, IndexedForm) {
  for (std::int64_t H : {31, 12288, 1572864})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      check_against_cpu<ghist::plus<std::uint32_t>>(
          {distribution::uniform, (1 << 20) + 7, H, ghist::strategy::automatic, how, true});
      check_against_cpu<saturating_add24>({distribution::zipf, (1 << 20) + 7, H, ghist::strategy::automatic, how, true});
      check_against_cpu<unpacked_argmax>(
          {distribution::out_of_range, (1 << 20) + 7, H, ghist::strategy::automatic, how, true});
    }
}

// ---- seed 000's size: N = 50M ----
TEST(GpuVsCpu, FiftyMillionInputs) {
  const std::int64_t n = 50'000'000;
  for (std::int64_t H : {31, 12288, 196608, 1572864}) {
    for (distribution d : {distribution::uniform, distribution::zipf}) {
      check_against_cpu<ghist::plus<std::uint32_t>>({d, n, H, ghist::strategy::automatic, ghist::mode::overwrite});
      check_against_cpu<saturating_add24>({d, n, H, ghist::strategy::automatic, ghist::mode::accumulate});
      check_against_cpu<unpacked_argmax>({d, n, H, ghist::strategy::automatic, ghist::mode::overwrite});
    }
  }
  check_against_cpu<ghist::plus<std::uint32_t>>(
      {distribution::out_of_range, n, 5000000, ghist::strategy::automatic, ghist::mode::accumulate});
  check_against_cpu<ghist::plus<std::uint32_t>>(
      {distribution::sorted, n, 49152, ghist::strategy::automatic, ghist::mode::overwrite});
  check_against_cpu<ghist::plus<std::uint32_t>>(
      {distribution::one_bin, n, 2, ghist::strategy::automatic, ghist::mode::overwrite});
}

// ---- the common-case functions of ghist/histogram.hpp ----
TEST(GpuConvenience, HistogramEvenFloatIntoInt32) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> samples((1 << 20) + 3);
  for (auto& s : samples) s = normal(rng);
  samples[0] = NAN;
  samples[1] = 5.f;  // the upper edge: out of range
  samples[2] = -0.f;
  for (std::int64_t bins : {1, 100, 5000, 300000}) {
    std::vector<std::int32_t> expected(bins);
    ghist::cpu::histogram_even(samples.data(), std::int64_t(samples.size()), expected.data(), bins, -5.f, 5.f);
    device_buffer<float> d_samples(samples);
    device_buffer<std::int32_t> d_hist(bins);
    ghist::histogram_even_async(d_samples.get(), std::int64_t(samples.size()), d_hist.get(), bins, -5.f, 5.f);
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(d_hist.download(), expected) << "bins=" << bins;
  }
}

TEST(GpuConvenience, BincountAndWeighted) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = 777'777, bins = 1000;
  std::vector<std::int64_t> keys(n);
  std::vector<double> weights(n);
  for (std::int64_t i = 0; i < n; ++i) {
    keys[i] = std::int64_t(rng() % 1200) - 100;
    weights[i] = double(rng() % 1000) - 500.0;
  }
  device_buffer<std::int64_t> d_keys(keys);
  device_buffer<double> d_weights(weights);

  std::vector<std::uint64_t> counts_expected(bins);
  ghist::cpu::bincount(keys.data(), n, counts_expected.data(), bins);
  device_buffer<std::uint64_t> d_counts(bins);
  ghist::bincount_async(d_keys.get(), n, d_counts.get(), bins);

  std::vector<double> max_expected(bins);
  ghist::cpu::weighted_bincount(keys.data(), weights.data(), n, max_expected.data(), bins, ghist::max<double>{});
  device_buffer<double> d_max(bins);
  ghist::weighted_bincount_async(d_keys.get(), d_weights.get(), n, d_max.get(), bins, ghist::max<double>{});

  std::vector<double> sum_expected(bins, 1.0);
  ghist::cpu::weighted_histogram_even(keys.data(), weights.data(), n, sum_expected.data(), bins, std::int64_t(-100),
                                      std::int64_t(1100), ghist::plus<double>{}, ghist::mode::accumulate);
  device_buffer<double> d_sum(std::vector<double>(bins, 1.0));
  ghist::options accumulate;
  accumulate.how = ghist::mode::accumulate;
  ghist::weighted_histogram_even_async(d_keys.get(), d_weights.get(), n, d_sum.get(), bins, std::int64_t(-100),
                                       std::int64_t(1100), ghist::plus<double>{}, 0, accumulate);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(d_counts.download(), counts_expected);
  EXPECT_EQ(d_max.download(), max_expected);  // max is exact
  const auto sums = d_sum.download();
  for (std::int64_t b = 0; b < bins; ++b) EXPECT_NEAR(sums[b], sum_expected[b], 1e-6) << "bin " << b;
}

// ---- the race-factor inspector ----
struct strided_bins {
  std::int64_t H, RF;
  __device__ ghist::bin_update<std::uint32_t> operator()(std::uint32_t x) const {
    const std::int64_t active = H / RF > 1 ? H / RF : 1;
    return {std::int64_t(x % active) * RF, 1u};
  }
};

TEST(RaceFactorInspector, EstimatesSeed000Inputs) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = 1 << 22;
  std::vector<std::uint32_t> xs(n);
  for (auto& x : xs) x = std::uint32_t(rng());
  device_buffer<std::uint32_t> d_xs(xs);
  device_buffer<std::int64_t> scratch(ghist::detail::inspector_samples);
  auto estimate = [&](std::int64_t H, std::int64_t RF) {
    ghist::detail::element_source<std::uint32_t, strided_bins> src{d_xs.get(), n, strided_bins{H, RF}};
    return ghist::detail::estimate_race_factor(src, n, H, scratch.get(), 0);
  };
  // A sampled estimate (8 x 1024 inputs). Uniform over H = 1572864 bins, the samples' repeats are about Poisson with
  // mean s^2 / 2H = 21.3, and the estimate grows with them: 32 repeats read as 1.50, 43 as 2.02. Under 1.5 failed
  // ~1.8% of fresh seeds (1.598 from 34 repeats, lent H100, 2026-12-07); under 2 fails ~2e-5 of them. H = 196608
  // (mean 171 repeats) keeps the 1.5x tolerance of RF = 63 below: more than 6 standard deviations.
  EXPECT_LT(estimate(1572864, 1), 2.0);
  EXPECT_LT(estimate(196608, 1), 1.5);
  const double rf63 = estimate(1572864, 63);
  EXPECT_GT(rf63, 63 / 1.5);
  EXPECT_LT(rf63, 63 * 1.5);
  EXPECT_GT(estimate(196608, 196608), 196608 / 2.0);  // everything in one bin
}

// The lock class keeps a multi-pass shared plan only at RF <= 8 (make_plan): with the RF unknown, the call samples
// first, so that a skewed input (Zipf(1.1) over 30000 bins samples as RF > 8) takes the partitioned strategy.
TEST(RaceFactorInspector, LockClassSamplesBeforeAMultiPassSharedPlan) {
  const std::int64_t n = (1 << 20) + 7, H = 30000;
  auto plan_told = [&](double rf) {
    ghist::options told;
    told.race_factor = rf;
    return ghist::plan_for_elements<unpacked_argmax, std::uint64_t, element_to_update<unpacked_argmax>>(n, H, told);
  };
  const ghist::plan unknown = plan_told(0);
  if (unknown.kind == ghist::strategy::shared_memory && unknown.S > 1)
    EXPECT_TRUE(ghist::detail::race_factor_matters<unpacked_argmax>(unknown, {})) << unknown.to_string();
  EXPECT_EQ(plan_told(11).kind, ghist::strategy::partitioned);
  for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin})
    check_against_cpu<unpacked_argmax>({d, n, H, ghist::strategy::automatic, ghist::mode::accumulate});
}

}  // namespace
}  // namespace ghist_test

namespace ghist_test {
namespace {

// A short subset for compute-sanitizer (memcheck, racecheck), which runs kernels 10-100x slower: every class,
// both strategies, both modes, on small inputs. scripts/gpu_check.sh runs it with --gtest_filter=Sanitizer.*.
// The lock class's locked shared-memory paths are in SanitizerLocks below: racecheck does not model locks.
TEST(Sanitizer, SmallCases) {
  for (auto kind : {ghist::strategy::shared_memory, ghist::strategy::global_memory, ghist::strategy::partitioned})
    for (std::int64_t H : {31, 4096})
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        check_against_cpu<ghist::plus<std::uint32_t>>({distribution::uniform, 5003, H, kind, how});
        check_against_cpu<saturating_add24>({distribution::zipf, 5003, H, kind, how});
        if (kind == ghist::strategy::global_memory) {  // the lock class with its locks in global memory only
          check_against_cpu<unpacked_argmax>({distribution::out_of_range, 5003, H, kind, how});
          check_against_cpu<unpacked_argmax>({distribution::one_bin, 20011, H, kind, how});
          check_against_cpu<point_sum_op>({distribution::one_bin, 5003, H, kind, how, true});
        }
      }
  // The partitioned strategy's counted layout: several groups and tiles, a partial tile, empty groups; with 600
  // groups the partitioning kernel keeps each group's head sector in shared memory (counted_sector_buffers).
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::uniform, distribution::one_bin}) {
      test_case c{d, 20011, 40009, ghist::strategy::partitioned, how};
      c.counted = 1;
      c.groups = 300;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
      check_against_cpu<saturating_add24>(c);
      c.groups = 600;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
      check_against_cpu<saturating_add24>(c);
    }
  // The hashed tables (plan::hashed_bins) of the compare-and-swap class and the hardware atomics: seed 000's input
  // told RF 63, whose bins the sample finds, and skewed input whose rare bins it misses (the blocks claim their own
  // slots for them), 3 copies of the values for cas.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::uniform, distribution::zipf}) {
      test_case c{d, 300007, 196613, ghist::strategy::automatic, how};
      c.race_factor = 63;
      c.hashed = 1;
      c.stride = 63;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
      check_against_cpu<saturating_add24>(c);
      // 16-bit tags (plan::hashed_tags): 24966 active bins; over every bin, tags the blocks claim themselves.
      test_case tagged{d, 300007, 1572869, ghist::strategy::automatic, how};
      tagged.race_factor = 63;
      tagged.hashed = 1;
      tagged.stride = d == distribution::uniform ? 63 : 1;
      check_against_cpu<saturating_add24>(tagged);
    }
  // The tile layout's dense second pass for 32-bit cas (1024-thread blocks, two per SM), told RF 1 on skewed input.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    test_case c{distribution::zipf, 20011, 40009, ghist::strategy::partitioned, how};
    c.race_factor = 1;
    c.counted = -1;
    c.dense = 1;
    check_against_cpu<saturating_add24>(c);
  }
  // Hot-bin slots in the partitioned strategy's second pass (the compare-and-swap class with the RF unknown): one bin
  // and Zipf, 37 tiles, groups of several blocks, 4 copies a block.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::one_bin, distribution::zipf})
      check_against_cpu<saturating_add24>({d, 300007, 196613, ghist::strategy::partitioned, how});
  // Hot-bin slots (the compare-and-swap class with the RF unknown): one bin and Zipf take them; with two passes each
  // pass chooses them again.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    test_case c{distribution::one_bin, 20011, 2048, ghist::strategy::automatic, how};
    check_against_cpu<saturating_add24>(c);
    c.dist = distribution::zipf;
    c.kind = ghist::strategy::shared_memory;
    c.hot_bins = 1;
    c.groups = 2;
    check_against_cpu<packed_argmax>(c);
  }
  // The lock class's private copies that auto picks for small H told RF > 8, a copy per thread (H = 1, 31, 300) or
  // per warp (H = 400; at 300 and 400 a slot per active bin comes first: forbidden here), element and index forms,
  // skewed and not.
  for (std::int64_t H : {1, 31, 300, 400})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      test_case element{distribution::zipf, 5003, H, ghist::strategy::automatic, how};
      element.race_factor = 63;
      element.hot_bins = -1;
      check_against_cpu<unpacked_argmax>(element);
      test_case indexed{distribution::out_of_range, 5003, H, ghist::strategy::automatic, how, true};
      indexed.race_factor = 63;
      indexed.hot_bins = -1;
      check_against_cpu<point_sum_op>(indexed);
    }
  // The lock class's slot per active bin (told RF 63, H = 2048) with every input in one bin: the sample gives it a
  // slot, so no lock is taken and racecheck sees the sample, the slots and their fold (SanitizerLocks has the
  // inputs that also take the locked copy).
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    test_case c{distribution::one_bin, 20011, 2048, ghist::strategy::automatic, how};
    c.race_factor = 63;
    check_against_cpu<unpacked_argmax>(c);
    // The race factor unknown: the sampled hot bin takes a slot of a word per thread beside the locked copies, and the
    // carried runs go to it with plain read-modify-writes, no lock.
    c.race_factor = 0;
    check_against_cpu<unpacked_argmax>(c);
  }
  // The compare-and-swap class told RF 63: a slot per active bin (plan::hot_active_bins: H = 505, 700, 2048 a word
  // per thread; H = 12288 words shared by 1024 threads, its input staged);
  // without slots, the private copies per thread (H = 505, 96 threads per SM) and per warp (H = 700).
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (std::int64_t H : {505, 700, 2048, 12288}) {
      test_case c{distribution::zipf, 5003, H, ghist::strategy::automatic, how};
      c.race_factor = 63;
      check_against_cpu<saturating_add24>(c);
      c.dist = distribution::uniform;
      check_against_cpu<packed_argmax>(c);
      c.hot_bins = -1;
      if (H < 2048) check_against_cpu<saturating_add24>(c);
    }
  // Staged input (told RF 1): a grid round with a partial last tile, an input off the 16-byte boundary, two passes.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    test_case c{distribution::uniform, 300007, 2048, ghist::strategy::automatic, how};
    c.race_factor = 1;
    c.offset = 1;
    check_against_cpu<saturating_add24>(c);
    c.kind = ghist::strategy::shared_memory;
    c.groups = 2;
    c.staged_input = 1;
    check_against_cpu<packed_argmax>(c);
  }
  // The partitioned strategy's warp-private copies of a group (the lock class told RF > 8).
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::zipf, distribution::out_of_range}) {
      test_case c{d, 20011, 4096, ghist::strategy::partitioned, how};
      c.race_factor = 63;
      check_against_cpu<unpacked_argmax>(c);
    }
}

// The lock class with its locks in shared memory (shared and partitioned strategies), for memcheck and synccheck.
// Not for racecheck: the critical section's accesses are ordered by the lock's acquire and release
// (detail/atomic_update.cuh), which racecheck does not model, so it reports every one of them as a hazard.
TEST(SanitizerLocks, SmallCases) {
  // The lock class told RF 63 over 32 active bins: a slot each beside one locked copy (plan::hot_active_bins; the
  // bins the sample missed take the locks).
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::zipf, distribution::out_of_range}) {
      test_case c{d, 5003, 2048, ghist::strategy::automatic, how};
      c.race_factor = 63;
      check_against_cpu<unpacked_argmax>(c);
      // Over 195 active bins: 1024 threads share each slot's words, with a bit lock per word.
      test_case shared_words{d, 20011, 12288, ghist::strategy::automatic, how};
      shared_words.race_factor = 63;
      check_against_cpu<unpacked_argmax>(shared_words);
    }
  // The lock class's sampled hot bins with the race factor unknown (slots of shared words under bit locks beside the
  // locked copies): Zipf's first bins take slots, the rest the copies' locks; M > 1 copies at H = 505.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (std::int64_t H : {505, 12288}) {
      test_case c{distribution::zipf, 20011, H, ghist::strategy::automatic, how};
      check_against_cpu<unpacked_argmax>(c);
    }
  // The lock class's hashed tables: bit locks per copy, taken warp by warp; rare bins claimed by the blocks.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::uniform, distribution::zipf, distribution::one_bin}) {
      test_case c{d, 300007, 196613, ghist::strategy::automatic, how};
      c.race_factor = 63;
      c.hashed = 1;
      c.stride = 63;
      check_against_cpu<unpacked_argmax>(c);
    }
  for (auto kind : {ghist::strategy::shared_memory, ghist::strategy::partitioned})
    for (std::int64_t H : {31, 4096})
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        check_against_cpu<unpacked_argmax>({distribution::out_of_range, 5003, H, kind, how});
        check_against_cpu<unpacked_argmax>({distribution::one_bin, 20011, H, kind, how});
        if (kind != ghist::strategy::partitioned)  // index inputs cannot be partitioned
          check_against_cpu<point_sum_op>({distribution::one_bin, 5003, H, kind, how, true});
      }
  // What auto gives the lock class at small H with RF unknown: a copy per thread (H = 1, 31; no locks) or the
  // model's M copies with locks (H = 300; skewed, so that lanes of a warp share copies and locks).
  for (std::int64_t H : {1, 31, 300})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      check_against_cpu<unpacked_argmax>({distribution::zipf, 5003, H, ghist::strategy::automatic, how});
      check_against_cpu<point_sum_op>({distribution::out_of_range, 5003, H, ghist::strategy::automatic, how, true});
    }
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (distribution d : {distribution::uniform, distribution::one_bin}) {
      test_case c{d, 20011, 40009, ghist::strategy::partitioned, how};
      c.counted = 1;
      c.groups = 300;
      check_against_cpu<unpacked_argmax>(c);
      // The tile layout's warp-uniform walk for the locked copies (group_in_shared::visit_together).
      c.counted = -1;
      c.groups = 10;
      check_against_cpu<unpacked_argmax>(c);
    }
}

// The warp-private plan is what auto gives the lock class for small H: check it is taken, then its results on
// inputs whose sizes leave partial warps and unaligned heads and tails.
TEST(GpuVsCpu, XcgWarpPrivatePlan) {
  ghist::options told;
  told.race_factor = 63;
  EXPECT_TRUE(ghist::plan_for<unpacked_argmax>((1 << 20) + 7, 400, told).hot_active_bins);  // a slot per active bin
  told.overrides.hot_bins = -1;  // without it:
  EXPECT_TRUE(ghist::plan_for<unpacked_argmax>((1 << 20) + 7, 400, told).warp_private);
  EXPECT_TRUE(ghist::plan_for<unpacked_argmax>((1 << 20) + 7, 255, told).thread_private);  // 96 threads per SM
  EXPECT_FALSE(ghist::plan_for<unpacked_argmax>((1 << 20) + 7, 400).warp_private);  // RF unknown: locks
  for (double rf : {63.0, 0.0})
    for (std::int64_t H : {1, 7, 255, 400, 900})
      for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(4097), std::int64_t((1 << 20) + 7)})
        for (distribution d : {distribution::uniform, distribution::one_bin, distribution::out_of_range}) {
          test_case c{d, n, H, ghist::strategy::automatic, ghist::mode::accumulate};
          c.race_factor = rf;
          check_against_cpu<unpacked_argmax>(c);
          c.hot_bins = -1;  // told RF 63: the copies per warp or thread instead of a slot per active bin
          if (rf > 0) check_against_cpu<unpacked_argmax>(c);
        }
}

// A copy per thread (plan::thread_private) is what auto gives the compare-and-swap and lock classes at small H, of
// every value size: check it is taken, then its results on every distribution, with partial last blocks, inputs off
// the 16-byte boundary, the indexed form, both modes, and the merge through rows or (a caller's workspace too small
// for the rows) through the destination's compare-and-swaps or locks.
template <class Op>
void thread_private_copies(std::initializer_list<std::int64_t> sizes) {
  int k = 0;
  for (std::int64_t H : sizes) {
    const std::int64_t big = (1 << 20) + 7;
    const auto pl = ghist::plan_for<Op>(big, H);
    ASSERT_TRUE(pl.thread_private) << pl.to_string();
    EXPECT_EQ(pl.M, pl.block) << pl.to_string();
    const std::size_t lock_bytes = ghist::atomic_class_of<Op> == ghist::atomic_class::xcg ? std::size_t(H) * 4 : 16;
    for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(4097), big})
      for (distribution d : all_distributions) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.race_factor = (k % 3 == 0) ? 63.0 : 0.0;
        c.indexed = k % 5 == 0;
        c.offset = (n > 1 && k % 4 == 1) ? 1 : 0;
        c.workspace_bytes = (n == big && k % 2 == 0) ? lock_bytes : 0;
        check_against_cpu<Op>(c);
      }
  }
}
TEST(GpuVsCpu, ThreadPrivateCompareAndSwap) {
  thread_private_copies<saturating_add24>({1, 31, 127});
  thread_private_copies<packed_argmax>({2, 63});
}
TEST(GpuVsCpu, ThreadPrivateLockClass) {
  thread_private_copies<unpacked_argmax>({1, 31, 127});
  thread_private_copies<point_sum_op>({31});
  thread_private_copies<count_max_op>({7});
}
// A caller's plan_overrides::thread_private = 1 where auto would not take it: blocks of one warp, larger H.
TEST(GpuVsCpu, ThreadPrivateOverride) {
  int k = 0;
  for (std::int64_t n : {std::int64_t(4099), std::int64_t(1 << 20) + 3})
    for (distribution d : all_distributions) {
      test_case c{d, n, 505, ghist::strategy::automatic,
                  (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.thread_private = 1;
      check_against_cpu<saturating_add24>(c);
      check_against_cpu<unpacked_argmax>(c);
      c.H = 1024;
      check_against_cpu<saturating_add24>(c);
    }
}

// Hot-bin slots (plan::hot_slots) are what auto gives the compare-and-swap class's deferring shared plans when the
// race factor is unknown: check they are planned, then results on every distribution (one bin and Zipf take slots,
// uniform blocks find none), with partial last blocks, inputs off the 16-byte boundary, the indexed form, both modes,
// and the merge through rows or (a caller's workspace too small for them) the destination's compare-and-swaps.
template <class Op>
void hot_bin_slots(std::initializer_list<std::int64_t> sizes) {
  int k = 0;
  for (std::int64_t H : sizes) {
    const std::int64_t big = (1 << 20) + 7;
    const auto pl = ghist::plan_for<Op>(big, H);
    ASSERT_GT(pl.hot_slots, 0) << pl.to_string();
    for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(4097), big})
      for (distribution d : all_distributions) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.indexed = k % 5 == 0;
        c.offset = (n > 1 && k % 4 == 1) ? 1 : 0;
        // Too small for the rows: the merge through the destination (the lock class's locks: 4 bytes a bin).
        const bool locks = ghist::atomic_class_of<Op> == ghist::atomic_class::xcg;
        c.workspace_bytes = (n == big && k % 2 == 0) ? (locks ? std::size_t(H) * 4 : 16) : 0;
        check_against_cpu<Op>(c);
      }
  }
}
TEST(GpuVsCpu, HotBinSlots) {
  hot_bin_slots<saturating_add24>({505, 2048, 12288});
  hot_bin_slots<packed_argmax>({505, 6144});
}
// The lock class's sampled hot bins (slots of shared words under bit locks, or a word per thread where they fit)
// beside its locked copies: M > 1 copies (505, 2048) and one (12288, and 24576 in one block per SM), values of 8, 12
// and 16 bytes.
TEST(GpuVsCpu, LockClassHotBinWords) {
  hot_bin_slots<unpacked_argmax>({505, 2048, 12288, 24576});
  hot_bin_slots<point_sum_op>({2048});
  hot_bin_slots<count_max_op>({6144});
}
// A caller's plan_overrides::hot_bins = 1: several passes (the slots are chosen again for each chunk), blocks of one
// and of three warps, a told race factor; the compare-and-swap and lock classes.
TEST(GpuVsCpu, HotBinSlotsOverride) {
  int k = 0;
  for (std::int64_t n : {std::int64_t(4099), std::int64_t(1 << 20) + 3})
    for (distribution d : all_distributions) {
      test_case c{d, n, 4000, ghist::strategy::shared_memory,
                  (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.hot_bins = 1;
      c.race_factor = 1.0;
      c.groups = 3;  // overrides.S: three passes
      check_against_cpu<saturating_add24>(c);
      check_against_cpu<packed_argmax>(c);
      check_against_cpu<unpacked_argmax>(c);
      c.groups = 0;
      c.block = 32;
      check_against_cpu<saturating_add24>(c);
      check_against_cpu<unpacked_argmax>(c);
      c.block = 96;
      check_against_cpu<packed_argmax>(c);
      check_against_cpu<unpacked_argmax>(c);
    }
}
// Uniform input over a few hundred bins with slots asked for (a told RF 63 too): the sampled bins are all about
// equally hot, so most take a replica as weak candidates (two hits or more), up to the 240 the table holds; the
// rest, and those whose table entry a hotter bin took, stay on the copies.
TEST(GpuVsCpu, HotBinSlotsDense) {
  int k = 0;
  for (std::int64_t H : {97, 195, 240, 390})
    for (std::int64_t n : {std::int64_t(5003), std::int64_t(1 << 20) + 3}) {
      test_case c{distribution::uniform, n, H, ghist::strategy::automatic,
                  (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.hot_bins = 1;
      c.race_factor = 63.0;
      check_against_cpu<saturating_add24>(c);
      check_against_cpu<packed_argmax>(c);
    }
}
// Seed 000's RF 63 input with the race factor unknown, H = 12288..49152: 195..780 bins of 0.1-0.5% each, so that some
// blocks' samples find bins hot enough for slots and others none. Both kinds of block walk the input in the same warp
// tiles (element_source::for_each_warp_tiles, split by block): a block without slots that walked grid-stride instead
// counted some inputs twice and others never (lent H200, 2026-12-02: 390 of 24576 bins off in seed 000's run).
TEST(GpuVsCpu, HotBinSlotsSomeBlocksFindNone) {
  int k = 0;
  for (std::int64_t H : {12288, 24576, 49152}) {
    const std::int64_t big = (1 << 22) + 5;
    if (H <= 24576) ASSERT_GT(ghist::plan_for<saturating_add24>(big, H).hot_slots, 0) << H;  // one pass
    for (std::int64_t n : {std::int64_t(4097), big})
      for (distribution d : {distribution::uniform, distribution::zipf, distribution::sorted}) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.stride = 63;
        c.offset = k % 3 == 0 ? 1 : 0;
        check_against_cpu<saturating_add24>(c);
        check_against_cpu<packed_argmax>(c);
      }
  }
}
// A told RF over more active bins than slots: a slot per active bin (plan::hot_active_bins) in blocks sized for them.
// Stride 1: the inputs hit all H bins, not H / RF: the sample finds more candidates than slots, and the rest stay on
// the copy. Stride 63 (seed 000's input): a slot for every bin hit, so that the loop redirects each input to its slot
// (kernel_shared.cuh, redirected_visit: a word per thread at H = 700, 2048, shared words from 6144).
template <class Op>
void active_bin_slots(std::initializer_list<std::int64_t> sizes) {
  int k = 0;
  for (std::int64_t H : sizes) {
    ghist::options opts;
    opts.race_factor = 63.0;
    const std::int64_t big = (1 << 20) + 7;
    const auto pl = ghist::plan_for<Op>(big, H, opts);
    ASSERT_TRUE(pl.hot_active_bins) << pl.to_string();
    // The compare-and-swap class's element inputs come staged where 1024 threads share each slot's words 3 or more a
    // word (plan::staged_input, the ring at the end of the block's shared memory: H = 12288, 24576 of 4 bytes); every
    // third case forbids it, and every third asks for it (staged wherever the ring fits: a word per thread too).
    const bool cas = ghist::atomic_class_of<Op> == ghist::atomic_class::cas;
    const auto staged = ghist::plan_for_elements<Op, std::uint64_t>(big, H, opts);
    EXPECT_EQ(staged.staged_input, cas && sizeof(typename Op::value_type) == 4 && H >= 12288) << staged.to_string();
    for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(4097), big})
      for (distribution d : all_distributions)
        for (const int stride : {1, 63}) {
          // Both strides meet both modes and both merges (i and i / 2 alternate).
          const int i = k++;
          test_case c{d, n, H, ghist::strategy::automatic,
                      (i + i / 2) % 2 == 0 ? ghist::mode::overwrite : ghist::mode::accumulate};
          c.race_factor = 63.0;
          c.stride = stride;
          c.indexed = i % 5 == 0;
          c.staged_input = i % 3 - 1;
          c.offset = (n > 1 && i % 4 == 1) ? 1 : 0;
          // Too small for the rows: the merge through the destination (the lock class's locks: 4 bytes a bin).
          const bool locks = ghist::atomic_class_of<Op> == ghist::atomic_class::xcg;
          const std::size_t merge_bytes = locks ? std::size_t(H) * 4 : 16;
          c.workspace_bytes = (n == big && i / 2 % 2 == 0) ? merge_bytes : 0;
          check_against_cpu<Op>(c);
        }
  }
}
TEST(GpuVsCpu, ActiveBinSlots) {
  // H = 6144, 12288: 1024 threads sharing each slot's words (fewer words than threads); H = 24576: 390 active bins
  // (more than 240: the larger table).
  active_bin_slots<saturating_add24>({700, 2048, 6144, 12288, 24576});
  active_bin_slots<packed_argmax>({2048});
}
// The lock class: the slots beside one copy with bit locks, which the bins the sample missed still take.
TEST(GpuVsCpu, ActiveBinSlotsLockClass) {
  // H = 6144: 224 threads, 5 samples each; H = 12288: 1024 threads sharing each slot's words under bit locks.
  active_bin_slots<unpacked_argmax>({255, 2048, 6144, 12288});
  ghist::options told;
  told.race_factor = 63.0;
  EXPECT_TRUE(ghist::plan_for<unpacked_argmax>((1 << 20) + 7, 12288, told).hot_shared_words);
  active_bin_slots<point_sum_op>({1024});
}

// The compare-and-swap and lock classes merge their blocks through rows in shared memory plans (a row of H values
// per block, folded by a second kernel); a caller's workspace too small for the rows gets the atomic merge.
template <class Op>
void merge_rows_and_fallback(std::initializer_list<std::int64_t> Hs) {
  for (std::int64_t H : Hs) {
    const auto pl = ghist::plan_for<Op>((1 << 20) + 7, H);
    ASSERT_EQ(pl.kind, ghist::strategy::shared_memory) << pl.to_string();
    EXPECT_TRUE(pl.merge_rows) << pl.to_string();
    const std::size_t lock_bytes = ghist::atomic_class_of<Op> == ghist::atomic_class::xcg ? std::size_t(H) * 4 : 16;
    for (distribution d : {distribution::uniform, distribution::one_bin, distribution::out_of_range})
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
        for (std::size_t workspace : {std::size_t(0), pl.temp_bytes, lock_bytes}) {
          test_case c{d, (1 << 20) + 7, H, ghist::strategy::automatic, how};
          c.workspace_bytes = workspace;
          check_against_cpu<Op>(c);
        }
  }
}
// The partitioned strategy's second pass merges a group's blocks through rows too (cas, xcg), in both layouts;
// with a caller's workspace sized for the layout without rows, through atomics and locks. Overwriting with rows,
// dest is not filled first: the row merge writes every bin (the tile layout: a group of one block, as 512 groups
// give, or of none, as one bin's input leaves most groups, included), and a counted group's only block writes its
// own.
template <class Op>
void partitioned_merge_rows_and_fallback() {
  const std::int64_t H = 300007, n = (1 << 21) + 3;
  constexpr bool xcg = ghist::atomic_class_of<Op> == ghist::atomic_class::xcg;
  for (int counted : {-1, 1}) {
    for (int groups : {0, 512}) {
      ghist::options part;
      part.overrides.kind = ghist::strategy::partitioned;
      part.overrides.counted_groups = counted;
      part.overrides.S = groups;
      const auto pl = ghist::plan_for_elements<Op, std::uint64_t>(n, H, part);
      EXPECT_TRUE(pl.merge_rows) << pl.to_string();
      ASSERT_EQ(pl.counted_groups, counted > 0) << pl.to_string();
      const int sm_count = ghist::device_info::current().sm_count;
      const std::size_t without_rows =
          ghist::detail::make_partition_layout_for(pl.counted_groups, n, pl.S, sm_count, sizeof(std::uint64_t), false,
                                                   H, xcg)
              .bytes;
      ASSERT_LT(without_rows, pl.temp_bytes);
      for (distribution d : {distribution::uniform, distribution::one_bin, distribution::sorted})
        for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
          for (std::size_t workspace : {std::size_t(0), without_rows}) {
            test_case c{d, n, H, ghist::strategy::partitioned, how};
            c.counted = counted;
            c.groups = groups;
            c.workspace_bytes = workspace;
            check_against_cpu<Op>(c);
          }
    }
  }
}
TEST(GpuVsCpu, PartitionedMergeRows) {
  partitioned_merge_rows_and_fallback<saturating_add24>();
  partitioned_merge_rows_and_fallback<unpacked_argmax>();
}
// The partitioned strategy's warp-private copies of a group (told RF = 63: the lock class, and 32-bit
// compare-and-swap): every distribution, both modes, groups of two blocks per SM (H = 24579, 300007 for the lock
// class, 24579, 98307 for cas; the lock class also in 902 groups, H = 786433, and of one block per SM, H = 900001),
// merged through rows and, with a caller's
// workspace sized for the layout without rows, through the destination (its locks for the lock class,
// compare-and-swaps for the other).
template <class Op>
void partitioned_warp_private(std::initializer_list<std::int64_t> sizes) {
  const std::int64_t n = (1 << 21) + 3;
  int k = 0;
  for (std::int64_t H : sizes) {
    ghist::options opts;
    opts.race_factor = 63;
    opts.overrides.kind = ghist::strategy::partitioned;
    const auto pl = ghist::plan_for_elements<Op, std::uint64_t>(n, H, opts);
    ASSERT_TRUE(pl.warp_private) << pl.to_string();
    const std::size_t without_rows =
        ghist::detail::make_partition_layout_for(pl.counted_groups, n, pl.S, ghist::device_info::current().sm_count,
                                                 sizeof(std::uint64_t), false, H,
                                                 ghist::atomic_class_of<Op> == ghist::atomic_class::xcg)
            .bytes;
    for (distribution d : all_distributions)
      for (std::size_t workspace : {std::size_t(0), without_rows}) {
        test_case c{d, n, H, ghist::strategy::partitioned,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.race_factor = 63;
        c.workspace_bytes = workspace;
        check_against_cpu<Op>(c);
      }
  }
}
TEST(GpuVsCpu, PartitionedWarpPrivateLockClass) {
  partitioned_warp_private<unpacked_argmax>({24579, 300007, 786433, 900001});
}
// The lock class in the tile layout (overrides.counted_groups = -1; auto takes the counted layout for it): its
// warp-uniform walk over runs of records, every distribution, both modes, several group counts.
TEST(GpuVsCpu, PartitionedLockClassTiles) {
  int k = 0;
  for (const int groups : {0, 24, 96})
    for (distribution d : all_distributions) {
      test_case c{d, (1 << 21) + 3, 300007, ghist::strategy::partitioned,
                  (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.counted = -1;
      c.groups = groups;
      c.race_factor = 1;
      check_against_cpu<unpacked_argmax>(c);
    }
}
// 8 groups or fewer: the tile layout's pass 1 counts a group's inputs in 32 / groups counters (rank_tile's
// spread: 32 for one group, 10 for three), the counted layout in one.
// Group counts on both sides of 32 and of powers of two, both layouts, every distribution (one bin and sorted take
// rank_tile's one-atomic paths), partial last tiles and inputs off the 16-byte boundary.
template <class Op>
void partitioned_few_groups() {
  int k = 0;
  for (const int groups : {1, 2, 3, 5, 8, 9, 15, 16, 17, 31, 32})
    for (const int counted : {-1, 1})
      for (distribution d : all_distributions) {
        test_case c{d, (1 << 20) + 8195, 12289, ghist::strategy::partitioned,
                    (k % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.offset = k++ % 3;
        c.counted = counted;
        c.groups = groups;
        check_against_cpu<Op>(c);
      }
}
TEST(GpuVsCpu, PartitionedFewGroupsCount) { partitioned_few_groups<ghist::plus<std::uint32_t>>(); }
TEST(GpuVsCpu, PartitionedFewGroupsLockClass) { partitioned_few_groups<unpacked_argmax>(); }
// The compare-and-swap class's tile layout: its second pass's warps take tiles by ticket (group_histogram_kernel),
// one tile a ticket where a group's runs are long (few groups, one bin), up to 32 where they are short (300 groups
// of 1001 bins), 4- and 8-byte values, every distribution, both modes, inputs off the 16-byte boundary. The slice
// loop (its tickets zeroed per slice): PartitionedPlan.
template <class Op>
void partitioned_tickets() {
  int k = 0;
  for (const int groups : {1, 3, 8, 32, 100, 300})
    for (distribution d : all_distributions) {
      test_case c{d, (1 << 20) + 8195, groups <= 32 ? 12289 : 300007, ghist::strategy::partitioned,
                  (k % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.offset = k++ % 3;
      c.counted = -1;
      c.groups = groups;
      check_against_cpu<Op>(c);
    }
}
TEST(GpuVsCpu, PartitionedTicketsCompareAndSwap) { partitioned_tickets<saturating_add24>(); }
TEST(GpuVsCpu, PartitionedTicketsPackedArgmax) { partitioned_tickets<packed_argmax>(); }
// (32-bit cas takes warp-private groups below 32 x 4096 bins, from there the dense second pass.)
TEST(GpuVsCpu, PartitionedWarpPrivateCompareAndSwap) { partitioned_warp_private<saturating_add24>({24579, 98307}); }
// The tile layout's workspace for n test elements in `groups` groups of H bins without the rows of a group's blocks:
// a caller's workspace of this size makes those blocks merge through compare-and-swaps on the destination.
std::size_t tile_workspace_without_rows(std::int64_t n, int groups, std::int64_t H) {
  return ghist::detail::make_partition_layout_for(false, n, groups, ghist::device_info::current().sm_count,
                                                  sizeof(std::uint64_t), false, H, false)
      .bytes;
}
// The tile layout's dense second pass (plan::dense_second_pass: 32-bit cas told a race factor, 1024-thread blocks
// two per SM): every distribution, both modes, groups of several blocks merged through rows and, with a caller's
// workspace sized without rows, through compare-and-swaps on the destination; told RF 1 (the planner's choice) and
// forced with the RF unknown, so that skewed inputs contend on the copies of its 32 warps.
TEST(GpuVsCpu, PartitionedDenseSecondPass) {
  using Op = saturating_add24;
  const std::int64_t n = (1 << 21) + 3;
  int k = 0;
  for (const std::int64_t H : {196613, 786433})
    for (const int dense : {0, 1}) {
      ghist::options opts;
      opts.race_factor = dense == 0 ? 1.0 : 0.0;
      opts.overrides.kind = ghist::strategy::partitioned;
      opts.overrides.dense_second_pass = dense;
      const auto pl = ghist::plan_for_elements<Op, std::uint64_t>(n, H, opts);
      ASSERT_TRUE(pl.dense_second_pass && !pl.counted_groups) << pl.to_string();
      const std::size_t without_rows = tile_workspace_without_rows(n, pl.S, H);
      for (distribution d : all_distributions)
        for (std::size_t workspace : {std::size_t(0), without_rows}) {
          test_case c{d, n, H, ghist::strategy::partitioned,
                      (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
          c.race_factor = opts.race_factor;
          c.dense = dense;
          c.workspace_bytes = workspace;
          check_against_cpu<Op>(c);
        }
    }
}
// Hot-bin slots in the tile layout's second pass (plan::hot_slots: the compare-and-swap class with the race factor
// unknown): every distribution, so that the blocks of a hot group take slots and replicas beside blocks of the same
// kernel that find none; groups of several blocks merged through rows and, with a caller's workspace sized without
// rows, through compare-and-swaps on the destination; M > 1 copies (H = 196613) and one (786433, 1572864), both
// modes, odd sizes.
template <class Op>
void partitioned_hot_bin_slots(std::initializer_list<std::int64_t> sizes) {
  int k = 0;
  for (const std::int64_t H : sizes) {
    for (const std::int64_t n : {std::int64_t{(1 << 21) + 3}, std::int64_t{3000017}}) {
      ghist::options opts;
      opts.overrides.kind = ghist::strategy::partitioned;
      const auto pl = ghist::plan_for_elements<Op, std::uint64_t>(n, H, opts);
      ASSERT_TRUE(pl.hot_slots > 0 && !pl.counted_groups && !pl.warp_private) << pl.to_string();
      const std::size_t without_rows = tile_workspace_without_rows(n, pl.S, H);
      for (distribution d : all_distributions)
        for (std::size_t workspace : {std::size_t(0), without_rows}) {
          test_case c{d, n, H, ghist::strategy::partitioned,
                      (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
          c.workspace_bytes = workspace;
          check_against_cpu<Op>(c);
        }
    }
  }
}
TEST(GpuVsCpu, PartitionedHotBinSlots) { partitioned_hot_bin_slots<saturating_add24>({196613, 786433, 1572864}); }
// The hashed shared-memory strategy (plan::hashed_bins) for each class: seed 000's RF-strided input told its RF,
// whose H / RF active bins fit the table (two blocks per SM at 196613; at 400009 one for values of 8 bytes or more;
// there also in two passes), and the same plan over input that hits every bin (stride 1): the sample misses most,
// which the blocks claim slots for or, their tables full, send to dest with the global update. Element and index
// inputs, every distribution (the skewed ones leave bins unsampled).
template <class Op>
void hashed_bins_cases() {
  const std::int64_t n = (1 << 20) + 7;
  int k = 0;
  for (const std::int64_t H : {std::int64_t{1000}, std::int64_t{196613}, std::int64_t{400009}})
    for (const int stride : {63, 1}) {
      ghist::options opts;
      opts.race_factor = 63;
      opts.overrides.hashed_bins = 1;
      const auto pl = ghist::plan_for<Op>(n, H, opts);
      ASSERT_TRUE(pl.hashed_bins && pl.kind == ghist::strategy::shared_memory && pl.S == 1) << pl.to_string();
      for (distribution d : all_distributions) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.race_factor = 63;
        c.hashed = 1;
        c.stride = stride;
        c.indexed = k % 3 == 0;
        check_against_cpu<Op>(c);
        if (H == 400009) {  // two passes, a table each
          c.groups = 2;
          check_against_cpu<Op>(c);
        }
      }
    }
}
// The same tables with 16-bit tags of their keys (plan::hashed_tags, detail/hashed_tags.hpp), which the planner takes
// where 4-byte keys leave no room: 24966 active bins at 0.7 load in one pass (4-byte values). Seed 000's strided input,
// and input over every bin (stride 1), whose bins the sample mostly misses: the blocks claim tags for them and recover
// their keys from the tags at the end (hashed_shape::key_of). Every distribution, element and index inputs.
template <class Op>
void hashed_tags_cases() {
  const std::int64_t n = (1 << 20) + 7, H = 1572869;
  ghist::options opts;
  opts.race_factor = 63;
  const auto pl = ghist::plan_for<Op>(n, H, opts);
  ASSERT_TRUE(pl.hashed_bins && pl.hashed_tags && pl.S == 1) << pl.to_string();
  int k = 0;
  for (const int stride : {63, 1})
    for (distribution d : all_distributions) {
      const auto how = (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate;
      test_case c{d, n, H, ghist::strategy::automatic, how};
      c.race_factor = 63;
      c.hashed = 1;
      c.stride = stride;
      c.indexed = k % 3 == 0;
      check_against_cpu<Op>(c);
    }
}
TEST(GpuVsCpu, HashedTagsSaturatingAdd) { hashed_tags_cases<saturating_add24>(); }
TEST(GpuVsCpu, HashedTagsCount) { hashed_tags_cases<ghist::plus<std::uint32_t>>(); }
TEST(GpuVsCpu, HashedBinsSaturatingAdd) { hashed_bins_cases<saturating_add24>(); }
TEST(GpuVsCpu, HashedBinsPackedArgmax) { hashed_bins_cases<packed_argmax>(); }
TEST(GpuVsCpu, HashedBinsUnpackedArgmax) { hashed_bins_cases<unpacked_argmax>(); }
TEST(GpuVsCpu, HashedBinsCount) { hashed_bins_cases<ghist::plus<std::uint32_t>>(); }
TEST(GpuVsCpu, HashedBinsXcg12Byte) { hashed_bins_cases<point_sum_op>(); }
// The compare-and-swap class in shared memory keeps a lost update in registers and folds later updates of its bin
// into it (plan::defer_lost_updates), unless told a high race factor over more bins than hot-bin slots. Both ways,
// on inputs where
// updates are lost and kept (one bin, Zipf, sorted) and with blocks of 1000 threads, whose last warp is partial
// (the warp folds the kept updates of its existing lanes at the end of each pass).
template <class Op>
void deferred_and_plain_shared_cas() {
  const std::int64_t n = (1 << 20) + 7;
  for (double rf : {1.0, 63.0})
    for (std::int64_t H : {1, 31, 505, 4097}) {
      ghist::options opts;
      opts.race_factor = rf;
      opts.overrides.kind = ghist::strategy::shared_memory;
      const auto pl = ghist::plan_for<Op>(n, H, opts);
      ASSERT_EQ(pl.kind, ghist::strategy::shared_memory) << pl.to_string();
      // (Hot-bin slots for 4..8 active bins come with the deferring loop: H = 505, RF 63, 4-byte values.)
      EXPECT_EQ(pl.defer_lost_updates, !(rf >= 8 && double(H) / rf >= 4) || pl.hot_slots > 0) << pl.to_string();
      if (rf == 63.0 && H == 505) EXPECT_EQ(pl.hot_slots, sizeof(typename Op::value_type) == 4 ? 8 : 0);
      for (int block : {0, 1000})
        for (distribution d : {distribution::uniform, distribution::one_bin, distribution::zipf, distribution::sorted}) {
          test_case c{d, n, H, ghist::strategy::shared_memory, ghist::mode::accumulate};
          c.race_factor = rf;
          c.block = block;
          check_against_cpu<Op>(c);
        }
    }
}
TEST(GpuVsCpu, CasDeferredAndPlainSharedUpdates) {
  deferred_and_plain_shared_cas<saturating_add24>();
  deferred_and_plain_shared_cas<packed_argmax>();
}
// Staged input (plan::staged_input): the deferring compare-and-swap loop with its input brought into shared memory by
// the bulk-copy engine, which auto takes for element inputs told RF 1. Check it is planned, then results on every
// distribution with fewer inputs than one tile, tiles and grid rounds with a partial end, inputs off the 16-byte
// boundary (a scalar head) and an odd count (a scalar tail), both modes, the merge through rows and (a caller's
// workspace too small for them) the destination's compare-and-swaps; then several passes (the ring's phases run on
// from pass to pass) and blocks of two and three warps (one asks, the others update), and the same inputs with it
// forbidden.
template <class Op>
void staged_input_cases(std::initializer_list<std::int64_t> sizes) {
  const std::int64_t big = (1 << 20) + 7;
  int k = 0;
  for (std::int64_t H : sizes) {
    ghist::options told;
    told.race_factor = 1.0;
    const auto pl = ghist::plan_for_elements<Op, std::uint64_t>(big, H, told);
    ASSERT_TRUE(pl.staged_input) << pl.to_string();
    for (std::int64_t n : {std::int64_t(1), std::int64_t(33), std::int64_t(4097), std::int64_t(992 * 264 * 2 + 5), big})
      for (distribution d : all_distributions) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.race_factor = 1.0;
        c.offset = (n > 1 && k % 3 == 1) ? 1 : 0;
        c.workspace_bytes = (n == big && k % 4 == 0) ? 16 : 0;
        check_against_cpu<Op>(c);
      }
  }
  for (distribution d : {distribution::uniform, distribution::zipf, distribution::out_of_range})
    for (int block : {0, 64, 96}) {
      test_case c{d, big, 4000, ghist::strategy::shared_memory,
                  (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
      c.race_factor = 1.0;
      c.staged_input = 1;
      c.block = block;
      c.groups = block == 0 ? 3 : 0;  // overrides.S: three passes
      c.offset = k % 2;
      check_against_cpu<Op>(c);
      c.staged_input = -1;
      check_against_cpu<Op>(c);
    }
}
TEST(GpuVsCpu, StagedInputCompareAndSwap) {
  staged_input_cases<saturating_add24>({505, 12288});
  staged_input_cases<packed_argmax>({505, 6144, 12288});  // 12288: planned for one block per SM
}
TEST(GpuVsCpu, CasMergeRows) { merge_rows_and_fallback<saturating_add24>({1, 31, 4097, 12288}); }
TEST(GpuVsCpu, CasPackedMergeRows) { merge_rows_and_fallback<packed_argmax>({31, 4097}); }
TEST(GpuVsCpu, XcgMergeRows) { merge_rows_and_fallback<unpacked_argmax>({31, 2048, 6000}); }

}  // namespace
}  // namespace ghist_test

namespace ghist_test {
namespace {

// The partitioned strategy (kernel_partition.cuh): auto takes it for large H on element inputs; several group
// counts (overrides.S), skewed and sorted inputs, and more inputs than one slice (64M), each against the CPU.
TEST(GpuVsCpu, PartitionedPlan) {
  EXPECT_EQ(ghist::plan_for<ghist::plus<std::uint32_t>>(50000000, 1572864).kind, ghist::strategy::global_memory)
      << "plan_for knows nothing of the input kind, so it plans as for index inputs";
  EXPECT_EQ((ghist::plan_for_elements<unpacked_argmax, std::uint64_t>(50000000, 1572864).kind),
            ghist::strategy::partitioned);
  for (std::int64_t H : {65536, 196608, 1572864, 5000001})
    for (distribution d : all_distributions) {
      check_against_cpu<ghist::plus<std::uint32_t>>({d, (1 << 22) + 5, H, ghist::strategy::partitioned,
                                                     ghist::mode::accumulate});
      check_against_cpu<unpacked_argmax>({d, (1 << 21) + 3, H, ghist::strategy::partitioned, ghist::mode::overwrite});
      check_against_cpu<unpacked_argmax>({d, (1 << 21) + 3, H, ghist::strategy::automatic, ghist::mode::overwrite});
    }
  for (int groups : {10, 64, 1000, 1024})
    for (distribution d : {distribution::uniform, distribution::one_bin, distribution::sorted}) {
      test_case c{d, (1 << 20) + 7, 300007, ghist::strategy::partitioned, ghist::mode::overwrite};
      c.groups = groups;
      check_against_cpu<saturating_add24>(c);
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
    }
  // More inputs than one slice: overwriting, the first slice writes dest and the second accumulates; groups of
  // several second-pass blocks (H = 2^20) and of one each (2^22: one group per SM).
  for (std::int64_t H : {1 << 20, 1 << 22})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
      check_against_cpu<ghist::plus<std::uint32_t>>(
          {distribution::uniform, (std::int64_t{1} << 26) + 12345, H, ghist::strategy::partitioned, how});
  // The compare-and-swap class there (the tile layout, tiles by ticket, zeroed for each slice).
  check_against_cpu<saturating_add24>({distribution::uniform, (std::int64_t{1} << 26) + 12345, 1 << 20,
                                       ghist::strategy::partitioned, ghist::mode::accumulate});
  check_against_cpu<packed_argmax>({distribution::zipf, (std::int64_t{1} << 26) + 12345, 1 << 20,
                                    ghist::strategy::partitioned, ghist::mode::overwrite});
  // One group of 300007 bins (a power of two: 524288) cannot fit shared memory: an error, not a wrong answer.
  ghist::options opts;
  opts.overrides.kind = ghist::strategy::partitioned;
  opts.overrides.S = 1;
  EXPECT_THROW((ghist::plan_for_elements<ghist::plus<std::uint32_t>, std::uint32_t>(1 << 20, 300007, opts)),
               ghist::error);
}

// The partitioned strategy's counted layout (kernel_partition_counted.cuh): auto takes it for many groups; forced
// with few groups (24, the fewest whose 12-byte xcg bins fit), many, and the most (4096 groups of 74 bins), for
// each atomic class (hdw; cas with rows and, with a caller's workspace sized without them, with atomics; xcg with
// locks and with warp-private copies), every distribution, both modes, and sizes that leave partial tiles.
// Overwriting, groups without records must still be written (the destination starts as garbage).
TEST(GpuVsCpu, PartitionedCountedLayout) {
  ghist::options opts;
  EXPECT_TRUE((ghist::plan_for_elements<ghist::plus<std::uint32_t>, std::uint32_t>(50000000, 50000000, opts)
                   .counted_groups));
  EXPECT_FALSE((ghist::plan_for_elements<ghist::plus<std::uint32_t>, std::uint32_t>(50000000, 196608, opts)
                    .counted_groups));
  const std::int64_t H = 300007;
  int k = 0;
  for (int groups : {0, 24, 700, 4096})
    for (distribution d : all_distributions) {
      const ghist::mode how = (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate;
      test_case c{d, (1 << 20) + 7, H, ghist::strategy::partitioned, how};
      c.groups = groups;
      c.counted = 1;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
      check_against_cpu<saturating_add24>(c);
      c.n = (1 << 19) + 3;
      check_against_cpu<unpacked_argmax>(c);
      c.race_factor = 63;
      check_against_cpu<unpacked_argmax>(c);  // warp-private copies where the groups allow
    }
  // Few inputs over many groups (most groups empty), and inputs that are all out of range.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate})
    for (std::int64_t n : {1, 1000, 8193}) {
      test_case c{distribution::uniform, n, 5000011, ghist::strategy::partitioned, how};
      c.counted = 1;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
      c.dist = distribution::out_of_range;
      check_against_cpu<ghist::plus<std::uint32_t>>(c);
    }
  // More inputs than one slice (64M) in 289 groups: the first slice overwrites, the second accumulates; the blocks
  // of the balanced second pass hold several groups each, and groups end inside a block's share.
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    test_case c{distribution::uniform, (std::int64_t{1} << 26) + 12345, 1 << 24, ghist::strategy::partitioned, how};
    c.counted = 1;
    check_against_cpu<ghist::plus<std::uint32_t>>(c);
  }
  // A caller's workspace sized for the counted layout without rows: the blocks merge with atomics.
  opts.overrides.kind = ghist::strategy::partitioned;
  opts.overrides.counted_groups = 1;
  const std::int64_t n = (1 << 21) + 3;
  const auto pl = ghist::plan_for_elements<saturating_add24, std::uint64_t>(n, H, opts);
  ASSERT_TRUE(pl.counted_groups && pl.merge_rows) << pl.to_string();
  const std::size_t without_rows =
      ghist::detail::make_partition_layout_for(true, n, pl.S, ghist::device_info::current().sm_count,
                                               sizeof(std::uint64_t), false, H, false)
          .bytes;
  ASSERT_LT(without_rows, pl.temp_bytes);
  for (distribution d : {distribution::uniform, distribution::one_bin})
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      test_case c{d, n, H, ghist::strategy::partitioned, how};
      c.counted = 1;
      c.workspace_bytes = without_rows;
      check_against_cpu<saturating_add24>(c);
    }
  // The tile layout takes at most 1024 groups: 100M int32 bins then need groups larger than shared memory.
  opts.overrides.counted_groups = -1;
  EXPECT_THROW((ghist::plan_for_elements<ghist::plus<std::uint32_t>, std::uint32_t>(1 << 20, 100000000, opts)),
               ghist::error);
}

// Overwriting, the groups that several second-pass blocks share start from the identity (fill_shared_groups_kernel,
// whose blocks take the groups' chunks in turn): 6M bins in 300 groups of 20000 bins make 1500 chunks of 4096 bins,
// more than the fill's blocks (8 per SM), and every input falls in the last group, so that it alone takes many
// blocks and its chunks are among the last ones taken. Both layouts, the hardware-atomic and compare-and-swap classes;
// the destination starts as garbage.
template <class Op>
void fill_of_shared_groups_past_the_grid(int counted) {
  using T = typename Op::value_type;
  const std::int64_t H = 6000000, n = (1 << 20) + 7, group = 20000;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed=" + std::to_string(seed) + " counted=" + std::to_string(counted));
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> elements(static_cast<std::size_t>(n));
  for (auto& e : elements)
    e = (rng() & 0xffffffff00000000ull) | static_cast<std::uint32_t>(H - 1 - static_cast<std::int64_t>(rng() % group));
  std::vector<T> initial(static_cast<std::size_t>(H));
  for (auto& v : initial) v = op_case<Op>::initial(rng);
  std::vector<T> expected = initial;
  ghist::cpu::generalized_histogram(elements.data(), n, element_to_update<Op>{}, Op{}, expected.data(), H,
                                    ghist::mode::overwrite, 0);
  device_buffer<std::uint64_t> d_elements(elements);
  device_buffer<T> d_hist(initial);
  ghist::options opts;
  opts.how = ghist::mode::overwrite;
  opts.overrides.kind = ghist::strategy::partitioned;
  opts.overrides.S = static_cast<int>(H / group);
  opts.overrides.counted_groups = counted;
  ghist::generalized_histogram_async(d_elements.get(), n, element_to_update<Op>{}, Op{}, d_hist.get(), H, 0, opts);
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<T> got = d_hist.download();
  std::int64_t mismatches = 0;
  for (std::int64_t b = 0; b < H; ++b)
    if (!op_case<Op>::equal(got[b], expected[b]) && ++mismatches <= 3) ADD_FAILURE() << "bin " << b << " differs";
  EXPECT_EQ(mismatches, 0);
}
TEST(GpuVsCpu, PartitionedFillOfSharedGroupsPastTheGrid) {
  for (int counted : {-1, 1}) {
    fill_of_shared_groups_past_the_grid<ghist::plus<std::uint32_t>>(counted);
    fill_of_shared_groups_past_the_grid<saturating_add24>(counted);
  }
}

// Calls without options.scratch take their workspace from ghist's pool, which keeps it for the next call (no
// mapping again: ~180 us per call for a 200 MB workspace on the H100) until release_cached_workspace().
TEST(GpuVsCpu, WorkspacePoolKeepsMemoryUntilReleased) {
  ghist::release_cached_workspace();
  EXPECT_EQ(ghist::cached_workspace_bytes(), 0u);
  const test_case c{distribution::uniform, (1 << 22) + 5, 196608, ghist::strategy::partitioned,
                    ghist::mode::overwrite};
  check_against_cpu<ghist::plus<std::uint32_t>>(c);
  GHIST_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_GE(ghist::cached_workspace_bytes(), std::size_t{4} << 22) << "the records of every input stay cached";
  ghist::release_cached_workspace();
  EXPECT_EQ(ghist::cached_workspace_bytes(), 0u);
  check_against_cpu<ghist::plus<std::uint32_t>>(c);  // and the pool still serves after a release
}

struct index_mod_1000 {
  __device__ ghist::bin_update<std::uint32_t> operator()(std::int64_t i) const { return {i % 1000, 1u}; }
};

TEST(GpuVsCpu, PartitionedNeedsElementInputs) {
  device_buffer<std::uint32_t> d_hist(std::vector<std::uint32_t>(1000, 7));
  ghist::options opts;
  opts.overrides.kind = ghist::strategy::partitioned;
  EXPECT_THROW(ghist::generalized_histogram_indexed_async(5000, index_mod_1000{}, ghist::plus<std::uint32_t>{},
                                                          d_hist.get(), 1000, 0, opts),
               ghist::error);
  EXPECT_EQ(d_hist.download(), std::vector<std::uint32_t>(1000, 7)) << "dest must be untouched";
}

}  // namespace
}  // namespace ghist_test

namespace ghist_test {
namespace {

// The heavy-hitter split (detail/hot_split.cuh), asked for (plan_overrides::hot_split = 1: it runs wherever the
// sample finds bins of 4 or more of its 2048 inputs) and not (0), against the CPU backend: every distribution
// (uniform input over few bins has heavy hitters too: H = 31 and 255 from a small input; out-of-range inputs never
// enter the table), sizes below, at and above the sample's 2048 and off the 16-byte boundary, both modes, and the
// plan over the rest in shared memory, the hashed tables and the partitioned strategy (H up to 1572864).
template <class Op>
void hot_split_cases(std::initializer_list<std::int64_t> Hs) {
  int k = 0;
  for (std::int64_t H : Hs)
    for (std::int64_t n : {std::int64_t(1), std::int64_t(2047), std::int64_t(100003), std::int64_t(1 << 20) + 7})
      for (distribution d : all_distributions) {
        test_case c{d, n, H, ghist::strategy::automatic,
                    (k++ % 2 == 0) ? ghist::mode::overwrite : ghist::mode::accumulate};
        c.indexed = k % 5 == 0;
        c.hot_split = (k % 3 == 0 || c.indexed) ? 0 : 1;  // an indexed call may not ask (IndexedCallMayNotAsk)
        c.offset = (n > 1 && k % 4 == 1) ? 1 : 0;
        check_against_cpu<Op>(c);
      }
}
TEST(GpuVsCpu, HotSplitLockClass) {
  hot_split_cases<unpacked_argmax>({31, 255, 4096, 49152, 786433, 1572864});
  hot_split_cases<point_sum_op>({257, 12288});  // 12-byte values: 64 threads per block in the heavy hitters' pass
  hot_split_cases<count_max_op>({257, 12288});  // 16-byte values
}

// The split is for element inputs of the lock class: an indexed call or a compare-and-swap operator that asks for it
// gets an error naming the override, and its destination is untouched.
TEST(HotSplit, OtherCallsMayNotAsk) {
  const std::vector<std::uint64_t> elements(1000, 5);
  device_buffer<std::uint64_t> d_elements(elements);
  ghist::options opts;
  opts.overrides.hot_split = 1;
  auto expect_refused = [](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " with hot_split = 1 was accepted";
    } catch (const ghist::error& e) {
      EXPECT_NE(std::string(e.what()).find("hot_split"), std::string::npos) << e.what();
    }
  };
  const std::vector<index_value> pairs(64, index_value{3u, 5});
  device_buffer<index_value> d_pairs(pairs);
  expect_refused([&] {
    ghist::generalized_histogram_indexed_async(1000, indexed_update<unpacked_argmax>{d_elements.get()},
                                               unpacked_argmax{}, d_pairs.get(), 64, 0, opts);
  }, "an indexed call");
  const std::vector<std::uint32_t> counts(64, 7u);
  device_buffer<std::uint32_t> d_counts(counts);
  expect_refused([&] {
    ghist::generalized_histogram_async(d_elements.get(), 1000, element_to_update<saturating_add24>{},
                                       saturating_add24{}, d_counts.get(), 64, 0, opts);
  }, "a compare-and-swap operator");
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(d_counts.download(), counts);
  const auto pairs_after = d_pairs.download();
  for (std::size_t b = 0; b < pairs.size(); ++b)
    EXPECT_TRUE(op_case<unpacked_argmax>::equal(pairs_after[b], pairs[b])) << "bin " << b;
}

// Seed 000's race-factor input (every 63rd bin) told no race factor: its ~200 active bins each take ~0.5% of the
// input, which the sample counts as heavy hitters; the split keeps the 32 hottest apart and the rest go to the plan.
TEST(GpuVsCpu, HotSplitStridedBins) {
  for (std::int64_t H : {std::int64_t(12288), std::int64_t(196608)}) {
    test_case c{distribution::uniform, (1 << 20) + 7, H, ghist::strategy::automatic, ghist::mode::accumulate};
    c.stride = 63;
    c.hot_split = 1;
    check_against_cpu<unpacked_argmax>(c);
  }
}

}  // namespace
}  // namespace ghist_test

namespace ghist_test {
namespace {

struct bin_as_is {
  __device__ ghist::bin_update<std::uint32_t> operator()(std::int32_t b) const { return {b, 1u}; }
};

// The sample's table, exactly: an input of at most 2048 inputs is sampled whole, so its counts are known. Bin 7 x 100
// (the hottest), 40 bins x 9 (ties broken by the smaller bin: 31 of them are ranked), bin 3 x 4 (enough, but ranked
// below the 31st tie), bin 5 x 3 (too few), out-of-range bins (never kept) and distinct bins for the rest. The
// ranked bins take their slots hottest first; one whose slot a hotter bin holds stays out (a host model below).
TEST(HotSplitSample, KeepsTheHottestBinsOfTheSample) {
  const std::int64_t H = 100000;
  std::vector<std::int32_t> bins;
  std::vector<std::int32_t> ranked = {7};
  bins.insert(bins.end(), 100, 7);
  for (int b = 0; b < 40; ++b) {
    bins.insert(bins.end(), 9, 1000 + 17 * b);
    if (b < 31) ranked.push_back(1000 + 17 * b);
  }
  bins.insert(bins.end(), 4, 3);
  bins.insert(bins.end(), 3, 5);
  bins.insert(bins.end(), 50, -4);
  bins.insert(bins.end(), 50, static_cast<std::int32_t>(H) + 9);
  for (int b = 0; bins.size() < 2000; ++b) bins.push_back(20000 + b);
  std::mt19937_64 rng(fresh_seed());
  std::shuffle(bins.begin(), bins.end(), rng);
  const auto n = static_cast<std::int64_t>(bins.size());

  // The host model of the direct-mapped table.
  std::vector<int> slot_bin(ghist::detail::hot_split_slots, -1), slot_index(ghist::detail::hot_split_slots, -1);
  std::vector<int> kept;
  int hot_samples = 0;
  for (std::int32_t b : ranked) {
    const int s = ghist::detail::hot_slot_of(static_cast<unsigned>(b));
    if (slot_bin[s] >= 0) continue;
    slot_bin[s] = b;
    slot_index[s] = static_cast<int>(kept.size());
    kept.push_back(b);
    hot_samples += b == 7 ? 100 : 9;
  }

  device_buffer<std::int32_t> d_bins(bins);
  device_buffer<ghist::detail::hot_split_state> d_state(1);
  ghist::detail::hot_split_sample_kernel<<<1, ghist::detail::hot_split_sample_threads>>>(
      ghist::detail::element_source<std::int32_t, bin_as_is>{d_bins.get(), n, bin_as_is{}}, n, H, d_state.get());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const ghist::detail::hot_split_state state = d_state.download()[0];

  EXPECT_GE(kept.size(), 28u) << "the model: few of 32 bins share a slot of 512";
  EXPECT_EQ(state.stats.bins, static_cast<int>(kept.size()));
  EXPECT_EQ(state.stats.valid_samples, n - 100);
  EXPECT_EQ(state.stats.top_count, 100);
  EXPECT_EQ(state.stats.hot_samples, hot_samples);
  for (std::size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(state.bins_of[k], kept[k]) << "index " << k;
  for (int s = 0; s < ghist::detail::hot_split_slots; ++s) {
    EXPECT_EQ(state.slots[s].x, slot_bin[s]) << "slot " << s;
    EXPECT_EQ(state.slots[s].y, slot_index[s]) << "slot " << s;
  }
}

}  // namespace
}  // namespace ghist_test
