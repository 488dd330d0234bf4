// The bin of a sample for HistogramEven: CUB's semantics (half-open bins [lower, upper), the last one included;
// NaN and samples outside the range dropped) without CUB's arithmetic failures. Host and device (GHIST_HD), so
// that host tests check it exhaustively for 8- and 16-bit types.
//
// Integer arithmetic (the common type of SampleT and LevelT is integral): the bin is the exact
// floor((s - lower) * bins / (upper - lower)) for every value of every width up to 64 bits. The differences are
// taken in the unsigned type (exact, since lower <= s < upper); the quotient is a multiply by a 128-bit reciprocal
// for ranges up to 2^32, and beyond that estimated in double and corrected by one step with exact 128-bit products.
// CUB computes the difference in the narrow signed type (NVIDIA/cccl#10975: full-range int8/int16 levels put
// everything in bin 0) and rejects products above 2^32 or 2^64 (NVIDIA/cccl#11121, NVIDIA/cub#619); here every range
// and bin count is accepted and exact.
//
// Floating arithmetic: CUB's own formula, (s - lower) * (bins / (upper - lower)) in the common type (for __half and
// __nv_bfloat16, CUB's 16-bit formula, emulated with one rounding per step), so results equal CUB's bin for bin,
// with two repairs: a result rounded up to `bins` is the last bin (CUB writes out of bounds, NVIDIA/cccl#10976),
// and when bins exceed the integers the type holds exactly (2^11 half, 2^8 bfloat16, 2^24 float), or the width or
// its reciprocal overflows, the bin is computed in double instead (CUB merges neighbouring bins, #10976).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ghist/binning.hpp"
#include "ghist/config.hpp"
#include "ghist/detail/cub_compat/sample_types.hpp"
#include "ghist/update.hpp"

namespace ghist::cub_compat::detail {

/// floor(d * bins / range) for d < range < 2^64 and 0 < bins < 2^62, exactly. `scale` is double(bins) /
/// double(range); the estimate d * scale is within 2^-20 of the quotient (< 2^31 bins; < 2^-8 up to 2^42), so one
/// correction step in each direction with exact products makes it exact. `wide`: range >= 2^32, so the products
/// need 128 bits.
GHIST_HD inline std::int64_t exact_fraction(std::uint64_t d, std::uint64_t range, std::int64_t bins, double scale,
                                            bool wide) {
  std::int64_t q = static_cast<std::int64_t>(static_cast<double>(d) * scale);
  if (q > bins - 1) q = bins - 1;
  if (q < 0) q = 0;
  const std::uint64_t uq = static_cast<std::uint64_t>(q);
  if (!wide && bins < (std::int64_t(1) << 31)) {
    const std::uint64_t target = d * static_cast<std::uint64_t>(bins);  // < 2^32 * 2^31
    if (uq * range > target) return q - 1;
    if (q + 1 < bins && (uq + 1) * range <= target) return q + 1;
    return q;
  }
  using u128 = unsigned __int128;
  const u128 target = static_cast<u128>(d) * static_cast<std::uint64_t>(bins);
  if (static_cast<u128>(uq) * range > target) return q - 1;
  if (q + 1 < bins && static_cast<u128>(uq + 1) * range <= target) return q + 1;
  return q;
}

/// The high 64 bits of a * b.
GHIST_HD inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// How even_transform computes a bin (chosen once per call on the host).
enum class even_kind : int {
  integral,  ///< exact fraction in unsigned arithmetic
  cub_float, ///< CUB's floating formula in the common type (float or double)
  cub_half,  ///< CUB's 16-bit formula, emulated in float with rounding to the 16-bit type after every step
  wide,      ///< double precision (ghist::even_bins<double>): bins beyond the type's exact integers, or overflow
  empty,     ///< lower >= upper: no sample falls in any bin (as in CUB), the histogram is all zero
};

template <class SampleT, class LevelT>
struct even_transform {
  using common = common_sample_t<SampleT, LevelT>;
  /// The type the 16-bit emulation runs in: float holding values of `common`.
  static constexpr bool half_like = is_half_like_v<common>;
  using value = std::conditional_t<half_like, float, common>;

  even_kind kind = even_kind::empty;
  std::int64_t bins = 0;
  value lo{};            ///< lower level in the common type (as float for 16-bit types)
  value hi{};            ///< upper level
  value recip{};         ///< cub_float and cub_half (half): bins / (upper - lower), rounded as CUB rounds it
  value range16{};       ///< cub_half (bfloat16): upper - lower rounded to bfloat16
  std::uint64_t range = 0;  ///< integral: upper - lower (exact, unsigned)
  double scale = 0.0;       ///< integral: double(bins) / double(range)
  bool wide_products = false;
  /// integral, range <= 2^32 (every 8-, 16- and 32-bit sample type): the bin is floor(d * magic / 2^64) with
  /// magic = ceil(bins * 2^64 / range), split into magic_hi * 2^64 + magic_lo. Exact: magic exceeds
  /// bins * 2^64 / range by e < 1, so the product exceeds d * bins / range by d * e / 2^64 < 1 / range (d < range
  /// <= 2^32, so d * range < 2^64), less than the gap between a fraction with denominator range and the next
  /// integer. A few integer multiplies, where the general path converts to double and back (H100, 2^28 int32
  /// samples into 32 bins: 675 us against a read floor of ~370).
  bool reciprocal = false;
  std::uint64_t magic_hi = 0;
  std::uint64_t magic_lo = 0;
  ghist::even_bins<double> wide_bins{};  ///< wide

  GHIST_HD std::int64_t operator()(SampleT sample) const {
    if constexpr (std::is_integral_v<common>) {
      const common s = to_common<common>(sample);
      if (kind == even_kind::empty || !(s >= lo && s < hi)) return ghist::no_bin;
      using U = std::make_unsigned_t<common>;
      const std::uint64_t d = static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(s) - static_cast<U>(lo)));
      if (reciprocal) return static_cast<std::int64_t>(d * magic_hi + mul_high(d, magic_lo));
      return exact_fraction(d, range, bins, scale, wide_products);
    } else {
#ifdef __CUDA_ARCH__
      if constexpr (is_half_v<common>) {
        if (kind == even_kind::cub_half) {
          // __half's own arithmetic: one instruction per step, with the same single rounding as the emulation
          // below (round_to), where every rounding costs two conversions (H100, 2^28 half samples into 32 bins:
          // 367 us emulated, CUB 292). The levels' conversions are loop-invariant.
          const __half h = to_common<common>(sample);
          if (!(__hge(h, __float2half_rn(lo)) && __hlt(h, __float2half_rn(hi)))) return ghist::no_bin;  // and NaN
          const __half q = __hmul(__hsub(h, __float2half_rn(lo)), __float2half_rn(recip));
          if (!__hlt(q, __float2half_rn(static_cast<float>(bins)))) return bins - 1;  // bins <= 2^11: exact
          return __half2int_rz(q);
        }
      }
#endif
      const value s = static_cast<value>(half_like ? static_cast<value>(widen(sample))
                                                   : static_cast<value>(to_common<common>(sample)));
      if (kind == even_kind::empty || !(s >= lo && s < hi)) return ghist::no_bin;  // NaN fails both tests
      if (kind == even_kind::wide) return wide_bins(static_cast<double>(s));
      value q;
      if constexpr (half_like) {
        const float d = round_to<common>(s - lo);
        if constexpr (is_half_v<common>) q = round_to<common>(d * recip);
        else q = round_to<common>(round_to<common>(d * static_cast<float>(bins)) / range16);
      } else {
        q = (s - lo) * recip;
      }
      // q >= 0: s >= lo. Compare before converting: q may round up to bins (CUB's out-of-bounds write).
      if (!(q < static_cast<value>(bins))) return bins - 1;
      return static_cast<int>(q);  // 0 <= q < bins < 2^31: a 32-bit conversion is enough
    }
  }
};

/// Outcome of building an even_transform (the API maps it to cudaError_t).
enum class even_status { ok, bad_levels };

/// Builds the transform for num_levels levels from lower to upper. bad_levels: num_levels < 2, or a non-finite or
/// NaN floating-point level (CUB's result is undefined there). lower >= upper is accepted: an empty range.
template <class SampleT, class LevelT>
even_status make_even_transform(int num_levels, LevelT lower, LevelT upper, even_transform<SampleT, LevelT>& out) {
  using T = even_transform<SampleT, LevelT>;
  using common = typename T::common;
  using value = typename T::value;
  out = T{};
  if (num_levels < 2) return even_status::bad_levels;
  out.bins = num_levels - 1;
  out.lo = static_cast<value>(T::half_like ? static_cast<value>(widen(to_common<common>(lower)))
                                           : static_cast<value>(to_common<common>(lower)));
  out.hi = static_cast<value>(T::half_like ? static_cast<value>(widen(to_common<common>(upper)))
                                           : static_cast<value>(to_common<common>(upper)));
  if constexpr (std::is_integral_v<common>) {
    if (!(out.lo < out.hi)) return out.kind = even_kind::empty, even_status::ok;
    using U = std::make_unsigned_t<common>;
    out.range = static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(out.hi) - static_cast<U>(out.lo)));
    out.scale = static_cast<double>(out.bins) / static_cast<double>(out.range);
    out.wide_products = out.range > 0xffffffffull;
    out.reciprocal = out.range <= (std::uint64_t(1) << 32);
    if (out.reciprocal) {
      using u128 = unsigned __int128;
      const u128 magic = ((static_cast<u128>(out.bins) << 64) + out.range - 1) / out.range;  // bins < 2^62
      out.magic_hi = static_cast<std::uint64_t>(magic >> 64);
      out.magic_lo = static_cast<std::uint64_t>(magic);
    }
    out.kind = even_kind::integral;
    return even_status::ok;
  } else {
    if (!std::isfinite(static_cast<double>(out.lo)) || !std::isfinite(static_cast<double>(out.hi)))
      return even_status::bad_levels;
    if (!(out.lo < out.hi)) return out.kind = even_kind::empty, even_status::ok;
    bool exact_enough = out.bins <= exact_integer_limit<common>();
    if constexpr (T::half_like) {
      const float width = round_to<common>(out.hi - out.lo);
      // CUB makes the half reciprocal on the host: bins over the float (exact) width, rounded once to half. The
      // bfloat16 fraction keeps upper - lower rounded to bfloat16 (its host operator-).
      if constexpr (is_half_v<common>) out.recip = round_to<common>(static_cast<float>(out.bins) / (out.hi - out.lo));
      else out.range16 = width;
      exact_enough = exact_enough && std::isfinite(width) && width > 0 &&
                     (is_bfloat16_v<common> ? std::isfinite(round_to<common>(width * static_cast<float>(out.bins)))
                                            : (std::isfinite(out.recip) && out.recip > 0));
    } else {
      const value width = out.hi - out.lo;
      out.recip = static_cast<value>(static_cast<value>(out.bins) / width);
      exact_enough = exact_enough && std::isfinite(width) && std::isfinite(out.recip) && out.recip > 0;
    }
    if (exact_enough) {
      out.kind = T::half_like ? even_kind::cub_half : even_kind::cub_float;
    } else {
      out.kind = even_kind::wide;
      out.wide_bins = ghist::make_even_bins<double>(static_cast<double>(out.lo), static_cast<double>(out.hi),
                                                    out.bins);
    }
    return even_status::ok;
  }
}

}  // namespace ghist::cub_compat::detail
