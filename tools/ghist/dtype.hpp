// Element types of raw binary input files (--dtype, --weights-dtype) and their names.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ghist::cli {

struct dtype {
  enum class kind { signed_int, unsigned_int, floating };
  kind k = kind::floating;
  int bytes = 8;            ///< 1, 2, 4 or 8 (floating: 2, 4 or 8)
  bool big_endian = false;  ///< with a NumPy-style '>' prefix or --endian big; files are little-endian by default
  bool brain = false;       ///< floating, 2 bytes: bfloat16 rather than IEEE half

  bool is_integer() const { return k != kind::floating; }
  /// Canonical name: int8 ... uint64, float16, bfloat16, float32, float64 (with '>' in front when big-endian).
  std::string name() const;
};

/// Parses int8|uint8|int16|uint16|int32|uint32|int64|uint64|float16|bfloat16|float32|float64 and the aliases
/// i1..i8, u1..u8, f2, half, f4, f8, float, single, double, optionally prefixed by NumPy's byte-order mark '<', '=', '|' (little) or '>' (big).
/// Returns nullopt for an unknown name.
std::optional<dtype> parse_dtype(std::string_view name);

/// The list of canonical names, for messages and --help.
const char* dtype_names();

/// The exact value of an IEEE binary16 (half) or a bfloat16 bit pattern.
double half_to_double(unsigned bits);
double bfloat16_to_double(unsigned bits);

}  // namespace ghist::cli
