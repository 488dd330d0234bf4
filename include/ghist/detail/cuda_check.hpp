// Turns a failed CUDA runtime call into a ghist::error naming the call.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "ghist/error.hpp"

namespace ghist::detail {

inline void throw_on_cuda_error(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed for it
    throw error(std::string(what) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
}

}  // namespace ghist::detail

#define GHIST_CUDA_CHECK(call) ::ghist::detail::throw_on_cuda_error((call), #call)
