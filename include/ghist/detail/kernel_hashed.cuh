// The hashed shared-memory strategy (plan::hashed_bins): for a large H whose inputs hit few distinct bins (a told race
// factor: H / RF active bins, seed 000's model), each block keeps only the active bins in shared memory, found through
// a hash table, instead of a copy of every bin: one pass over the input (two for the contended classes where one
// table has no room) where a copy of all H bins would take several passes or the partitioned strategy's extra write
// and read of the input.
//
// Three kernels per pass (a chunk of H_chk bins):
//   1. hashed_discover_kernel samples the input (hashed_samples_per_slot inputs per slot, at even strides) and
//      claims a slot in one table in global memory for each bin it meets: open addressing, linear probing from a
//      multiplicative hash, a compare-and-swap of the slot's key. Every block then uses this one table, so that a
//      bin has the same slot in every block.
//   2. hashed_shared_kernel: each block copies the table's keys into shared memory (where 4-byte keys leave no
//      room, their 16-bit tags: hashed_tags.hpp), keeps values per slot there, and for each input finds its bin's
//      slot and updates the value with the operator class's shared-memory update. A bin the sample missed claims an
//      empty slot of the block's copy (as the sample did in the global table), and the block merges it into dest
//      itself at the end with the global update, once per bin (a tag's key recovered from it); only a bin that finds
//      no slot at all (the table full) goes to dest input by input. At the end the block writes the values of the
//      sample's slots to its row of the workspace. (Missed bins sent to dest input by input made seed 000's unpacked
//      argmax told RF 63 over Zipf(1.1) input take 23 ms at H = 49152: a rare bin's ~7K updates queued on one global
//      lock.)
//   3. hashed_merge_kernel folds the rows slot by slot into dest[key] (as merge_rows_kernel folds the shared
//      strategy's rows), one thread per slot: no atomics. With the blocks' own merges through global atomics (a
//      first version) the lock class's blocks queued on the same locks of dest: seed 000's unpacked argmax, RF 63,
//      H = 196608, 1071 us, 576 with rows (lent H100, 2026-11-27, bench/results/2026-11-27-h100-hashed-bins.txt).
#pragma once

#include <cstdint>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/atomic_update.cuh"
#include "ghist/detail/deferred_cas.cuh"
#include "ghist/detail/hashed_tags.hpp"
#include "ghist/detail/kernel_shared.cuh"
#include "ghist/detail/warp_aggregate.cuh"
#include "ghist/plan.hpp"
#include "ghist/update.hpp"

namespace ghist::detail {

inline constexpr int hashed_discover_block = 256;

/// Claims a slot of `keys` (4-byte keys: the global table, or a block's table without tags) for bin `key`, probing
/// on from slot `at` (keys only go from empty to a bin, so the bin is not before the first empty slot hashed_lookup
/// met); another thread may claim the slot first for the same bin. The slot, or -1 when hashed_max_probes slots hold
/// other bins. Out of line: the block's input loop, which inlines hashed_lookup, is unrolled, and a claim there is
/// rare. (The 4-byte keys' functions take the slots and a slot as before the tags: passing the table's shape and a
/// displacement instead cost the saturating add 8% at H = 196608, RF 63, the packed argmax 7% at 786432: 231-234 ->
/// 251-254 and 265-270 -> 283-290 us, lent H100.)
inline __device__ __noinline__ int hashed_claim(int* keys, int slots, int key, unsigned at) {
  for (int probe = 0; probe < hashed_max_probes; ++probe) {
    int seen = *reinterpret_cast<volatile int*>(keys + at);
    if (seen == hashed_empty_key) seen = atomicCAS(keys + at, hashed_empty_key, key);
    if (seen == key || seen == hashed_empty_key) return static_cast<int>(at);
    if (++at == static_cast<unsigned>(slots)) at = 0;
  }
  return -1;
}

/// The slot of bin `key` in a block's 4-byte keys, read-only probes: the slot; -2 - p when probing met the empty slot
/// p first (the sample missed the bin: hashed_claim); -1 when no slot is found within hashed_max_probes.
__device__ __forceinline__ int hashed_lookup(const int* keys, int slots, int key) {
  unsigned at = hashed_shape{slots, 0}.home(hashed_shape::spread(key));
  for (int probe = 0; probe < hashed_max_probes; ++probe) {
    // A plain load: a key, once set, never changes; a stale empty slot only sends the bin to hashed_claim, which
    // reads again. (Volatile loads here, which the compiler may not batch, cost HDW 10-15%: 123 -> 142 us at
    // H = 196608, RF 63.)
    const int seen = keys[at];
    if (seen == key) return static_cast<int>(at);
    if (seen == hashed_empty_key) return -2 - static_cast<int>(at);
    if (++at == static_cast<unsigned>(slots)) at = 0;
  }
  return -1;
}

/// hashed_lookup of a block's 16-bit tags (plan::hashed_tags): the slot; -2 - d when probing met an empty slot at
/// displacement d first; -1 when no slot is found.
__device__ __forceinline__ int hashed_lookup(const std::uint16_t* tags, hashed_shape shape, int key) {
  const unsigned spread = shape.spread(key);
  unsigned at = shape.home(spread);
  const unsigned first = shape.first_tag(spread);
  for (int d = 0; d < hashed_max_probes; ++d) {
    const unsigned seen = tags[at];  // a plain load, as for the 4-byte keys
    if (seen == first + static_cast<unsigned>(d)) return static_cast<int>(at);
    if (seen == hashed_empty_tag) return -2 - d;
    if (++at == static_cast<unsigned>(shape.slots)) at = 0;
  }
  return -1;
}

/// hashed_claim in a block's 16-bit tags, probing on from displacement `d`: a compare-and-swap of the tag's 32-bit
/// word (portable where 16-bit ones are not).
inline __device__ __noinline__ int hashed_claim(std::uint16_t* tags, hashed_shape shape, int key, int d) {
  const unsigned spread = shape.spread(key);
  unsigned at = (shape.home(spread) + static_cast<unsigned>(d)) % static_cast<unsigned>(shape.slots);
  for (; d < hashed_max_probes; ++d) {
    const unsigned want = shape.first_tag(spread) + static_cast<unsigned>(d);
    unsigned* word = reinterpret_cast<unsigned*>(tags) + (at >> 1);
    const unsigned shift = (at & 1u) * 16;
    unsigned old = *reinterpret_cast<volatile unsigned*>(word);
    unsigned seen = (old >> shift) & 0xffffu;
    while (seen == hashed_empty_tag) {
      const unsigned prev = atomicCAS(word, old, (old & ~(0xffffu << shift)) | (want << shift));
      if (prev == old) return static_cast<int>(at);
      old = prev;
      seen = (old >> shift) & 0xffffu;
    }
    if (seen == want) return static_cast<int>(at);
    if (++at == static_cast<unsigned>(shape.slots)) at = 0;
  }
  return -1;
}

/// Kernel 1: claims a slot of `keys` (global, all hashed_empty_key before) for each sampled input's bin in the pass's
/// bins [lo, lo + len), keyed by its offset from lo.
template <class Source>
__global__ void __launch_bounds__(hashed_discover_block)
    hashed_discover_kernel(Source src, std::int64_t lo, std::int64_t len, int* keys, hashed_shape shape,
                           std::int64_t samples) {
  const std::int64_t stride = src.n / samples > 1 ? src.n / samples : 1;
  const std::int64_t count = src.n < samples ? src.n : samples;
  for (std::int64_t j = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; j < count;
       j += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t bin = src.at(j * stride).bin - lo;
    if (static_cast<std::uint64_t>(bin) >= static_cast<std::uint64_t>(len)) continue;
    hashed_claim(keys, shape.slots, static_cast<int>(bin), shape.home(hashed_shape::spread(static_cast<int>(bin))));
  }
}

/// hashed_lookup, then hashed_claim where the sample missed the bin: in 4-byte keys or in tags.
__device__ __forceinline__ int hashed_slot_of(int* keys, hashed_shape shape, int key) {
  const int s = hashed_lookup(keys, shape.slots, key);
  return s >= -1 ? s : hashed_claim(keys, shape.slots, key, static_cast<unsigned>(-2 - s));
}
__device__ __forceinline__ int hashed_slot_of(std::uint16_t* tags, hashed_shape shape, int key) {
  const int s = hashed_lookup(tags, shape, key);
  return s >= -1 ? s : hashed_claim(tags, shape, key, -2 - s);
}

/// Kernel 2. Shared memory: the global table's keys (Key = int), or their tags (Key = std::uint16_t, hashed_tags.hpp;
/// plan::hashed_tags), then `copies` arrays of values from hashed_values_offset (warp w updates copy w % copies:
/// fewer threads at once on a value), then for the lock class a lock bit per value, 32 to a word (as
/// shared_memory_kernel's copies). BlocksPerSm: 2 (32 registers a thread), or 1 where the grid has a block per SM at
/// most (up to 64: launch_hashed). rows: gridDim.x rows of `slots` values. One pass: the bins [lo, lo + len),
/// keyed by their offset from lo; dest and dest_locks are the whole histogram's.
template <class Source, class Op, class Key, int BlocksPerSm>
__global__ void __launch_bounds__(hashed_block, BlocksPerSm)
    hashed_shared_kernel(Source src, Op op, typename Op::value_type* dest, int* dest_locks, std::int64_t lo,
                         std::int64_t len, const int* keys, hashed_shape shape, int copies,
                         typename Op::value_type* rows) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int slots = shape.slots;
  constexpr bool tagged = sizeof(Key) == 2;
  constexpr auto empty = static_cast<Key>(-1);  // hashed_empty_key or hashed_empty_tag
  constexpr int key_bytes = sizeof(Key);
  Key* table = reinterpret_cast<Key*>(shared_bytes);
  T* values = reinterpret_cast<T*>(shared_bytes + hashed_values_offset(slots, key_bytes));
  int* locks =
      xcg ? reinterpret_cast<int*>(shared_bytes + hashed_locks_offset(slots, sizeof(T), copies, key_bytes)) : nullptr;
  const int all_values = copies * slots;
  const int lock_words = xcg ? (all_values + 31) / 32 : 0;
  const T identity = Op::identity();
  for (int s = threadIdx.x; s < slots; s += blockDim.x) {
    const int key = keys[s];
    if constexpr (tagged) table[s] = key == hashed_empty_key ? hashed_empty_tag : shape.tag_at(key, s);
    else table[s] = key;
  }
  for (int v = threadIdx.x; v < all_values; v += blockDim.x) {
    values[v] = identity;
    if (v < lock_words) locks[v] = 0;
  }
  __syncthreads();
  const int copy_offset = static_cast<int>(threadIdx.x / 32) % copies * slots;
  deferred_cas_updater<Op> deferred(op);
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  auto visit = [&](const bin_update<T>& u) {
    const std::int64_t b = u.bin - lo;
    if (static_cast<std::uint64_t>(b) >= static_cast<std::uint64_t>(len)) return;
    const int s = hashed_slot_of(table, shape, static_cast<int>(b));
    if (s < 0) {
      atomic_update<memory_level::global>(op, dest + u.bin, u.value, xcg ? dest_locks + u.bin : nullptr);
    } else if constexpr (atomic_class_of<Op> == atomic_class::cas) {
      deferred.update(values + copy_offset, s, u.value);
    } else {
      atomic_update<memory_level::shared>(op, bin_slot<T>{values + copy_offset + s, nullptr}, u.value);
    }
  };
  // The hardware atomic returns nothing to wait for; the other classes wait on each update's result. The lock class
  // walks its inputs warp by warp and takes its locks with warp_aggregated_update_among (each lane tries its lock
  // once, the lanes that failed fold equal slots and retry in rounds of the whole warp): with a plain lock loop per
  // lane, seed 000's unpacked argmax told RF 63 over Zipf(1.1) input took 44 ms at H = 49152, all in one bin 10-84
  // ms (lent H100, 2026-11-27).
  if constexpr (xcg) {
    auto slot = [&](int s) {
      const int v = copy_offset + s;
      return bin_slot<T>{values + v, locks + (v >> 5), 1u << (v & 31)};
    };
    src.for_each_uniform(rank, threads, [&](bool valid, const bin_update<T>& u) {
      const std::int64_t b = u.bin - lo;
      const bool in_range = valid && static_cast<std::uint64_t>(b) < static_cast<std::uint64_t>(len);
      const int s = in_range ? hashed_slot_of(table, shape, static_cast<int>(b)) : -1;
      if (in_range && s < 0) atomic_update<memory_level::global>(op, dest + u.bin, u.value, dest_locks + u.bin);
      warp_aggregated_update_among<memory_level::shared>(0xffffffffu, op, s, slots, u.value, slot);
    });
  } else if constexpr (atomic_class_of<Op> == atomic_class::hdw) {
    src.for_each(rank, threads, visit);
  } else {
    src.for_each_prefetched(rank, threads, visit);
    if constexpr (atomic_class_of<Op> == atomic_class::cas) deferred.flush(values + copy_offset);
  }
  __syncthreads();
  // The sample's slots go to this block's row; the slots the block claimed itself (empty in the global table) are
  // merged here with the global update, once per block and bin (keys recovered from their tags).
  T* row = rows + static_cast<std::int64_t>(blockIdx.x) * slots;
  for (int s = threadIdx.x; s < slots; s += blockDim.x) {
    const Key entry = table[s];
    if (entry == empty) continue;
    T acc = values[s];
    for (int c = 1; c < copies; ++c) acc = op(acc, values[c * slots + s]);
    if (keys[s] != hashed_empty_key) {
      row[s] = acc;
    } else if (!bitwise_equal(acc, identity)) {
      const int key = tagged ? shape.key_of(s, entry) : entry;  // key_of: a key for every tag (hashed_tags_fit)
      if (key >= 0)
        atomic_update<memory_level::global>(op, dest + lo + key, acc, xcg ? dest_locks + lo + key : nullptr);
    }
  }
}

/// Kernel 3: dest[keys[s]] (+)= rows[0][s] (+) ... (+) rows[row_count - 1][s] for every claimed slot s; a block of 32 x
/// merge_rows_slices threads takes 32 slots, slice y folding rows y, y + slices, ... (merge_rows_kernel's shape).
template <class Op>
__global__ void __launch_bounds__(32 * merge_rows_slices)
    hashed_merge_kernel(const typename Op::value_type* rows, int row_count, const int* keys, int slots, Op op,
                        typename Op::value_type* dest) {
  using T = typename Op::value_type;
  __shared__ __align__(16) unsigned char partial_bytes[merge_rows_slices * 32 * sizeof(T)];
  T(*partial)[32] = reinterpret_cast<T(*)[32]>(partial_bytes);
  const int s = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  const int key = s < slots ? keys[s] : hashed_empty_key;
  const T identity = Op::identity();
  T acc = identity;
  if (key != hashed_empty_key)
    for (int r = threadIdx.y; r < row_count; r += merge_rows_slices)
      acc = op(acc, rows[static_cast<std::int64_t>(r) * slots + s]);
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y != 0 || key == hashed_empty_key) return;
  for (int y = 1; y < merge_rows_slices; ++y) acc = op(acc, partial[y][threadIdx.x]);
  if (!bitwise_equal(acc, identity)) dest[key] = op(dest[key], acc);
}

}  // namespace ghist::detail
