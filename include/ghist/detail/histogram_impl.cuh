// Definitions of the common-case GPU histograms declared in ghist/histogram.hpp. src/instantiate_*.cu compiles them
// for the listed types; an nvcc user may include this file to get them for other types.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/binning.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/generalized_histogram.cuh"
#include "ghist/histogram.hpp"

namespace ghist::detail {

// Counts are accumulated in the unsigned type of the same width: two's complement addition gives the same bits,
// and signed and unsigned counters then share one compiled kernel.
template <class Count>
using count_word_t = std::make_unsigned_t<Count>;

template <class Sample, class Count>
struct count_even_bins {
  static constexpr bool counts = true;
  even_bins<Sample> bins;
  __device__ bin_update<Count> operator()(Sample x) const { return {bins(x), Count(1)}; }
};

template <class Key, class Count>
struct count_keys {
  static constexpr bool counts = true;
  key_bins<Key> bins;
  __device__ bin_update<Count> operator()(Key k) const { return {bins(k), Count(1)}; }
};

template <class Sample, class Weight>
struct weigh_even_bins {
  const Sample* samples;
  const Weight* weights;
  even_bins<Sample> bins;
  __device__ bin_update<Weight> operator()(std::int64_t i) const { return {bins(samples[i]), weights[i]}; }
};

template <class Key, class Weight>
struct weigh_keys {
  const Key* keys;
  const Weight* weights;
  key_bins<Key> bins;
  __device__ bin_update<Weight> operator()(std::int64_t i) const { return {bins(keys[i]), weights[i]}; }
};

inline void check_inputs(std::int64_t n, const void* a, std::size_t a_bytes, const char* a_name, const void* b,
                         std::size_t b_bytes, const char* b_name) {
  check_non_negative(n, "n");
  check_device_range(a, a_bytes, a_name);
  if (b_name != nullptr) check_device_range(b, b_bytes, b_name);
}

}  // namespace ghist::detail

namespace ghist {

template <class Sample, class Count>
void histogram_even_async(const Sample* samples, std::int64_t n, Count* hist, std::int64_t num_bins, Sample lower,
                          Sample upper, cudaStream_t stream, const options& opts) {
  using W = detail::count_word_t<Count>;
  const even_bins<Sample> bins = make_even_bins(lower, upper, num_bins);
  generalized_histogram_async(samples, n, detail::count_even_bins<Sample, W>{bins}, plus<W>{},
                              reinterpret_cast<W*>(hist), num_bins, stream, opts);
}

template <class Sample, class Weight, class Op>
void weighted_histogram_even_async(const Sample* samples, const Weight* weights, std::int64_t n, Weight* hist,
                                   std::int64_t num_bins, Sample lower, Sample upper, Op op, cudaStream_t stream,
                                   const options& opts) {
  const even_bins<Sample> bins = make_even_bins(lower, upper, num_bins);
  detail::check_inputs(n, samples, static_cast<std::size_t>(n) * sizeof(Sample), "samples", weights,
                       static_cast<std::size_t>(n) * sizeof(Weight), "weights");
  generalized_histogram_indexed_async(n, detail::weigh_even_bins<Sample, Weight>{samples, weights, bins}, op, hist,
                                      num_bins, stream, opts);
}

template <class Key, class Count>
void bincount_async(const Key* keys, std::int64_t n, Count* counts, std::int64_t num_bins, cudaStream_t stream,
                    const options& opts) {
  using W = detail::count_word_t<Count>;
  generalized_histogram_async(keys, n, detail::count_keys<Key, W>{key_bins<Key>{num_bins}}, plus<W>{},
                              reinterpret_cast<W*>(counts), num_bins, stream, opts);
}

template <class Key, class Weight, class Op>
void weighted_bincount_async(const Key* keys, const Weight* weights, std::int64_t n, Weight* out,
                             std::int64_t num_bins, Op op, cudaStream_t stream, const options& opts) {
  detail::check_inputs(n, keys, static_cast<std::size_t>(n) * sizeof(Key), "keys", weights,
                       static_cast<std::size_t>(n) * sizeof(Weight), "weights");
  generalized_histogram_indexed_async(n, detail::weigh_keys<Key, Weight>{keys, weights, key_bins<Key>{num_bins}}, op,
                                      out, num_bins, stream, opts);
}

}  // namespace ghist
