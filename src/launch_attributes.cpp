// ghist/detail/launch_attributes.hpp: the cache of kernels' shared-memory opt-ins.
#include "ghist/detail/launch_attributes.hpp"

#include <map>
#include <mutex>
#include <utility>

#include <cuda_runtime_api.h>

#include "ghist/detail/cuda_check.hpp"

namespace ghist::detail {
namespace {

std::mutex opt_ins_mutex;
std::map<std::pair<int, const void*>, std::size_t> opt_ins;  // (device, kernel) -> bytes last set

}  // namespace

void allow_dynamic_shared_bytes(const void* kernel, std::size_t bytes) {
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(opt_ins_mutex);
  const auto key = std::make_pair(device, kernel);
  const auto found = opt_ins.find(key);
  if (found != opt_ins.end() && found->second == bytes) return;
  GHIST_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  opt_ins[key] = bytes;
}

}  // namespace ghist::detail
