// Sample and level types of the CUB-compatible API: which arithmetic a (SampleT, LevelT) pair bins in, and the
// 16-bit floating-point types (__half, __nv_bfloat16) as values the bin arithmetic can use on host and device.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ghist/config.hpp"

namespace ghist::cub_compat::detail {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<std::remove_cv_t<T>, __half>;
template <class T>
inline constexpr bool is_bfloat16_v = std::is_same_v<std::remove_cv_t<T>, __nv_bfloat16>;
/// A 16-bit floating-point type: its arithmetic is emulated in float with a rounding after every step.
template <class T>
inline constexpr bool is_half_like_v = is_half_v<T> || is_bfloat16_v<T>;

/// The largest bin count whose every bin index the type holds exactly (2^(significand bits)).
template <class T>
constexpr std::int64_t exact_integer_limit() {
  if constexpr (is_half_v<T>) return std::int64_t(1) << 11;
  else if constexpr (is_bfloat16_v<T>) return std::int64_t(1) << 8;
  else if constexpr (std::is_same_v<T, float>) return std::int64_t(1) << 24;
  else return std::int64_t(1) << 53;
}

/// Any sample or level value as float (16-bit types) or itself (arithmetic types).
template <class T>
GHIST_HD inline auto widen(T x) {
  if constexpr (is_half_v<T>) return __half2float(x);
  else if constexpr (is_bfloat16_v<T>) return __bfloat162float(x);
  else return x;
}

/// x rounded to the nearest value of the 16-bit type T, returned as float. A float result of one operation on two
/// values of T rounded this way equals T's own correctly rounded operation (float has >= 2p + 2 significand bits
/// for both 16-bit types, so the double rounding is innocuous).
template <class T>
GHIST_HD inline float round_to(float x) {
  if constexpr (is_half_v<T>) return __half2float(__float2half_rn(x));
  else return __bfloat162float(__float2bfloat16_rn(x));
}

/// The type a (SampleT, LevelT) pair is compared and binned in: CUB's common_type of the two, with 16-bit floating
/// types kept as themselves when both sides are that type, and otherwise taken as float (or the other side's
/// floating type when it is wider).
template <class SampleT, class LevelT>
struct common_sample {
  using S = std::remove_cv_t<SampleT>;
  using L = std::remove_cv_t<LevelT>;
  static auto pick() {
    if constexpr (std::is_same_v<S, L> && is_half_like_v<S>) return S{};
    else if constexpr (is_half_like_v<S> || is_half_like_v<L>) {
      using other = std::conditional_t<is_half_like_v<S>, L, S>;
      if constexpr (is_half_like_v<other>) return float{};
      else if constexpr (std::is_same_v<other, double>) return double{};
      else return float{};
    } else {
      return std::common_type_t<S, L>{};
    }
  }
  using type = decltype(pick());
};
template <class SampleT, class LevelT>
using common_sample_t = typename common_sample<SampleT, LevelT>::type;

/// A value of type From in the common type To (16-bit types through float).
template <class To, class From>
GHIST_HD inline To to_common(From x) {
  if constexpr (std::is_same_v<To, std::remove_cv_t<From>>) return x;
  else return static_cast<To>(widen(x));
}

}  // namespace ghist::cub_compat::detail
