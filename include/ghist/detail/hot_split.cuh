// Heavy hitters apart: a skewed input's few hottest bins histogrammed in a copy per thread, the rest with the plan.
//
// Why: on Zipf-like input (seed 000's grid with Zipf(1.1) bins, the race factor unknown to ghist) the compare-and-
// swap and lock classes spend their time on a few dozen bins that take half the input: every block's threads meet on
// the same shared words (or locks), and in the partitioned strategy the groups that hold them queue on them too.
// On a lent H200 (2026-12-01, N = 50M, bench/results/2026-12-01-h200-hot-split.txt) the saturating add took 4.6-6.8
// ms at H = 786432..1572864 against 0.19-0.36 ms for uniform input, the unpacked argmax 1.3-2.3 ms at H = 12288..1.5M
// against 0.24-0.61 ms: 4-30x, where issue 3 asks for 1.5x.
//
// So such a call of the lock class that does not know its race factor, asked (plan_overrides::hot_split = 1) or left
// to the planner (the compare-and-swap class gained little; dispatch.cuh, hot_split_applies), first samples
// 2048 inputs (64 runs of 32 spread over the input, so that sorted input shows its bins too) in one block, which
// counts the sampled bins in shared memory and keeps up to 32 of those that appear hot_split_min_count or more times
// (about 0.2% of the input or more), hottest first, in a direct-mapped table in device memory. The host reads back
// how many inputs of the sample the table holds (one wait for the stream, as the race-factor inspector's) and, when
// it holds any (left to the planner: when hot_split_rule.hpp's hot_split_worth says so), runs:
//   1. hot_bins_kernel: every thread folds the inputs of table bins into its own copy of the 32 table bins in shared
//      memory (no atomics, no locks: the same speed whatever the skew) and each block writes its folded row;
//   2. the call itself with a bin function that sends table bins nowhere (hot_bins_excluded), so the plan sees only
//      the rest;
//   3. hot_split_merge_kernel: folds the rows and each table bin into dest.
// Each input is read twice: worth it only where the skewed plan costs more than a second read.
//
// What the first build (a sorted sample of 4096, a probed table, one row load in flight in the merge) gave, same
// lent H200, split against none (bench/results/2026-12-01-h200-hot-split.txt): the unpacked argmax on Zipf(1.1) at
// H = 6144..24576 1.4-2.4x faster (12288: 1426 -> 742 us), one bin at H >= 49152 1.3-2.2x (1572864: 1081 -> 497);
// the saturating add on Zipf at H >= 393216 1.1-2.0x (1572864 RF 63: 6873 -> 3512) but 1.4-2.2x slower at
// H = 505..12288: there the rest was nearly as slow as the whole (the plan's kernel 375 against 420 us under ncu at
// 12288: after the 32 hottest, Zipf's next ranks still take ~1% of the rest each), and in the partitioned strategy a
// bin with 0.2% of the input is ~10% of its group's. Its own costs, under ncu: the sample 17-25 us (now a hash count
// of 2048 instead of a sort of 4096), the heavy hitters' pass 89-247 us (the read alone ~48), the merge 5-30 us.
// The kept build (the hash count, a one-load table) on the same GPU: the sample 12.7 us, the heavy hitters' pass
// 116 us, the merge 30 us (now a block per bin); where it paid and where not: hot_split_rule.hpp.
#pragma once

#include <climits>
#include <cstdint>

#include "ghist/detail/hot_split_rule.hpp"
#include "ghist/detail/input_source.cuh"
#include "ghist/update.hpp"

namespace ghist::detail {

inline constexpr int hot_split_max_bins = 32;  // the table's bins: a thread's copy holds them all
/// The table is direct-mapped: a bin has one slot, so a lookup is one load and one compare (no probe loop in the
/// passes' inner loops). Filled hottest first; a bin whose slot a hotter one took stays with the rest.
inline constexpr int hot_split_slot_bits = 9;
inline constexpr int hot_split_slots = 1 << hot_split_slot_bits;
inline constexpr int hot_split_sample_threads = 512;
inline constexpr int hot_split_samples_per_thread = 4;
inline constexpr int hot_split_samples = hot_split_sample_threads * hot_split_samples_per_thread;  // 2048
inline constexpr int hot_split_run = 32;  // consecutive inputs per sampled run
inline constexpr int hot_split_runs = hot_split_samples / hot_split_run;
/// A sampled bin may enter the table from this many of the 2048 samples (~0.2% of the input): a bin below that takes
/// ~400 or fewer of a block's ~190K inputs at N = 50M on 264 blocks, too few to queue on its word.
inline constexpr int hot_split_min_count = 4;
inline constexpr int hot_split_max_candidates = hot_split_samples / hot_split_min_count;  // 512, one per thread
inline constexpr int hot_split_count_slot_bits = 12;  // the sample's counting table, half full at most
inline constexpr int hot_split_count_slots = 1 << hot_split_count_slot_bits;
static_assert(hot_split_count_slots >= 2 * hot_split_samples, "the counting table must stay half full at most");

/// Device memory: the table and what the sample found.
struct hot_split_state {
  int2 slots[hot_split_slots];     // x: bin (-1: empty), y: its index in [0, stats.bins)
  int bins_of[hot_split_max_bins];  // index -> bin
  hot_split_stats stats;
};

__host__ __device__ __forceinline__ int hot_slot_of(unsigned bin) {
  return static_cast<int>((bin * 0x9E3779B1u) >> (32 - hot_split_slot_bits));
}

/// The table index of `bin`, or -1. `slots` is the table in shared or global memory.
__device__ __forceinline__ int hot_index_of(const int2* slots, std::int64_t bin) {
  const int2 e = slots[hot_slot_of(static_cast<unsigned>(bin))];
  return e.x == bin ? e.y : -1;  // e.x is -1 or a bin in [0, INT_MAX]: no other 64-bit bin equals it
}

/// The call's bin function without the table's bins (they go to no bin): the plan's pass over the rest.
template <class BinFn>
struct hot_bins_excluded {
  static constexpr bool counts = is_counting_v<BinFn>;
  BinFn f;
  const int2* slots;  // hot_split_state::slots, global memory
  template <class X>
  __device__ __forceinline__ auto operator()(const X& x) const {
    auto u = f(x);
    if (hot_index_of(slots, u.bin) >= 0) u.bin = no_bin;
    return u;
  }
};

template <class In, class F, class G>
element_source<In, G> with_bin_function(const element_source<In, F>& s, const G& g) {
  return {s.input, s.n, g};
}

/// One block of hot_split_sample_threads: samples 2048 inputs, counts their bins in a hash table in shared memory,
/// and fills `out` (every field) with the hottest hot_split_max_bins of those sampled hot_split_min_count times or
/// more.
template <class Source>
__global__ void __launch_bounds__(hot_split_sample_threads)
    hot_split_sample_kernel(Source src, std::int64_t n, std::int64_t num_bins, hot_split_state* out) {
  constexpr unsigned empty = 0xffffffffu;  // above every bin kept (bins are <= INT_MAX)
  __shared__ unsigned count_key[hot_split_count_slots];
  __shared__ int count_of[hot_split_count_slots];
  __shared__ unsigned candidate_bin[hot_split_max_candidates];
  __shared__ int candidate_count[hot_split_max_candidates];
  __shared__ unsigned ranked_bin[hot_split_max_bins];
  __shared__ int ranked_count[hot_split_max_bins];
  __shared__ int2 slots[hot_split_slots];
  __shared__ int candidates, valid_samples;
  const int t = threadIdx.x;
  for (int s = t; s < hot_split_count_slots; s += hot_split_sample_threads) {
    count_key[s] = empty;
    count_of[s] = 0;
  }
  for (int s = t; s < hot_split_slots; s += hot_split_sample_threads) slots[s] = make_int2(-1, -1);
  if (t == 0) candidates = valid_samples = 0;

  unsigned keys[hot_split_samples_per_thread];
#pragma unroll
  for (int k = 0; k < hot_split_samples_per_thread; ++k) {
    const int s = t + k * hot_split_sample_threads;
    std::int64_t i = s;
    if (n > hot_split_samples) {
      const int run = s / hot_split_run;
      i = (n - hot_split_run) * run / (hot_split_runs - 1) + s % hot_split_run;
    }
    keys[k] = empty;
    if (i < n) {
      const std::int64_t b = src.at(i).bin;
      if (b >= 0 && b < num_bins && b <= INT_MAX) keys[k] = static_cast<unsigned>(b);
    }
  }
  __syncthreads();
  int valid = 0;
#pragma unroll
  for (int k = 0; k < hot_split_samples_per_thread; ++k) {
    const unsigned key = keys[k];
    if (key == empty) continue;
    ++valid;
    int s = static_cast<int>((key * 0x9E3779B1u) >> (32 - hot_split_count_slot_bits));
    for (;;) {
      const unsigned was = atomicCAS(&count_key[s], empty, key);
      if (was == empty || was == key) break;
      s = (s + 1) & (hot_split_count_slots - 1);
    }
    atomicAdd(&count_of[s], 1);
  }
  atomicAdd(&valid_samples, valid);
  __syncthreads();
  for (int s = t; s < hot_split_count_slots; s += hot_split_sample_threads)
    if (count_of[s] >= hot_split_min_count) {
      const int c = atomicAdd(&candidates, 1);  // at most 2048 / hot_split_min_count bins get here
      candidate_bin[c] = count_key[s];
      candidate_count[c] = count_of[s];
    }
  __syncthreads();
  // The hottest hot_split_max_bins candidates (ties by bin), in order.
  if (t < candidates) {
    const unsigned bin = candidate_bin[t];
    const int count = candidate_count[t];
    int rank = 0;
    for (int c = 0; c < candidates; ++c)
      rank += candidate_count[c] > count || (candidate_count[c] == count && candidate_bin[c] < bin);
    if (rank < hot_split_max_bins) {
      ranked_bin[rank] = bin;
      ranked_count[rank] = count;
    }
  }
  __syncthreads();
  if (t == 0) {  // hottest first: a bin whose slot is taken stays with the rest
    const int ranked = candidates < hot_split_max_bins ? candidates : hot_split_max_bins;
    int kept = 0, hot = 0;
    for (int r = 0; r < ranked; ++r) {
      int2& slot = slots[hot_slot_of(ranked_bin[r])];
      if (slot.x >= 0) continue;
      slot = make_int2(static_cast<int>(ranked_bin[r]), kept);
      out->bins_of[kept++] = static_cast<int>(ranked_bin[r]);
      hot += ranked_count[r];
    }
    for (int k = kept; k < hot_split_max_bins; ++k) out->bins_of[k] = -1;
    out->stats = {kept, hot, valid_samples, ranked > 0 ? ranked_count[0] : 0};
  }
  __syncthreads();
  for (int s = t; s < hot_split_slots; s += hot_split_sample_threads) out->slots[s] = slots[s];
}

/// Threads per block of hot_bins_kernel: 32 KB of copies per block (stride Block + 1 against bank conflicts).
template <class T>
inline constexpr int hot_bins_block = sizeof(T) <= 4 ? 256 : (sizeof(T) <= 8 ? 128 : 64);
template <class T>
inline constexpr std::size_t hot_bins_shared_bytes =
    static_cast<std::size_t>(hot_split_max_bins) * (hot_bins_block<T> + 1) * sizeof(T);

/// Folds every input of a table bin into the thread's own copy of the table's bins; each block writes its fold of
/// its threads' copies to rows[block * hot_split_max_bins + index].
template <class Source, class Op>
__global__ void __launch_bounds__(hot_bins_block<typename Op::value_type>)
    hot_bins_kernel(Source src, Op op, const hot_split_state* state, typename Op::value_type* rows) {
  using T = typename Op::value_type;
  constexpr int block = hot_bins_block<T>;
  constexpr int stride = block + 1;
  extern __shared__ __align__(16) unsigned char hot_bins_shared[];
  T* copies = reinterpret_cast<T*>(hot_bins_shared);  // copies[index * stride + thread]
  __shared__ int2 slots[hot_split_slots];
  const int t = threadIdx.x;
  for (int s = t; s < hot_split_slots; s += block) slots[s] = state->slots[s];
  for (int k = 0; k < hot_split_max_bins; ++k) copies[k * stride + t] = Op::identity();
  __syncthreads();
  src.for_each(static_cast<std::int64_t>(blockIdx.x) * block + t, static_cast<std::int64_t>(gridDim.x) * block,
               [&](const auto& u) {
                 const int k = hot_index_of(slots, u.bin);
                 if (k >= 0) {
                   T& c = copies[k * stride + t];
                   c = op(c, u.value);
                 }
               });
  __syncthreads();
  for (int k = t; k < hot_split_max_bins; k += block) {
    T v = copies[k * stride];
    for (int j = 1; j < block; ++j) v = op(v, copies[k * stride + j]);
    rows[static_cast<std::int64_t>(blockIdx.x) * hot_split_max_bins + k] = v;
  }
}

/// A block per table bin (hot_split_max_bins blocks of hot_split_merge_threads): block k folds the rows of table bin
/// k, each thread four rows' loads in flight, then dest[bin] = dest[bin] (+) that. Runs after the pass over the rest,
/// which never touched these bins. One block of a warp per bin took ~30 us for 792 rows of 8-byte values under ncu
/// on a lent H200, eight loads in flight per lane (2026-12-01, bench/results/2026-12-01-h200-hot-split-kept.txt).
inline constexpr int hot_split_merge_threads = 256;
static_assert((hot_split_merge_threads & (hot_split_merge_threads - 1)) == 0, "the merge's tree halves the block");
template <class Op>
__global__ void __launch_bounds__(hot_split_merge_threads) hot_split_merge_kernel(const hot_split_state* state,
                                                                                  const typename Op::value_type* rows,
                                                                                  int row_count, Op op,
                                                                                  typename Op::value_type* dest) {
  using T = typename Op::value_type;
  __shared__ __align__(16) unsigned char partial_raw[hot_split_merge_threads * sizeof(T)];
  T* partial = reinterpret_cast<T*>(partial_raw);
  const int k = blockIdx.x, t = threadIdx.x;
  if (k >= state->stats.bins) return;  // the whole block leaves
  T v = Op::identity();
  int r = t;
  for (; r + 3 * hot_split_merge_threads < row_count; r += 4 * hot_split_merge_threads) {
    T got[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      got[j] = rows[static_cast<std::int64_t>(r + hot_split_merge_threads * j) * hot_split_max_bins + k];
#pragma unroll
    for (int j = 0; j < 4; ++j) v = op(v, got[j]);
  }
  for (; r < row_count; r += hot_split_merge_threads)
    v = op(v, rows[static_cast<std::int64_t>(r) * hot_split_max_bins + k]);
  partial[t] = v;
  __syncthreads();
  for (int half = hot_split_merge_threads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] = op(partial[t], partial[t + half]);
    __syncthreads();
  }
  if (t == 0) {
    T* d = dest + state->bins_of[k];
    *d = op(*d, partial[0]);
  }
}

}  // namespace ghist::detail
