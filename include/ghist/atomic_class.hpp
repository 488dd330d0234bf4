// The atomic class of an operator (seed 000, section III-B), decided at compile time from its type and value type.
//
//   hdw: sm_90 has an atomic instruction for this operator and type (see the table below);
//   cas: any other operator on a 4- or 8-byte trivially copyable type, a compare-and-swap loop;
//   xcg: anything else, a lock per bin (busy-waiting with atomicExch/atomicCAS), any trivially copyable type.
//
// The hdw table is the operators and types that CUDA has an atomic intrinsic for: add on 32/64-bit integers, float
// and double; min/max and and/or/xor on 32/64-bit integers. Floating-point min/max have none: they are cas.
// What sm_90 makes of each intrinsic was checked in the SASS (scripts/gpu_check.sh, probe kernels in
// tests/gpu/atomic_sass_probe.cu; bench/results/2026-11-21-h100-atomics-sass.txt): in global memory every one is a
// native RED/ATOM instruction; in shared memory only the 32-bit integer ones are (ATOMS.ADD/MIN/MAX/AND/OR/XOR),
// while 64-bit integer ops and float/double add become the compiler's own compare-and-swap loop
// (ATOMS.CAST.SPIN), which is what the cas class would do, so calling the intrinsic there loses nothing.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/operators.hpp"

namespace ghist {

enum class atomic_class { hdw = 0, cas = 1, xcg = 2 };

inline const char* to_string(atomic_class c) {
  switch (c) {
    case atomic_class::hdw: return "hdw";
    case atomic_class::cas: return "cas";
    case atomic_class::xcg: return "xcg";
  }
  return "?";
}

namespace detail {

template <class T>
inline constexpr bool is_word_integer_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);

template <class T>
inline constexpr bool is_word_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class Op>
struct has_hardware_atomic : std::false_type {};
template <class T>
struct has_hardware_atomic<plus<T>> : std::bool_constant<is_word_integer_v<T> || is_word_float_v<T>> {};
template <class T>
struct has_hardware_atomic<min<T>> : std::bool_constant<is_word_integer_v<T>> {};
template <class T>
struct has_hardware_atomic<max<T>> : std::bool_constant<is_word_integer_v<T>> {};
template <class T>
struct has_hardware_atomic<bit_and<T>> : std::bool_constant<is_word_integer_v<T>> {};
template <class T>
struct has_hardware_atomic<bit_or<T>> : std::bool_constant<is_word_integer_v<T>> {};
template <class T>
struct has_hardware_atomic<bit_xor<T>> : std::bool_constant<is_word_integer_v<T>> {};

template <class Op, class = void>
struct preferred_class_of {
  static constexpr atomic_class value = atomic_class::hdw;
};
template <class Op>
struct preferred_class_of<Op, std::void_t<decltype(Op::preferred_class)>> {
  static constexpr atomic_class value = Op::preferred_class;
};

template <class Op>
constexpr atomic_class natural_class() {
  using T = typename Op::value_type;
  static_assert(std::is_trivially_copyable_v<T>, "ghist: an operator's value_type must be trivially copyable");
  if constexpr (has_hardware_atomic<Op>::value) return atomic_class::hdw;
  else if constexpr (sizeof(T) == 4 || sizeof(T) == 8) return atomic_class::cas;
  else return atomic_class::xcg;
}

}  // namespace detail

/// The atomic class ghist uses for operator Op: the fastest the type allows, or slower if Op asks for it.
template <class Op>
inline constexpr atomic_class atomic_class_of =
    static_cast<int>(detail::preferred_class_of<Op>::value) > static_cast<int>(detail::natural_class<Op>())
        ? detail::preferred_class_of<Op>::value
        : detail::natural_class<Op>();

}  // namespace ghist
