// The slots of the hashed strategy's tables (kernel_hashed.cuh) and the 16-bit tags its shared-memory tables keep in
// place of 4-byte keys. Pure arithmetic, shared by the kernels and the host tests.
//
// A key (a bin's offset within its pass) is hashed as seed 000's tables were with 4-byte keys: x = key *
// hashed_multiplier mod 2^32 (Fibonacci hashing), and x * slots / 2^32 has the home slot as its integer part. The
// tag keeps the top hashed_remainder_bits bits of the fraction: home and remainder are floor(x * slots / 2^22), so
// two keys whose x are at least 2^22 / slots apart never share them. The x of the keys below 2^b are at least
// hashed_min_spread(b) apart (measured once over all 2^b keys, the table below; a host test measures them again),
// hence hashed_tags_fit: slots * hashed_min_spread(b) >= 2^22. A tag is that remainder and the key's displacement from
// its home (linear probing), so two keys whose tags match in one slot are the same key, and the key can be recovered
// from the slot and its tag (key_of: the one x in the slot's interval whose key is below 2^b).
//
// Why this hash and not a bijection of the b-bit keys (multiplier 2^b / golden ratio, exact tags wherever slots >=
// 2^(b - 10)): the 32-bit product spreads seed 000's RF-strided keys one per slot (H = 786432 at RF 63, simulated:
// 1.00 probes per key against 1.02-1.10), and a second probe in any lane costs the whole warp its probe loop. Same
// tagged tables on the lent H100 (2026-11-27), this hash against that bijection: HDW 193-196 us against 211-216, the
// saturating add 230-232 against 251-254.
//
// Why tags: they take half the keys' bytes, so that seed 000's saturating add told RF 63 at H = 1572864 (25K active
// bins) keeps one table in one pass (plan::hashed_tags, taken where 4-byte keys leave no room; src/planner.cpp).
#pragma once

#include <cstdint>

#include "ghist/config.hpp"

namespace ghist::detail {

inline constexpr unsigned hashed_multiplier = 0x9E3779B1u;  // near 2^32 / golden ratio, odd
inline constexpr int hashed_remainder_bits = 10;
inline constexpr int hashed_displacement_bits = 6;
/// Probes per key at most, so that displacements stay below 63 and the tag 0xffff (displacement 63) means empty.
inline constexpr int hashed_max_probes = (1 << hashed_displacement_bits) - 1;
inline constexpr std::uint16_t hashed_empty_tag = 0xffff;
inline constexpr int hashed_empty_key = -1;  ///< an empty slot of the global table (full keys)
/// Keys below 2^hashed_max_key_bits at most: beyond, the products of the keys come too close (2^26 keys: 35 apart),
/// so a pass of the hashed strategy has at most 2^25 bins.
inline constexpr int hashed_max_key_bits = 25;

/// The multiplier's inverse mod 2^32: Newton's iteration x <- x (2 - a x) doubles the correct low bits (3 to start).
GHIST_HD constexpr unsigned hashed_inverse_multiplier() {
  unsigned x = hashed_multiplier;
  for (int i = 0; i < 5; ++i) x *= 2u - hashed_multiplier * x;
  return x;
}
static_assert(hashed_multiplier * hashed_inverse_multiplier() == 1u, "the inverse of the multiplier");

/// The least distance between the products key * hashed_multiplier mod 2^32 of two keys below 2^b, 1 <= b <=
/// hashed_max_key_bits (all pairs, around the circle; tests/host/test_hashed_tags.cpp measures b <= 20 again).
GHIST_HD constexpr std::uint32_t hashed_min_spread(int b) {
  constexpr std::uint32_t spread[hashed_max_key_bits + 1] = {
      0,       1640531535, 626627309, 387276917, 147926525, 91423867, 34921209, 21581449, 8241689,
      5098071, 1954453,    1189165,   765288,    341411,    82466,    82466,    11547,    11547,
      11547,   1637,       1637,      1637,      88,        88,       88,       88};
  return b >= 1 && b <= hashed_max_key_bits ? spread[b] : 0;
}

/// The bits of the keys of a pass of `len` bins (keys 0 .. len - 1): at least 1, at most 32.
GHIST_HD constexpr int hashed_key_bits(std::int64_t len) {
  int bits = 1;
  while (bits < 32 && (std::int64_t{1} << bits) < len) ++bits;
  return bits;
}

/// Whether a table of `slots` slots tags the keys of a pass of `len` bins unambiguously.
GHIST_HD constexpr bool hashed_tags_fit(std::int64_t slots, std::int64_t len) {
  return slots >= 1 && slots <= (std::int64_t{1} << 30) && len >= 1 && hashed_key_bits(len) <= hashed_max_key_bits &&
         slots * hashed_min_spread(hashed_key_bits(len)) >= (std::int64_t{1} << 22);
}

/// A table of `slots` slots for keys below 2^key_bits (hashed_shape_for).
struct hashed_shape {
  int slots;
  int key_bits;

  GHIST_HD static unsigned spread(int key) { return static_cast<unsigned>(key) * hashed_multiplier; }
  GHIST_HD unsigned home(unsigned spread_key) const {
#ifdef __CUDA_ARCH__
    return __umulhi(spread_key, static_cast<unsigned>(slots));
#else
    return static_cast<unsigned>((std::uint64_t{spread_key} * static_cast<unsigned>(slots)) >> 32);
#endif
  }
  /// The tag of displacement 0 (the fraction's top bits above the displacement's); displacement d adds d.
  GHIST_HD unsigned first_tag(unsigned spread_key) const {
    constexpr unsigned remainder_mask = ((1u << hashed_remainder_bits) - 1u) << hashed_displacement_bits;
    return ((spread_key * static_cast<unsigned>(slots)) >> (32 - hashed_remainder_bits - hashed_displacement_bits)) &
           remainder_mask;
  }
  /// The tag of `key` kept in `slot` (its home or up to hashed_max_probes - 1 slots on, wrapping).
  GHIST_HD std::uint16_t tag_at(int key, int slot) const {
    const unsigned x = spread(key);
    int displacement = slot - static_cast<int>(home(x));  // no % (the kernels tag every slot of their table)
    if (displacement < 0) displacement += slots;
    return static_cast<std::uint16_t>(first_tag(x) + static_cast<unsigned>(displacement));
  }
  /// The key whose tag is `tag` in `slot`: home and remainder make q = floor(x * slots / 2^22); of the x with that q
  /// (fewer than 2^22 / slots + 1), the one whose key is below 2^key_bits. -1 if none is (not a tag of this table).
  GHIST_HD int key_of(int slot, std::uint16_t tag) const {
    const int displacement = tag & ((1 << hashed_displacement_bits) - 1);
    const auto home_slot =
        static_cast<std::uint64_t>(slot >= displacement ? slot - displacement : slot - displacement + slots);
    const std::uint64_t q =
        (home_slot << hashed_remainder_bits) + (static_cast<unsigned>(tag) >> hashed_displacement_bits);
    const auto n = static_cast<std::uint64_t>(static_cast<unsigned>(slots));
    const std::uint64_t first = ((q << 22) + n - 1) / n;
    const std::uint64_t last = (((q + 1) << 22) + n - 1) / n;  // exclusive
    const std::uint64_t key_limit = std::uint64_t{1} << key_bits;
    for (std::uint64_t x = first; x < last; ++x) {
      const unsigned key = static_cast<unsigned>(x) * hashed_inverse_multiplier();
      if (key < key_limit) return static_cast<int>(key);
    }
    return -1;
  }
};

/// The table of `slots` slots for a pass of `len` bins.
GHIST_HD constexpr hashed_shape hashed_shape_for(std::int64_t slots, std::int64_t len) {
  return hashed_shape{static_cast<int>(slots), hashed_key_bits(len)};
}

}  // namespace ghist::detail
