// The GPU backend: ghist::streaming_histogram (ghist/streaming.hpp) copies the samples (and weights) through pinned
// buffers on alternating streams and accumulates every chunk into one device result; the bins come back at the end.
// Device and pinned memory are freed on every path (the library's RAII).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "backend.hpp"
#include "cli_error.hpp"
#include "ghist/device_info.hpp"
#include "ghist/streaming.hpp"

namespace ghist::cli {

// add() returns once the chunk is in a pinned buffer, so the CLI reads chunk k+1 from the file while chunk k crosses
// the bus and is histogrammed; finish() waits once and copies the bins back.
template <class Sample>
struct histogram_accumulator<Sample>::device_state {
  ghist::streaming_histogram<Sample, std::uint64_t, double> hist;
};

namespace {

ghist::stream_values values_for(op_kind op) {
  switch (op) {
    case op_kind::sum: return ghist::stream_values::sum;
    case op_kind::min: return ghist::stream_values::min;
    case op_kind::max: return ghist::stream_values::max;
    default: return ghist::stream_values::none;
  }
}

}  // namespace

namespace {

// streaming_options.chunk_bytes: `max_chunk_bytes`, or less for an input known to be smaller (a whole input in
// memory), so that a small job does not pin and allocate buffers of the full chunk size.
template <class Sample>
std::shared_ptr<typename histogram_accumulator<Sample>::device_state> make_state(const histogram_job<Sample>& job,
                                                                                std::size_t max_chunk_bytes) {
  if (job.bins.bincount && !std::is_integral_v<Sample>) throw usage_error("--bincount needs integer keys");
  auto bins = job.bins.bincount ? ghist::stream_bins<Sample>::keys(job.bins.num_bins)
                                : ghist::stream_bins<Sample>::even(job.bins.num_bins, job.bins.lower, job.bins.upper);
  ghist::streaming_options o;
  o.chunk_bytes = std::max(sizeof(Sample), std::min(o.chunk_bytes, max_chunk_bytes));
  using state = typename histogram_accumulator<Sample>::device_state;
  return std::make_shared<state>(state{ghist::streaming_histogram<Sample, std::uint64_t, double>(
      bins, job.needs_counts(), job.needs_values() ? values_for(job.op) : ghist::stream_values::none, o)});
}

}  // namespace

template <class Sample>
std::shared_ptr<typename histogram_accumulator<Sample>::device_state> gpu_start(const histogram_job<Sample>& job) {
  return make_state(job, std::numeric_limits<std::size_t>::max());
}

// The bins start from the operator's identity, so the first chunk needs no overwrite: `first` is not used.
template <class Sample>
void add_on_gpu(typename histogram_accumulator<Sample>::device_state& state, const histogram_job<Sample>& job,
                bool /*first*/) {
  const auto n = static_cast<std::int64_t>(job.samples->size());
  if (job.needs_values()) state.hist.push(job.samples->data(), job.weights->data(), n);
  else state.hist.push(job.samples->data(), n);
}

template <class Sample>
histogram_result gpu_finish(typename histogram_accumulator<Sample>::device_state& st, const histogram_job<Sample>&,
                            bool /*started*/) {
  auto bins = st.hist.finish();
  histogram_result r;
  r.counts = std::move(bins.counts);
  r.values = std::move(bins.values);
  return r;
}

// The streaming histogram's destructor waits for the work in flight, then frees every buffer.
template <class Sample>
void gpu_release(std::shared_ptr<typename histogram_accumulator<Sample>::device_state>& state) {
  state.reset();
}

// A whole input is one stream of chunks: its copies overlap its histograms as in the streaming path.
template <class Sample>
histogram_result run_on_gpu(const histogram_job<Sample>& job) {
  auto state = make_state(job, job.samples->size() * sizeof(Sample));
  add_on_gpu<Sample>(*state, job, true);
  return gpu_finish<Sample>(*state, job, true);
}

#define GHIST_GPU_STREAMING(S)                                                                                       \
  template std::shared_ptr<histogram_accumulator<S>::device_state> gpu_start(const histogram_job<S>&);              \
  template void add_on_gpu<S>(histogram_accumulator<S>::device_state&, const histogram_job<S>&, bool);              \
  template histogram_result gpu_finish<S>(histogram_accumulator<S>::device_state&, const histogram_job<S>&, bool); \
  template void gpu_release<S>(std::shared_ptr<histogram_accumulator<S>::device_state>&);                          \
  template histogram_result run_on_gpu(const histogram_job<S>&);
GHIST_GPU_STREAMING(std::int64_t)
GHIST_GPU_STREAMING(std::uint64_t)
GHIST_GPU_STREAMING(double)
#undef GHIST_GPU_STREAMING

std::string gpu_device_name() {
  try {
    std::string name = ghist::device_info::current().name;
    return name.empty() ? "CUDA device" : name;
  } catch (const std::exception&) {
    return "CUDA device";
  }
}

}  // namespace ghist::cli
