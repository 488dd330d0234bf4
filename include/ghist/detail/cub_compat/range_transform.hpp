// The bin of a sample for HistogramRange: bin b holds [levels[b], levels[b + 1]), found by an upper-bound binary
// search over the level array (as CUB does); samples below levels[0], at or above levels[num_levels - 1], and NaN
// are dropped. Host and device (GHIST_HD); `Levels` is a pointer or any random-access iterator readable where the
// transform runs (device memory for the GPU).
//
// Comparisons are made in the common type of SampleT and LevelT (sample_types.hpp). CUB converts the sample to
// LevelT first; the two agree whenever SampleT == LevelT and whenever the sample is representable in LevelT. They
// differ for mixed types, where CUB's conversion truncates (-0.5f with integer levels counts in the bin of 0) or
// wraps (an int64 sample with int32 levels); here such samples are binned by their true value.
//
// A bucket index (range_buckets) narrows the search: `count` buckets of equal width between the first and the last
// level, each holding the span of levels that fall in it and the first two of them. A sample's bucket bounds its
// upper bound to that span, so with about two buckets per bin one load of its bucket gives the bin, where the plain
// search takes log2(num_levels) dependent loads that miss the L1 for large level arrays (H100, 2^28 float samples,
// 65536 levels: 18.8 ms, CUB 15.3 ms).
// The bucket of a value is a monotone function of it (a subtraction and a multiplication in double, rounded the
// same way for samples and levels), which is all the index needs to be exact: a level in a lower bucket than the
// sample is below it, a level in a higher bucket above it. Any level array works, even levels spread unevenly
// (their buckets hold more levels: a longer search) or out of order (CUB's result is undefined there; here the
// search stays inside the array).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ghist/config.hpp"
#include "ghist/detail/cub_compat/sample_types.hpp"
#include "ghist/update.hpp"

namespace ghist::cub_compat::detail {

/// One bucket: its levels are [first, first + size), and the first two of them are kept here too, so that a sample
/// in a bucket of at most two levels (nearly all of them with two buckets per bin) finds its bin in this one load.
template <class V>
struct alignas(16) range_bucket {  // one 16-byte load for values of up to 4 bytes
  std::int32_t first;
  std::int32_t size;
  V level[2];
};

/// Buckets of equal width in double between the first and the last level (see above): this header, then at
/// header_bytes `count` range_bucket<V> (V: the transform's value type).
struct range_buckets {
  double lo = 0.0;     ///< the first level
  double scale = 0.0;  ///< count / (last level - first level); 0 when that is not a finite positive number: one bucket
  std::int32_t count = 1;

  static constexpr std::size_t header_bytes = 32;
  template <class V>
  GHIST_HD range_bucket<V>* entries() {
    return reinterpret_cast<range_bucket<V>*>(reinterpret_cast<char*>(this) + header_bytes);
  }
  template <class V>
  GHIST_HD const range_bucket<V>* entries() const {
    return reinterpret_cast<const range_bucket<V>*>(reinterpret_cast<const char*>(this) + header_bytes);
  }

  /// Bytes for `count` buckets of values V.
  template <class V>
  static constexpr std::size_t bytes_for(std::int64_t count) {
    return header_bytes + static_cast<std::size_t>(count) * sizeof(range_bucket<V>);
  }
  /// Buckets for num_levels levels: about two per bin, at most 2^21 (32 MiB of float buckets).
  static constexpr std::int64_t count_for(std::int64_t num_levels) {
    const std::int64_t c = 2 * (num_levels - 1);
    return c < 1 ? 1 : (c > (std::int64_t(1) << 21) ? std::int64_t(1) << 21 : c);
  }

  /// The bucket of a value: monotone non-decreasing in v (NaN excluded by the caller).
  GHIST_HD static std::int32_t bucket_of(double v, double lo, double scale, std::int32_t count) {
    if (scale == 0.0) return 0;
    const double t = (v - lo) * scale;  // +-inf beyond the double range: still in order
    if (!(t > 0.0)) return 0;
    if (!(t < static_cast<double>(count))) return count - 1;
    return static_cast<std::int32_t>(t);
  }
  GHIST_HD std::int32_t bucket_of(double v) const { return bucket_of(v, lo, scale, count); }
};
static_assert(sizeof(range_buckets) <= range_buckets::header_bytes, "the table starts after the header");

template <class SampleT, class LevelT, class Levels = const LevelT*>
struct range_transform {
  using common = common_sample_t<SampleT, LevelT>;
  using value = std::conditional_t<is_half_like_v<common>, float, common>;

  Levels levels{};
  int num_levels = 0;                      ///< >= 2
  const range_buckets* buckets = nullptr;  ///< optional index, readable where the transform runs

  GHIST_HD static value as_value(common x) {
    if constexpr (is_half_like_v<common>) return widen(x);
    else return x;
  }
  GHIST_HD value level(int i) const { return as_value(to_common<common>(static_cast<LevelT>(levels[i]))); }

  /// The first index in [lo, hi) whose level is > s, or hi.
  GHIST_HD int upper_bound(value s, int lo, int hi) const {
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (s < level(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  GHIST_HD std::int64_t operator()(SampleT sample) const {
    const value s = as_value(to_common<common>(sample));
    int end;
    if (buckets == nullptr) {
      // NaN compares false everywhere and so lands on num_levels, past the last bin.
      end = upper_bound(s, 0, num_levels);
    } else {
      if constexpr (!std::is_integral_v<value>) {
        if (s != s) return ghist::no_bin;  // NaN has no bucket
      }
      const range_bucket<value> b = buckets->entries<value>()[buckets->bucket_of(static_cast<double>(s))];
      if (b.size <= 2) end = b.first + (b.size > 0 && !(s < b.level[0])) + (b.size > 1 && !(s < b.level[1]));
      else end = upper_bound(s, b.first, b.first + b.size);
    }
    const int bin = end - 1;
    return (bin >= 0 && bin < num_levels - 1) ? bin : ghist::no_bin;
  }
};

/// Fills bucket k (0 <= k < count) of the index for t's levels, from one thread per bucket: its first level is the
/// number of levels whose bucket is below k, by a binary search over the levels' buckets; the thread of k = 0 also
/// writes the header. The buckets cover [0, num_levels) for any levels (out of order ones included).
template <class Transform>
GHIST_HD void fill_range_bucket(const Transform& t, range_buckets* out, std::int32_t count, std::int64_t k) {
  using V = typename Transform::value;
  const double first = static_cast<double>(t.level(0));
  const double last = static_cast<double>(t.level(t.num_levels - 1));
  double scale = static_cast<double>(count) / (last - first);
  if (!(scale > 0.0 && scale < 1.0e300) || count <= 1) scale = 0.0;  // NaN, infinite, unordered: one bucket
  const std::int32_t buckets = scale == 0.0 ? 1 : count;
  if (k == 0) {
    out->lo = first;
    out->scale = scale;
    out->count = buckets;
  }
  if (k >= buckets) return;
  auto levels_below = [&](std::int64_t bucket) {  // levels [0, result) have a bucket below `bucket`
    if (bucket >= buckets) return t.num_levels;
    int lo = 0, hi = t.num_levels;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      const double v = static_cast<double>(t.level(mid));
      if (v == v && range_buckets::bucket_of(v, first, scale, buckets) < bucket) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  range_bucket<V> b{};
  b.first = k == 0 ? 0 : levels_below(k);
  const int end = levels_below(k + 1);
  b.size = end > b.first ? end - b.first : 0;
  b.level[0] = b.size > 0 ? t.level(b.first) : V{};
  b.level[1] = b.size > 1 ? t.level(b.first + 1) : V{};
  out->entries<V>()[k] = b;
}

}  // namespace ghist::cub_compat::detail
