// The counted layout's second pass for 16-bit records of unit increments with 16-bit counters in shared memory
// (narrow_group_count_kernel), so that two blocks fit an SM where 32-bit counters leave one.
//
// With one-block groups as large as a block's shared memory (H = 100M: 1721 groups of 58108 bins), each SM runs
// one block at a time, and a block reads and counts its records, then writes its 232 KB of bins: the SM's share of
// the write bandwidth idles while it counts, and its count idles while it writes (H100, ncu: the pass wrote its
// 400 MB at ~1.8 TB/s). A block whose records number at most narrow_count_limit cannot take a counter past 16 bits,
// so its group's counters take half the memory, and two blocks per SM overlap one's count with the other's write.
// A block with more records (skewed input) counts the group's bins in two halves of 32-bit counters in the same
// memory, reading its records twice. Lent H100, H = 100M, N = 50M uniform: the pass 211 -> 188 us under ncu, the
// call 620.5 / 617.3 -> 601.0 / 597.4 us in 1848 groups (bench/results/2026-11-27-h100-narrow-counts.txt).
#pragma once

#include <cstdint>

#include "ghist/detail/kernel_partition.cuh"
#include "ghist/detail/kernel_partition_counted.cuh"

namespace ghist::detail {

/// count_local_bin_records' accumulator for 16-bit counters: bin b is the low (even b) or high half of word b / 2.
/// The block's records are at most narrow_count_limit, so no half carries into the other. The padding records of
/// padded ranges (local bin group_of.d, past every bin of the group: kernel_partition_ring.cuh) count in a counter
/// of their own (narrow_counts_shared_bytes keeps one), which is never zeroed nor written out; half_counters skips
/// them as it skips the other half's bins.
struct narrow_counters {
  unsigned base;  // shared-memory address of word 0
  __device__ __forceinline__ void count(unsigned b) const {
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(base + (b >> 1) * 4), "r"(1u << ((b & 1u) * 16)) : "memory");
  }
};

/// count_local_bin_records' accumulator for 32-bit counters of bins [from, from + len) of the group.
struct half_counters {
  unsigned base, from, len;
  __device__ __forceinline__ void count(unsigned b) const {
    const unsigned i = b - from;  // wraps past len below `from`
    asm volatile(
        "{\n .reg .pred p;\n setp.lt.u32 p, %0, %1;\n @p red.shared.add.u32 [%2], 1;\n}" ::"r"(i), "r"(len),
        "r"(base + i * 4)
        : "memory");
  }
};

/// Writes the counts of `len` bins to out (value(b) for b in [0, len)): 16 bytes a store from out's first 16-byte
/// boundary on.
template <class T, class Value>
__device__ __forceinline__ void store_counts(T* out, int len, Value value) {
  const int skew = static_cast<int>(reinterpret_cast<std::uintptr_t>(out) / sizeof(T) % 4);
  const int head = skew == 0 ? 0 : (4 - skew < len ? 4 - skew : len);
  for (int b = threadIdx.x; b < head; b += blockDim.x) out[b] = static_cast<T>(value(b));
  const int vectors = (len - head) / 4;
  uint4* to = reinterpret_cast<uint4*>(out + head);
  for (int v = threadIdx.x; v < vectors; v += blockDim.x) {
    const int b = head + 4 * v;
    to[v] = uint4{value(b), value(b + 1), value(b + 2), value(b + 3)};
  }
  for (int b = head + 4 * vectors + threadIdx.x; b < len; b += blockDim.x) out[b] = static_cast<T>(value(b));
}

/// Block b histograms its share k of group g's K blocks (starts[g] <= b < starts[g + 1]), the records
/// [record_starts[g], record_starts[g + 1]) split in K equal parts, as contiguous_group_histogram_kernel does for
/// unit increments with M = 1: a group's only block writes its bins (`overwrite`) or adds its nonzero counts, a
/// group's K > 1 blocks add theirs with atomics (into bins filled with zeros first when overwriting).
template <class T, int Threads>
__global__ void __launch_bounds__(Threads, 2) narrow_group_count_kernel(
    const std::uint16_t* records, const unsigned* record_starts, const unsigned* starts, int groups, T* dest,
    std::int64_t num_bins, group_divider group_of, bool overwrite) {
  static_assert(sizeof(T) == 4, "unit increments are 32-bit integer adds");
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto* words = reinterpret_cast<unsigned*>(shared_bytes);
  const unsigned block = blockIdx.x;
  wait_for_prior_kernels();
  group_share share;
  if (!group_of_block<true>(starts, groups, block, share)) return;
  const int g = share.group;
  const int len = static_cast<int>(group_length(g, group_of, num_bins));
  T* out = dest + group_low(g, group_of);
  const std::int64_t first = record_starts[g], count = std::int64_t{record_starts[g + 1]} - first;
  const bool only = share.K == 1;  // the group's only block
  const std::int64_t begin = only ? first : first + count * share.k / share.K;
  const std::int64_t end = only ? first + count : first + count * (share.k + 1) / share.K;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(words));
  const int half = (len + 1) / 2;  // words either way
  auto zero = [&]() {
    for (int v = threadIdx.x; v < (half + 3) / 4; v += blockDim.x) reinterpret_cast<uint4*>(words)[v] = uint4{};
    __syncthreads();
  };
  // Counts of bins [from, from + n) to dest, value(b) for b in [0, n).
  auto emit = [&](int from, int n, auto value) {
    if (only && overwrite) {
      store_counts(out + from, n, value);
      return;
    }
    for (int b = threadIdx.x; b < n; b += blockDim.x) {
      const unsigned c = value(b);
      if (c == 0) continue;
      if (only) out[from + b] += static_cast<T>(c);
      else atomicAdd(out + from + b, static_cast<T>(c));
    }
  };
  if (end - begin <= narrow_count_limit) {
    zero();
    narrow_counters counters{base};
    count_local_bin_records(records, begin, end, counters);
    __syncthreads();
    const auto* narrow = reinterpret_cast<const std::uint16_t*>(words);
    if (only && overwrite && reinterpret_cast<std::uintptr_t>(out) % 16 == 0) {
      // Four counters a shared load, four bins a store.
      const auto* from = reinterpret_cast<const uint2*>(words);
      auto* to = reinterpret_cast<uint4*>(out);
      for (int v = threadIdx.x; v < len / 4; v += blockDim.x) {
        const uint2 w = from[v];
        to[v] = uint4{w.x & 0xffffu, w.x >> 16, w.y & 0xffffu, w.y >> 16};
      }
      for (int b = len / 4 * 4 + threadIdx.x; b < len; b += blockDim.x) out[b] = static_cast<T>(narrow[b]);
      return;
    }
    emit(0, len, [&](int b) { return static_cast<unsigned>(narrow[b]); });
  } else {
    for (int from = 0; from < len; from += half) {
      const int n = len - from < half ? len - from : half;
      zero();
      half_counters counters{base, static_cast<unsigned>(from), static_cast<unsigned>(n)};
      count_local_bin_records(records, begin, end, counters);
      __syncthreads();
      emit(from, n, [&](int b) { return words[b]; });
      __syncthreads();  // the counters are read before the next half zeroes them
    }
  }
}

}  // namespace ghist::detail
