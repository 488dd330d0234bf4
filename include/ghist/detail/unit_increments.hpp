// Whether a call's updates are all "add 1 to a 32-bit integer bin" (problem::unit_increments), known from the types
// alone: the planner keeps one copy per block for them, and the partitioned strategy's counted layout stores a
// 16-bit bin per input instead of the input.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ghist/operators.hpp"
#include "ghist/update.hpp"

namespace ghist::detail {

/// problem::unit_increments for bin function BinFn and operator Op: a counting bin function into 32-bit integer
/// bins with plus.
template <class BinFn, class Op>
inline constexpr bool unit_increments_v =
    is_counting_v<BinFn> && (std::is_same_v<Op, plus<std::uint32_t>> || std::is_same_v<Op, plus<std::int32_t>>);

}  // namespace ghist::detail
