#include "dtype.hpp"

#include <utility>

namespace ghist::cli {

std::string dtype::name() const {
  std::string base = k == kind::floating ? "float" : (k == kind::signed_int ? "int" : "uint");
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
      {"f8", {K::floating, 8}},        {"double", {K::floating, 8}},
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
  return "int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64";
}

}  // namespace ghist::cli
