// The known operators of ghist (plus, min, max, bit_and, bit_or, bit_xor) and what a user operator must provide.
//
// An operator is a functor type with
//   using value_type = T;                         // the bin type, trivially copyable
//   GHIST_HD static T identity();                 // the neutral element: op(identity(), x) == x
//   GHIST_HD T operator()(T a, T b) const;        // associative and commutative
// Optionally: static constexpr ghist::atomic_class preferred_class = ...; to ask for a slower (never a faster)
// atomic class than the type allows, e.g. to force the lock path for an 8-byte struct (atomic_class.hpp).
// Optionally too: static constexpr bool idempotent = true; where op(a, a) == a for every a (a maximum, a minimum, an
// argmax, bitwise and / or). Such an operator seldom changes a bin that has seen a few inputs, and the lock class
// drops an update that changes nothing without taking the lock, so the planner gives it fewer copies
// (src/planner.cpp, lock_class_skips_most_updates). A promise, not only a hint: the lock class may then apply some
// inputs twice (plan::seed_inputs: a seed launch over the first inputs, whose result every block's copies start
// from), which is exact only where op(a, a) == a really holds. Leave it out when in doubt: no plan needs it.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "ghist/config.hpp"

namespace ghist {

template <class T>
struct plus {
  using value_type = T;
  GHIST_HD static constexpr T identity() { return T(0); }
  GHIST_HD constexpr T operator()(T a, T b) const { return a + b; }
};

/// Minimum. For floating point the identity is +infinity; a NaN operand never wins (fmin semantics).
template <class T>
struct min {
  using value_type = T;
  static constexpr bool idempotent = true;
  GHIST_HD static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
  GHIST_HD constexpr T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (b != b) return a;  // NaN loses, whichever side it is on
      if (a != a) return b;
    }
    return b < a ? b : a;
  }
};

/// Maximum. For floating point the identity is -infinity; a NaN operand never wins (fmax semantics).
template <class T>
struct max {
  using value_type = T;
  static constexpr bool idempotent = true;
  GHIST_HD static constexpr T identity() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  GHIST_HD constexpr T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (b != b) return a;
      if (a != a) return b;
    }
    return a < b ? b : a;
  }
};

template <class T>
struct bit_and {
  static_assert(std::is_integral_v<T>, "ghist::bit_and needs an integer type");
  using value_type = T;
  static constexpr bool idempotent = true;
  GHIST_HD static constexpr T identity() { return static_cast<T>(~T(0)); }
  GHIST_HD constexpr T operator()(T a, T b) const { return a & b; }
};

template <class T>
struct bit_or {
  static_assert(std::is_integral_v<T>, "ghist::bit_or needs an integer type");
  using value_type = T;
  static constexpr bool idempotent = true;
  GHIST_HD static constexpr T identity() { return T(0); }
  GHIST_HD constexpr T operator()(T a, T b) const { return a | b; }
};

template <class T>
struct bit_xor {
  static_assert(std::is_integral_v<T>, "ghist::bit_xor needs an integer type");
  using value_type = T;
  GHIST_HD static constexpr T identity() { return T(0); }
  GHIST_HD constexpr T operator()(T a, T b) const { return a ^ b; }
};

/// Whether Op says it is idempotent (op(a, a) == a: its optional `static constexpr bool idempotent`).
template <class Op, class = void>
struct is_idempotent : std::false_type {};
template <class Op>
struct is_idempotent<Op, std::void_t<decltype(Op::idempotent)>> : std::bool_constant<Op::idempotent> {};
template <class Op>
inline constexpr bool is_idempotent_v = is_idempotent<Op>::value;

}  // namespace ghist
