// bin_update<T>: what a bin function returns for one input, the bin it goes to and the value to fold in.
#pragma once

#include <cstdint>

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

}  // namespace ghist
