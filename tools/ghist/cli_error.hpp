// cli_error: the one exception the CLI throws for a user-facing failure. It carries the exit status, so main()
// prints "ghist: error: <message>" as a single line and exits with it.
#pragma once

#include <stdexcept>
#include <string>

namespace ghist::cli {

/// Exit statuses: 2 for a bad command line, 1 for a problem with the data, a file or the device.
inline constexpr int exit_usage = 2;
inline constexpr int exit_failure = 1;

class cli_error : public std::runtime_error {
 public:
  cli_error(int exit_status, const std::string& message) : std::runtime_error(message), exit_status_(exit_status) {}
  int exit_status() const noexcept { return exit_status_; }

 private:
  int exit_status_;
};

inline cli_error usage_error(const std::string& message) { return cli_error(exit_usage, message); }
inline cli_error data_error(const std::string& message) { return cli_error(exit_failure, message); }

}  // namespace ghist::cli
