// Where the bit lock of a shared slot word lies (the lock class's slots with shared words, plan::hot_shared_words;
// detail/hot_bins.cuh), shared by the kernel and the host tests of the layout.
//
// The lock bits follow the slots' values, in groups of 32 lock words, one group per 1024 words of all the slots:
// word `at` (counted from the first slot word) takes bit (at / 32) % 32 of lock word (at / 1024) * 32 + at % 32. The
// 32 consecutive words of a warp's lanes (a slot's words are whole warps' worth, and tid % words puts the lanes of a
// warp on consecutive words) then take 32 different lock words, so their atomics on the locks do not queue on one
// address; with the bits of consecutive words in one lock word, seed 000's RF 63 at H = 3000 took 381 us instead of
// 296 (lent H200, 2026-11-26, bench/results/2026-11-26-h200-lock-class-shared-slot-words.txt).
#pragma once

#include "ghist/config.hpp"

namespace ghist::detail {

/// The room the lock bits take, as the planner and the block's pick count it: a lock word (4 bytes) per 32 shared
/// words, and one group of 32 lock words more for the rounding to whole groups.
inline constexpr int slot_lock_bytes_per_32_words = 4;
inline constexpr int slot_lock_group_bytes = 32 * slot_lock_bytes_per_32_words;

GHIST_HD constexpr int slot_lock_word(int at) { return (at >> 10) << 5 | (at & 31); }
GHIST_HD constexpr unsigned slot_lock_bit(int at) { return 1u << ((at >> 5) & 31); }
/// Lock words that `shared_words` slot words need: whole groups of 32.
GHIST_HD constexpr int slot_lock_words(int shared_words) { return (shared_words + 1023) / 1024 * 32; }

}  // namespace ghist::detail
