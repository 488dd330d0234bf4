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

  /// Copies `bytes` from src to dst with `threads` threads (the caller's is one). The copy is cut into up to
  /// parts_per_thread cache-line-aligned parts per thread (copy_part) that the threads take in turn, so that a
  /// thread the system delays for a while (16 copy threads on 16 cores share them with the CUDA driver) holds up
  /// one small part rather than 1/threads of the copy. On the lent H100's host (2026-11-22, same-run A/B) streaming
  /// pageable input ran at 0.67-0.69 of the pinned copy rate with one part per thread and at 0.88-0.92 with four
  /// (bench/results/2026-11-22-h100-experiment-staging-copy-parts.txt). Workers are started on first need; if one
  /// cannot be started, fewer threads copy.
  void copy(void* dst, const void* src, std::size_t bytes, int threads) {
    threads = std::max(1, std::min(threads, grow(threads - 1) + 1));
    if (threads == 1) {
      std::memcpy(dst, src, bytes);
      return;
    }
    const std::size_t most_parts = std::max<std::size_t>(1, bytes / min_part_bytes);
    const int parts = static_cast<int>(std::clamp<std::size_t>(most_parts, static_cast<std::size_t>(threads),
                                                               static_cast<std::size_t>(threads) * parts_per_thread));
    std::unique_lock<std::mutex> lock(m_);
    dst_ = static_cast<char*>(dst);
    src_ = static_cast<const char*>(src);
    bytes_ = bytes;
    parts_ = parts;
    next_part_ = 0;
    pending_ = parts;
    lock.unlock();
    wake_.notify_all();
    lock.lock();
    take_parts(lock);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

  static constexpr int parts_per_thread = 4;
  /// Parts are not cut smaller than this: taking one costs a lock, ~1 us, against ~25 us to copy 256 KiB.
  static constexpr std::size_t min_part_bytes = std::size_t(256) << 10;

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

  /// Copies parts until none is left to take; called and returns with the lock held.
  void take_parts(std::unique_lock<std::mutex>& lock) {
    while (next_part_ < parts_) {
      const byte_range r = copy_part(bytes_, parts_, next_part_++);
      lock.unlock();
      std::memcpy(dst_ + r.begin, src_ + r.begin, r.end - r.begin);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  void work() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || next_part_ < parts_; });
      if (stop_) return;
      take_parts(lock);
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
