#include "input_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

#include "cli_error.hpp"
#include "text_number.hpp"

namespace ghist::cli {

namespace {

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::string read_all_bytes(const std::string& path) {
  std::unique_ptr<std::FILE, file_closer> owned;
  std::FILE* f = stdin;
  if (path != "-") {
    owned.reset(std::fopen(path.c_str(), "rb"));
    if (!owned) throw data_error("cannot open " + display_name(path) + ": " + std::strerror(errno));
    f = owned.get();
  }
  std::string bytes;
  constexpr std::size_t chunk = std::size_t(1) << 20;
  for (;;) {
    std::size_t old_size = bytes.size();
    bytes.resize(old_size + chunk);
    std::size_t got = std::fread(bytes.data() + old_size, 1, chunk, f);
    bytes.resize(old_size + got);
    if (got < chunk) break;
  }
  if (std::ferror(f)) throw data_error("cannot read " + display_name(path) + ": " + std::strerror(errno));
  return bytes;
}

namespace {

bool host_is_big_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 0;
}

template <class Stored, class Out>
std::vector<Out> decode(std::string_view bytes, bool swap_bytes, Out (*convert)(Stored) = nullptr) {
  std::size_t n = bytes.size() / sizeof(Stored);
  std::vector<Out> out(n);
  const char* p = bytes.data();
  for (std::size_t i = 0; i < n; ++i, p += sizeof(Stored)) {
    unsigned char raw[sizeof(Stored)];
    std::memcpy(raw, p, sizeof(Stored));
    if (swap_bytes) std::reverse(raw, raw + sizeof(Stored));
    Stored v;
    std::memcpy(&v, raw, sizeof(Stored));
    out[i] = convert ? convert(v) : static_cast<Out>(v);
  }
  return out;
}

double from_half(std::uint16_t bits) { return half_to_double(bits); }
double from_bfloat16(std::uint16_t bits) { return bfloat16_to_double(bits); }

}  // namespace

sample_column decode_raw(const std::string& path, std::string_view bytes, const dtype& type) {
  if (bytes.size() % static_cast<std::size_t>(type.bytes) != 0)
    throw data_error(display_name(path) + " has " + std::to_string(bytes.size()) + " bytes, not a multiple of " +
                     std::to_string(type.bytes) + " (" + type.name() + "): truncated record or wrong --dtype?");
  bool swap = type.big_endian != host_is_big_endian();
  using K = dtype::kind;
  switch (type.k) {
    case K::signed_int:
      switch (type.bytes) {
        case 1: return decode<std::int8_t, std::int64_t>(bytes, swap);
        case 2: return decode<std::int16_t, std::int64_t>(bytes, swap);
        case 4: return decode<std::int32_t, std::int64_t>(bytes, swap);
        default: return decode<std::int64_t, std::int64_t>(bytes, swap);
      }
    case K::unsigned_int:
      switch (type.bytes) {
        case 1: return decode<std::uint8_t, std::int64_t>(bytes, swap);
        case 2: return decode<std::uint16_t, std::int64_t>(bytes, swap);
        case 4: return decode<std::uint32_t, std::int64_t>(bytes, swap);
        default: return decode<std::uint64_t, std::uint64_t>(bytes, swap);
      }
    case K::floating:
      if (type.bytes == 2) return decode<std::uint16_t, double>(bytes, swap, type.brain ? from_bfloat16 : from_half);
      if (type.bytes == 4) return decode<float, double>(bytes, swap);
      return decode<double, double>(bytes, swap);
  }
  throw data_error("internal: unhandled dtype " + type.name());
}

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

[[noreturn]] void bad_line(const std::string& path, std::size_t line, std::string_view token, const char* what) {
  bool binary = std::any_of(token.begin(), token.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && !is_blank(c);
  });
  throw data_error(display_name(path) + ":" + std::to_string(line) + ": '" + printable(token) + "' is not " + what +
                   (binary ? " (binary data? give --dtype)" : ""));
}

// Calls parse(token, line_number) for every line that holds a value.
// `text` starts at line first_line + 1; a UTF-8 byte-order mark is skipped when `at_start` (the file's beginning).
template <class Parse>
void for_each_value_line(std::string_view text, Parse parse, std::size_t first_line = 0, bool at_start = true) {
  std::size_t pos = 0, line = first_line;
  if (at_start && text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // UTF-8 byte-order mark
  while (pos < text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::size_t b = pos, e = end;
    while (b < e && is_blank(text[b])) ++b;
    while (e > b && is_blank(text[e - 1])) --e;
    if (b < e && text[b] != '#') parse(std::string_view(text.data() + b, e - b), line);
    pos = end + 1;
  }
}

std::vector<double> parse_real_lines(const std::string& path, std::string_view text, std::size_t first_line,
                                     bool at_start) {
  std::vector<double> out;
  for_each_value_line(text, [&](std::string_view token, std::size_t line) {
    // The token starts with a non-blank and is followed by white space or the string's end, so strtod cannot read
    // past it; it must consume all of it.
    char* end = nullptr;
    double v = std::strtod(token.data(), &end);
    if (end != token.data() + token.size()) bad_line(path, line, token, "a number");
    out.push_back(v);
  }, first_line, at_start);
  return out;
}

std::vector<std::int64_t> parse_integer_lines(const std::string& path, std::string_view text, std::size_t first_line,
                                              bool at_start) {
  std::vector<std::int64_t> out;
  for_each_value_line(text, [&](std::string_view token, std::size_t line) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || end != token.data() + token.size()) {
      std::optional<__int128> wide = parse_integral(token);
      if (!wide) bad_line(path, line, token, "an integer key");
      constexpr __int128 lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
      v = static_cast<std::int64_t>(std::clamp(*wide, lo, hi));
    }
    out.push_back(v);
  }, first_line, at_start);
  return out;
}

}  // namespace

sample_column parse_text(const std::string& path, const std::string& bytes, text_values text) {
  return parse_text_piece(path, bytes, text, 0, true);
}

sample_column parse_text_piece(const std::string& path, std::string_view piece, text_values text,
                               std::size_t first_line, bool at_start) {
  if (text == text_values::integer) return parse_integer_lines(path, piece, first_line, at_start);
  return parse_real_lines(path, piece, first_line, at_start);
}

sample_column read_column(const std::string& path, const std::optional<dtype>& type, text_values text) {
  std::string bytes = read_all_bytes(path);
  if (type) return decode_raw(path, bytes, *type);
  return parse_text(path, bytes, text);
}

std::size_t column_size(const sample_column& column) {
  return std::visit([](const auto& v) { return v.size(); }, column);
}

std::vector<double> to_doubles(sample_column&& column) {
  if (auto* d = std::get_if<std::vector<double>>(&column)) return std::move(*d);
  return std::visit(
      [](const auto& v) {
        std::vector<double> out(v.size());
        std::transform(v.begin(), v.end(), out.begin(), [](auto x) { return static_cast<double>(x); });
        return out;
      },
      column);
}

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : "'" + printable(path) + "'"; }

}  // namespace ghist::cli
