// The bin of a sample for HistogramRange: bin b holds [levels[b], levels[b + 1]), found by an upper-bound binary
// search over the level array (as CUB does); samples below levels[0], at or above levels[num_levels - 1], and NaN
// are dropped. Host and device (GHIST_HD); `Levels` is a pointer or any random-access iterator readable where the
// transform runs (device memory for the GPU).
//
// Comparisons are made in the common type of SampleT and LevelT (sample_types.hpp). CUB converts the sample to
// LevelT first; the two agree whenever SampleT == LevelT and whenever the sample is representable in LevelT. They
// differ for mixed types, where CUB's conversion truncates (-0.5f with integer levels counts in the bin of 0) or
// wraps (an int64 sample with int32 levels); here such samples are binned by their true value.
#pragma once

#include <cstdint>

#include "ghist/config.hpp"
#include "ghist/detail/cub_compat/sample_types.hpp"
#include "ghist/update.hpp"

namespace ghist::cub_compat::detail {

template <class SampleT, class LevelT, class Levels = const LevelT*>
struct range_transform {
  using common = common_sample_t<SampleT, LevelT>;
  using value = std::conditional_t<is_half_like_v<common>, float, common>;

  Levels levels{};
  int num_levels = 0;  ///< >= 2

  GHIST_HD static value as_value(common x) {
    if constexpr (is_half_like_v<common>) return widen(x);
    else return x;
  }

  GHIST_HD std::int64_t operator()(SampleT sample) const {
    const value s = as_value(to_common<common>(sample));
    // First index whose level is > s (levels[lo..hi) unsearched); NaN compares false everywhere and so lands on
    // num_levels, past the last bin.
    int lo = 0, hi = num_levels;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (s < as_value(to_common<common>(static_cast<LevelT>(levels[mid])))) hi = mid;
      else lo = mid + 1;
    }
    const int bin = lo - 1;
    return (bin >= 0 && bin < num_levels - 1) ? bin : ghist::no_bin;
  }
};

}  // namespace ghist::cub_compat::detail
