// The progress bar on stderr while a large INPUT is read: bytes read (of the total when known) and a rate. It
// appears only after a second, only when stderr is a terminal, and clears its line when done.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace ghist::cli {

class progress_bar {
 public:
  /// Shown only when `enabled` (not --no-progress) and stderr is a terminal. `total`: the bytes expected, if known.
  progress_bar(bool enabled, std::optional<std::uint64_t> total);
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  /// `done` bytes have been read so far (redraws at most ten times a second, after the first second).
  void update(std::uint64_t done);
  /// Clears the line (if anything was drawn); update() draws nothing afterwards.
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::optional<std::uint64_t> total_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace ghist::cli
