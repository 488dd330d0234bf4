// bin_update<T>: what a bin function returns for one input, the bin it goes to and the value to fold in.
#pragma once

#include <cstdint>
#include <type_traits>

namespace ghist {

/// One update of a generalized histogram: dest[bin] = dest[bin] (+) value.
/// A bin outside [0, number of bins) means "no update": such inputs are ignored, never an error.
template <class T>
struct bin_update {
  std::int64_t bin;
  T value;
};

/// The bin value used to say "skip this input" from a bin function.
inline constexpr std::int64_t no_bin = -1;

/// A bin function that only counts (every update it returns has the value 1, like histogram_even's and bincount's)
/// may say so with a member `static constexpr bool counts = true;`. With a 32-bit integer plus, the planner then
/// keeps one sub-histogram per block in shared memory: the hardware folds a warp's increments of one bin into one
/// atomic, so spreading the updates over copies only costs their initialisation and merge (src/planner.cpp has
/// the measurements). A bin function that says so but returns other values gets a correct histogram of what it
/// returns; only the plan assumed otherwise.
template <class BinFn, class = void>
struct is_counting : std::false_type {};
template <class BinFn>
struct is_counting<BinFn, std::void_t<decltype(BinFn::counts)>> : std::bool_constant<BinFn::counts> {};
template <class BinFn>
inline constexpr bool is_counting_v = is_counting<BinFn>::value;

}  // namespace ghist
