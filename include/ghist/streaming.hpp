// Streaming histograms of host data (callable without nvcc): chunks that arrive one after another (a reader thread,
// a file) or one large host array are copied to the GPU through pinned staging buffers on alternating CUDA streams
// and histogrammed into one device result, so that the copy of chunk k+1 overlaps the histogram of chunk k and the
// caller's work on chunk k+2 (issue 6, seeds 003 and 004).
//
// Synchronisation, in one place:
//   - the constructor allocates everything and enqueues the identity fill of the result; it returns before the fill
//     has run;
//   - push() of pageable host memory returns once the chunk has been copied into a pinned staging buffer (it waits
//     only for a free buffer, i.e. for the transfer issued `buffers` chunks earlier): the caller may reuse its memory
//     at once;
//   - push() of pinned (cudaHostAlloc / cudaHostRegister) or device memory enqueues the work straight from it and
//     returns at once: that memory must stay unchanged until synchronize() or finish() returns (and device memory
//     written by other streams must be complete when push() is called);
//   - with streaming_options.register_bytes, a large pageable push is registered (pinned in place) and then treated
//     as pinned input; synchronize(), finish() and the destructor unregister it after waiting;
//   - acquire()/commit() hand out a pinned staging buffer to fill in place (e.g. fread into it), skipping the copy;
//   - synchronize() waits for everything enqueued; finish() waits, then copies the bins to the host; reset() waits,
//     then enqueues the identity fill again.
// Histograms of successive chunks run one after another (each waits for the previous one through an event), so the
// result is never updated by two kernels at once; only the transfers overlap the compute.
//
// Instantiated types: Sample in int32_t, uint32_t, int64_t, uint64_t, float, double; Count in uint32_t, uint64_t;
// Weight in float, double. Errors: ghist::error naming the argument, thrown before anything is enqueued for bad
// arguments; a failed CUDA call throws ghist::error naming the call. Every buffer, stream and event is released on
// every path (the destructor first waits for the work still in flight).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "ghist/operators.hpp"
#include "ghist/options.hpp"

namespace ghist {

/// Which per-bin fold of the weights a streaming histogram keeps besides (or instead of) the counts.
enum class stream_values { none, sum, min, max };

/// Even bins over [lower, upper) or integer keys (bin k holds the samples equal to k, others are ignored).
template <class Sample>
struct stream_bins {
  bool bincount = false;
  std::int64_t num_bins = 0;
  Sample lower{};  ///< even bins only
  Sample upper{};  ///< even bins only

  static stream_bins even(std::int64_t num_bins, Sample lower, Sample upper) {
    return {false, num_bins, lower, upper};
  }
  static stream_bins keys(std::int64_t num_bins) { return {true, num_bins, Sample{}, Sample{}}; }
};

struct streaming_options {
  /// Bytes of samples per staging buffer (the weights' buffer holds as many weights); a push larger than this is
  /// split. Rounded down to whole samples; at least one sample.
  std::size_t chunk_bytes = std::size_t(32) << 20;
  /// Pinned staging buffers, each with its own stream and device buffer: 2 (double buffering) .. 16.
  int buffers = 2;
  /// Threads that copy pageable input into the pinned buffers (one memcpy is slower than the PCIe link): 0 picks
  /// from the chunk size and the core count (detail/streaming/chunk_plan.hpp), 1..64 forces that many.
  int copy_threads = 0;
  /// Pageable pushes of at least this many bytes are pinned in place (cudaHostRegister) and copied from there
  /// instead of through the staging buffers; they then behave as pinned input (unchanged until synchronize() or
  /// finish(), which unregister them). 0 (default): never. Pays when registering is faster than the memcpy threads
  /// (ghist_streaming_bench measures both); if registering fails, the push is staged as usual.
  std::size_t register_bytes = 0;
  /// Passed to every engine call (options.hpp). `how` is ignored (the result starts from the identity and every
  /// chunk accumulates). race_factor 0 is replaced by 1: the inspector would wait for the stream on every chunk.
  /// A caller's workspace is safe to share: the chunks' histograms never run at the same time.
  options engine;
};

template <class Sample, class Count = std::uint64_t, class Weight = double>
class streaming_histogram {
 public:
  static_assert(std::is_integral_v<Count> && std::is_floating_point_v<Weight>,
                "ghist: streaming_histogram<Sample, Count (integer), Weight (float or double)>");

  /// counts: keep per-bin counts (Count); values: fold the weights per bin (Weight) or none. At least one of them.
  /// Throws ghist::error for num_bins <= 0, lower >= upper or a non-finite range (even bins), keys of a
  /// floating-point Sample, nothing to compute, chunk_bytes below one sample, buffers outside 2..16, copy_threads
  /// outside 0..64 (all before any CUDA call), or a failed allocation.
  streaming_histogram(const stream_bins<Sample>& bins, bool counts, stream_values values,
                      const streaming_options& opts = {});
  ~streaming_histogram();
  streaming_histogram(streaming_histogram&&) noexcept;
  streaming_histogram& operator=(streaming_histogram&&) noexcept;
  streaming_histogram(const streaming_histogram&) = delete;
  streaming_histogram& operator=(const streaming_histogram&) = delete;

  /// Adds n samples (and, when values != none, the n weights in lockstep) from host memory (pageable or pinned)
  /// or device memory. See the synchronisation notes above. Throws ghist::error for n < 0, a null pointer with
  /// n > 0, weights missing (values != none) or given (values == none), a push after finish() or between
  /// acquire() and commit(), all before anything is enqueued.
  void push(const Sample* samples, std::int64_t n);
  void push(const Sample* samples, const Weight* weights, std::int64_t n);

  /// A pinned staging buffer to fill in place: room for `capacity` samples (and weights when values != none;
  /// weights is null otherwise). Waits until the buffer is free. Follow with commit(n), n <= capacity.
  struct staging {
    Sample* samples;
    Weight* weights;
    std::size_t capacity;
  };
  staging acquire();
  /// Enqueues the first n samples (and weights) of the acquired buffer; returns at once.
  void commit(std::size_t n);

  /// Waits for every copy and histogram enqueued so far (pinned or device input may be reused afterwards).
  void synchronize();

  struct result {
    std::vector<Count> counts;   ///< per bin when counts were asked for, else empty
    std::vector<Weight> values;  ///< per bin when values != none, else empty (bins without samples: the identity)
  };
  /// Waits for everything, copies the bins to the host and ends the stream (push() then throws). May be called
  /// again: it copies the same bins.
  result finish();
  /// Waits for everything, then starts again from empty bins (the identity fill is enqueued; buffers are kept), so
  /// that one object serves many streams without new allocations. push() works again after finish().
  void reset();
  /// The bins on the device (null when not asked for); valid until destruction, complete after synchronize().
  const Count* device_counts() const;
  const Weight* device_values() const;
  /// Samples pushed or committed so far.
  std::int64_t samples_pushed() const;
  /// Samples per staging buffer.
  std::size_t chunk_capacity() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

namespace detail {
template <class Op>
struct stream_values_of;
template <class T>
struct stream_values_of<plus<T>> {
  static constexpr stream_values value = stream_values::sum;
};
template <class T>
struct stream_values_of<min<T>> {
  static constexpr stream_values value = stream_values::min;
};
template <class T>
struct stream_values_of<max<T>> {
  static constexpr stream_values value = stream_values::max;
};
}  // namespace detail

/// One-shot histograms of whole host arrays (pageable or pinned) through a streaming_histogram: synchronous, the
/// result is on the host. Errors as the constructor and push().
template <class Sample, class Count = std::uint64_t>
std::vector<Count> histogram_even_from_host(const Sample* samples, std::int64_t n, std::int64_t num_bins,
                                            Sample lower, Sample upper, const streaming_options& opts = {}) {
  streaming_histogram<Sample, Count, double> h(stream_bins<Sample>::even(num_bins, lower, upper), true,
                                               stream_values::none, opts);
  h.push(samples, n);
  return h.finish().counts;
}

template <class Key, class Count = std::uint64_t>
std::vector<Count> bincount_from_host(const Key* keys, std::int64_t n, std::int64_t num_bins,
                                      const streaming_options& opts = {}) {
  streaming_histogram<Key, Count, double> h(stream_bins<Key>::keys(num_bins), true, stream_values::none, opts);
  h.push(keys, n);
  return h.finish().counts;
}

/// Op: plus<Weight>, min<Weight> or max<Weight>.
template <class Sample, class Weight, class Op = plus<Weight>>
std::vector<Weight> weighted_histogram_even_from_host(const Sample* samples, const Weight* weights, std::int64_t n,
                                                      std::int64_t num_bins, Sample lower, Sample upper, Op = {},
                                                      const streaming_options& opts = {}) {
  streaming_histogram<Sample, std::uint64_t, Weight> h(stream_bins<Sample>::even(num_bins, lower, upper), false,
                                                       detail::stream_values_of<Op>::value, opts);
  h.push(samples, weights, n);
  return h.finish().values;
}

template <class Key, class Weight, class Op = plus<Weight>>
std::vector<Weight> weighted_bincount_from_host(const Key* keys, const Weight* weights, std::int64_t n,
                                                std::int64_t num_bins, Op = {}, const streaming_options& opts = {}) {
  streaming_histogram<Key, std::uint64_t, Weight> h(stream_bins<Key>::keys(num_bins), false,
                                                    detail::stream_values_of<Op>::value, opts);
  h.push(keys, weights, n);
  return h.finish().values;
}

}  // namespace ghist
