// What a CUB user writes today, on the same input and bins as ghist:
//   counting (HDW):       cub::DeviceHistogram::HistogramEven over a transform iterator that yields each bin;
//   other operators:      cub::DeviceRadixSort::SortPairs on (bin, value), then cub::DeviceReduce::ReduceByKey.
//
// For the sort-based baseline the keys and values are materialised first by a small kernel, outside the timed
// region: a fused transform could save that pass, but SortPairs needs arrays, and the timed part is what any CUB
// user pays for the histogram itself (sort + reduce-by-key). The sort looks at the low ceil(log2(H)) key bits only.
// Temporary storage is allocated before timing. Each answer is checked against the CPU backend (outside timing):
// the reduce-by-key result is scattered into a dense histogram first.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime_api.h>
#include <thrust/iterator/transform_iterator.h>

#include "check.cuh"
#include "seed000_ops.cuh"
#include "timing.cuh"

namespace bench {

/// Device buffers for the CUB baselines, sized once for n inputs, at most max_bins bins and 8-byte values.
class cub_buffers {
 public:
  cub_buffers(std::int64_t n, std::int64_t max_bins) {
    const std::size_t items = static_cast<std::size_t>(n);
    BENCH_CHECK(cudaMalloc(&keys_in, items * sizeof(std::uint32_t)));
    BENCH_CHECK(cudaMalloc(&keys_out, items * sizeof(std::uint32_t)));
    BENCH_CHECK(cudaMalloc(&values_in, items * value_bytes));
    BENCH_CHECK(cudaMalloc(&values_out, items * value_bytes));
    BENCH_CHECK(cudaMalloc(&unique_out, static_cast<std::size_t>(max_bins) * sizeof(std::uint32_t)));
    BENCH_CHECK(cudaMalloc(&aggregates_out, static_cast<std::size_t>(max_bins) * value_bytes));
    BENCH_CHECK(cudaMalloc(&histogram, static_cast<std::size_t>(max_bins) * sizeof(int)));
    BENCH_CHECK(cudaMalloc(&num_runs, sizeof(long long)));
  }
  ~cub_buffers() {
    for (void* p : {static_cast<void*>(keys_in), static_cast<void*>(keys_out), values_in, values_out,
                    static_cast<void*>(unique_out), aggregates_out, static_cast<void*>(histogram),
                    static_cast<void*>(num_runs), temp_})
      (void)cudaFree(p);
  }
  cub_buffers(const cub_buffers&) = delete;
  cub_buffers& operator=(const cub_buffers&) = delete;

  /// At least `bytes` of temporary storage (grown with cudaMalloc, never during a timed run).
  void* temp(std::size_t bytes) {
    if (bytes > temp_bytes_) {
      BENCH_CHECK(cudaFree(temp_));
      temp_ = nullptr;
      BENCH_CHECK(cudaMalloc(&temp_, bytes));
      temp_bytes_ = bytes;
    }
    return temp_;
  }

  static constexpr std::size_t value_bytes = 8;  // the largest value type of seed000_ops.cuh
  std::uint32_t* keys_in = nullptr;
  std::uint32_t* keys_out = nullptr;
  void* values_in = nullptr;
  void* values_out = nullptr;
  std::uint32_t* unique_out = nullptr;
  void* aggregates_out = nullptr;
  int* histogram = nullptr;
  long long* num_runs = nullptr;

 private:
  void* temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

struct baseline_result {
  timing t;
  std::string label;
  std::string status = "ok";  ///< "ok", or "MISMATCH: ..." when CUB's answer differs from the CPU backend's
};

/// Bits the radix sort must look at for keys in [0, H): ceil(log2(H)), at least 1.
inline int key_bits(std::int64_t H) {
  int bits = 1;
  while ((std::int64_t(1) << bits) < H) ++bits;
  return bits;
}

template <class Fn, class T>
__global__ void make_keys_values_kernel(const std::uint32_t* in, std::int64_t n, Fn f, std::uint32_t* keys,
                                        T* values) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const auto u = f(in[i]);
    keys[i] = static_cast<std::uint32_t>(u.bin);
    values[i] = u.value;
  }
}

/// CUB HistogramEven on the HDW cell's bins (an int counter per bin, levels 0, 1, ..., H).
inline baseline_result cub_histogram_even(const std::uint32_t* d_in, std::int64_t n, std::int64_t H,
                                          seed000_bin bin, const std::vector<std::int32_t>& expected,
                                          cub_buffers& buf, event_timer& timer, const timing_policy& policy) {
  baseline_result r;
  r.label = "cub HistogramEven";
  auto samples = thrust::make_transform_iterator(d_in, cub_sample_of{bin});
  const int levels = static_cast<int>(H + 1);
  std::size_t temp_bytes = 0;
  BENCH_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, buf.histogram, levels, 0, int(H), n));
  void* temp = buf.temp(temp_bytes);
  auto run = [&] {
    BENCH_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, buf.histogram, levels, 0, int(H), n));
  };
  BENCH_CHECK(cudaMemset(buf.histogram, 0xab, static_cast<std::size_t>(H) * sizeof(int)));  // a no-op cannot pass
  run();
  BENCH_CHECK(cudaDeviceSynchronize());
  std::vector<std::int32_t> got(static_cast<std::size_t>(H));
  BENCH_CHECK(cudaMemcpy(got.data(), buf.histogram, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  r.status = compare(got, expected);
  r.t = timer.median(run, policy);
  return r;
}

/// CUB SortPairs (bins as keys, the operator's values) + ReduceByKey with the operator.
template <class Op, class Fn>
baseline_result cub_sort_reduce(const std::uint32_t* d_in, std::int64_t n, std::int64_t H, Fn fn,
                                const std::vector<typename Op::value_type>& expected, cub_buffers& buf,
                                event_timer& timer, const timing_policy& policy) {
  using T = typename Op::value_type;
  static_assert(sizeof(T) <= cub_buffers::value_bytes, "cub_buffers holds values of at most 8 bytes");
  baseline_result r;
  r.label = "cub SortPairs+ReduceByKey";
  auto* values_in = static_cast<T*>(buf.values_in);
  auto* values_out = static_cast<T*>(buf.values_out);
  auto* aggregates = static_cast<T*>(buf.aggregates_out);

  // Not timed: the keys and values the sort needs, materialised.
  make_keys_values_kernel<<<4096, 256>>>(d_in, n, fn, buf.keys_in, values_in);
  BENCH_CHECK(cudaGetLastError());

  const int end_bit = key_bits(H);
  std::size_t sort_bytes = 0, reduce_bytes = 0;
  BENCH_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, buf.keys_in, buf.keys_out, values_in, values_out,
                                              n, 0, end_bit));
  BENCH_CHECK(cub::DeviceReduce::ReduceByKey(nullptr, reduce_bytes, buf.keys_out, buf.unique_out, values_out,
                                             aggregates, buf.num_runs, Op{}, n));
  void* temp = buf.temp(sort_bytes > reduce_bytes ? sort_bytes : reduce_bytes);
  auto run = [&] {
    BENCH_CHECK(cub::DeviceRadixSort::SortPairs(temp, sort_bytes, buf.keys_in, buf.keys_out, values_in, values_out,
                                                n, 0, end_bit));
    BENCH_CHECK(cub::DeviceReduce::ReduceByKey(temp, reduce_bytes, buf.keys_out, buf.unique_out, values_out,
                                               aggregates, buf.num_runs, Op{}, n));
  };
  // Poisoned first, so that a run that writes nothing cannot pass on the previous cell's answer.
  BENCH_CHECK(cudaMemset(buf.num_runs, 0xff, sizeof(long long)));
  BENCH_CHECK(cudaMemset(buf.aggregates_out, 0xab, static_cast<std::size_t>(H) * sizeof(T)));
  run();
  BENCH_CHECK(cudaDeviceSynchronize());

  // Not timed: scatter the runs into a dense histogram and compare.
  long long runs = 0;
  BENCH_CHECK(cudaMemcpy(&runs, buf.num_runs, sizeof runs, cudaMemcpyDeviceToHost));
  if (runs < 0 || runs > H) {
    r.status = "MISMATCH: ReduceByKey returned " + std::to_string(runs) + " runs for " + std::to_string(H) + " bins";
  } else {
    std::vector<std::uint32_t> keys(static_cast<std::size_t>(runs));
    std::vector<T> values(static_cast<std::size_t>(runs));
    BENCH_CHECK(cudaMemcpy(keys.data(), buf.unique_out, keys.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(values.data(), aggregates, values.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<T> got(static_cast<std::size_t>(H), Op::identity());
    r.status = "ok";
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] >= static_cast<std::uint64_t>(H)) {
        r.status = "MISMATCH: ReduceByKey returned key " + std::to_string(keys[k]) + " >= H";
        break;
      }
      got[keys[k]] = values[k];
    }
    if (r.status == "ok") r.status = compare(got, expected);
  }
  r.t = timer.median(run, policy);
  return r;
}

}  // namespace bench
