// ghist::error: the one exception type that every ghist entry point throws on bad input or a failed CUDA call.
#pragma once

#include <stdexcept>
#include <string>

namespace ghist {

/// Thrown for invalid arguments (the message names the argument) and for failed CUDA calls (the message names the
/// call and the CUDA error). When it is thrown before any work was enqueued, the destination is untouched.
class error : public std::runtime_error {
 public:
  explicit error(const std::string& message) : std::runtime_error("ghist: " + message) {}
};

}  // namespace ghist
