// Bin functions for the common cases, usable on host and device: evenly spaced bins over [lower, upper) and
// integer keys (bincount). Both return ghist::no_bin (-1) for samples that fall in no bin.
//
// Semantics (same on every backend):
//  - even bins are half-open [lower + i*w, lower + (i+1)*w); a sample equal to `upper` is out of range;
//  - NaN and infinities outside the range fall in no bin; -0.0 equals 0.0;
//  - integer samples are binned exactly ((x - lower) * bins / (upper - lower), computed without overflow for the
//    full range of int8..int64 and uint8..uint64); floating-point samples are binned in double precision and a
//    result rounded up to `bins` is clamped to the last bin.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "ghist/config.hpp"
#include "ghist/error.hpp"
#include "ghist/update.hpp"

namespace ghist {

namespace detail {
/// floor(a * b / c) for a < c, without overflow (a, b, c < 2^64).
GHIST_HD inline std::uint64_t mul_div_u64(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  if (b == 0 || a <= ~std::uint64_t(0) / b) return a * b / c;
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b / c);
}
}  // namespace detail

/// Evenly spaced bins over [lower, upper). Build it with make_even_bins, which checks the arguments.
template <class Sample>
struct even_bins {
  static_assert(std::is_arithmetic_v<Sample>, "even_bins needs an arithmetic sample type");
  Sample lower{};
  Sample upper{};
  std::int64_t num_bins = 0;
  double scale = 0.0;        ///< floating point: bins / (upper - lower), or over halves when that overflows
  bool halved = false;       ///< floating point: the range overflowed double, so work on x/2
  /// floating point: a power of two applied to x - lower before `scale`; 1 except for double ranges so narrow that
  /// bins / (upper - lower) overflows double (then 2^128, and scale = bins / ((upper - lower) * 2^128)).
  double prescale = 1.0;

  GHIST_HD std::int64_t operator()(Sample x) const {
    if constexpr (std::is_floating_point_v<Sample>) {
      if (!(x >= lower && x < upper)) return no_bin;  // also drops NaN
      double d = halved ? (static_cast<double>(x) * 0.5 - static_cast<double>(lower) * 0.5)
                        : (static_cast<double>(x) - static_cast<double>(lower));
      double q = (d * prescale) * scale;  // >= 0, finite
      // Compare before converting: q may round up to num_bins, and to 2^63 (out of int64) for num_bins near 2^63.
      if (!(q < static_cast<double>(num_bins))) return num_bins - 1;
      return static_cast<std::int64_t>(q);
    } else {
      if (x < lower || x >= upper) return no_bin;
      using U = std::make_unsigned_t<Sample>;
      // Differences of two values of a type fit in its unsigned counterpart; widen to 64 bits.
      std::uint64_t offset = static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(x) - static_cast<U>(lower)));
      std::uint64_t range =
          static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(upper) - static_cast<U>(lower)));
      return static_cast<std::int64_t>(detail::mul_div_u64(offset, static_cast<std::uint64_t>(num_bins), range));
    }
  }
};

/// Checks and builds even bins: num_bins > 0, lower < upper, both finite. Throws ghist::error naming the argument.
template <class Sample>
even_bins<Sample> make_even_bins(Sample lower, Sample upper, std::int64_t num_bins) {
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  if constexpr (std::is_floating_point_v<Sample>) {
    if (!std::isfinite(lower) || !std::isfinite(upper))
      throw error("range [lower, upper) must be finite, got [" + std::to_string(lower) + ", " +
                  std::to_string(upper) + ")");
  }
  if (!(lower < upper))
    throw error("range must satisfy lower < upper, got [" + std::to_string(lower) + ", " + std::to_string(upper) +
                ")");
  even_bins<Sample> b;
  b.lower = lower;
  b.upper = upper;
  b.num_bins = num_bins;
  if constexpr (std::is_floating_point_v<Sample>) {
    double width = static_cast<double>(upper) - static_cast<double>(lower);
    if (!std::isfinite(width)) {
      b.halved = true;
      width = static_cast<double>(upper) * 0.5 - static_cast<double>(lower) * 0.5;
    }
    b.scale = static_cast<double>(num_bins) / width;
    if (!std::isfinite(b.scale)) {
      // width < num_bins / DBL_MAX (below ~1e-290): scale x - lower and the width by 2^128, which is exact and
      // leaves num_bins / width finite for every num_bins < 2^63 and width >= the smallest subnormal.
      b.prescale = 0x1p128;
      b.scale = static_cast<double>(num_bins) / (width * b.prescale);
    }
  }
  return b;
}

/// Integer keys as bins (bincount): key k goes to bin k; negative keys and keys >= num_bins fall in no bin.
template <class Key>
struct key_bins {
  static_assert(std::is_integral_v<Key>, "key_bins needs an integer key type");
  std::int64_t num_bins = 0;
  GHIST_HD std::int64_t operator()(Key k) const {
    if constexpr (std::is_signed_v<Key>) {
      if (k < 0) return no_bin;
    }
    if (static_cast<std::uint64_t>(k) >= static_cast<std::uint64_t>(num_bins)) return no_bin;
    return static_cast<std::int64_t>(k);
  }
};

}  // namespace ghist
