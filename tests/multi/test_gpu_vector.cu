// Vector-valued histograms on the GPU against cpu::vector_histogram: k-means centroid sums (d = 256 float sums plus
// a count component), several d (1, 3, 32, 33, 257), hdw and cas component operators, every distribution of the
// cluster ids, odd sizes, each strategy forced and automatic, both modes, the index and record forms.
#include <cstdint>
#include <random>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/cpu_vector.hpp"
#include "ghist/detail/multi/multi_plan.hpp"
#include "ghist/vector_histogram.cuh"
#include "multi_test_support.cuh"

namespace ghist_test {
namespace {

/// Inputs: bins[i] and d components per input; with counted, component d - 1 is the constant 1 (a count).
template <class T>
struct component_of {
  const T* values;  // n x values_per_input, row-major
  std::int64_t values_per_input;
  bool counted;
  __host__ __device__ T operator()(std::int64_t i, std::int64_t c) const {
    return counted && c == values_per_input ? T(1) : values[i * values_per_input + c];
  }
};
struct bin_of_index {
  const std::int32_t* bins;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return bins[i]; }
};
/// Record form: the bin is stored in component 0 (as a value of T).
template <class T>
struct bin_of_record {
  __host__ __device__ std::int64_t operator()(const T* record) const { return static_cast<std::int64_t>(record[0]); }
};

template <class Op>
bool refused(std::int64_t n, std::int64_t d, std::int64_t H, const run_config& c) {
  ghist::plan_overrides o;
  o.kind = c.kind;
  try {
    ghist::detail::multi::plan_vector(n, d, ghist::detail::multi::shape_of<Op>(H), ghist::device_info::current(), o);
    return false;
  } catch (const ghist::error&) {
    return true;
  }
}

template <class Op>
void check_vector(distribution dist, std::int64_t n, std::int64_t d, std::int64_t H, const run_config& c,
                  bool records, bool counted = false) {
  using T = typename Op::value_type;
  const std::uint64_t seed = fresh_seed();
  std::ostringstream what;
  what << "dist=" << to_string(dist) << " n=" << n << " d=" << d << " H=" << H << " " << config_name(c)
       << " form=" << (records ? "records" : "indexed") << (counted ? "+count" : "") << " seed=" << seed;
  SCOPED_TRACE(what.str());
  std::mt19937_64 rng(seed);
  const auto bins = make_bins(dist, n, H, rng);
  const std::int64_t stored = counted ? d - 1 : d;  // components kept in memory per input
  std::vector<T> values(static_cast<std::size_t>(n * stored));
  for (auto& v : values) v = op_case<Op>::value(static_cast<std::uint32_t>(rng()));
  if (records)
    for (std::int64_t i = 0; i < n; ++i) values[i * d] = static_cast<T>(bins[i]);  // component 0 holds the bin
  std::vector<T> initial(static_cast<std::size_t>(H * d));
  for (auto& v : initial) v = op_case<Op>::initial(rng);
  std::vector<T> expected = initial;
  if (records) {
    ghist::cpu::vector_histogram_records(values.data(), n, d, bin_of_record<T>{}, Op{}, expected.data(), H, c.how);
  } else {
    const component_of<T> comp{values.data(), stored, counted};
    ghist::cpu::vector_histogram(
        n, d,
        [&](std::int64_t i, T* v) {
          for (std::int64_t k = 0; k < d; ++k) v[k] = comp(i, k);
          return static_cast<std::int64_t>(bins[i]);
        },
        Op{}, expected.data(), H, c.how);
  }

  device_buffer<T> d_values(values);
  device_buffer<std::int32_t> d_bins(bins);
  device_buffer<T> d_hist(initial);
  ghist::options opts;
  opts.how = c.how;
  opts.overrides.kind = c.kind;
  auto call = [&] {
    if (records)
      ghist::vector_histogram_records_async(d_values.get(), n, d, bin_of_record<T>{}, Op{}, d_hist.get(), H, 0, opts);
    else
      ghist::vector_histogram_async(n, d, bin_of_index{d_bins.get()}, component_of<T>{d_values.get(), stored, counted},
                                    Op{}, d_hist.get(), H, 0, opts);
  };
  if (refused<Op>(n, d, H, c)) {
    EXPECT_THROW(call(), ghist::error);
    EXPECT_EQ(count_mismatches<Op>(d_hist.download(), initial, "untouched dest"), 0);
    return;
  }
  call();
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(count_mismatches<Op>(d_hist.download(), expected, "dest"), 0);
}

TEST(GpuVector, KMeansCentroidSumsWithCount) {
  // k = 1024 clusters x (256 coordinates + 1 count): global memory; k = 5: shared memory.
  for (const auto& c : all_configs())
    for (distribution d : all_distributions) {
      check_vector<ghist::plus<float>>(d, 20011, 257, 1024, c, false, true);
      check_vector<ghist::plus<float>>(d, 100003, 257, 5, c, false, true);
    }
}

TEST(GpuVector, SeveralWidthsAndOperators) {
  for (const auto& c : all_configs())
    for (distribution d : {distribution::uniform, distribution::one_bin, distribution::out_of_range})
      for (std::int64_t width : {1, 3, 32, 33}) {
        check_vector<ghist::plus<std::uint32_t>>(d, 65537, width, 31, c, false);
        check_vector<ghist::min<std::int64_t>>(d, 4099, width, 257, c, false);
        check_vector<saturating_add24>(d, 1000, width, 7, c, false);
        check_vector<ghist::max<double>>(d, 1001, width, 100, c, false);
      }
}

TEST(GpuVector, RecordFormAndOddSizes) {
  for (const auto& c : all_configs())
    for (distribution d : all_distributions)
      for (std::int64_t n : {0, 1, 2, 1023, 1025})
        check_vector<ghist::plus<float>>(d, n, 257, 13, c, true);
}

}  // namespace
}  // namespace ghist_test
