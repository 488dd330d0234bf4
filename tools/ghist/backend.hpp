// The two backends that compute a histogram_job (CPU: ghist::cpu; GPU: ghist::streaming_histogram through pinned
// buffers) and the choice between them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli_options.hpp"
#include "histogram_job.hpp"

namespace ghist::cli {

enum class backend_kind { cpu, gpu };

struct backend_choice {
  backend_kind kind = backend_kind::cpu;
  std::string why;  ///< for the stderr line: the GPU's name, "no CUDA device found" or "--backend cpu"

  /// "backend=gpu (NVIDIA H100 ...)" or "backend=cpu (--backend cpu)".
  std::string describe() const;
};

/// auto: the GPU when ghist::gpu_available(), else the CPU. gpu without a device: cli_error (exit_failure).
backend_choice choose_backend(backend_request request);

/// Runs the job on the chosen backend, then folds the samples equal to the upper edge into the last bin when the
/// layout's last bin is closed. Throws cli_error or ghist::error; no partial result is returned.
template <class Sample>
histogram_result run_histogram(backend_kind backend, const histogram_job<Sample>& job);

// The backends themselves (cpu_backend.cpp, gpu_backend.cpp): half-open bins, no closed-last-bin fix-up.
template <class Sample>
histogram_result run_on_cpu(const histogram_job<Sample>& job);
template <class Sample>
histogram_result run_on_gpu(const histogram_job<Sample>& job);

/// One histogram computed chunk by chunk (streaming input): add() each chunk (samples and, for sum/min/max, as many
/// weights), then finish(). The first chunk overwrites, the next ones accumulate (ghist::mode::accumulate); the GPU
/// keeps the bins on the device until finish(). The closed last bin is folded in as run_histogram does.
template <class Sample>
class histogram_accumulator {
 public:
  struct device_state;  ///< gpu_backend.cpp
  histogram_accumulator(backend_kind backend, const bin_layout<Sample>& bins, op_kind op);
  ~histogram_accumulator();
  void add(const std::vector<Sample>& samples, const std::vector<double>* weights);
  histogram_result finish();

 private:
  backend_kind backend_;
  histogram_job<Sample> job_;
  bool started_ = false;
  histogram_result host_;            ///< the CPU's bins
  std::vector<double> edge_weights_; ///< weights of the samples equal to a closed last bin's upper edge, in order
  std::uint64_t edge_count_ = 0;
  std::shared_ptr<device_state> device_;
};

// Per-chunk backend calls: `first` overwrites the bins, else they accumulate.
template <class Sample>
void add_on_cpu(const histogram_job<Sample>& job, histogram_result& into, bool first);
template <class Sample>
std::shared_ptr<typename histogram_accumulator<Sample>::device_state> gpu_start(const histogram_job<Sample>& job);
template <class Sample>
void add_on_gpu(typename histogram_accumulator<Sample>::device_state& state, const histogram_job<Sample>& job,
                bool first);
template <class Sample>
histogram_result gpu_finish(typename histogram_accumulator<Sample>::device_state& state,
                            const histogram_job<Sample>& job, bool started);
template <class Sample>
void gpu_release(std::shared_ptr<typename histogram_accumulator<Sample>::device_state>& state);

/// The name of the current CUDA device (gpu_backend.cpp).
std::string gpu_device_name();

}  // namespace ghist::cli
