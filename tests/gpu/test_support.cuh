// Shared helpers of the GPU tests: device buffers, random inputs of several distributions, and the operators of
// the three atomic classes with how to draw values for them and how to compare results.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "ghist/atomic_class.hpp"
#include "ghist/operators.hpp"
#include "ghist/update.hpp"

namespace ghist_test {

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

/// Owning device buffer.
template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count_ > 0 && cudaMalloc(&ptr_, count_ * sizeof(T)) != cudaSuccess) throw std::runtime_error("cudaMalloc");
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { upload(host); }
  ~device_buffer() { cudaFree(ptr_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  T* get() const { return static_cast<T*>(ptr_); }
  std::size_t size() const { return count_; }
  /// Done when it returns, for work on any stream: a cudaMemcpy from pageable memory may return before its DMA has
  /// landed (the runtime's synchronous-API rules), and a non-blocking stream does not wait for the legacy stream's
  /// copy. OverwriteGate.CapturedCallReplays once saw the tail of the previous contents (bins 4192..5999 of 6000)
  /// after its graph's fill, under eight test processes on one lent H200.
  void upload(const std::vector<T>& host) {
    if (!host.empty() && cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy H2D");
    if (cudaDeviceSynchronize() != cudaSuccess) throw std::runtime_error("cudaDeviceSynchronize after H2D");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0 && cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::runtime_error("cudaMemcpy D2H");
    return host;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// A fresh seed per run (printed with every failure through SCOPED_TRACE by the callers).
inline std::uint64_t fresh_seed() { return (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}(); }

enum class distribution { uniform, one_bin, zipf, sorted, out_of_range };
inline const char* to_string(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::one_bin: return "one_bin";
    case distribution::zipf: return "zipf";
    case distribution::sorted: return "sorted";
    case distribution::out_of_range: return "out_of_range";
  }
  return "?";
}
inline const distribution all_distributions[] = {distribution::uniform, distribution::one_bin, distribution::zipf,
                                                 distribution::sorted, distribution::out_of_range};

/// Bins for n inputs over H bins, as int32 (so that negative, out-of-range bins are representable).
inline std::vector<std::int32_t> make_bins(distribution d, std::int64_t n, std::int64_t H, std::mt19937_64& rng) {
  std::vector<std::int32_t> bins(static_cast<std::size_t>(n));
  std::uniform_int_distribution<std::int64_t> any_bin(0, H - 1);
  switch (d) {
    case distribution::uniform:
    case distribution::sorted:
      for (auto& b : bins) b = static_cast<std::int32_t>(any_bin(rng));
      if (d == distribution::sorted) std::sort(bins.begin(), bins.end());
      break;
    case distribution::one_bin: {
      const auto b = static_cast<std::int32_t>(any_bin(rng));
      std::fill(bins.begin(), bins.end(), b);
      break;
    }
    case distribution::zipf: {
      // Log-uniform ranks: P(rank ~ k) proportional to 1/k, a Zipf(1)-like skew; ranks map to scattered bins.
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const std::int64_t offset = any_bin(rng);
      for (auto& b : bins) {
        auto rank = static_cast<std::int64_t>(std::exp(u(rng) * std::log(double(H) + 1.0))) - 1;
        rank = std::clamp<std::int64_t>(rank, 0, H - 1);
        b = static_cast<std::int32_t>((rank * 7919 + offset) % H);
      }
      break;
    }
    case distribution::out_of_range: {
      std::uniform_int_distribution<std::int64_t> wide(-H / 4 - 3, H + H / 4 + 3);
      std::uniform_int_distribution<int> pick(0, 99);
      for (auto& b : bins) {
        const int p = pick(rng);
        b = p == 0 ? INT32_MIN : p == 1 ? INT32_MAX : static_cast<std::int32_t>(wide(rng));
      }
      break;
    }
  }
  return bins;
}

/// Test inputs: the bin in the low 32 bits, a random payload in the high 32 bits.
inline std::vector<std::uint64_t> make_elements(distribution d, std::int64_t n, std::int64_t H, std::mt19937_64& rng) {
  const auto bins = make_bins(d, n, H, rng);
  std::vector<std::uint64_t> elements(bins.size());
  for (std::size_t i = 0; i < bins.size(); ++i)
    elements[i] = (rng() & 0xffffffff00000000ull) | static_cast<std::uint32_t>(bins[i]);
  return elements;
}

// ---- operators of the three classes, as user code would write them ----

/// 24-bit saturating add on uint32 (seed 000's CAS example).
struct saturating_add24 {
  using value_type = std::uint32_t;
  static constexpr std::uint32_t cap = (1u << 24) - 1;
  __host__ __device__ static std::uint32_t identity() { return 0; }
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t s = a + b;
    return s > cap || s < a ? cap : s;
  }
};

/// Argmax over (index, value) packed in 64 bits: value in the high word (as a biased int32), index in the low word;
/// the larger value wins, the smaller index on ties. CAS class.
struct packed_argmax {
  using value_type = std::uint64_t;
  __host__ __device__ static std::uint64_t identity() { return 0xffffffffull; }  // lowest value, largest index
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    const std::uint32_t va = std::uint32_t(a >> 32), vb = std::uint32_t(b >> 32);
    if (va != vb) return va > vb ? a : b;
    return std::uint32_t(a) <= std::uint32_t(b) ? a : b;
  }
};

/// The same argmax kept as an unpacked struct, and forced onto the lock path (XCG) as seed 000's XCG benchmark.
struct index_value {
  std::uint32_t index;
  std::int32_t value;
};
struct unpacked_argmax {
  using value_type = index_value;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  __host__ __device__ static index_value identity() { return {0xffffffffu, INT32_MIN}; }
  __host__ __device__ index_value operator()(index_value a, index_value b) const {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index <= b.index ? a : b;
  }
};

/// The same argmax, saying it is idempotent: the planner's plans for such lock-class operators (src/planner.cpp,
/// lock_class_skips_most_updates: one copy, fewer slots).
struct idempotent_unpacked_argmax : unpacked_argmax {
  static constexpr bool idempotent = true;
};

/// The packed argmax, saying it is idempotent: the 64-bit compare-and-swap plans for such operators told RF < 8
/// (src/planner.cpp, idempotent_wide_cas_told_low_rf: one copy, no copy per thread at H = 127).
struct idempotent_packed_argmax : packed_argmax {
  static constexpr bool idempotent = true;
};

/// Saturating adds forced onto the lock path, of 8 bytes (two counters) and of 4: a bin that has saturated, or an
/// update that adds 0, changes nothing, which the lock class checks before it takes the lock
/// (shared_update_changes_nothing in atomic_update.cuh) although these operators select nothing.
struct saturating_pair {
  std::uint32_t sum, count;
};
struct locked_saturating_pair {
  using value_type = saturating_pair;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static constexpr std::uint32_t sum_cap = 5000, count_cap = 300;
  __host__ __device__ static saturating_pair identity() { return {0, 0}; }
  __host__ __device__ saturating_pair operator()(saturating_pair a, saturating_pair b) const {
    const std::uint32_t sum = a.sum + b.sum, count = a.count + b.count;  // both below 2^31: no wrap
    return {sum < sum_cap ? sum : sum_cap, count < count_cap ? count : count_cap};
  }
};
/// A 4-byte idempotent operator forced onto the lock path, the minimum: the lock queue's 4-byte values
/// (plan::lock_queue).
struct locked_min32 {
  using value_type = std::uint32_t;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static constexpr bool idempotent = true;
  __host__ __device__ static std::uint32_t identity() { return 0xffffffffu; }
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a < b ? a : b; }
};
struct locked_saturating_add {
  using value_type = std::uint32_t;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static constexpr std::uint32_t cap = 3000;
  __host__ __device__ static std::uint32_t identity() { return 0; }
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    return a + b < cap ? a + b : cap;
  }
};

/// A 12-byte bin: (sum of x, sum of y, count) with x, y small integers in float so sums stay exact.
struct point_sum {
  float x, y;
  std::int32_t count;
};
struct point_sum_op {
  using value_type = point_sum;
  __host__ __device__ static point_sum identity() { return {0.f, 0.f, 0}; }
  __host__ __device__ point_sum operator()(point_sum a, point_sum b) const {
    return {a.x + b.x, a.y + b.y, a.count + b.count};
  }
};

/// A 16-byte bin: (count, max).
struct count_max {
  std::uint64_t count;
  std::int64_t max;
};
struct count_max_op {
  using value_type = count_max;
  __host__ __device__ static count_max identity() { return {0, INT64_MIN}; }
  __host__ __device__ count_max operator()(count_max a, count_max b) const {
    return {a.count + b.count, a.max > b.max ? a.max : b.max};
  }
};

/// How a test draws the value of an update from a payload and compares results, per operator.
template <class Op>
struct op_case;

template <class T>
struct integer_case {
  __host__ __device__ static T value(std::uint32_t payload) { return static_cast<T>(payload % 1000); }
  static T initial(std::mt19937_64& rng) { return static_cast<T>(rng() % 5000); }
  static bool equal(T a, T b) { return a == b; }
};
template <class T>
struct op_case<ghist::plus<T>> : integer_case<T> {};
template <>
struct op_case<ghist::plus<float>> {
  __host__ __device__ static float value(std::uint32_t payload) { return float(payload % 1000) * 0.25f; }
  static float initial(std::mt19937_64& rng) { return float(rng() % 100); }
  static bool equal(float a, float b) { return std::fabs(a - b) <= 1e-3f * std::max(1.f, std::fabs(b)); }
};
template <>
struct op_case<ghist::plus<double>> {
  __host__ __device__ static double value(std::uint32_t payload) { return double(payload) * 1e-3; }
  static double initial(std::mt19937_64& rng) { return double(rng() % 100); }
  static bool equal(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }
};
template <class T>
struct signed_case {
  __host__ __device__ static T value(std::uint32_t payload) { return static_cast<T>(static_cast<std::int32_t>(payload)); }
  static T initial(std::mt19937_64& rng) { return static_cast<T>(static_cast<std::int32_t>(rng())); }
  static bool equal(T a, T b) { return a == b; }
};
template <>
struct op_case<ghist::max<std::int32_t>> : signed_case<std::int32_t> {};
template <>
struct op_case<ghist::min<std::int64_t>> : signed_case<std::int64_t> {};
template <>
struct op_case<ghist::bit_xor<std::uint32_t>> : integer_case<std::uint32_t> {};
template <>
struct op_case<ghist::min<std::uint64_t>> : integer_case<std::uint64_t> {};
template <class T>
struct float_minmax_case {
  __host__ __device__ static T value(std::uint32_t payload) { return T(static_cast<std::int32_t>(payload)) * T(0.5); }
  static T initial(std::mt19937_64& rng) { return T(static_cast<std::int32_t>(rng() % 100000)) - T(50000); }
  static bool equal(T a, T b) { return a == b || (std::isinf(a) && std::isinf(b) && (a > 0) == (b > 0)); }
};
template <>
struct op_case<ghist::min<float>> : float_minmax_case<float> {};
template <>
struct op_case<ghist::max<double>> : float_minmax_case<double> {};
template <>
struct op_case<saturating_add24> {
  // Large values so that popular bins saturate.
  __host__ __device__ static std::uint32_t value(std::uint32_t payload) { return payload >> 12; }
  static std::uint32_t initial(std::mt19937_64& rng) { return std::uint32_t(rng() % saturating_add24::cap); }
  static bool equal(std::uint32_t a, std::uint32_t b) { return a == b; }
};
template <>
struct op_case<packed_argmax> {
  // Few distinct values, so that ties (decided by the index) are common.
  __host__ __device__ static std::uint64_t value(std::uint32_t payload) {
    return (std::uint64_t(payload % 64) << 32) | (payload >> 8);
  }
  static std::uint64_t initial(std::mt19937_64& rng) { return rng() & 0x0000003fffffffffull; }
  static bool equal(std::uint64_t a, std::uint64_t b) { return a == b; }
};
template <>
struct op_case<unpacked_argmax> {
  __host__ __device__ static index_value value(std::uint32_t payload) {
    return {payload >> 8, static_cast<std::int32_t>(payload % 64) - 32};
  }
  static index_value initial(std::mt19937_64& rng) {
    return {std::uint32_t(rng()), static_cast<std::int32_t>(rng() % 64) - 32};
  }
  static bool equal(index_value a, index_value b) { return a.index == b.index && a.value == b.value; }
};
template <>
struct op_case<idempotent_unpacked_argmax> : op_case<unpacked_argmax> {};
template <>
struct op_case<idempotent_packed_argmax> : op_case<packed_argmax> {};
template <>
struct op_case<locked_saturating_pair> {
  // An update of (0, 0) one time in 16; popular bins saturate.
  __host__ __device__ static saturating_pair value(std::uint32_t payload) { return {payload % 8, (payload >> 3) & 1}; }
  static saturating_pair initial(std::mt19937_64& rng) {
    return {std::uint32_t(rng() % locked_saturating_pair::sum_cap), std::uint32_t(rng() % locked_saturating_pair::count_cap)};
  }
  static bool equal(saturating_pair a, saturating_pair b) { return a.sum == b.sum && a.count == b.count; }
};
template <>
struct op_case<locked_saturating_add> {
  __host__ __device__ static std::uint32_t value(std::uint32_t payload) { return payload % 4; }
  static std::uint32_t initial(std::mt19937_64& rng) { return std::uint32_t(rng() % locked_saturating_add::cap); }
  static bool equal(std::uint32_t a, std::uint32_t b) { return a == b; }
};
template <>
struct op_case<locked_min32> {
  __host__ __device__ static std::uint32_t value(std::uint32_t payload) { return payload * 2654435761u; }
  static std::uint32_t initial(std::mt19937_64& rng) { return std::uint32_t(rng()); }
  static bool equal(std::uint32_t a, std::uint32_t b) { return a == b; }
};
template <>
struct op_case<point_sum_op> {
  __host__ __device__ static point_sum value(std::uint32_t payload) {
    return {float(payload & 3), float((payload >> 2) & 3), 1};
  }
  static point_sum initial(std::mt19937_64& rng) { return {float(rng() % 16), float(rng() % 16), int(rng() % 16)}; }
  static bool equal(point_sum a, point_sum b) {
    auto close = [](float u, float v) { return std::fabs(u - v) <= 1e-5f * std::max(1.f, std::fabs(v)); };
    return close(a.x, b.x) && close(a.y, b.y) && a.count == b.count;
  }
};
template <>
struct op_case<count_max_op> {
  __host__ __device__ static count_max value(std::uint32_t payload) {
    return {1, static_cast<std::int64_t>(payload) - (std::int64_t(1) << 31)};
  }
  static count_max initial(std::mt19937_64& rng) { return {rng() % 100, static_cast<std::int64_t>(rng() >> 1)}; }
  static bool equal(count_max a, count_max b) { return a.count == b.count && a.max == b.max; }
};

/// The bin function of the tests: bin in the low word, the value from the payload in the high word.
template <class Op>
struct element_to_update {
  using T = typename Op::value_type;
  __host__ __device__ ghist::bin_update<T> operator()(std::uint64_t e) const {
    return {static_cast<std::int32_t>(static_cast<std::uint32_t>(e)), op_case<Op>::value(std::uint32_t(e >> 32))};
  }
};

}  // namespace ghist_test
