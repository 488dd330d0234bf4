#include "ghist/detail/validate.hpp"

#include <string>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "ghist/error.hpp"

namespace ghist::detail {
namespace {

using address_range_fn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);

// cuMemGetAddressRange through the runtime's entry-point lookup, so that ghist needs no link against libcuda.
address_range_fn address_range_query() {
  static address_range_fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &p, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return address_range_fn{nullptr};
    }
    return reinterpret_cast<address_range_fn>(p);
  }();
  return fn;
}

}  // namespace

void check_non_negative(std::int64_t count, const char* name) {
  if (count < 0) throw error(std::string(name) + " must be >= 0, got " + std::to_string(count));
}

void check_device_range(const void* ptr, std::size_t bytes, const char* name) {
  if (bytes == 0) return;
  if (ptr == nullptr) throw error(std::string(name) + " is null but " + std::to_string(bytes) + " bytes are needed");
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    throw error(std::string(name) + ": CUDA does not know this pointer; device memory is expected");
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    throw error(std::string(name) + " points to host memory not registered with CUDA; device memory is expected");
  if (attr.type == cudaMemoryTypeHost) return;  // pinned host memory, mapped into the device's address space
  address_range_fn query = address_range_query();
  if (query == nullptr) return;  // cannot tell; the allocation size check is best effort
  CUdeviceptr base = 0;
  size_t size = 0;
  if (query(&base, &size, reinterpret_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) return;
  const std::size_t available = static_cast<std::size_t>(base + size - reinterpret_cast<CUdeviceptr>(ptr));
  if (available < bytes)
    throw error(std::string(name) + " is too small: its allocation holds " + std::to_string(available) +
                " bytes from this pointer on, the call needs " + std::to_string(bytes));
}

}  // namespace ghist::detail
