#include "progress.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace ghist::cli {

namespace {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

}  // namespace

progress_bar::progress_bar(bool enabled, std::optional<std::uint64_t> total)
    : enabled_(enabled && isatty(2) == 1), total_(total), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

progress_bar::~progress_bar() { finish(); }

void progress_bar::update(std::uint64_t done) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || (drawn_ && now - last_draw_ < std::chrono::milliseconds(100))) return;
  last_draw_ = now;
  std::string line = "ghist: read " + human_bytes(static_cast<double>(done));
  if (total_ && *total_ > 0) {
    const double f = std::min(1.0, static_cast<double>(done) / static_cast<double>(*total_));
    const int width = 24, full = static_cast<int>(f * width);
    line += " / " + human_bytes(static_cast<double>(*total_)) + " [" + std::string(full, '#') +
            std::string(width - full, '.') + "] " + std::to_string(static_cast<int>(f * 100)) + "%";
  }
  line += ", " + human_bytes(static_cast<double>(done) / elapsed) + "/s";
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void progress_bar::finish() {
  if (enabled_ && drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }
  enabled_ = false;
}

}  // namespace ghist::cli
