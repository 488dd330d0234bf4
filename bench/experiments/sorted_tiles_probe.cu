// Probe: a partitioned second pass whose updates do not queue on a hot word. What it is for: seed 000's saturating add
// at H >= 196608 takes the partitioned strategy, ~370 us on uniform input but ~4500-5100 us on Zipf(1.1) (the first
// group holds ~88% of the records and its hottest bin ~14% of them: every block's threads queue on one word), CUB's
// sort-based answer ~1600 us whatever the skew. Variants, each into one copy of the group per block:
//   - the plain compare-and-swap loop, and ghist's deferring loop (deferred_cas.cuh: a lost update waits in registers);
//   - sorted tiles: each block sorts a tile of records by bin in shared memory (cub::BlockRadixSort, or two 8-bit
//     passes ranked by cub::BlockRadixRankMatch), folds each run of equal bins with a segmented scan, and the run's
//     last thread applies it with a plain read-modify-write (one writer per bin and tile, tiles between barriers);
//   - lost updates folded: each lane tries once, the lanes that lost match their bins and one per bin loops; "every
//     update folded" matches every input; "held": the folded lost updates then take an entry of a 32-entry table per
//     warp (direct-mapped by a hash of the bin; the entry's previous bin goes to the copy), and inputs whose bin the
//     table holds fold into it.
// N = 50M 4-byte records: bits 0..15 a bin of the group (G bins), bits 16..23 a value - 1; op: 24-bit saturating add
// (associative and commutative for values >= 0). One block of 1024 (or 512) threads per SM, each a contiguous share
// of the records and one copy of the G bins, written as a row at the end; the rows are folded on the host and
// compared with a CPU histogram. Times: CUDA events, median of 7 after a warm-up. Not part of the build:
//   nvcc -O3 -arch=sm_90 -std=c++17 -I include -o sorted_tiles_probe bench/experiments/sorted_tiles_probe.cu
// Results: bench/results/2026-11-27-h100-experiment-sorted-tiles-held-cas.txt (sorted tiles 470-750 us whatever the
// input; held tables 137 / 432 / 481 / 151 us on uniform / every 63rd bin / Zipf / one bin against the deferring
// loop's 206 / 1391 / 5687 / 113, but in the library's second pass they lost on uniform input: see that file).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "../seed000_ops.cuh"
#include "../timing.cuh"
#include "ghist/detail/deferred_cas.cuh"
#include "probe_check.cuh"

__host__ __device__ __forceinline__ unsigned saturating_add24(unsigned a, unsigned v) {
  const unsigned r = a + v;
  return r > 0xffffffu ? 0xffffffu : r;
}
__device__ __forceinline__ unsigned bin_of(unsigned r) { return r & 0xffffu; }
__device__ __forceinline__ unsigned value_of(unsigned r) { return ((r >> 16) & 0xffu) + 1u; }

struct chunk {
  long long begin, end;
};
__device__ __forceinline__ chunk chunk_of_block(long long n) {
  return {n * blockIdx.x / gridDim.x, n * (blockIdx.x + 1) / gridDim.x};
}

// Each block's copy of the G bins: cleared at the start, written as the block's row at the end.
__device__ __forceinline__ void clear_copy(unsigned* copy, int G) {
  for (int i = threadIdx.x; i < G; i += blockDim.x) copy[i] = 0;
}
__device__ __forceinline__ void write_row(const unsigned* copy, int G, unsigned* rows) {
  __syncthreads();
  for (int i = threadIdx.x; i < G; i += blockDim.x) rows[static_cast<long long>(blockIdx.x) * G + i] = copy[i];
}

__device__ __forceinline__ void cas_loop(unsigned* w, unsigned v) {
  unsigned assumed = *reinterpret_cast<volatile unsigned*>(w), old;
  while ((old = atomicCAS(w, assumed, saturating_add24(assumed, v))) != assumed) assumed = old;
}

// The block's share of the records, 8 loads in flight per thread: fn(record) for each, each thread on its own.
template <int Threads, class Fn>
__device__ __forceinline__ void for_each_record(const unsigned* records, const chunk& c, Fn fn) {
  constexpr int loads = 8;
  for (long long i0 = c.begin + threadIdx.x; i0 < c.end; i0 += loads * Threads) {
    unsigned r[loads];
#pragma unroll
    for (int k = 0; k < loads; ++k)
      if (i0 + k * Threads < c.end) r[k] = records[i0 + k * Threads];
#pragma unroll
    for (int k = 0; k < loads; ++k)
      if (i0 + k * Threads < c.end) fn(r[k]);
  }
}
// The same with the lanes of a warp stepping together: step(valid, record) on every lane, record unset where not valid.
template <int Threads, class Step>
__device__ __forceinline__ void for_each_warp_step(const unsigned* records, const chunk& c, Step step) {
  constexpr int loads = 8;
  const int lane = threadIdx.x % 32;
  for (long long i0 = c.begin + threadIdx.x / 32 * 32; i0 < c.end; i0 += loads * Threads) {
    unsigned r[loads];
#pragma unroll
    for (int k = 0; k < loads; ++k)
      if (i0 + lane + k * Threads < c.end) r[k] = records[i0 + lane + k * Threads];
#pragma unroll
    for (int k = 0; k < loads; ++k) step(i0 + lane + k * Threads < c.end, r[k]);
  }
}

// Today's kind of loop: 8 loads in flight per thread, each update a compare-and-swap loop on the shared copy.
template <int Threads>
__global__ void __launch_bounds__(Threads, 1) cas_kernel(const unsigned* records, long long n, int G, unsigned* rows) {
  extern __shared__ unsigned copy[];
  clear_copy(copy, G);
  __syncthreads();
  for_each_record<Threads>(records, chunk_of_block(n), [&](unsigned r) { cas_loop(copy + bin_of(r), value_of(r)); });
  write_row(copy, G, rows);
}

struct segment {
  unsigned value;
  int head;  // a run starts in this stretch
};
struct segment_op {
  __device__ __forceinline__ segment operator()(const segment& a, const segment& b) const {
    return b.head ? b : segment{saturating_add24(a.value, b.value), a.head};
  }
};

// Record i as a sort key (its bin) and value; `none` past the end.
__device__ __forceinline__ void load_key_value(const unsigned* records, long long i, long long end, std::uint16_t none,
                                               std::uint16_t& key, unsigned& val) {
  key = none;
  val = 0;
  if (i < end) {
    const unsigned r = records[i];
    key = static_cast<std::uint16_t>(bin_of(r));
    val = value_of(r);
  }
}

// A sorted tile in blocked order (thread t holds items t * Items ..): each run of equal keys is folded with a
// segmented scan across the threads and applied to copy[key] by the thread holding its last item (`none`: the key
// of empty items). first_key has Threads + 1 entries.
template <int Threads, int Items, class ScanStorage>
__device__ __forceinline__ void apply_runs(const std::uint16_t (&key)[Items], const unsigned (&val)[Items],
                                           std::uint16_t none, std::uint16_t* first_key, std::uint16_t* last_key,
                                           ScanStorage& scan_storage, unsigned* copy) {
  const int t = threadIdx.x;
    first_key[t] = key[0];
    last_key[t] = key[Items - 1];
    if (t == 0) first_key[Threads] = none;
    __syncthreads();
    const std::uint16_t before = t == 0 ? static_cast<std::uint16_t>(~key[0]) : last_key[t - 1];
    const std::uint16_t after = first_key[t + 1];
    segment own{0u, 0};
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool head = key[k] != (k == 0 ? before : key[k - 1]);
      own = head ? segment{val[k], 1} : segment{saturating_add24(own.value, val[k]), own.head};
    }
    segment carry;
    cub::BlockScan<segment, Threads>(scan_storage).ExclusiveScan(own, carry, segment_op{});
    unsigned acc = t == 0 ? 0u : carry.value;
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const bool head = key[k] != (k == 0 ? before : key[k - 1]);
      acc = head ? val[k] : saturating_add24(acc, val[k]);
      const bool last = key[k] != (k == Items - 1 ? after : key[k + 1]);
      if (last && key[k] != none) copy[key[k]] = saturating_add24(copy[key[k]], acc);
    }
}

// A tile of Threads x Items records sorted by bin (EndBit bits; empty items take the key 2^EndBit - 1, which no
// bin of a group of G < 2^EndBit bins has), runs folded, one plain update per run.
template <int Threads, int Items, int EndBit>
__global__ void __launch_bounds__(Threads, 1) sorted_kernel(const unsigned* records, long long n, int G,
                                                            unsigned* rows) {
  using sort_t = cub::BlockRadixSort<std::uint16_t, Threads, Items, unsigned>;
  using scan_t = cub::BlockScan<segment, Threads>;
  __shared__ union {
    typename sort_t::TempStorage sort;
    typename scan_t::TempStorage scan;
  } temp;
  __shared__ std::uint16_t first_key[Threads + 1], last_key[Threads];
  extern __shared__ unsigned copy[];
  clear_copy(copy, G);
  const chunk c = chunk_of_block(n);
  constexpr int tile = Threads * Items;
  constexpr std::uint16_t none = static_cast<std::uint16_t>((1u << EndBit) - 1u);
  const int t = threadIdx.x;
  for (long long base = c.begin; base < c.end; base += tile) {
    std::uint16_t key[Items];
    unsigned val[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const long long i = base + k * Threads + t;
      load_key_value(records, i, c.end, none, key[k], val[k]);
    }
    __syncthreads();  // the previous tile's updates and key exchange are done with temp and the key arrays
    sort_t(temp.sort).Sort(key, val, 0, EndBit);  // blocked: thread t holds sorted items t * Items ..
    apply_runs<Threads, Items>(key, val, none, first_key, last_key, temp.scan, copy);
  }
  write_row(copy, G, rows);
}

// The same with two 8-bit passes ranked by match.any (cub::BlockRadixRankMatch, onesweep's ranking: stable in the
// warp-striped order), the keys and values exchanged through shared memory after each pass: the first pass's
// output is read back warp-striped for the second, the second's blocked for the runs.
template <int Threads, int Items>
__global__ void __launch_bounds__(Threads, 1) sorted_match_kernel(const unsigned* records, long long n, int G,
                                                                  unsigned* rows) {
  using rank_t = cub::BlockRadixRankMatch<Threads, 8, false>;
  using scan_t = cub::BlockScan<segment, Threads>;
  constexpr int tile = Threads * Items;
  __shared__ union {
    typename rank_t::TempStorage rank;
    typename scan_t::TempStorage scan;
  } temp;
  __shared__ std::uint16_t first_key[Threads + 1], last_key[Threads];
  extern __shared__ unsigned copy[];  // G bins, then the exchange: values and keys of a tile
  unsigned* xval = copy + (G + 3) / 4 * 4;
  std::uint16_t* xkey = reinterpret_cast<std::uint16_t*>(xval + tile);
  clear_copy(copy, G);
  const chunk c = chunk_of_block(n);
  constexpr std::uint16_t none = 0xffffu;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int striped = warp * 32 * Items + lane;  // item k of this thread: tile position striped + 32 k
  for (long long base = c.begin; base < c.end; base += tile) {
    std::uint16_t key[Items];
    unsigned val[Items];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const long long i = base + striped + 32 * k;
      load_key_value(records, i, c.end, none, key[k], val[k]);
    }
#pragma unroll
    for (int pass = 0; pass < 2; ++pass) {
      int rank[Items];
      __syncthreads();  // temp and the exchange arrays are free
      rank_t(temp.rank).RankKeys(key, rank, cub::ShiftDigitExtractor<std::uint16_t>(8 * pass, 8));
      __syncthreads();
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        xkey[rank[k]] = key[k];
        xval[rank[k]] = val[k];
      }
      __syncthreads();
      if (pass == 0) {
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          key[k] = xkey[striped + 32 * k];
          val[k] = xval[striped + 32 * k];
        }
      } else {
#pragma unroll
        for (int k = 0; k < Items; ++k) {
          key[k] = xkey[t * Items + k];
          val[k] = xval[t * Items + k];
        }
      }
    }
    apply_runs<Threads, Items>(key, val, none, first_key, last_key, temp.scan, copy);
  }
  write_row(copy, G, rows);
}

// Compare-and-swap with warp folding of the updates that lost: each lane tries its update once; the lanes whose
// compare-and-swap failed match their bins, fold their values (__reduce_add_sync: the saturating add of values
// >= 0 is their sum, saturated) and one lane per bin loops until its update lands. Always: every input matched.
template <int Threads, bool Always>
__global__ void __launch_bounds__(Threads, 1) cas_fold_kernel(const unsigned* records, long long n, int G,
                                                             unsigned* rows) {
  extern __shared__ unsigned copy[];
  clear_copy(copy, G);
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for_each_warp_step<Threads>(records, chunk_of_block(n), [&](bool valid, unsigned r) {
    const unsigned bin = valid ? bin_of(r) : 0xffffffffu;
    const unsigned v = valid ? value_of(r) : 0u;
    bool pending = valid;
    if (!Always && valid) {
      unsigned* w = copy + bin;
      const unsigned assumed = *reinterpret_cast<volatile unsigned*>(w);
      pending = atomicCAS(w, assumed, saturating_add24(assumed, v)) != assumed;
    }
    const unsigned lost = __ballot_sync(0xffffffffu, pending);
    if (pending) {
      const unsigned peers = __match_any_sync(lost, bin);
      const unsigned total = __reduce_add_sync(peers, v);
      if (lane == __ffs(peers) - 1) cas_loop(copy + bin, total);
    }
    __syncwarp();
  });
  write_row(copy, G, rows);
}

// ghist's own loop for the compare-and-swap class (deferred_cas.cuh: a lost update waits in registers).
template <int Threads>
__global__ void __launch_bounds__(Threads, 1) deferred_kernel(const unsigned* records, long long n, int G,
                                                             unsigned* rows) {
  extern __shared__ unsigned copy[];
  clear_copy(copy, G);
  __syncthreads();
  ghist::detail::deferred_cas_updater<bench::saturating_add24> deferred(bench::saturating_add24{});
  for_each_record<Threads>(records, chunk_of_block(n),
                           [&](unsigned r) { deferred.update(copy, static_cast<int>(bin_of(r)), value_of(r)); });
  deferred.flush(copy);
  write_row(copy, G, rows);
}

// The lost updates folded as above, and then held: each warp keeps a private table of 32 entries (bin, value) in
// shared memory, direct-mapped by a hash of the bin. An input whose bin is held folds into its entry (the warp's
// lanes of one bin first match and reduce); a folded update that lost its compare-and-swap takes its entry, and
// the entry's previous bin goes to the copy. A hot bin then stays in each warp's table and its word of the copy
// sees few updates. The tables go to the copy at the end.
template <int Threads>
__global__ void __launch_bounds__(Threads, 1) cas_held_kernel(const unsigned* records, long long n, int G,
                                                             unsigned* rows) {
  extern __shared__ unsigned copy[];
  constexpr int warps = Threads / 32;
  unsigned* tag_base = copy + (G + 31) / 32 * 32;
  unsigned* val_base = tag_base + warps * 32;
  clear_copy(copy, G);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  unsigned* tag = tag_base + warp * 32;
  unsigned* val = val_base + warp * 32;
  tag[lane] = 0xffffffffu;
  val[lane] = 0;
  __syncthreads();
  for_each_warp_step<Threads>(records, chunk_of_block(n), [&](bool valid, unsigned r) {
    const unsigned bin = valid ? bin_of(r) : 0xfffffffeu;
    const unsigned v = valid ? value_of(r) : 0u;
    const int e = static_cast<int>((bin * 0x9E3779B1u) >> 27);
    const bool hit = valid && tag[e] == bin;
    const unsigned hits = __ballot_sync(0xffffffffu, hit);
    if (hits != 0) {
      if (hit) {
        const unsigned peers = __match_any_sync(hits, bin);
        const unsigned total = __reduce_add_sync(peers, v);
        if (lane == __ffs(peers) - 1) val[e] = saturating_add24(val[e], total);
      }
      __syncwarp();
    }
    bool pending = valid && !hit;
    if (pending) {
      unsigned* w = copy + bin;
      const unsigned assumed = *reinterpret_cast<volatile unsigned*>(w);
      pending = atomicCAS(w, assumed, saturating_add24(assumed, v)) != assumed;
    }
    const unsigned lost = __ballot_sync(0xffffffffu, pending);
    if (lost != 0) {
      bool leader = false;
      unsigned total = 0;
      if (pending) {
        const unsigned peers = __match_any_sync(lost, bin);
        total = __reduce_add_sync(peers, v);
        leader = lane == __ffs(peers) - 1;
      }
      const unsigned leaders = __ballot_sync(0xffffffffu, leader);
      if (leader) {
        const unsigned same_entry = __match_any_sync(leaders, e);
        if (lane == __ffs(same_entry) - 1) {
          const unsigned old_tag = tag[e], old_val = val[e];
          tag[e] = bin;
          val[e] = total;
          if (old_tag != 0xffffffffu) cas_loop(copy + old_tag, old_val);
        } else {
          cas_loop(copy + bin, total);
        }
      }
      __syncwarp();
    }
  });
  if (tag[lane] != 0xffffffffu) cas_loop(copy + tag[lane], val[lane]);
  write_row(copy, G, rows);
}

template <class Kernel>
float time_kernel(Kernel kernel, int blocks, int threads, std::size_t shared, const unsigned* records, long long n,
                  int G, unsigned* rows) {
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  bench::event_timer timer;  // a warm-up, then the median of 7
  return static_cast<float>(
      timer.median([&] { kernel<<<blocks, threads, shared>>>(records, n, G, rows); }, {7, 7, 1e9}).us);
}

bool rows_match(const std::vector<unsigned>& want, unsigned* rows, int blocks, int G) {
  std::vector<unsigned> got(static_cast<std::size_t>(blocks) * G);
  CK(cudaMemcpy(got.data(), rows, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int b = 0; b < G; ++b) {
    unsigned acc = 0;
    for (int r = 0; r < blocks; ++r) acc = saturating_add24(acc, got[static_cast<std::size_t>(r) * G + b]);
    if (acc != want[b]) return false;
  }
  return true;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const long long n = 50000000;
  const int G = 32767;  // bins of the group: below 2^15, so 15 sorted bits
  std::printf("%s, %d SMs; N = %lld records, a group of %d bins, one block of 1024 per SM\n", prop.name, sms, n, G);
  std::vector<unsigned> host(n);
  unsigned *records, *rows;
  CK(cudaMalloc(&records, n * sizeof(unsigned)));
  CK(cudaMalloc(&rows, static_cast<std::size_t>(sms) * G * sizeof(unsigned)));
  std::mt19937_64 rng(42);
  // Zipf(1.1) over the G bins by rank (bin 0 hottest), through the inverse of its cumulative distribution.
  std::vector<double> cdf(G);
  double total = 0;
  for (int k = 0; k < G; ++k) cdf[k] = (total += std::pow(k + 1.0, -1.1));
  for (double& p : cdf) p /= total;
  const char* names[] = {"uniform", "stride 63 (RF 63)", "zipf(1.1)", "one bin"};
  for (int dist = 0; dist < 4; ++dist) {
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    for (long long i = 0; i < n; ++i) {
      const unsigned r = static_cast<unsigned>(rng());
      unsigned bin = 0;
      if (dist == 0) bin = r % G;
      else if (dist == 1) bin = (r % ((G + 62) / 63)) * 63;
      else if (dist == 2) bin = static_cast<unsigned>(std::lower_bound(cdf.begin(), cdf.end(), u01(rng)) - cdf.begin());
      else bin = 7;
      if (bin >= static_cast<unsigned>(G)) bin = G - 1;
      host[i] = bin | (r & 0xff0000u);
    }
    std::vector<unsigned> want(G, 0);
    for (long long i = 0; i < n; ++i)
      want[host[i] & 0xffffu] = saturating_add24(want[host[i] & 0xffffu], ((host[i] >> 16) & 0xffu) + 1u);
    CK(cudaMemcpy(records, host.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    const std::size_t shared = static_cast<std::size_t>(G) * sizeof(unsigned);
    auto report = [&](const char* what, float us) {
      std::printf("  %-18s %-40s %9.1f us  %s\n", names[dist], what, us,
                  rows_match(want, rows, sms, G) ? "exact" : "WRONG");
    };
    report("compare-and-swap loop", time_kernel(cas_kernel<1024>, sms, 1024, shared, records, n, G, rows));
    report("ghist's deferred loop", time_kernel(deferred_kernel<1024>, sms, 1024, shared, records, n, G, rows));
    report("cas, lost folded and held",
           time_kernel(cas_held_kernel<1024>, sms, 1024, shared + 32 * 4 * 2 * 32 + 128, records, n, G, rows));
    report("cas, lost updates folded", time_kernel(cas_fold_kernel<1024, false>, sms, 1024, shared, records, n, G, rows));
    report("cas, every update folded", time_kernel(cas_fold_kernel<1024, true>, sms, 1024, shared, records, n, G, rows));
    report("sorted tiles 1024 x 8", time_kernel(sorted_kernel<1024, 8, 15>, sms, 1024, shared, records, n, G, rows));
    auto with_exchange = [&](int tile) { return static_cast<std::size_t>((G + 3) / 4 * 4) * 4 + tile * 6; };
    report("match-ranked 1024 x 8",
           time_kernel(sorted_match_kernel<1024, 8>, sms, 1024, with_exchange(8192), records, n, G, rows));
    report("match-ranked 512 x 16",
           time_kernel(sorted_match_kernel<512, 16>, sms, 512, with_exchange(8192), records, n, G, rows));
    report("match-ranked 512 x 8",
           time_kernel(sorted_match_kernel<512, 8>, sms, 512, with_exchange(4096), records, n, G, rows));
    report("sorted tiles 512 x 16", time_kernel(sorted_kernel<512, 16, 15>, sms, 512, shared, records, n, G, rows));
  }
  return 0;
}
