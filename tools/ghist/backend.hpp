// The two backends that compute a histogram_job (CPU: ghist::cpu; GPU: ghist::*_async on device copies) and the
// choice between them.
#pragma once

#include <string>

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

/// The name of the current CUDA device (gpu_backend.cpp).
std::string gpu_device_name();

}  // namespace ghist::cli
