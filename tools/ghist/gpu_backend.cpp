// The GPU backend: copies the samples (and weights) to the device, runs ghist::*_async on a stream of its own,
// waits, and copies the bins back. Every CUDA call is checked; device memory is freed on every path.
#include <cstdint>
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
