// The weights file read in step with INPUT, chunk by chunk (the streaming 1-D and 2-D paths).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "cli_options.hpp"
#include "stream_input.hpp"

namespace ghist::cli {

// The weights in step with INPUT: exactly as many as the chunk's samples; a different total is an error.
class weight_feed {
 public:
  weight_feed(column_stream& w, const cli_options& o) : w_(w), o_(o) {}
  const std::vector<double>& take(std::size_t n, std::uint64_t input_so_far, column_stream& input) {
    while (buffer_.size() - pos_ < n) {
      std::vector<sample_column> chunk;
      if (!w_.next(chunk)) mismatch(input_so_far, input);
      buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos_));
      pos_ = 0;
      std::vector<double> d = to_doubles(std::move(chunk[0]));
      buffer_.insert(buffer_.end(), d.begin(), d.end());
    }
    out_.assign(buffer_.begin() + static_cast<std::ptrdiff_t>(pos_),
                buffer_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    taken_ += n;
    return out_;
  }
  // At the end of INPUT: no weight may be left.
  void finish(std::uint64_t input_total) {
    std::uint64_t extra = buffer_.size() - pos_;
    std::vector<sample_column> chunk;
    while (w_.next(chunk)) extra += column_size(chunk[0]);
    if (extra) fail(taken_ + extra, input_total);
  }

 private:
  [[noreturn]] void mismatch(std::uint64_t input_so_far, column_stream& input) {
    std::uint64_t total = input_so_far;
    std::vector<sample_column> chunk;
    while (input.next(chunk)) total += column_size(chunk[0]);
    fail(taken_ + (buffer_.size() - pos_), total);
  }
  [[noreturn]] void fail(std::uint64_t weights, std::uint64_t input) {
    throw data_error("weights " + display_name(*o_.weights_path) + " has " + std::to_string(weights) +
                     " values but INPUT " + display_name(o_.input) + " has " + std::to_string(input));
  }
  column_stream& w_;
  const cli_options& o_;
  std::vector<double> buffer_, out_;
  std::size_t pos_ = 0;
  std::uint64_t taken_ = 0;
};

}  // namespace ghist::cli
