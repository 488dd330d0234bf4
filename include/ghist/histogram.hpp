// GPU histograms for the common cases, callable from any C++17 compiler (no nvcc needed): counts over even bins,
// bincount of integer keys, and per-bin sum/min/max of weights. They are compiled once in src/ for the types
// listed below; with nvcc, ghist/generalized_histogram.cuh gives the generic engine for any type and bin function.
//
// All pointers are device memory (or host memory registered for device access). Every call is asynchronous on
// `stream` unless the doc says otherwise; the one exception is the race-factor inspector (options.hpp), which runs
// only for global-memory plans with options.race_factor == 0 and waits for `stream` once.
//
// Instantiated types:
//   Sample: int32_t, uint32_t, int64_t, uint64_t, float, double
//   Count:  int32_t, uint32_t, int64_t, uint64_t
//   Key:    int32_t, uint32_t, int64_t, uint64_t
//   Weight: float, double, with Op in plus<Weight>, min<Weight>, max<Weight>, for every Sample and Key
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "ghist/operators.hpp"
#include "ghist/options.hpp"
#include "ghist/plan.hpp"

namespace ghist {

/// hist[b] = number of samples in the b-th of num_bins even bins over [lower, upper). Asynchronous.
/// Throws ghist::error (dest untouched) for num_bins <= 0, lower >= upper, a non-finite range, a null pointer with
/// n > 0, host memory where device memory is expected, or a too small destination or workspace.
template <class Sample, class Count>
void histogram_even_async(const Sample* samples, std::int64_t n, Count* hist, std::int64_t num_bins, Sample lower,
                          Sample upper, cudaStream_t stream = 0, const options& opts = {});

/// hist[b] = op-fold of weights[i] over the samples[i] in even bin b. Asynchronous; errors as histogram_even_async.
template <class Sample, class Weight, class Op = plus<Weight>>
void weighted_histogram_even_async(const Sample* samples, const Weight* weights, std::int64_t n, Weight* hist,
                                   std::int64_t num_bins, Sample lower, Sample upper, Op op = {},
                                   cudaStream_t stream = 0, const options& opts = {});

/// counts[k] = number of keys equal to k, k in [0, num_bins); other keys are ignored. Asynchronous.
template <class Key, class Count>
void bincount_async(const Key* keys, std::int64_t n, Count* counts, std::int64_t num_bins, cudaStream_t stream = 0,
                    const options& opts = {});

/// out[k] = op-fold of weights[i] over the i with keys[i] == k. Asynchronous.
template <class Key, class Weight, class Op = plus<Weight>>
void weighted_bincount_async(const Key* keys, const Weight* weights, std::int64_t n, Weight* out,
                             std::int64_t num_bins, Op op = {}, cudaStream_t stream = 0, const options& opts = {});

/// The plan a call with this operator, size and options would run on the current device (queried), before any
/// race-factor sampling: with options.race_factor == 0 it assumes RF = 1. plan.temp_bytes is the workspace needed.
template <class Op>
plan plan_for(std::int64_t n, std::int64_t num_bins, const options& opts = {}) {
  return make_plan(problem_for<Op>(n, num_bins, opts.race_factor), device_info::current(), opts.overrides);
}

}  // namespace ghist
