#include "csv_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <sys/stat.h>

#include "cli_error.hpp"
#include "input_reader.hpp"

namespace ghist::cli {

namespace {

void append_int128(std::string& out, __int128 v) {
  if (v < 0) out += '-';
  unsigned __int128 u = v < 0 ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  char digits[40];
  int len = 0;
  do {
    digits[len++] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  } while (u != 0);
  while (len > 0) out += digits[--len];
}

template <class T>
void append_integer(std::string& out, T v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 24 characters hold any 64-bit integer
  out.append(buf, end);
}

// Shortest decimal that reads back to the same double (std::to_chars without a precision).
void append_real(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 32 characters hold the shortest form of any double
  out.append(buf, end);
}

// Edge e (0..num_bins) of even bins.
// Floats: the nominal edge lower + e * (upper - lower) / num_bins, the range's ends as given. (The bin function
// rounds too: a value within an ulp or so of an edge may fall on either side, as in any floating-point histogram.)
// Integers: the first integer of bin e, lower + ceil(e * (upper - lower) / num_bins), exact in 128 bits, so that
// the bin holds exactly the integers lower <= x < upper.
template <class Sample>
void append_edge(std::string& out, const bin_layout<Sample>& layout, std::int64_t e) {
  const std::int64_t n = layout.num_bins;
  if constexpr (std::is_floating_point_v<Sample>) {
    const double lo = layout.lower, hi = layout.upper;
    if (e == 0) return append_real(out, lo);
    if (e == n) return append_real(out, hi);
    const double width = hi - lo, t = static_cast<double>(e) / static_cast<double>(n);
    append_real(out, std::isfinite(width) ? lo + width * static_cast<double>(e) / static_cast<double>(n)
                                          : lo * (1 - t) + hi * t);
  } else {
    unsigned __int128 range = static_cast<unsigned __int128>(static_cast<__int128>(layout.upper) -
                                                             static_cast<__int128>(layout.lower));
    unsigned __int128 num = range * static_cast<unsigned __int128>(e);
    unsigned __int128 offset = (num + static_cast<unsigned __int128>(n) - 1) / static_cast<unsigned __int128>(n);
    __int128 edge = static_cast<__int128>(layout.lower) + static_cast<__int128>(offset);
    // A closed last bin holds `upper` itself: as a half-open integer interval it ends one past it.
    if (e == n && layout.closed_last) edge += 1;
    append_int128(out, edge);
  }
}

}  // namespace

template <class Sample>
std::string format_csv(const bin_layout<Sample>& layout, op_kind op, const histogram_result& result) {
  std::string out = "bin,lower,upper,value\n";
  out.reserve(out.size() + static_cast<std::size_t>(layout.num_bins) * 32);
  for (std::int64_t b = 0; b < layout.num_bins; ++b) {
    const auto i = static_cast<std::size_t>(b);
    append_integer(out, b);
    out += ',';
    if (layout.bincount) {
      append_integer(out, b);
      out += ',';
      append_integer(out, b + 1);
    } else {
      append_edge(out, layout, b);
      out += ',';
      append_edge(out, layout, b + 1);
    }
    out += ',';
    if (op == op_kind::count) append_integer(out, result.counts[i]);
    else if (op == op_kind::sum || result.counts[i] > 0) append_real(out, result.values[i]);
    out += '\n';
  }
  return out;
}

template std::string format_csv(const bin_layout<std::int64_t>&, op_kind, const histogram_result&);
template std::string format_csv(const bin_layout<std::uint64_t>&, op_kind, const histogram_result&);
template std::string format_csv(const bin_layout<double>&, op_kind, const histogram_result&);

void write_output(const std::string& text, const std::optional<std::string>& path) {
  if (!path || *path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw data_error(std::string("cannot write to stdout: ") + std::strerror(errno));
    return;
  }
  std::FILE* f = std::fopen(path->c_str(), "wb");
  if (f == nullptr) throw data_error("cannot create " + display_name(*path) + ": " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int saved_errno = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved_errno = errno;
  }
  if (!ok) {
    struct stat st {};
    if (::stat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode)) std::remove(path->c_str());  // no partial result
    throw data_error("cannot write " + display_name(*path) + ": " + std::strerror(saved_errno));
  }
}

}  // namespace ghist::cli
