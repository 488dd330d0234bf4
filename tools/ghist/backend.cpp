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

template histogram_result run_histogram(backend_kind, const histogram_job<std::int64_t>&);
template histogram_result run_histogram(backend_kind, const histogram_job<std::uint64_t>&);
template histogram_result run_histogram(backend_kind, const histogram_job<double>&);

}  // namespace ghist::cli
