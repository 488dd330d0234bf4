// Owning handles for the CUDA resources of a streaming histogram: pinned host memory, device memory, a stream, an
// event. Each one releases its resource in its destructor and ignores the status there (destructors do not throw);
// creation failures throw ghist::error naming the call.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "ghist/error.hpp"

namespace ghist::detail {

inline void cuda_check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw error(std::string(call) + " failed: " + cudaGetErrorString(status));
}

template <cudaError_t (*Free)(void*)>
class cuda_memory {
 public:
  cuda_memory() = default;
  explicit cuda_memory(void* p) : p_(p) {}
  ~cuda_memory() {
    if (p_ != nullptr) Free(p_);
  }
  cuda_memory(cuda_memory&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  cuda_memory& operator=(cuda_memory&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};
using pinned_memory = cuda_memory<&cudaFreeHost>;
using device_memory = cuda_memory<&cudaFree>;

inline pinned_memory alloc_pinned(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) cuda_check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc");
  return pinned_memory(p);
}
inline device_memory alloc_device(std::size_t bytes) {
  void* p = nullptr;
  if (bytes > 0) cuda_check(cudaMalloc(&p, bytes), "cudaMalloc");
  return device_memory(p);
}

class stream_handle {
 public:
  stream_handle() { cuda_check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_handle() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  stream_handle(const stream_handle&) = delete;
  stream_handle& operator=(const stream_handle&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class event_handle {
 public:
  event_handle() { cuda_check(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), "cudaEventCreate"); }
  ~event_handle() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  event_handle(const event_handle&) = delete;
  event_handle& operator=(const event_handle&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace ghist::detail
