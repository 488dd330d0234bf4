#include "backend.hpp"

#include <cstdint>

#include "cli_error.hpp"
#include "ghist/device_info.hpp"
#include "ghist/operators.hpp"

namespace ghist::cli {

std::string backend_choice::describe() const {
  return std::string("backend=") + (kind == backend_kind::gpu ? "gpu" : "cpu") + " (" + why + ")";
}

backend_choice choose_backend(backend_request request) {
  if (request == backend_request::cpu) return {backend_kind::cpu, "--backend cpu"};
  if (ghist::gpu_available()) return {backend_kind::gpu, gpu_device_name()};
  if (request == backend_request::gpu) throw data_error("--backend gpu: no CUDA device found");
  return {backend_kind::cpu, "no CUDA device found"};
}

namespace {

// NumPy's closed last bin: the backends count [lower, upper), so the samples equal to upper are added here.
template <class Sample>
void fold_upper_edge(const histogram_job<Sample>& job, histogram_result& result) {
  const std::vector<Sample>& x = *job.samples;
  const std::size_t last = static_cast<std::size_t>(job.bins.num_bins - 1);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] == job.bins.upper)) continue;
    if (!result.counts.empty()) ++result.counts[last];
    if (result.values.empty()) continue;
    double& v = result.values[last];
    double w = (*job.weights)[i];
    switch (job.op) {
      case op_kind::sum: v = ghist::plus<double>{}(v, w); break;
      case op_kind::min: v = ghist::min<double>{}(v, w); break;
      case op_kind::max: v = ghist::max<double>{}(v, w); break;
      case op_kind::count: break;
    }
  }
}

}  // namespace

template <class Sample>
histogram_result run_histogram(backend_kind backend, const histogram_job<Sample>& job) {
  histogram_result result = backend == backend_kind::gpu ? run_on_gpu(job) : run_on_cpu(job);
  if (!job.bins.bincount && job.bins.closed_last) fold_upper_edge(job, result);
  return result;
}

template <class Sample>
histogram_accumulator<Sample>::histogram_accumulator(backend_kind backend, const bin_layout<Sample>& bins, op_kind op)
    : backend_(backend) {
  job_.bins = bins;
  job_.op = op;
  if (backend_ == backend_kind::gpu) device_ = gpu_start(job_);
}

template <class Sample>
histogram_accumulator<Sample>::~histogram_accumulator() {
  gpu_release<Sample>(device_);
}

template <class Sample>
void histogram_accumulator<Sample>::add(const std::vector<Sample>& samples, const std::vector<double>* weights) {
  if (samples.empty()) return;
  job_.samples = &samples;
  job_.weights = job_.needs_values() ? weights : nullptr;
  if (backend_ == backend_kind::gpu) add_on_gpu<Sample>(*device_, job_, !started_);
  else add_on_cpu(job_, host_, !started_);
  started_ = true;
  if (!job_.bins.bincount && job_.bins.closed_last) {
    for (std::size_t i = 0; i < samples.size(); ++i) {
      if (!(samples[i] == job_.bins.upper)) continue;
      ++edge_count_;
      if (job_.weights) edge_weights_.push_back((*weights)[i]);
    }
  }
}

template <class Sample>
histogram_result histogram_accumulator<Sample>::finish() {
  histogram_result result;
  if (backend_ == backend_kind::gpu) {
    result = gpu_finish<Sample>(*device_, job_, started_);
  } else {
    if (!started_) {
      std::vector<Sample> none;
      job_.samples = &none;
      std::vector<double> no_weights;
      job_.weights = &no_weights;
      add_on_cpu(job_, host_, true);
    }
    result = std::move(host_);
  }
  const std::size_t last = static_cast<std::size_t>(job_.bins.num_bins - 1);
  if (!result.counts.empty()) result.counts[last] += edge_count_;
  if (!result.values.empty()) {
    double& v = result.values[last];
    for (double w : edge_weights_) {
      switch (job_.op) {
        case op_kind::sum: v = ghist::plus<double>{}(v, w); break;
        case op_kind::min: v = ghist::min<double>{}(v, w); break;
        case op_kind::max: v = ghist::max<double>{}(v, w); break;
        case op_kind::count: break;
      }
    }
  }
  return result;
}

template class histogram_accumulator<std::int64_t>;
template class histogram_accumulator<std::uint64_t>;
template class histogram_accumulator<double>;

template histogram_result run_histogram(backend_kind, const histogram_job<std::int64_t>&);
template histogram_result run_histogram(backend_kind, const histogram_job<std::uint64_t>&);
template histogram_result run_histogram(backend_kind, const histogram_job<double>&);

}  // namespace ghist::cli
