// The GPU backend: copies the samples (and weights) to the device, runs ghist::*_async on a stream of its own,
// waits, and copies the bins back. Every CUDA call is checked; device memory is freed on every path.
#include <cstdint>
#include <memory>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "backend.hpp"
#include "cli_error.hpp"
#include "ghist/device_info.hpp"
#include "ghist/histogram.hpp"

namespace ghist::cli {

namespace {

void check(cudaError_t status, const std::string& call) {
  if (status != cudaSuccess) throw data_error("CUDA " + call + " failed: " + cudaGetErrorString(status));
}

class stream_owner {
 public:
  stream_owner() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_owner() { cudaStreamDestroy(stream_); }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

template <class T>
class device_array {
 public:
  explicit device_array(std::size_t n) : size_(n) {
    if (n > 0)
      check(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)),
            "cudaMalloc of " + std::to_string(n * sizeof(T)) + " bytes");
  }
  ~device_array() {
    if (data_ != nullptr) cudaFree(data_);
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
void upload(device_array<T>& to, const std::vector<T>& from, cudaStream_t stream) {
  if (!from.empty())
    check(cudaMemcpyAsync(to.get(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (to the device)");
}

template <class T>
void download(std::vector<T>& to, const device_array<T>& from, cudaStream_t stream) {
  to.resize(from.size());
  if (!to.empty())
    check(cudaMemcpyAsync(to.data(), from.get(), to.size() * sizeof(T), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (to the host)");
}

template <class Sample, class Op>
void weighted(const histogram_job<Sample>& job, const Sample* x, const double* w, double* out, Op op,
              cudaStream_t stream) {
  const auto n = static_cast<std::int64_t>(job.samples->size());
  if constexpr (std::is_integral_v<Sample>) {
    if (job.bins.bincount) return ghist::weighted_bincount_async(x, w, n, out, job.bins.num_bins, op, stream);
  }
  ghist::weighted_histogram_even_async(x, w, n, out, job.bins.num_bins, job.bins.lower, job.bins.upper, op, stream);
}

}  // namespace

template <class Sample>
histogram_result run_on_gpu(const histogram_job<Sample>& job) {
  if (job.bins.bincount && !std::is_integral_v<Sample>) throw usage_error("--bincount needs integer keys");
  const auto n = static_cast<std::int64_t>(job.samples->size());
  const auto bins = static_cast<std::size_t>(job.bins.num_bins);
  stream_owner stream;  // declared first: destroyed after the device arrays, whose cudaFree waits for the device
  device_array<Sample> samples(job.samples->size());
  upload(samples, *job.samples, stream.get());

  device_array<std::uint64_t> counts(job.needs_counts() ? bins : 0);
  if (job.needs_counts()) {
    if constexpr (std::is_integral_v<Sample>) {
      if (job.bins.bincount)
        ghist::bincount_async(samples.get(), n, counts.get(), job.bins.num_bins, stream.get());
    }
    if (!job.bins.bincount)
      ghist::histogram_even_async(samples.get(), n, counts.get(), job.bins.num_bins, job.bins.lower,
                                  job.bins.upper, stream.get());
  }

  device_array<double> weights(job.needs_values() ? job.weights->size() : 0);
  device_array<double> values(job.needs_values() ? bins : 0);
  if (job.needs_values()) {
    upload(weights, *job.weights, stream.get());
    switch (job.op) {
      case op_kind::sum:
        weighted(job, samples.get(), weights.get(), values.get(), ghist::plus<double>{}, stream.get());
        break;
      case op_kind::min:
        weighted(job, samples.get(), weights.get(), values.get(), ghist::min<double>{}, stream.get());
        break;
      case op_kind::max:
        weighted(job, samples.get(), weights.get(), values.get(), ghist::max<double>{}, stream.get());
        break;
      case op_kind::count: break;
    }
  }

  histogram_result r;
  if (job.needs_counts()) download(r.counts, counts, stream.get());
  if (job.needs_values()) download(r.values, values, stream.get());
  check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
  check(cudaGetLastError(), "kernel launch");
  return r;
}

// Streaming: the bins stay on the device; each chunk is copied into a reused buffer and added with
// options.how = accumulate after the first; finish() copies the bins back and waits once.
template <class Sample>
struct histogram_accumulator<Sample>::device_state {
  stream_owner stream;
  std::unique_ptr<device_array<Sample>> samples;
  std::unique_ptr<device_array<double>> weights;
  std::unique_ptr<device_array<std::uint64_t>> counts;
  std::unique_ptr<device_array<double>> values;
};

namespace {

template <class T>
void upload_chunk(std::unique_ptr<device_array<T>>& to, const std::vector<T>& from, cudaStream_t stream) {
  if (!to || to->size() < from.size()) {
    if (to) check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    to.reset();
    to = std::make_unique<device_array<T>>(from.size());
  }
  upload(*to, from, stream);
}

template <class Sample>
void add_chunk(typename histogram_accumulator<Sample>::device_state& st, const histogram_job<Sample>& job,
               bool first) {
  if (job.bins.bincount && !std::is_integral_v<Sample>) throw usage_error("--bincount needs integer keys");
  const auto n = static_cast<std::int64_t>(job.samples->size());
  cudaStream_t stream = st.stream.get();
  ghist::options opts;
  opts.how = first ? ghist::mode::overwrite : ghist::mode::accumulate;
  const Sample* x = nullptr;
  if (n > 0) {
    upload_chunk(st.samples, *job.samples, stream);
    x = st.samples->get();
  }
  if (job.needs_counts()) {
    if constexpr (std::is_integral_v<Sample>) {
      if (job.bins.bincount) ghist::bincount_async(x, n, st.counts->get(), job.bins.num_bins, stream, opts);
    }
    if (!job.bins.bincount)
      ghist::histogram_even_async(x, n, st.counts->get(), job.bins.num_bins, job.bins.lower, job.bins.upper, stream,
                                  opts);
  }
  if (job.needs_values()) {
    const double* w = nullptr;
    if (n > 0) {
      upload_chunk(st.weights, *job.weights, stream);
      w = st.weights->get();
    }
    double* out = st.values->get();
    auto call = [&](auto op) {
      if constexpr (std::is_integral_v<Sample>) {
        if (job.bins.bincount) return ghist::weighted_bincount_async(x, w, n, out, job.bins.num_bins, op, stream, opts);
      }
      ghist::weighted_histogram_even_async(x, w, n, out, job.bins.num_bins, job.bins.lower, job.bins.upper, op,
                                           stream, opts);
    };
    switch (job.op) {
      case op_kind::sum: call(ghist::plus<double>{}); break;
      case op_kind::min: call(ghist::min<double>{}); break;
      case op_kind::max: call(ghist::max<double>{}); break;
      case op_kind::count: break;
    }
  }
}

}  // namespace

template <class Sample>
std::shared_ptr<typename histogram_accumulator<Sample>::device_state> gpu_start(const histogram_job<Sample>& job) {
  auto st = std::make_shared<typename histogram_accumulator<Sample>::device_state>();
  const auto bins = static_cast<std::size_t>(job.bins.num_bins);
  st->counts = std::make_unique<device_array<std::uint64_t>>(job.needs_counts() ? bins : 0);
  st->values = std::make_unique<device_array<double>>(job.needs_values() ? bins : 0);
  return st;
}

template <class Sample>
void add_on_gpu(typename histogram_accumulator<Sample>::device_state& state, const histogram_job<Sample>& job,
                bool first) {
  add_chunk<Sample>(state, job, first);
}

template <class Sample>
histogram_result gpu_finish(typename histogram_accumulator<Sample>::device_state& st, const histogram_job<Sample>& job,
                            bool started) {
  if (!started) {
    std::vector<Sample> none;
    histogram_job<Sample> empty = job;
    empty.samples = &none;
    add_chunk<Sample>(st, empty, true);
  }
  histogram_result r;
  if (job.needs_counts()) download(r.counts, *st.counts, st.stream.get());
  if (job.needs_values()) download(r.values, *st.values, st.stream.get());
  check(cudaStreamSynchronize(st.stream.get()), "cudaStreamSynchronize");
  check(cudaGetLastError(), "kernel launch");
  return r;
}

template <class Sample>
void gpu_release(std::shared_ptr<typename histogram_accumulator<Sample>::device_state>& state) {
  if (!state) return;
  cudaStreamSynchronize(state->stream.get());
  state.reset();
}

#define GHIST_GPU_STREAMING(S)                                                                                       \
  template std::shared_ptr<histogram_accumulator<S>::device_state> gpu_start(const histogram_job<S>&);              \
  template void add_on_gpu<S>(histogram_accumulator<S>::device_state&, const histogram_job<S>&, bool);              \
  template histogram_result gpu_finish<S>(histogram_accumulator<S>::device_state&, const histogram_job<S>&, bool); \
  template void gpu_release<S>(std::shared_ptr<histogram_accumulator<S>::device_state>&);
GHIST_GPU_STREAMING(std::int64_t)
GHIST_GPU_STREAMING(std::uint64_t)
GHIST_GPU_STREAMING(double)
#undef GHIST_GPU_STREAMING

template histogram_result run_on_gpu(const histogram_job<std::int64_t>&);
template histogram_result run_on_gpu(const histogram_job<std::uint64_t>&);
template histogram_result run_on_gpu(const histogram_job<double>&);

std::string gpu_device_name() {
  try {
    std::string name = ghist::device_info::current().name;
    return name.empty() ? "CUDA device" : name;
  } catch (const std::exception&) {
    return "CUDA device";
  }
}

}  // namespace ghist::cli
