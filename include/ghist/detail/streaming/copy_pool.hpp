// Worker threads that copy one pageable chunk into pinned memory together. One memcpy thread moves ~5-10 GB/s,
// below the PCIe link; starting threads per chunk would cost tens of microseconds each time, so they are kept.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "ghist/detail/streaming/chunk_plan.hpp"

namespace ghist::detail {

class copy_pool {
 public:
  copy_pool() = default;
  ~copy_pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  copy_pool(const copy_pool&) = delete;
  copy_pool& operator=(const copy_pool&) = delete;

  /// Copies `bytes` from src to dst in `parts` cache-line-aligned parts (copy_part); the caller's thread takes part
  /// 0 and waits for the rest. Workers are started on first need; if one cannot be started, fewer parts are used.
  void copy(void* dst, const void* src, std::size_t bytes, int parts) {
    parts = std::max(1, std::min(parts, grow(parts - 1) + 1));
    if (parts == 1) {
      std::memcpy(dst, src, bytes);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      dst_ = static_cast<char*>(dst);
      src_ = static_cast<const char*>(src);
      bytes_ = bytes;
      parts_ = parts;
      next_part_ = 1;
      pending_ = parts - 1;
    }
    wake_.notify_all();
    run_part(0);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  /// Makes sure `want` workers exist (as far as the system allows); returns how many do.
  int grow(int want) {
    while (static_cast<int>(workers_.size()) < want) {
      try {
        workers_.emplace_back([this] { work(); });
      } catch (const std::exception&) {
        break;
      }
    }
    return static_cast<int>(workers_.size());
  }

  void run_part(int i) {
    const byte_range r = copy_part(bytes_, parts_, i);
    std::memcpy(dst_ + r.begin, src_ + r.begin, r.end - r.begin);
  }

  void work() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || next_part_ < parts_; });
      if (stop_) return;
      const int i = next_part_++;
      lock.unlock();
      run_part(i);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t bytes_ = 0;
  int parts_ = 0, next_part_ = 0, pending_ = 0;
  bool stop_ = false;
};

}  // namespace ghist::detail
