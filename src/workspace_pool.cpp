// ghist's memory pool for temporaries (ghist/detail/workspace_pool.hpp says why it exists).
#include "ghist/detail/workspace_pool.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <mutex>

#include "ghist/detail/cuda_check.hpp"
#include "ghist/options.hpp"

namespace ghist {
namespace detail {
namespace {

std::mutex pools_mutex;
std::map<int, cudaMemPool_t> pools;  // by device; never destroyed (the driver frees them when the process ends)

}  // namespace

cudaMemPool_t workspace_pool() {
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(pools_mutex);
  const auto found = pools.find(device);
  if (found != pools.end()) return found->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool{};
  GHIST_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  // Keep everything between calls: release_cached_workspace() is the way to give it back.
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  GHIST_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  pools.emplace(device, pool);
  return pool;
}

void* workspace_malloc_async(std::size_t bytes, cudaStream_t stream) {
  void* p = nullptr;
  GHIST_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, workspace_pool(), stream));
  return p;
}

}  // namespace detail

std::size_t cached_workspace_bytes() {
  std::uint64_t reserved = 0;
  GHIST_CUDA_CHECK(cudaMemPoolGetAttribute(detail::workspace_pool(), cudaMemPoolAttrReservedMemCurrent, &reserved));
  return static_cast<std::size_t>(reserved);
}

void release_cached_workspace() {
  GHIST_CUDA_CHECK(cudaDeviceSynchronize());  // memory freed on a stream returns to the pool only once that stream gets there
  GHIST_CUDA_CHECK(cudaMemPoolTrimTo(detail::workspace_pool(), 0));
}

}  // namespace ghist
