#include "result_text.hpp"

#include <charconv>
#include <cmath>
#include <type_traits>

namespace ghist::cli {

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

void append_integer(std::string& out, std::int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 24 characters hold any 64-bit integer
  out.append(buf, end);
}

void append_unsigned(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  out.append(buf, end);
}

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
  if (layout.bincount) return append_integer(out, e);
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

template void append_edge(std::string&, const bin_layout<std::int64_t>&, std::int64_t);
template void append_edge(std::string&, const bin_layout<std::uint64_t>&, std::int64_t);
template void append_edge(std::string&, const bin_layout<double>&, std::int64_t);

}  // namespace ghist::cli
