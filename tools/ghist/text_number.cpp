#include "text_number.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ghist::cli {

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) return std::nullopt;
  }
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view text) {
  // strtod skips leading white space and needs a terminated string: refuse the first, copy for the second.
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  // ERANGE: overflow gives +-HUGE_VAL (keep: an infinite value), underflow a tiny or zero value (keep).
  return v;
}

std::optional<__int128> parse_integral(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (!digits.empty() && digits.size() <= 38 && digits.find_first_not_of("0123456789") == std::string_view::npos) {
    __int128 v = 0;
    for (char c : digits) v = v * 10 + (c - '0');
    return negative ? -v : v;
  }
  std::optional<double> real = parse_real(text);
  if (!real || !std::isfinite(*real) || std::trunc(*real) != *real || std::fabs(*real) >= std::ldexp(1.0, 126))
    return std::nullopt;
  return static_cast<__int128>(*real);
}

std::string printable(std::string_view text) {
  constexpr std::size_t max_chars = 40;
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_chars; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  }
  if (text.size() > max_chars) out += "...";
  return out;
}

}  // namespace ghist::cli
