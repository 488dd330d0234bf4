// The hashed strategy's 16-bit tags (detail/hashed_tags.hpp): the table of spreads it trusts, and within one slot,
// distinct keys never share a tag, and every key comes back from its slot and tag, for every displacement a probe can
// reach (below the slots: a probe that wraps meets only slots it found taken).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "ghist/detail/hashed_tags.hpp"

namespace {

using ghist::detail::hashed_key_bits;
using ghist::detail::hashed_max_probes;
using ghist::detail::hashed_min_spread;
using ghist::detail::hashed_shape;
using ghist::detail::hashed_tags_fit;

TEST(HashedTags, KeyBitsCoverThePass) {
  EXPECT_EQ(hashed_key_bits(1), 1);
  EXPECT_EQ(hashed_key_bits(2), 1);
  EXPECT_EQ(hashed_key_bits(3), 2);
  EXPECT_EQ(hashed_key_bits(1572864), 21);
  EXPECT_EQ(hashed_key_bits(std::int64_t{1} << 31), 31);
}

// The least distance between the products of the keys below 2^b, measured over all of them.
TEST(HashedTags, MinSpreadTableIsMeasured) {
  for (int b = 1; b <= 20; ++b) {
    std::vector<std::uint32_t> x(std::size_t{1} << b);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<std::uint32_t>(k) * ghist::detail::hashed_multiplier;
    std::sort(x.begin(), x.end());
    std::uint64_t least = (std::uint64_t{1} << 32) - x.back() + x.front();
    for (std::size_t i = 1; i < x.size(); ++i) least = std::min<std::uint64_t>(least, x[i] - x[i - 1]);
    EXPECT_EQ(hashed_min_spread(b), least) << "b = " << b;
  }
  EXPECT_EQ(hashed_min_spread(0), 0u);
  EXPECT_EQ(hashed_min_spread(ghist::detail::hashed_max_key_bits + 1), 0u);
}

TEST(HashedTags, FitNeedsSlotsForTheKeysSpread) {
  EXPECT_TRUE(hashed_tags_fit(2563, 1572864));  // 2^22 / 1637 = 2562.2
  EXPECT_FALSE(hashed_tags_fit(2562, 1572864));
  EXPECT_TRUE(hashed_tags_fit(3, 1024));  // 2^22 / 1954453 = 2.1
  EXPECT_FALSE(hashed_tags_fit(2, 1024));
  EXPECT_FALSE(hashed_tags_fit(0, 10));
  EXPECT_TRUE(hashed_tags_fit(47663, std::int64_t{1} << 25));  // 2^22 / 88 = 47662.5
  EXPECT_FALSE(hashed_tags_fit(47662, std::int64_t{1} << 25));
  EXPECT_FALSE(hashed_tags_fit(1 << 20, (std::int64_t{1} << 25) + 1));
}

// Every key of a pass (or a random sample of a large one) at every displacement: the keys met in one slot have
// distinct tags, and key_of inverts tag_at (at the first two displacements and the last).
void check_shape(int slots, std::int64_t len, std::int64_t keys_to_check, std::uint32_t seed) {
  ASSERT_TRUE(hashed_tags_fit(slots, len)) << slots << " slots, " << len << " keys";
  const hashed_shape shape = ghist::detail::hashed_shape_for(slots, len);
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> keys;
  if (len <= keys_to_check) {
    for (std::int64_t k = 0; k < len; ++k) keys.push_back(k);
  } else {
    std::uniform_int_distribution<std::int64_t> any(0, len - 1);
    for (std::int64_t i = 0; i < keys_to_check; ++i) keys.push_back(any(rng));
    keys.push_back(0);
    keys.push_back(len - 1);
  }
  std::map<std::pair<int, std::uint16_t>, int> owner;  // (slot, tag) -> key
  for (const std::int64_t k64 : keys) {
    const int key = static_cast<int>(k64);
    const unsigned spread = shape.spread(key);
    const int home = static_cast<int>(shape.home(spread));
    ASSERT_LT(home, slots) << "key " << key;
    for (int d = 0; d < hashed_max_probes && d < slots; ++d) {
      const int slot = (home + d) % slots;
      const std::uint16_t tag = shape.tag_at(key, slot);
      ASSERT_EQ(tag, shape.first_tag(spread) + static_cast<unsigned>(d)) << "key " << key << " displacement " << d;
      ASSERT_NE(tag, ghist::detail::hashed_empty_tag);
      if (d == 0 || d == 1 || d + 1 == std::min(hashed_max_probes, slots)) {  // key_of scans ~2^22 / slots x
        ASSERT_EQ(shape.key_of(slot, tag), key) << slots << " slots, key " << key << " displacement " << d;
      }
      const auto [it, inserted] = owner.emplace(std::make_pair(slot, tag), key);
      ASSERT_TRUE(inserted || it->second == key)
          << "keys " << it->second << " and " << key << " share tag " << tag << " in slot " << slot;
    }
  }
}

TEST(HashedTags, SmallPassesEveryKey) {
  check_shape(3, 1000, 300, 1);
  check_shape(97, 4096, 5000, 2);
  check_shape(3000, 3000, 5000, 3);
  check_shape(400, 65536, 2000, 4);  // 2^22 / 11547 = 363.2
}

TEST(HashedTags, PassesAtTheFitLimit) {
  check_shape(2563, 1572864, 6000, 5);
  check_shape(35666, 1572864, 6000, 6);  // seed 000's H = 1572864 at RF 63, load 0.7
  check_shape(38741, 786432, 6000, 7);
  check_shape(47663, std::int64_t{1} << 25, 6000, 8);
}

}  // namespace
