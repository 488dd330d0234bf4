#include "npy_reader.hpp"

#include <cstdint>
#include <optional>

#include "cli_error.hpp"
#include "text_number.hpp"

namespace ghist::cli {

namespace {

constexpr std::string_view npy_magic("\x93NUMPY", 6);

[[noreturn]] void bad_npy(const std::string& path, const std::string& what) {
  throw data_error(display_name(path) + ": not a readable .npy file: " + what);
}

std::size_t skip_blanks(std::string_view s, std::size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
  return i;
}

// The text after 'key': in the header dictionary, starting at its value.
std::optional<std::size_t> value_of(std::string_view header, std::string_view key) {
  for (char quote : {'\'', '"'}) {
    std::string quoted = quote + std::string(key) + quote;
    std::size_t at = header.find(quoted);
    if (at == std::string_view::npos) continue;
    std::size_t i = skip_blanks(header, at + quoted.size());
    if (i >= header.size() || header[i] != ':') return std::nullopt;
    return skip_blanks(header, i + 1);
  }
  return std::nullopt;
}

}  // namespace

bool looks_like_npy(std::string_view bytes) { return bytes.substr(0, npy_magic.size()) == npy_magic; }

npy_header read_npy_header(const std::string& path, std::string_view bytes) {
  if (!looks_like_npy(bytes)) bad_npy(path, "no \\x93NUMPY magic string");
  if (bytes.size() < 10) bad_npy(path, "truncated header");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, data_start = 0;
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    header_len = byte(8) | byte(9) << 8;
    data_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad_npy(path, "truncated header");
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    data_start = 12;
  } else {
    bad_npy(path, "format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (bytes.size() - data_start < header_len) bad_npy(path, "truncated header");
  const std::string_view header = bytes.substr(data_start, header_len);
  data_start += header_len;

  // descr: a type string such as '<f8'; a list means a structured dtype.
  std::optional<std::size_t> d = value_of(header, "descr");
  if (!d) bad_npy(path, "no 'descr' in the header");
  if (header[*d] == '[') bad_npy(path, "structured dtypes are not supported (give a plain numeric array)");
  const char quote = header[*d];
  if (quote != '\'' && quote != '"') bad_npy(path, "malformed 'descr'");
  std::size_t close = header.find(quote, *d + 1);
  if (close == std::string_view::npos) bad_npy(path, "malformed 'descr'");
  std::string descr(header.substr(*d + 1, close - *d - 1));

  std::optional<dtype> type;
  std::string code = descr;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '=')) code.erase(0, 1);
  if (code == "b1") type = parse_dtype("u1");  // bool: 0 or 1
  else if (code.size() == 2 && (code[0] == 'i' || code[0] == 'u' || code[0] == 'f')) type = parse_dtype(descr);
  if (!type)
    bad_npy(path, "dtype '" + printable(descr) +
                      "' is not supported (bool, int8..int64, uint8..uint64, float16, float32, float64)");

  // shape: a tuple of integers; () is one element.
  std::optional<std::size_t> s = value_of(header, "shape");
  if (!s || header[*s] != '(') bad_npy(path, "no 'shape' tuple in the header");
  std::size_t end = header.find(')', *s);
  if (end == std::string_view::npos) bad_npy(path, "malformed 'shape'");
  unsigned __int128 count = 1;
  std::string_view dims = header.substr(*s + 1, end - *s - 1);
  std::size_t i = 0;
  while (i < dims.size()) {
    i = skip_blanks(dims, i);
    std::size_t j = dims.find(',', i);
    if (j == std::string_view::npos) j = dims.size();
    std::string_view dim = dims.substr(i, j - i);
    while (!dim.empty() && (dim.back() == ' ' || dim.back() == 'L')) dim.remove_suffix(1);
    if (!dim.empty()) {
      std::optional<std::int64_t> n = parse_integer(dim);
      if (!n || *n < 0) bad_npy(path, "malformed 'shape'");
      count *= static_cast<unsigned __int128>(*n);
      if (count > (static_cast<unsigned __int128>(1) << 62)) bad_npy(path, "shape too large");
    }
    i = j + 1;
  }
  return {*type, static_cast<std::uint64_t>(count), data_start};
}

std::size_t npy_header_end(const std::string& path, std::string_view bytes) {
  if (!looks_like_npy(bytes)) bad_npy(path, "no \\x93NUMPY magic string");
  if (bytes.size() < 10) bad_npy(path, "truncated header");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) return 10 + (byte(8) | byte(9) << 8);
  if (major != 2 && major != 3) bad_npy(path, "format version " + std::to_string(major) + " is not 1, 2 or 3");
  if (bytes.size() < 12) bad_npy(path, "truncated header");
  return 12 + (byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24);
}

void check_npy_size(const std::string& path, const npy_header& h, std::uint64_t data_bytes) {
  const unsigned __int128 expected = static_cast<unsigned __int128>(h.count) * static_cast<unsigned __int128>(h.type.bytes);
  const std::uint64_t have = data_bytes;
  const std::uint64_t count = h.count;
  const dtype* type = &h.type;
  if (static_cast<unsigned __int128>(have) < expected)
    throw data_error(display_name(path) + ": truncated .npy array: " + std::to_string(have) + " data bytes, " +
                     std::to_string(static_cast<unsigned long long>(expected)) + " expected for " +
                     std::to_string(static_cast<unsigned long long>(count)) + " " + type->name() + " values");
  if (static_cast<unsigned __int128>(have) > expected)
    bad_npy(path, std::to_string(have - static_cast<std::uint64_t>(expected)) + " bytes after the array");
}

npy_array read_npy(const std::string& path, std::string_view bytes) {
  const npy_header h = read_npy_header(path, bytes);
  check_npy_size(path, h, bytes.size() - h.data_start);
  return {decode_raw(path, bytes.substr(h.data_start), h.type), h.type};
}

}  // namespace ghist::cli
