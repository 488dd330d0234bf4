#include "dtype.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

namespace ghist::cli {

std::string dtype::name() const {
  std::string base = k == kind::floating ? (brain ? "bfloat" : "float") : (k == kind::signed_int ? "int" : "uint");
  return (big_endian ? ">" : "") + base + std::to_string(bytes * 8);
}

std::optional<dtype> parse_dtype(std::string_view name) {
  bool big_endian = false;
  if (!name.empty() && (name.front() == '<' || name.front() == '=' || name.front() == '|' || name.front() == '>')) {
    big_endian = name.front() == '>';
    name.remove_prefix(1);
  }
  using K = dtype::kind;
  static constexpr std::pair<std::string_view, dtype> table[] = {
      {"int8", {K::signed_int, 1}},    {"i1", {K::signed_int, 1}},     {"uint8", {K::unsigned_int, 1}},
      {"u1", {K::unsigned_int, 1}},    {"int16", {K::signed_int, 2}},  {"i2", {K::signed_int, 2}},
      {"uint16", {K::unsigned_int, 2}}, {"u2", {K::unsigned_int, 2}},  {"int32", {K::signed_int, 4}},
      {"i4", {K::signed_int, 4}},      {"uint32", {K::unsigned_int, 4}}, {"u4", {K::unsigned_int, 4}},
      {"int64", {K::signed_int, 8}},   {"i8", {K::signed_int, 8}},     {"uint64", {K::unsigned_int, 8}},
      {"u8", {K::unsigned_int, 8}},    {"float32", {K::floating, 4}},  {"f4", {K::floating, 4}},
      {"float", {K::floating, 4}},     {"single", {K::floating, 4}},   {"float64", {K::floating, 8}},
      {"f8", {K::floating, 8}},        {"double", {K::floating, 8}},   {"float16", {K::floating, 2}},
      {"f2", {K::floating, 2}},        {"half", {K::floating, 2}},     {"bfloat16", {K::floating, 2, false, true}},
  };
  for (const auto& [alias, type] : table) {
    if (alias == name) {
      dtype t = type;
      t.big_endian = big_endian && t.bytes > 1;
      return t;
    }
  }
  return std::nullopt;
}

const char* dtype_names() {
  return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, bfloat16, float32, float64";
}

double half_to_double(unsigned bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const unsigned exponent = (bits >> 10) & 0x1Fu, fraction = bits & 0x3FFu;
  double v;
  if (exponent == 0x1F) v = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0) v = std::ldexp(static_cast<double>(fraction), -24);  // subnormal: fraction * 2^-24
  else v = std::ldexp(static_cast<double>(fraction | 0x400u), static_cast<int>(exponent) - 25);
  return negative ? -v : v;
}

double bfloat16_to_double(unsigned bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits & 0xFFFFu) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return static_cast<double>(f);
}

}  // namespace ghist::cli
