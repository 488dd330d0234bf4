// device_info: the few numbers of a GPU that the planner needs, queried from the device, never hard-coded.
#pragma once

#include <cstddef>
#include <string>

namespace ghist {

struct device_info {
  int sm_count = 0;                          ///< multiprocessors
  int max_threads_per_sm = 0;                ///< resident threads per multiprocessor
  int max_threads_per_block = 0;
  std::size_t shared_per_block_optin = 0;    ///< bytes a block may have after opting in (cudaFuncSetAttribute)
  std::size_t shared_per_sm = 0;             ///< bytes of shared memory per multiprocessor
  std::size_t reserved_shared_per_block = 0; ///< bytes the system reserves per resident block
  std::size_t l2_bytes = 0;
  int compute_capability = 0;                ///< major * 10 + minor (90: Hopper, whose bulk-copy engine staged input uses)
  std::string name;

  /// T_hw of seed 000: the number of threads the whole GPU keeps resident.
  long long hardware_threads() const { return static_cast<long long>(sm_count) * max_threads_per_sm; }

  /// Queries device `device` through the CUDA runtime; throws ghist::error if there is none or the query fails.
  static device_info query(int device);
  /// Queries the current device.
  static device_info current();

  /// The GPU of seed 000's evaluation as its model saw it (RTX 2080 Ti: L = 48 KiB, L2 = 5.5 MiB, T_hw = 69632).
  static device_info sc20_rtx2080ti();
  /// An H100 SXM as the CUDA runtime reports it (132 SMs x 2048 threads, 227 KiB opt-in shared memory, 50 MiB L2).
  static device_info h100_sxm();
};

/// True when at least one CUDA device is usable. Never throws.
bool gpu_available() noexcept;

}  // namespace ghist
