// HistogramEven of contiguous __half or float samples into at most 256 bins: a kernel of its own instead of the
// engine, counting the bins as the byte kernel counts bytes (byte_histogram/): a 256-slot histogram per warp in
// shared memory with the byte kernel's bank swizzle, and every block adds its counts straight into the caller's
// counters (byte_job::direct). One memset of the caller's bins and one launch per call; the engine's plan (copies
// per block, a fill of the caller's bins, merges) costs more at 256 bins (float: 0.98x CUB there).
//
// float: CUB's formula (even_transform, kind cub_float) on each sample, four per 16-byte load, with the levels in
// registers (float_even_counter).
//
// __half: the engine visits one sample at a time, and CUB's 16-bit bin formula (even_transform, kind cub_half)
// costs about eight instructions per sample: two compares, a subtraction, a multiplication, a compare, a conversion
// and the engine's own bin check, so 2^28 samples took 290 us on the lent H100, as CUB does, at 1.6x the read
// floor. Here each step runs on __half2, the 16-bit SIMD type, so that one instruction serves two samples with the
// same rounding per lane as the scalar intrinsics:
//   in range   __hge2_mask(x, lower) & __hlt2_mask(x, upper)  (NaN fails both, as in the scalar test)
//   q          __hmul2(__hsub2(x, lower), recip)              (each step rounded to half, as CUB rounds it)
//   bin        min(trunc(q), bins - 1)                         (= the scalar "q < bins ? int(q) : bins - 1", q >= 0)
// and adding 1024 to the bin (exact in half up to 2047) leaves it in the low 10 bits of each 16-bit lane, so the two
// bins come out of one register without a conversion.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "ghist/detail/byte_histogram/common.cuh"
#include "ghist/detail/byte_histogram/launch.cuh"
#include "ghist/detail/cub_compat/even_transform.hpp"
#include "ghist/detail/cuda_check.hpp"

namespace ghist::cub_compat::detail {

/// The levels as even_transform holds them (floats with half values) and the bin count (1..256).
struct half_even_args {
  float lo = 0, hi = 0, recip = 0;
  int bins = 1;
};

/// The most bins the path takes: one 256-slot histogram per warp.
inline constexpr std::int64_t small_even_max_bins = 256;

/// The levels converted once per thread, as the scalar formula converts them (__float2half_rn).
struct half2_levels {
  __half2 lo, hi, recip, last, magic;
  __device__ explicit half2_levels(const half_even_args& a)
      : lo(__float2half2_rn(a.lo)),
        hi(__float2half2_rn(a.hi)),
        recip(__float2half2_rn(a.recip)),
        last(__float2half2_rn(static_cast<float>(a.bins - 1))),
        magic(__float2half2_rn(1024.0f)) {}
};

/// Counts the samples of x in `lanes` (0xffffffff: both; 0xffff: the low one) into this warp's histogram h (bin b
/// at byte_slot(b)).
__device__ __forceinline__ void count_half2(unsigned* h, __half2 x, const half2_levels& l,
                                            unsigned lanes = 0xffffffffu) {
  const unsigned in = __hge2_mask(x, l.lo) & __hlt2_mask(x, l.hi) & lanes;
  if (in == 0) return;
  const __half2 q = __hmin2(h2trunc(__hmul2(__hsub2(x, l.lo), l.recip)), l.last);
  const __half2 biased = __hadd2(q, l.magic);  // 1024 + bin: the bin in the low 10 bits of each lane
  unsigned bits;
  static_assert(sizeof(bits) == sizeof(biased), "two halves in a word");
  memcpy(&bits, &biased, sizeof(bits));
  // Both lanes' slots at once (byte_slots on 16-bit lanes: the swizzle takes bits 5..7 of each bin).
  const unsigned bins = bits & 0x03ff03ffu;
  const unsigned slots = bins ^ ((bins >> 5) & 0x00070007u);
  if (in & 0xffffu) atomicAdd(&h[slots & 0xffffu], 1u);
  if (in >> 16) atomicAdd(&h[slots >> 16], 1u);
}

/// One sample (the unaligned head and tail): the pair formula on (x, x), the low lane counted.
__device__ __forceinline__ void count_half(unsigned* h, __half x, const half2_levels& l) {
  count_half2(h, __halves2half2(x, x), l, 0xffffu);
}

/// How the kernel counts __half samples: pairs through half2_levels.
struct half_pairs_counter {
  using sample = __half;
  half_even_args args;
  __device__ half2_levels prepare() const { return half2_levels(args); }
  __device__ void count_vector(unsigned* h, const uint4& v, const half2_levels& l) const {
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      __half2 x;
      memcpy(&x, &words[k], sizeof(x));
      count_half2(h, x, l);
    }
  }
  __device__ void count_one(unsigned* h, sample x, const half2_levels& l) const { count_half(h, x, l); }
};

/// How the kernel counts float samples: CUB's float formula, as even_transform<float, LevelT> computes it for kind
/// cub_float (the only kind that takes this path), with the levels held by the counter: no per-sample test of the
/// transform's kind, and a 32-bit bin. Lent H100, 2^28 floats into 32 / 256 bins: 0.975-0.980 of the read floor,
/// 1.025-1.036x CUB, where the even_transform per sample ran at 0.954-0.958, level with CUB
/// (bench/experiments/small_even_tuning_probe.cu; bench/results/2026-11-28-h100-issue4-final.txt, section 1).
struct float_even_counter {
  using sample = float;
  float lo = 0, hi = 0, recip = 0;
  int bins = 1;
  __device__ const float_even_counter& prepare() const { return *this; }
  __device__ void count_one(unsigned* h, sample x, const float_even_counter&) const {
    if (!(x >= lo && x < hi)) return;  // NaN fails both tests
    const float q = (x - lo) * recip;
    // q >= 0; compared before the conversion, as the transform does: q may round up to bins.
    const unsigned b = q < static_cast<float>(bins) ? static_cast<unsigned>(static_cast<int>(q)) : bins - 1;
    atomicAdd(&h[ghist::detail::bytes::byte_slot<1, true>(b)], 1u);
  }
  __device__ void count_vector(unsigned* h, const uint4& v, const float_even_counter& c) const {
    count_one(h, __uint_as_float(v.x), c);
    count_one(h, __uint_as_float(v.y), c);
    count_one(h, __uint_as_float(v.z), c);
    count_one(h, __uint_as_float(v.w), c);
  }
};

/// Tuning: 512 threads x 2 blocks per SM (16 KiB of histograms per block), 4 vectors (32 samples) per thread per
/// tile, the next tile's loads issued before this one is counted. 256..1024 threads and 2..8 vectors per thread
/// with float_even_counter were within 1% of it (the probe above; 8 vectors at 512 threads lost 20% on 2026-11-22).
struct small_even_tuning {
  static constexpr int block = 512;
  static constexpr int unroll = 4;
  static constexpr int min_blocks_per_sm = 2;
};

/// job.vectors: 16-byte vectors of samples; job.head / job.tail: samples counted one by one (their byte counts are
/// sizeof(sample) times their sample counts).
template <class Tuning, class Counter>
__global__ void __launch_bounds__(Tuning::block, Tuning::min_blocks_per_sm)
    count_small_even_kernel(ghist::detail::bytes::byte_job job, Counter counter) {
  using sample = typename Counter::sample;
  namespace bytes = ghist::detail::bytes;
  constexpr int Block = Tuning::block, Unroll = Tuning::unroll, warps = Block / 32;
  __shared__ unsigned hist[warps * bytes::byte_values];
  for (int k = threadIdx.x; k < warps * bytes::byte_values; k += Block) hist[k] = 0;
  __syncthreads();
  const auto& state = counter.prepare();
  unsigned* h = hist + (threadIdx.x / 32) * bytes::byte_values;
  if (blockIdx.x == 0) {
    const auto* head = reinterpret_cast<const sample*>(job.head);
    const auto* tail = reinterpret_cast<const sample*>(job.tail);
    if (threadIdx.x < job.head_bytes / static_cast<int>(sizeof(sample))) counter.count_one(h, head[threadIdx.x], state);
    if (threadIdx.x < job.tail_bytes / static_cast<int>(sizeof(sample))) counter.count_one(h, tail[threadIdx.x], state);
  }

  const bytes::tiling<Block, Unroll> t(job.num_vectors);
  t.for_each_full_tile(job.vectors, [&](const uint4 (&v)[Unroll], std::int64_t) {
#pragma unroll
    for (int j = 0; j < Unroll; ++j) counter.count_vector(h, v[j], state);
  });
  if (t.has_tail())
    t.for_each_tail_vector(job.vectors, [&](const uint4& v, std::int64_t) { counter.count_vector(h, v, state); });
  __syncthreads();

  // The warps' histograms into warp 0's (slot by slot: the swizzle is the same in every warp), then the totals.
  for (int s = threadIdx.x; s < bytes::byte_values; s += Block) {
    unsigned sum = 0;
    for (int w = 0; w < warps; ++w) sum += hist[w * bytes::byte_values + s];
    hist[s] = sum;
  }
  __syncthreads();
  bytes::finish_block<Block, 1, true>(hist, job);
}

/// even_transform<__half, LevelT> whose arithmetic is __half's (the levels' common type with __half is __half), and
/// even_transform<float, LevelT> whose arithmetic is float's.
template <class Transform>
inline constexpr bool is_half_even_transform_v = false;
template <class LevelT>
inline constexpr bool is_half_even_transform_v<even_transform<__half, LevelT>> =
    std::is_same_v<typename even_transform<__half, LevelT>::common, __half>;
template <class Transform>
inline constexpr bool is_float_even_transform_v = false;
template <class LevelT>
inline constexpr bool is_float_even_transform_v<even_transform<float, LevelT>> =
    std::is_same_v<typename even_transform<float, LevelT>::common, float>;

/// Whether a HistogramEven call takes this path: one channel of contiguous __half or float samples behind a
/// pointer, levels of the same arithmetic (kind cub_half or cub_float) and at most 256 bins. Depends only on what
/// the size query sees too.
template <int Channels, class SampleIt, class Transform>
bool takes_small_even_path(bool contiguous, const Transform& t) {
  using SampleT = std::remove_cv_t<typename std::iterator_traits<SampleIt>::value_type>;
  if constexpr (Channels == 1 && std::is_pointer_v<SampleIt> &&
                ((std::is_same_v<SampleT, __half> && is_half_even_transform_v<Transform>) ||
                 (std::is_same_v<SampleT, float> && is_float_even_transform_v<Transform>))) {
    const even_kind kind = std::is_same_v<SampleT, __half> ? even_kind::cub_half : even_kind::cub_float;
    return contiguous && t.kind == kind && t.bins >= 1 && t.bins <= small_even_max_bins;
  } else {
    (void)contiguous, (void)t;
    return false;
  }
}

/// Persistent grid of the kernel on `device` (blocks that fit at once), made once per device.
template <class Tuning, class Counter>
int small_even_grid(int device) {
  static std::atomic<int> cache[ghist::detail::bytes::max_cached_devices] = {};
  return ghist::detail::bytes::grid_once_per_device(cache, device, [](int d) {
    using K = Tuning;
    int sms = 0, per_sm = 0;
    GHIST_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    GHIST_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count_small_even_kernel<K, Counter>, K::block, 0));
    return std::max(1, sms * per_sm);
  });
}

/// Enqueues the kernel with `counter` (half_pairs_counter, float_even_counter): hist (Word = 4- or 8-byte counters)
/// gets `bins` bins (1..256), overwritten, from n samples; the blocks add into it directly, so it needs no
/// temporary storage. Throws ghist::error on a failed CUDA call. The input is cut and launched as the byte kernels'
/// (split_into_vectors, launch_job_parts). Tuning: another than small_even_tuning only for probes of the tuning
/// (bench/experiments/small_even_tuning_probe.cu).
template <class Word, class Tuning = small_even_tuning, class Counter>
void launch_small_even(const typename Counter::sample* samples, std::int64_t n, int bins, const Counter& counter,
                       Word* hist, cudaStream_t stream) {
  namespace bytes = ghist::detail::bytes;
  using SampleT = typename Counter::sample;
  bytes::byte_job job;
  job.hist = hist;
  job.hist_word_bytes = static_cast<int>(sizeof(Word));
  job.num_bins = bins;
  job.accumulate = false;
  for (int v = 0; v < bytes::byte_values; ++v) job.map.bin[v] = v < bins ? v : -1;
  job.direct = true;
  GHIST_CUDA_CHECK(cudaMemsetAsync(hist, 0, static_cast<std::size_t>(bins) * sizeof(Word), stream));

  bytes::split_into_vectors(reinterpret_cast<const std::uint8_t*>(samples), n * std::int64_t(sizeof(SampleT)), job);
  int device = 0;
  GHIST_CUDA_CHECK(cudaGetDevice(&device));
  using K = Tuning;
  bytes::launch_job_parts(small_even_grid<K, Counter>(device), std::int64_t(K::block) * K::unroll, job,
                          [&](int grid, const bytes::byte_job& part) {
                            count_small_even_kernel<K, Counter><<<grid, K::block, 0, stream>>>(part, counter);
                          });
}

/// The path for a call that takes it (takes_small_even_path): hist gets t.bins bins from n samples, as
/// launch_small_even.
template <class Word, class SampleT, class LevelT>
void run_small_even_path(const SampleT* samples, std::int64_t n, const even_transform<SampleT, LevelT>& t, Word* hist,
                         cudaStream_t stream) {
  const int bins = static_cast<int>(t.bins);
  if constexpr (std::is_same_v<SampleT, __half>) {
    launch_small_even<Word>(samples, n, bins, half_pairs_counter{half_even_args{t.lo, t.hi, t.recip, bins}}, hist,
                            stream);
  } else {
    static_assert(std::is_same_v<typename even_transform<SampleT, LevelT>::value, float>, "float levels");
    launch_small_even<Word>(samples, n, bins, float_even_counter{t.lo, t.hi, t.recip, bins}, hist, stream);
  }
}

}  // namespace ghist::cub_compat::detail
