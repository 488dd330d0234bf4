// Strict parsing of numbers written as text (option values, lines of a text file) and safe echoing of bad text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ghist::cli {

/// A decimal integer with an optional sign, nothing else; nullopt if malformed or outside int64.
std::optional<std::int64_t> parse_integer(std::string_view text);

/// A floating-point number as strtod reads it (also inf, nan, hex), the whole text and nothing else.
std::optional<double> parse_real(std::string_view text);

/// An integer value: a decimal integer of any size up to 38 digits, or a real number with an integral value
/// (1e3, 5.0) below 2^126 in magnitude. nullopt otherwise.
std::optional<__int128> parse_integral(std::string_view text);

/// `text` made safe to quote in a one-line message: control characters become '?', long text is cut with "...".
std::string printable(std::string_view text);

}  // namespace ghist::cli
