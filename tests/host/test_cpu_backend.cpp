// Host tests of the CPU backend (cpu.hpp): every entry point against a plain sequential loop, both modes, both
// parallel paths (private sub-histograms and the bin-range split), determinism, and argument errors.
#include <gtest/gtest.h>

#include "error_expectations.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ghist/cpu.hpp"

namespace {

using i128 = __int128;

// ---------------------------------------------------------------------------------------------------------------
// User operators.

struct sat24_add {  // 24-bit saturating add on uint32 (a cas-class operator)
  using value_type = std::uint32_t;
  static constexpr std::uint32_t identity() { return 0; }
  std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    std::uint32_t s = a + b;  // both <= 2^24 - 1: no wrap
    return s > 0xFFFFFFu ? 0xFFFFFFu : s;
  }
};

// argmax packed in a uint64: the int32 value (biased to unsigned) in the high half, the uint32 index in the low half.
// The maximum value wins; on ties the smallest index.
struct argmax_packed {
  using value_type = std::uint64_t;
  static std::uint64_t pack(std::int32_t value, std::uint32_t index) {
    return (std::uint64_t(static_cast<std::uint32_t>(value) ^ 0x80000000u) << 32) | index;
  }
  static std::int32_t value_of(std::uint64_t p) { return static_cast<std::int32_t>(std::uint32_t(p >> 32) ^ 0x80000000u); }
  static std::uint32_t index_of(std::uint64_t p) { return static_cast<std::uint32_t>(p); }
  static std::uint64_t identity() { return pack(std::numeric_limits<std::int32_t>::min(), 0xFFFFFFFFu); }
  std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    std::int32_t va = value_of(a), vb = value_of(b);
    if (va != vb) return va > vb ? a : b;
    return index_of(a) <= index_of(b) ? a : b;
  }
};

struct f2i {  // 12 bytes: a sum of small integers (exact in float), a maximum, a count
  float sum;
  float max;
  std::int32_t count;
};
static_assert(sizeof(f2i) == 12);
struct f2i_op {
  using value_type = f2i;
  static f2i identity() { return {0.0f, -std::numeric_limits<float>::infinity(), 0}; }
  f2i operator()(f2i a, f2i b) const { return {a.sum + b.sum, a.max < b.max ? b.max : a.max, a.count + b.count}; }
};

struct s16 {  // 16 bytes: a floating-point sum (order-dependent rounding) and an integer range
  double sum;
  std::int32_t lo;
  std::int32_t hi;
};
static_assert(sizeof(s16) == 16);
struct s16_op {
  using value_type = s16;
  static s16 identity() { return {0.0, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()}; }
  s16 operator()(s16 a, s16 b) const { return {a.sum + b.sum, std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
};

// ---------------------------------------------------------------------------------------------------------------
// Per-operator test traits: random values (of input i), whether results are exact for every thread count, and for
// inexact ones a magnitude and a closeness test.

template <class Op>
struct traits;

template <>
struct traits<ghist::plus<std::int32_t>> {
  using T = std::int32_t;
  static constexpr bool exact = true;
  // |sum| <= 2^20 * 1000 + 10^6 < 2^31: no signed overflow in any order.
  static T value(std::mt19937_64& r, std::int64_t) { return static_cast<T>(r() % 2001) - 1000; }
  static T prefill(std::mt19937_64& r) { return static_cast<T>(r() % 2000001) - 1000000; }
};
template <>
struct traits<ghist::plus<std::uint64_t>> {
  using T = std::uint64_t;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) { return r(); }
  static T prefill(std::mt19937_64& r) { return r(); }
};
template <>
struct traits<ghist::min<std::int64_t>> {
  using T = std::int64_t;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) { return static_cast<T>(r()); }
  static T prefill(std::mt19937_64& r) { return static_cast<T>(r()); }
};
template <>
struct traits<ghist::max<std::int64_t>> {
  using T = std::int64_t;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) { return static_cast<T>(r()); }
  static T prefill(std::mt19937_64& r) { return static_cast<T>(r()); }
};
template <>
struct traits<ghist::bit_xor<std::uint32_t>> {
  using T = std::uint32_t;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) { return static_cast<T>(r()); }
  static T prefill(std::mt19937_64& r) { return static_cast<T>(r()); }
};
template <>
struct traits<ghist::max<float>> {  // NaN inputs never win; no zeros, so no -0/+0 order dependence
  using T = float;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) {
    if (r() % 10 == 0) return std::numeric_limits<float>::quiet_NaN();
    return std::ldexp(static_cast<float>(r() % 1000000 + 1) * (r() % 2 ? 1.0f : -1.0f), static_cast<int>(r() % 40) - 20);
  }
  static T prefill(std::mt19937_64& r) { return static_cast<float>(r() % 1000 + 1); }
};
template <>
struct traits<ghist::plus<double>> {
  using T = double;
  static constexpr bool exact = false;
  static T value(std::mt19937_64& r, std::int64_t) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    return std::ldexp(u(r), static_cast<int>(r() % 21) - 10);
  }
  static T prefill(std::mt19937_64& r) { return value(r, 0) * 100.0; }
  static T magnitude(T v) { return std::fabs(v); }
  static bool close(T got, T ref, T mag) { return std::fabs(got - ref) <= 1e-12 * mag + 1e-300; }
};
template <>
struct traits<sat24_add> {
  using T = std::uint32_t;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) { return static_cast<T>(r() % (1u << 20)); }
  static T prefill(std::mt19937_64& r) { return static_cast<T>(r() % (1u << 24)); }
};
template <>
struct traits<argmax_packed> {
  using T = std::uint64_t;
  static constexpr bool exact = true;
  // Few distinct values, so that ties (smallest index wins) are frequent.
  static T value(std::mt19937_64& r, std::int64_t i) {
    return argmax_packed::pack(static_cast<std::int32_t>(r() % 64) - 32, static_cast<std::uint32_t>(i));
  }
  static T prefill(std::mt19937_64& r) {
    return argmax_packed::pack(static_cast<std::int32_t>(r() % 64) - 32, static_cast<std::uint32_t>(r()));
  }
};
template <>
struct traits<f2i_op> {
  using T = f2i;
  static constexpr bool exact = true;
  static T value(std::mt19937_64& r, std::int64_t) {
    return {static_cast<float>(r() % 8), static_cast<float>(r() % 100000 + 1) * (r() % 2 ? 0.5f : -0.25f), 1};
  }
  static T prefill(std::mt19937_64& r) {
    return {static_cast<float>(r() % 1000), static_cast<float>(r() % 1000 + 1), static_cast<std::int32_t>(r() % 1000)};
  }
};
template <>
struct traits<s16_op> {
  using T = s16;
  static constexpr bool exact = false;
  static T value(std::mt19937_64& r, std::int64_t) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    return {u(r), static_cast<std::int32_t>(r()), static_cast<std::int32_t>(r())};
  }
  static T prefill(std::mt19937_64& r) {
    std::uniform_real_distribution<double> u(-100.0, 100.0);
    auto a = static_cast<std::int32_t>(r()), b = static_cast<std::int32_t>(r());
    return {u(r), std::min(a, b), std::max(a, b)};
  }
  static T magnitude(T v) { return {std::fabs(v.sum), v.lo, v.hi}; }
  static bool close(T got, T ref, T mag) {
    return std::fabs(got.sum - ref.sum) <= 1e-12 * mag.sum + 1e-300 && got.lo == ref.lo && got.hi == ref.hi;
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Inputs.

enum class dist { uniform, one_bin, zipf, sorted, out_of_range };
const char* name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::one_bin: return "one_bin";
    case dist::zipf: return "zipf";
    case dist::sorted: return "sorted";
    case dist::out_of_range: return "out_of_range";
  }
  return "?";
}
constexpr dist all_dists[] = {dist::uniform, dist::one_bin, dist::zipf, dist::sorted, dist::out_of_range};

std::vector<std::int64_t> make_bins(dist d, std::int64_t n, std::int64_t H, std::mt19937_64& r) {
  std::vector<std::int64_t> bins(static_cast<std::size_t>(n));
  const std::int64_t hot = static_cast<std::int64_t>(r() % static_cast<std::uint64_t>(H));
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto& b : bins) {
    switch (d) {
      case dist::uniform:
      case dist::sorted: b = static_cast<std::int64_t>(r() % static_cast<std::uint64_t>(H)); break;
      case dist::one_bin: b = hot; break;
      case dist::zipf: {
        // Rank ~ log-uniform (Zipf with s = 1), scattered over the bins by a multiplicative hash.
        auto rank = static_cast<std::uint64_t>(std::exp(u(r) * std::log(static_cast<double>(H) + 1.0)) - 1.0);
        b = static_cast<std::int64_t>((rank * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(hot)) %
                                      static_cast<std::uint64_t>(H));
        break;
      }
      case dist::out_of_range: {
        const std::int64_t odd[] = {-1, -2, -H, H, H + 1, 2 * H + 3, std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()};
        if (r() % 3 == 0) b = odd[r() % 8];
        else b = static_cast<std::int64_t>(r() % static_cast<std::uint64_t>(H));
        break;
      }
    }
  }
  if (d == dist::sorted) std::sort(bins.begin(), bins.end());
  return bins;
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// The sequential definition: dest[b] = op(dest[b], v) in input order, from the identity (overwrite) or dest.
template <class Op, class V>
std::vector<typename Op::value_type> sequential(const std::vector<std::int64_t>& bins, const std::vector<V>& values,
                                                std::vector<typename Op::value_type> start, Op op) {
  const auto H = static_cast<std::int64_t>(start.size());
  for (std::size_t i = 0; i < bins.size(); ++i)
    if (bins[i] >= 0 && bins[i] < H) start[bins[i]] = op(start[bins[i]], values[i]);
  return start;
}

template <class Op>
void expect_matches_reference(const std::vector<typename Op::value_type>& got,
                              const std::vector<typename Op::value_type>& ref, const std::vector<std::int64_t>& bins,
                              const std::vector<typename Op::value_type>& values,
                              const std::vector<typename Op::value_type>& start, bool must_be_exact,
                              const std::string& where) {
  using Tr = traits<Op>;
  using T = typename Op::value_type;
  if (Tr::exact || must_be_exact) {
    ASSERT_TRUE(bitwise_equal(got, ref)) << where;
    return;
  }
  if constexpr (!Tr::exact) {
    std::vector<T> mag_values(values.size()), mag_start(start.size());
    for (std::size_t i = 0; i < values.size(); ++i) mag_values[i] = Tr::magnitude(values[i]);
    for (std::size_t b = 0; b < start.size(); ++b) mag_start[b] = Tr::magnitude(start[b]);
    std::vector<T> mag = sequential(bins, mag_values, mag_start, Op{});
    for (std::size_t b = 0; b < got.size(); ++b) ASSERT_TRUE(Tr::close(got[b], ref[b], mag[b])) << where << " bin " << b;
  }
}

// One case: generalized_histogram twice (bitwise equal), generalized_histogram_indexed (bitwise equal to it), all
// against the sequential loop.
template <class Op>
void check_case(std::int64_t n, std::int64_t H, int threads, dist d, ghist::mode how, std::uint64_t seed) {
  using Tr = traits<Op>;
  using T = typename Op::value_type;
  const std::string where = "n=" + std::to_string(n) + " H=" + std::to_string(H) + " threads=" +
                            std::to_string(threads) + " dist=" + name(d) +
                            (how == ghist::mode::overwrite ? " overwrite" : " accumulate");
  std::mt19937_64 r(seed);
  std::vector<std::int64_t> bins = make_bins(d, n, H, r);
  std::vector<T> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) values[i] = Tr::value(r, i);
  std::vector<ghist::bin_update<T>> input(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) input[i] = {bins[i], values[i]};
  // Overwrite: garbage that must disappear. Accumulate: valid values that must be folded in.
  std::vector<T> prefill(static_cast<std::size_t>(H));
  for (auto& p : prefill) p = Tr::prefill(r);
  std::vector<T> start = how == ghist::mode::overwrite ? std::vector<T>(H, Op::identity()) : prefill;
  const std::vector<T> ref = sequential(bins, values, start, Op{});

  auto identity_fn = [](const ghist::bin_update<T>& u) { return u; };
  std::vector<T> got1 = prefill, got2 = prefill, got3 = prefill;
  ghist::cpu::generalized_histogram(input.data(), n, identity_fn, Op{}, got1.data(), H, how, threads);
  ghist::cpu::generalized_histogram(input.data(), n, identity_fn, Op{}, got2.data(), H, how, threads);
  ghist::cpu::generalized_histogram_indexed(
      n, [&](std::int64_t i) { return ghist::bin_update<T>{bins[i], values[i]}; }, Op{}, got3.data(), H, how,
      threads);
  ASSERT_TRUE(bitwise_equal(got1, got2)) << "not deterministic: " << where;
  ASSERT_TRUE(bitwise_equal(got1, got3)) << "indexed differs from element-wise: " << where;
  expect_matches_reference<Op>(got1, ref, bins, values, start, threads == 1, where);
}

template <class Op>
class CpuBackend : public ::testing::Test {};
using Ops = ::testing::Types<ghist::plus<std::int32_t>, ghist::plus<std::uint64_t>, ghist::min<std::int64_t>,
                             ghist::max<std::int64_t>, ghist::bit_xor<std::uint32_t>, ghist::plus<double>,
                             ghist::max<float>, sat24_add, argmax_packed, f2i_op, s16_op>;
TYPED_TEST_SUITE(CpuBackend, Ops);

constexpr std::int64_t kBins[] = {1, 2, 31, 257, 4096, 100003};
constexpr int kThreads[] = {1, 2, 3, 8};

TYPED_TEST(CpuBackend, SmallInputsMatchSequentialLoop) {
  std::uint64_t seed = 1;
  for (std::int64_t n : {0, 1, 2, 1000}) {
    int c = 0;
    for (std::int64_t H : kBins) {
      for (int threads : kThreads) {
        const dist d = all_dists[c++ % 5];
        for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
          check_case<TypeParam>(n, H, threads, d, how, seed++);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// One input past one thread's share (65537 / min_inputs_per_thread == 1): the sequential path on a real size.
TYPED_TEST(CpuBackend, MediumInputsMatchSequentialLoop) {
  std::uint64_t seed = 100;
  for (int c = 0; c < 10; ++c) {
    const std::int64_t H = kBins[c % 6];
    const dist d = all_dists[c % 5];
    const int threads = kThreads[c % 4];
    const auto how = (c / 5) % 2 ? ghist::mode::accumulate : ghist::mode::overwrite;
    check_case<TypeParam>(65537, H, threads, d, how, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Large enough for 8 threads (each needs min_inputs_per_thread inputs).
TYPED_TEST(CpuBackend, LargeInputsMatchSequentialLoop) {
  const std::int64_t n = (std::int64_t(1) << 20) | 7;
  static_assert(((std::int64_t(1) << 20) | 7) / ghist::cpu::detail::min_inputs_per_thread >= 8);
  // Every distribution and every multi-thread count, H and mode rotating (one thread: the smaller sizes).
  const std::pair<dist, int> cases[] = {
      {dist::uniform, 8}, {dist::one_bin, 3}, {dist::zipf, 2}, {dist::sorted, 8}, {dist::out_of_range, 3}};
  std::uint64_t seed = 1000;
  int c = 0;
  for (auto [d, threads] : cases) {
    const std::int64_t H = kBins[(c + 2) % 6];  // 31, 257, 4096, 100003, 1
    const auto how = c % 2 ? ghist::mode::accumulate : ghist::mode::overwrite;
    ++c;
    check_case<TypeParam>(n, H, threads, d, how, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The bin-range split (used when threads x H sub-histograms exceed the memory budget) on small inputs, through the
// budget parameter of detail::run. It applies the updates of each bin in input order, so it equals the sequential
// loop bitwise for every operator. Counting calls of the update function tells which path ran.
TYPED_TEST(CpuBackend, BinRangeSplitPathEqualsSubHistogramPath) {
  using Op = TypeParam;
  using Tr = traits<Op>;
  using T = typename Op::value_type;
  const std::int64_t n = 4 * ghist::cpu::detail::min_inputs_per_thread + 3;  // 4 threads at most
  std::uint64_t seed = 5000;
  int c = 0;
  for (std::int64_t H : {std::int64_t(1), std::int64_t(3), std::int64_t(257), std::int64_t(100003)}) {
    for (int threads : {2, 3, 4}) {
      const auto how = c++ % 2 ? ghist::mode::accumulate : ghist::mode::overwrite;
      const dist d = all_dists[seed % 5];
      const std::string where = "H=" + std::to_string(H) + " threads=" + std::to_string(threads) + " " + name(d);
      std::mt19937_64 r(seed++);
      std::vector<std::int64_t> bins = make_bins(d, n, H, r);
      std::vector<T> values(n);
      for (std::int64_t i = 0; i < n; ++i) values[i] = Tr::value(r, i);
      std::vector<T> prefill(H);
      for (auto& p : prefill) p = Tr::prefill(r);
      std::vector<T> start = how == ghist::mode::overwrite ? std::vector<T>(H, Op::identity()) : prefill;
      const std::vector<T> ref = sequential(bins, values, start, Op{});

      // Calls for input 0: once on the sub-histogram path, once per thread on the split (each scans all inputs).
      std::atomic<std::int64_t> calls{0};
      auto update_at = [&](std::int64_t i) {
        if (i == 0) calls.fetch_add(1, std::memory_order_relaxed);
        return ghist::bin_update<T>{bins[i], values[i]};
      };
      const std::size_t need = static_cast<std::size_t>(threads) * static_cast<std::size_t>(H) * sizeof(T);
      // Exactly at the budget: sub-histograms (one call per input).
      std::vector<T> sub = prefill;
      ghist::cpu::detail::run(n, update_at, Op{}, sub.data(), H, how, threads, need);
      EXPECT_EQ(calls.load(), 1) << where;
      // One byte short: the split (every thread scans the whole input).
      calls = 0;
      std::vector<T> split = prefill;
      ghist::cpu::detail::run(n, update_at, Op{}, split.data(), H, how, threads, need - 1);
      EXPECT_EQ(calls.load(), threads) << where;
      if (threads == 3) {  // a zero budget: always the split
        calls = 0;
        std::vector<T> split0 = prefill;
        ghist::cpu::detail::run(n, update_at, Op{}, split0.data(), H, how, threads, 0);
        EXPECT_EQ(calls.load(), threads) << where;
        ASSERT_TRUE(bitwise_equal(split, split0)) << where;
      }
      ASSERT_TRUE(bitwise_equal(split, ref)) << "split path differs from the sequential loop: " << where;
      expect_matches_reference<Op>(sub, ref, bins, values, start, false, where);
      // The default budget takes the sub-histogram path for these sizes, the same as `sub`.
      std::vector<T> dflt = prefill;
      ghist::cpu::detail::run(n, update_at, Op{}, dflt.data(), H, how, threads);
      ASSERT_TRUE(bitwise_equal(dflt, sub)) << where;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Exceptions thrown by a bin function reach the caller (they must not escape a worker thread).

TEST(CpuBackendExceptions, BinFunctionExceptionPropagatesFromWorkerThreads) {
  const std::int64_t n = 600000;
  std::vector<std::int64_t> dest(64);
  for (int threads : {1, 2, 4, 8}) {
    for (std::size_t budget : {ghist::cpu::detail::sub_histogram_budget_bytes, std::size_t(0)}) {
      for (std::int64_t bad : {std::int64_t(0), n / 2, n - 1}) {
        auto f = [bad](std::int64_t i) {
          if (i == bad) throw std::runtime_error("bin function failed at " + std::to_string(i));
          return ghist::bin_update<std::int64_t>{i % 64, 1};
        };
        try {
          ghist::cpu::detail::run(n, f, ghist::plus<std::int64_t>{}, dest.data(), 64, ghist::mode::overwrite, threads,
                                  budget);
          ADD_FAILURE() << "no exception, threads=" << threads;
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()), "bin function failed at " + std::to_string(bad));
        }
      }
    }
  }
  // The public entry point too.
  std::vector<int> keys(n, 1);
  EXPECT_THROW(ghist::cpu::generalized_histogram(
                   keys.data(), n,
                   [](const int& k) -> ghist::bin_update<std::int64_t> {
                     if (k == 1) throw std::logic_error("nope");
                     return {0, 0};
                   },
                   ghist::plus<std::int64_t>{}, dest.data(), 64, ghist::mode::overwrite, 4),
               std::logic_error);
}

// ---------------------------------------------------------------------------------------------------------------
// Argument errors: ghist::error naming the argument, dest untouched.

using ghist_test::expect_ghist_error;

constexpr std::int32_t kSentinel = 0x5A5A5A5A;

TEST(CpuBackendErrors, GeneralizedHistogramArguments) {
  std::vector<std::int64_t> keys = {0, 1, 2, 3, 1, 2};
  auto f = [](const std::int64_t& k) { return ghist::bin_update<std::int32_t>{k, 1}; };
  auto g = [&](std::int64_t i) { return ghist::bin_update<std::int32_t>{keys[i], 1}; };
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    std::vector<std::int32_t> dest(4, kSentinel);
    const std::vector<std::int32_t> untouched = dest;
    using ghist::cpu::generalized_histogram;
    using ghist::cpu::generalized_histogram_indexed;
    ghist::plus<std::int32_t> op;
    for (std::int64_t bad_bins : {std::int64_t(0), std::int64_t(-1), std::numeric_limits<std::int64_t>::min()}) {
      expect_ghist_error([&] { generalized_histogram(keys.data(), n, f, op, dest.data(), bad_bins, how, 1); },
                         "num_bins");
      expect_ghist_error([&] { generalized_histogram_indexed(n, g, op, dest.data(), bad_bins, how, 1); }, "num_bins");
    }
    for (std::int64_t bad_n : {std::int64_t(-1), std::numeric_limits<std::int64_t>::min()}) {
      expect_ghist_error([&] { generalized_histogram(keys.data(), bad_n, f, op, dest.data(), 4, how, 1); }, "n must");
      expect_ghist_error([&] { generalized_histogram_indexed(bad_n, g, op, dest.data(), 4, how, 1); }, "n must");
    }
    expect_ghist_error([&] { generalized_histogram(static_cast<const std::int64_t*>(nullptr), n, f, op, dest.data(), 4, how, 1); },
                       "input");
    expect_ghist_error([&] { generalized_histogram(keys.data(), n, f, op, static_cast<std::int32_t*>(nullptr), 4, how, 1); },
                       "dest");
    expect_ghist_error([&] { generalized_histogram_indexed(n, g, op, static_cast<std::int32_t*>(nullptr), 4, how, 1); },
                       "dest");
    expect_ghist_error([&] { generalized_histogram(keys.data(), n, f, op, dest.data(), 4, how, -1); }, "threads");
    expect_ghist_error([&] { generalized_histogram_indexed(n, g, op, dest.data(), 4, how, -3); }, "threads");
    EXPECT_EQ(dest, untouched) << "dest modified by a failing call";
  }
  // n = 0 with a null input is valid: overwrite fills the identity, accumulate leaves dest as it is.
  std::vector<std::int32_t> dest(4, kSentinel);
  ghist::cpu::generalized_histogram(static_cast<const std::int64_t*>(nullptr), 0, f, ghist::plus<std::int32_t>{},
                                    dest.data(), 4, ghist::mode::accumulate, 1);
  EXPECT_EQ(dest, std::vector<std::int32_t>(4, kSentinel));
  ghist::cpu::generalized_histogram(static_cast<const std::int64_t*>(nullptr), 0, f, ghist::min<std::int32_t>{},
                                    dest.data(), 4, ghist::mode::overwrite, 1);
  EXPECT_EQ(dest, std::vector<std::int32_t>(4, std::numeric_limits<std::int32_t>::max()));
  // threads = 0: the default count; the result is the same as with one thread for an integer operator.
  std::vector<std::int32_t> a(4), b(4);
  ghist::cpu::generalized_histogram(keys.data(), n, f, ghist::plus<std::int32_t>{}, a.data(), 4);
  ghist::cpu::generalized_histogram(keys.data(), n, f, ghist::plus<std::int32_t>{}, b.data(), 4,
                                    ghist::mode::overwrite, 1);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<std::int32_t>{1, 2, 2, 1}));
  EXPECT_GE(ghist::cpu::default_threads(), 1);
  EXPECT_LE(ghist::cpu::default_threads(), 64);
}

TEST(CpuBackendErrors, ConvenienceFunctionArguments) {
  std::vector<float> samples = {0.5f, 1.5f, 2.5f};
  std::vector<double> weights = {1.0, 2.0, 3.0};
  std::vector<std::int32_t> keys = {0, 1, 2};
  for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
    std::vector<std::int32_t> counts(4, kSentinel);
    std::vector<double> wsum(4, 42.0);
    const auto counts0 = counts;
    const auto wsum0 = wsum;
    for (std::int64_t bins : {std::int64_t(0), std::int64_t(-7)}) {
      expect_ghist_error([&] { ghist::cpu::histogram_even(samples.data(), 3, counts.data(), bins, 0.0f, 4.0f, how, 1); },
                         "num_bins");
      expect_ghist_error([&] {
        ghist::cpu::weighted_histogram_even(samples.data(), weights.data(), 3, wsum.data(), bins, 0.0f, 4.0f,
                                            ghist::plus<double>{}, how, 1);
      }, "num_bins");
      expect_ghist_error([&] { ghist::cpu::bincount(keys.data(), 3, counts.data(), bins, how, 1); }, "num_bins");
      expect_ghist_error([&] {
        ghist::cpu::weighted_bincount(keys.data(), weights.data(), 3, wsum.data(), bins, ghist::plus<double>{}, how, 1);
      }, "num_bins");
    }
    for (auto [lo, hi] : {std::pair<float, float>{4.0f, 4.0f}, {4.0f, 0.0f}}) {
      expect_ghist_error([&] { ghist::cpu::histogram_even(samples.data(), 3, counts.data(), 4, lo, hi, how, 1); },
                         "lower < upper");
      expect_ghist_error([&] {
        ghist::cpu::weighted_histogram_even(samples.data(), weights.data(), 3, wsum.data(), 4, lo, hi,
                                            ghist::max<double>{}, how, 1);
      }, "lower < upper");
    }
    expect_ghist_error([&] {
      ghist::cpu::histogram_even(samples.data(), 3, counts.data(), 4, 0.0f, std::numeric_limits<float>::infinity(), how, 1);
    }, "finite");
    expect_ghist_error([&] {
      ghist::cpu::histogram_even(samples.data(), 3, counts.data(), 4, std::numeric_limits<float>::quiet_NaN(), 1.0f, how, 1);
    }, "finite");
    expect_ghist_error([&] {
      ghist::cpu::histogram_even<std::int32_t, std::int32_t>(keys.data(), 3, counts.data(), 4, 5, 5, how, 1);
    }, "lower < upper");
    // Null pointers with n > 0.
    expect_ghist_error([&] {
      ghist::cpu::histogram_even(static_cast<const float*>(nullptr), 3, counts.data(), 4, 0.0f, 4.0f, how, 1);
    }, "null");
    expect_ghist_error([&] {
      ghist::cpu::weighted_histogram_even(static_cast<const float*>(nullptr), weights.data(), 3, wsum.data(), 4, 0.0f,
                                          4.0f, ghist::plus<double>{}, how, 1);
    }, "null");
    expect_ghist_error([&] {
      ghist::cpu::weighted_histogram_even(samples.data(), static_cast<const double*>(nullptr), 3, wsum.data(), 4,
                                          0.0f, 4.0f, ghist::plus<double>{}, how, 1);
    }, "null");
    expect_ghist_error([&] { ghist::cpu::bincount(static_cast<const std::int32_t*>(nullptr), 3, counts.data(), 4, how, 1); },
                       "null");
    expect_ghist_error([&] {
      ghist::cpu::weighted_bincount(keys.data(), static_cast<const double*>(nullptr), 3, wsum.data(), 4,
                                    ghist::plus<double>{}, how, 1);
    }, "null");
    expect_ghist_error([&] {
      ghist::cpu::weighted_bincount(static_cast<const std::int32_t*>(nullptr), weights.data(), 3, wsum.data(), 4,
                                    ghist::plus<double>{}, how, 1);
    }, "null");
    expect_ghist_error([&] { ghist::cpu::bincount(keys.data(), 3, static_cast<std::int32_t*>(nullptr), 4, how, 1); },
                       "dest");
    expect_ghist_error([&] { ghist::cpu::bincount(keys.data(), -2, counts.data(), 4, how, 1); }, "n must");
    EXPECT_EQ(counts, counts0);
    EXPECT_EQ(wsum, wsum0);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Convenience functions against loops.

template <class S>
std::int64_t exact_even_bin(S x, S lo, S hi, std::int64_t bins) {
  if constexpr (std::is_integral_v<S>) {
    if (x < lo || x >= hi) return -1;
    return static_cast<std::int64_t>((static_cast<i128>(x) - lo) * bins / (static_cast<i128>(hi) - lo));
  } else {
    // Only used with ranges whose bin width is a power of two, where this is exact.
    if (!(x >= lo && x < hi)) return -1;
    long double w = (static_cast<long double>(hi) - lo) / bins;
    return std::min<std::int64_t>(static_cast<std::int64_t>(std::floor((static_cast<long double>(x) - lo) / w)), bins - 1);
  }
}

template <class S>
std::vector<S> random_samples(std::int64_t n, S lo, S hi, std::mt19937_64& r) {
  std::vector<S> xs(static_cast<std::size_t>(n));
  for (auto& x : xs) {
    if constexpr (std::is_integral_v<S>) {
      const auto span = static_cast<std::uint64_t>(static_cast<i128>(hi) - lo);
      if (r() % 5 == 0) x = static_cast<S>(r());  // anywhere, mostly outside
      else x = static_cast<S>(static_cast<i128>(lo) + static_cast<i128>(span == ~0ull ? r() : r() % (span + 1)));
    } else {
      const S specials[] = {lo, hi, std::nextafter(hi, lo), std::nextafter(lo, hi), S(-0.0),
                            std::numeric_limits<S>::quiet_NaN(), std::numeric_limits<S>::infinity(),
                            -std::numeric_limits<S>::infinity(), std::nextafter(lo, S(-1e30))};
      if (r() % 10 == 0) x = specials[r() % 9];
      else {
        std::uniform_real_distribution<double> u(-0.25, 1.25);
        x = static_cast<S>(static_cast<double>(lo) + (static_cast<double>(hi) - static_cast<double>(lo)) * u(r));
      }
    }
  }
  return xs;
}

template <class S, class Count>
void check_histogram_even(S lo, S hi, std::int64_t bins, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  for (std::int64_t n : {0, 1, 1000, 300001}) {
    const std::vector<S> xs = random_samples<S>(n, lo, hi, r);
    for (int threads : {1, 3}) {
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        std::vector<Count> prefill(bins);
        for (auto& p : prefill) p = static_cast<Count>(r() % 1000);
        std::vector<Count> want = how == ghist::mode::overwrite ? std::vector<Count>(bins, 0) : prefill;
        for (S x : xs) {
          std::int64_t b = exact_even_bin(x, lo, hi, bins);
          if (b >= 0) ++want[b];
        }
        std::vector<Count> got = prefill;
        ghist::cpu::histogram_even(xs.data(), n, got.data(), bins, lo, hi, how, threads);
        ASSERT_EQ(got, want) << "n=" << n << " threads=" << threads << " bins=" << bins;
      }
    }
  }
}

TEST(CpuConvenience, HistogramEven) {
  check_histogram_even<std::int32_t, std::int64_t>(-1000, 1000, 7, 1);
  check_histogram_even<std::int32_t, std::int32_t>(std::numeric_limits<std::int32_t>::min(),
                                                   std::numeric_limits<std::int32_t>::max(), 1000003, 2);
  check_histogram_even<std::uint8_t, std::uint32_t>(0, 255, 3, 3);
  check_histogram_even<std::int64_t, std::uint64_t>(std::numeric_limits<std::int64_t>::min(),
                                                    std::numeric_limits<std::int64_t>::max(), 257, 4);
  check_histogram_even<std::uint64_t, std::int64_t>(10, ~std::uint64_t(0), 100, 5);
  check_histogram_even<float, std::int32_t>(-8.0f, 8.0f, 64, 6);     // width 0.25
  check_histogram_even<double, std::uint64_t>(0.0, 1024.0, 4096, 7);  // width 0.25
  check_histogram_even<double, std::int32_t>(-3.0, 5.0, 1, 8);
}

TEST(CpuConvenience, WeightedHistogramEven) {
  std::mt19937_64 r(9);
  const double lo = -4.0, hi = 4.0;
  const std::int64_t bins = 32;
  const std::int64_t n = 300001;
  const std::vector<double> xs = random_samples<double>(n, lo, hi, r);
  std::vector<float> wf(n);
  std::vector<double> wd(n);
  for (std::int64_t i = 0; i < n; ++i) {
    wf[i] = r() % 17 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(r() % 100000 + 1) * 0.125f;
    wd[i] = std::ldexp(static_cast<double>(static_cast<std::int32_t>(r())), -20);
  }
  for (int threads : {1, 2, 4}) {
    for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
      std::vector<double> sum_pre(bins, 0.0), sum_abs(bins, 0.0);
      std::vector<float> min_pre(bins), max_pre(bins);
      for (std::int64_t b = 0; b < bins; ++b) {
        sum_pre[b] = static_cast<double>(b) * 1.5;
        min_pre[b] = 5000.0f + static_cast<float>(b);
        max_pre[b] = 7.0f + static_cast<float>(b);
      }
      const bool acc = how == ghist::mode::accumulate;
      std::vector<double> want_sum = acc ? sum_pre : std::vector<double>(bins, 0.0);
      std::vector<float> want_min = acc ? min_pre : std::vector<float>(bins, std::numeric_limits<float>::infinity());
      std::vector<float> want_max = acc ? max_pre : std::vector<float>(bins, -std::numeric_limits<float>::infinity());
      for (std::int64_t b = 0; b < bins; ++b) sum_abs[b] = std::fabs(want_sum[b]);
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t b = exact_even_bin(xs[i], lo, hi, bins);
        if (b < 0) continue;
        want_sum[b] += wd[i];
        sum_abs[b] += std::fabs(wd[i]);
        if (!std::isnan(wf[i])) {
          want_min[b] = std::min(want_min[b], wf[i]);
          want_max[b] = std::max(want_max[b], wf[i]);
        }
      }
      std::vector<double> got_sum = sum_pre;
      std::vector<float> got_min = min_pre, got_max = max_pre;
      ghist::cpu::weighted_histogram_even(xs.data(), wd.data(), n, got_sum.data(), bins, lo, hi, ghist::plus<double>{},
                                          how, threads);
      ghist::cpu::weighted_histogram_even(xs.data(), wf.data(), n, got_min.data(), bins, lo, hi, ghist::min<float>{},
                                          how, threads);
      ghist::cpu::weighted_histogram_even(xs.data(), wf.data(), n, got_max.data(), bins, lo, hi, ghist::max<float>{},
                                          how, threads);
      for (std::int64_t b = 0; b < bins; ++b) {
        if (threads == 1) {
          EXPECT_EQ(got_sum[b], want_sum[b]) << b;
        } else {
          EXPECT_NEAR(got_sum[b], want_sum[b], 1e-12 * sum_abs[b]) << b;
        }
        EXPECT_EQ(got_min[b], want_min[b]) << b;
        EXPECT_EQ(got_max[b], want_max[b]) << b;
      }
    }
  }
  // Default operator (plus) with integer-valued weights: exact for any thread count.
  std::vector<double> ones(n, 1.0), got(bins), want(bins, 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t b = exact_even_bin(xs[i], lo, hi, bins);
    if (b >= 0) want[b] += 1.0;
  }
  ghist::cpu::weighted_histogram_even(xs.data(), ones.data(), n, got.data(), bins, lo, hi);
  EXPECT_EQ(got, want);
}

template <class Key, class Count>
void check_bincount(std::int64_t bins, std::uint64_t seed) {
  std::mt19937_64 r(seed);
  for (std::int64_t n : {0, 1, 1000, 300001}) {
    std::vector<Key> keys(n);
    for (auto& k : keys) {
      switch (r() % 4) {
        case 0: k = static_cast<Key>(r()); break;  // anything: negative, huge
        case 1: k = static_cast<Key>(bins + static_cast<std::int64_t>(r() % 3)); break;  // just past the end
        default: k = static_cast<Key>(r() % static_cast<std::uint64_t>(bins));
      }
    }
    for (int threads : {1, 4}) {
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        std::vector<Count> prefill(bins);
        for (auto& p : prefill) p = static_cast<Count>(r() % 100);
        std::vector<Count> want = how == ghist::mode::overwrite ? std::vector<Count>(bins, 0) : prefill;
        for (Key k : keys) {
          i128 w = static_cast<i128>(k);
          if (w >= 0 && w < bins) ++want[static_cast<std::size_t>(w)];
        }
        std::vector<Count> got = prefill;
        ghist::cpu::bincount(keys.data(), n, got.data(), bins, how, threads);
        ASSERT_EQ(got, want) << "n=" << n << " threads=" << threads;
      }
    }
  }
}

TEST(CpuConvenience, Bincount) {
  check_bincount<std::int32_t, std::int32_t>(100, 1);
  check_bincount<std::int64_t, std::uint64_t>(4096, 2);
  check_bincount<std::uint32_t, std::int64_t>(7, 3);
  check_bincount<std::uint64_t, std::uint32_t>(1, 4);
  check_bincount<std::int8_t, std::int32_t>(100, 5);
  // uint64 keys above INT64_MAX are never counted.
  std::vector<std::uint64_t> keys = {~std::uint64_t(0), std::uint64_t(1) << 63, 0, 2, (std::uint64_t(1) << 63) + 2};
  std::vector<std::int32_t> counts(3, kSentinel);
  ghist::cpu::bincount(keys.data(), 5, counts.data(), 3);
  EXPECT_EQ(counts, (std::vector<std::int32_t>{1, 0, 1}));
}

TEST(CpuConvenience, WeightedBincount) {
  std::mt19937_64 r(12);
  const std::int64_t bins = 1000;
  for (std::int64_t n : {0, 1, 1000, 300001}) {
    std::vector<std::int64_t> keys(n);
    std::vector<double> w(n);
    std::vector<std::int64_t> wi(n);
    for (std::int64_t i = 0; i < n; ++i) {
      keys[i] = r() % 5 == 0 ? static_cast<std::int64_t>(r()) : static_cast<std::int64_t>(r() % bins);
      w[i] = std::ldexp(static_cast<double>(static_cast<std::int32_t>(r())), -24);
      wi[i] = static_cast<std::int64_t>(r() % 2001) - 1000;
    }
    for (int threads : {1, 4}) {
      for (auto how : {ghist::mode::overwrite, ghist::mode::accumulate}) {
        const bool acc = how == ghist::mode::accumulate;
        std::vector<double> pre(bins);
        for (std::int64_t b = 0; b < bins; ++b) pre[b] = static_cast<double>(b) - 500.0;
        std::vector<double> want_sum = acc ? pre : std::vector<double>(bins, 0.0);
        std::vector<double> want_max = acc ? pre : std::vector<double>(bins, -std::numeric_limits<double>::infinity());
        std::vector<std::int64_t> want_isum(bins, 0), want_imin(bins, std::numeric_limits<std::int64_t>::max());
        std::vector<double> mag(bins);
        for (std::int64_t b = 0; b < bins; ++b) mag[b] = std::fabs(want_sum[b]);
        if (acc)
          for (std::int64_t b = 0; b < bins; ++b) want_isum[b] = want_imin[b] = b;
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t k = keys[i];
          if (k < 0 || k >= bins) continue;
          want_sum[k] += w[i];
          mag[k] += std::fabs(w[i]);
          want_max[k] = std::max(want_max[k], w[i]);
          want_isum[k] += wi[i];
          want_imin[k] = std::min(want_imin[k], wi[i]);
        }
        std::vector<double> got_sum = pre, got_max = pre;
        std::vector<std::int64_t> got_isum(bins), got_imin(bins);
        for (std::int64_t b = 0; b < bins; ++b) got_isum[b] = got_imin[b] = b;
        ghist::cpu::weighted_bincount(keys.data(), w.data(), n, got_sum.data(), bins, ghist::plus<double>{}, how,
                                      threads);
        ghist::cpu::weighted_bincount(keys.data(), w.data(), n, got_max.data(), bins, ghist::max<double>{}, how,
                                      threads);
        ghist::cpu::weighted_bincount(keys.data(), wi.data(), n, got_isum.data(), bins, ghist::plus<std::int64_t>{},
                                      how, threads);
        ghist::cpu::weighted_bincount(keys.data(), wi.data(), n, got_imin.data(), bins, ghist::min<std::int64_t>{},
                                      how, threads);
        for (std::int64_t b = 0; b < bins; ++b) {
          if (threads == 1) {
            ASSERT_EQ(got_sum[b], want_sum[b]);
          } else {
            ASSERT_NEAR(got_sum[b], want_sum[b], 1e-12 * mag[b]);
          }
        }
        ASSERT_EQ(got_max, want_max);
        ASSERT_EQ(got_isum, want_isum);
        ASSERT_EQ(got_imin, want_imin);
      }
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Huge histograms: H = 100M bins with H > N (one thread folds straight into dest: no extra memory), and H = 50M with
// several threads under a small memory budget (the bin-range split: no extra memory whatever the thread count).

TEST(CpuBackendHugeH, HundredMillionBinsWithFewInputs) {
  const std::int64_t H = 100'000'000, n = 100'000;
  std::mt19937_64 r(42);
  std::vector<std::int64_t> keys(n);
  for (auto& k : keys) k = static_cast<std::int64_t>(r() % (H + 1000)) - 500;  // some out of range
  std::vector<std::uint8_t> dest(H, 9), ref(H, 0);
  for (std::int64_t k : keys)
    if (k >= 0 && k < H) ++ref[k];
  ghist::cpu::bincount(keys.data(), n, dest.data(), H, ghist::mode::overwrite, 0);
  ASSERT_EQ(std::memcmp(dest.data(), ref.data(), H), 0);
}

TEST(CpuBackendHugeH, FiftyMillionBinsSeveralThreadsSmallBudget) {
  const std::int64_t H = 50'000'000, n = 4 * ghist::cpu::detail::min_inputs_per_thread;
  std::mt19937_64 r(43);
  std::vector<std::int64_t> keys(n);
  for (auto& k : keys) k = static_cast<std::int64_t>(r() % H);
  std::vector<std::uint8_t> dest(H, 3), ref(H, 3);
  for (std::int64_t k : keys) ref[k] = static_cast<std::uint8_t>(ref[k] + 1);
  std::atomic<std::int64_t> calls{0};
  auto update_at = [&](std::int64_t i) {
    if (i == 0) calls.fetch_add(1, std::memory_order_relaxed);
    return ghist::bin_update<std::uint8_t>{keys[i], 1};
  };
  ghist::cpu::detail::run(n, update_at, ghist::plus<std::uint8_t>{}, dest.data(), H, ghist::mode::accumulate, 4,
                          std::size_t(1) << 20);
  EXPECT_EQ(calls.load(), 4);  // the split: every thread scanned the input
  ASSERT_EQ(std::memcmp(dest.data(), ref.data(), H), 0);
}
