// GPU tests of ghist::streaming_histogram against the CPU backend: every operation (counts, weighted sum/min/max,
// even bins and keys), chunk sizes that do and do not divide n (down to one sample per chunk), n = 0 and 1, input in
// pageable, pinned, registered and device memory and through acquire()/commit(), pushes of random sizes, several
// buffers and copy threads; and the errors of push/commit/acquire.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "ghist/cpu.hpp"
#include "ghist/error.hpp"
#include "ghist/streaming.hpp"
#include "test_support.cuh"

namespace {

using ghist::stream_values;

template <class S, class C, class W>
struct config {
  using Sample = S;
  using Count = C;
  using Weight = W;
};

enum class memory { pageable, pinned, registered, device, acquired };
const char* to_string(memory m) {
  switch (m) {
    case memory::pageable: return "pageable";
    case memory::pinned: return "pinned";
    case memory::registered: return "registered";
    case memory::device: return "device";
    default: return "acquired";
  }
}
const char* to_string(stream_values v) {
  switch (v) {
    case stream_values::sum: return "sum";
    case stream_values::min: return "min";
    case stream_values::max: return "max";
    default: return "none";
  }
}

enum class spread { uniform, one_bin, skewed, sorted };

// Even bins of the tests: an odd count over a range that the samples overflow on both sides (where the type can).
template <class Sample>
ghist::stream_bins<Sample> test_even_bins() {
  if constexpr (std::is_floating_point_v<Sample>) return ghist::stream_bins<Sample>::even(1001, Sample(-1.5), Sample(2.5));
  else if constexpr (std::is_signed_v<Sample>) return ghist::stream_bins<Sample>::even(37, Sample(-100), Sample(900));
  else return ghist::stream_bins<Sample>::even(37, Sample(100), Sample(900));
}

template <class Sample>
std::vector<Sample> make_samples(std::int64_t n, spread d, bool keys, std::int64_t H, std::mt19937_64& rng) {
  std::vector<Sample> x(static_cast<std::size_t>(n));
  const double lo = keys ? (std::is_signed_v<Sample> ? -3.0 : 0.0) : double(test_even_bins<Sample>().lower);
  const double hi = keys ? double(H + 3) : double(test_even_bins<Sample>().upper);
  const double width = hi - lo;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double one = lo + 0.37 * width;
  for (auto& v : x) {
    double t = u(rng);
    if (d == spread::skewed) t = t * t * t;
    double value = d == spread::one_bin ? one : lo - 0.1 * width + 1.2 * width * t;
    if (!std::is_signed_v<Sample> && value < 0) value = 0;
    v = static_cast<Sample>(std::is_floating_point_v<Sample> ? value : std::floor(value));
  }
  if (d == spread::sorted) std::sort(x.begin(), x.end());
  return x;
}

// Weights whose sums are exact in any order (multiples of 1/2 below 2^24 in total) for float; any doubles for double.
template <class Weight>
std::vector<Weight> make_weights(std::int64_t n, std::mt19937_64& rng) {
  std::vector<Weight> w(static_cast<std::size_t>(n));
  for (auto& v : w) {
    if constexpr (std::is_same_v<Weight, float>) v = float(std::int64_t(rng() % 128) - 64) * 0.5f;
    else v = std::uniform_real_distribution<double>(-1e3, 1e3)(rng);
  }
  return w;
}

template <class Sample, class Count, class Weight>
struct reference {
  std::vector<Count> counts;
  std::vector<Weight> values;
};

template <class Sample, class Count, class Weight>
reference<Sample, Count, Weight> cpu_reference(const ghist::stream_bins<Sample>& b, bool counts, stream_values v,
                                               const std::vector<Sample>& x, const std::vector<Weight>& w) {
  reference<Sample, Count, Weight> r;
  const auto n = static_cast<std::int64_t>(x.size());
  const auto H = static_cast<std::size_t>(b.num_bins);
  if (counts) {
    r.counts.resize(H);
    if constexpr (std::is_integral_v<Sample>) {
      if (b.bincount) ghist::cpu::bincount(x.data(), n, r.counts.data(), b.num_bins);
    }
    if (!b.bincount) ghist::cpu::histogram_even(x.data(), n, r.counts.data(), b.num_bins, b.lower, b.upper);
  }
  if (v == stream_values::none) return r;
  r.values.resize(H);
  auto weighted = [&](auto op) {
    if constexpr (std::is_integral_v<Sample>) {
      if (b.bincount) return ghist::cpu::weighted_bincount(x.data(), w.data(), n, r.values.data(), b.num_bins, op);
    }
    ghist::cpu::weighted_histogram_even(x.data(), w.data(), n, r.values.data(), b.num_bins, b.lower, b.upper, op);
  };
  if (v == stream_values::sum) weighted(ghist::plus<Weight>{});
  if (v == stream_values::min) weighted(ghist::min<Weight>{});
  if (v == stream_values::max) weighted(ghist::max<Weight>{});
  return r;
}

template <class Weight>
bool values_equal(Weight got, Weight want, stream_values v) {
  if (got == want) return true;
  if (std::isinf(got) && std::isinf(want)) return (got > 0) == (want > 0);
  // Double sums depend on the order of the additions; float test weights are exact in any order.
  if (v == stream_values::sum && std::is_same_v<Weight, double>)
    return std::fabs(got - want) <= 1e-9 * std::max<double>(1.0, std::fabs(want)) * 1e3;
  return false;
}

/// Host memory the test owns in one of the kinds (pinned: cudaMallocHost; registered: cudaHostRegister; device).
template <class T>
class input_copy {
 public:
  input_copy(const std::vector<T>& v, memory m) : m_(m), n_(v.size()) {
    const std::size_t bytes = std::max<std::size_t>(1, v.size()) * sizeof(T);
    switch (m) {
      case memory::pinned:
        if (cudaMallocHost(&p_, bytes) != cudaSuccess) throw std::runtime_error("cudaMallocHost");
        std::memcpy(p_, v.data(), v.size() * sizeof(T));
        break;
      case memory::registered:
        host_ = v;
        host_.resize(std::max<std::size_t>(1, v.size()));
        if (cudaHostRegister(host_.data(), bytes, cudaHostRegisterDefault) != cudaSuccess)
          throw std::runtime_error("cudaHostRegister");
        p_ = host_.data();
        break;
      case memory::device:
        if (cudaMalloc(&p_, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc");
        if (cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess)
          throw std::runtime_error("cudaMemcpy");
        break;
      default: host_ = v; p_ = host_.data();
    }
  }
  ~input_copy() {
    if (m_ == memory::pinned) cudaFreeHost(p_);
    if (m_ == memory::registered) cudaHostUnregister(host_.data());
    if (m_ == memory::device) cudaFree(p_);
  }
  input_copy(const input_copy&) = delete;
  input_copy& operator=(const input_copy&) = delete;
  const T* get() const { return n_ == 0 && m_ == memory::pageable ? nullptr : static_cast<const T*>(p_); }

 private:
  memory m_;
  std::size_t n_;
  std::vector<T> host_;
  void* p_ = nullptr;
};

/// Feeds x (and w) to h in pushes of random sizes (0 .. 3 chunks), or through acquire()/commit().
template <class H, class Sample, class Weight>
void feed(H& h, const std::vector<Sample>& x, const std::vector<Weight>& w, bool weighted, memory m,
          std::mt19937_64& rng) {
  const auto n = static_cast<std::int64_t>(x.size());
  if (m == memory::acquired) {
    for (std::int64_t off = 0; off < n;) {
      auto buf = h.acquire();
      const auto take = std::min<std::int64_t>(n - off, 1 + std::int64_t(rng() % buf.capacity));
      std::memcpy(buf.samples, x.data() + off, std::size_t(take) * sizeof(Sample));
      if (weighted) std::memcpy(buf.weights, w.data() + off, std::size_t(take) * sizeof(Weight));
      else EXPECT_EQ(buf.weights, nullptr);
      h.commit(std::size_t(take));
      off += take;
    }
    return;
  }
  input_copy<Sample> xs(x, m);
  input_copy<Weight> ws(w, m);
  const auto chunk = static_cast<std::int64_t>(h.chunk_capacity());
  std::int64_t off = 0;
  do {
    const std::int64_t take = std::min<std::int64_t>(n - off, std::int64_t(rng() % std::uint64_t(3 * chunk + 1)));
    const Sample* px = xs.get() == nullptr ? nullptr : xs.get() + off;
    if (weighted) h.push(px, ws.get() == nullptr ? nullptr : ws.get() + off, take);
    else h.push(px, take);
    off += take;
  } while (off < n);
  h.synchronize();  // before the pinned, registered or device copies go away
}

template <class Config>
class StreamingVsCpu : public ::testing::Test {};
using configs = ::testing::Types<config<std::int64_t, std::uint64_t, double>, config<std::uint64_t, std::uint64_t, double>,
                                 config<double, std::uint64_t, double>, config<float, std::uint32_t, float>,
                                 config<std::uint32_t, std::uint64_t, float>, config<std::int32_t, std::uint32_t, double>>;
TYPED_TEST_SUITE(StreamingVsCpu, configs);

template <class Sample, class Count, class Weight>
void check_case(const ghist::stream_bins<Sample>& bins, bool counts, stream_values v, std::int64_t n,
                std::size_t chunk, memory m, spread d, const ghist::streaming_options& base, std::mt19937_64& rng) {
  SCOPED_TRACE(::testing::Message() << (bins.bincount ? "keys" : "even") << " counts=" << counts
                                    << " values=" << to_string(v) << " n=" << n << " chunk=" << chunk
                                    << " memory=" << to_string(m) << " spread=" << int(d));
  const bool weighted = v != stream_values::none;
  const std::vector<Sample> x = make_samples<Sample>(n, d, bins.bincount, bins.num_bins, rng);
  const std::vector<Weight> w = weighted ? make_weights<Weight>(n, rng) : std::vector<Weight>{};
  ghist::streaming_options o = base;
  o.chunk_bytes = chunk * sizeof(Sample);
  ghist::streaming_histogram<Sample, Count, Weight> h(bins, counts, v, o);
  feed(h, x, w, weighted, m, rng);
  EXPECT_EQ(h.samples_pushed(), n);
  const auto got = h.finish();
  const auto want = cpu_reference<Sample, Count, Weight>(bins, counts, v, x, w);
  ASSERT_EQ(got.counts.size(), want.counts.size());
  for (std::size_t b = 0; b < want.counts.size(); ++b) ASSERT_EQ(got.counts[b], want.counts[b]) << "bin " << b;
  ASSERT_EQ(got.values.size(), want.values.size());
  for (std::size_t b = 0; b < want.values.size(); ++b)
    ASSERT_TRUE(values_equal(got.values[b], want.values[b], v)) << "bin " << b << ": " << got.values[b] << " vs "
                                                                 << want.values[b];
}

TYPED_TEST(StreamingVsCpu, EveryOperationChunkSizeAndMemory) {
  using Sample = typename TypeParam::Sample;
  using Count = typename TypeParam::Count;
  using Weight = typename TypeParam::Weight;
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<ghist::stream_bins<Sample>> layouts = {test_even_bins<Sample>()};
  if constexpr (std::is_integral_v<Sample>) layouts.push_back(ghist::stream_bins<Sample>::keys(257));
  const memory memories[] = {memory::pageable, memory::pinned, memory::registered, memory::device, memory::acquired};
  const stream_values ops[] = {stream_values::none, stream_values::sum, stream_values::min, stream_values::max};
  int k = 0;
  for (const auto& bins : layouts)
    for (std::size_t chunk : {std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(65536)})
      for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(97), std::int64_t(4097),
                             std::int64_t(100003)}) {
        // More than ~1000 chunks per case add GPU-check time (tens of microseconds each), not coverage.
        if (n / std::int64_t(chunk) > 1000) continue;
        for (memory m : memories)
          for (stream_values v : ops) {
            ++k;
            const bool counts = v == stream_values::none || k % 2 == 0;  // min/max with and without counts
            check_case<Sample, Count, Weight>(bins, counts, v, n, chunk, m, spread(k % 4), {}, rng);
            if (::testing::Test::HasFatalFailure()) return;
          }
      }
}

TYPED_TEST(StreamingVsCpu, MoreBuffersAndCopyThreads) {
  using Sample = typename TypeParam::Sample;
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int buffers : {2, 3, 5})
    for (int threads : {1, 3, 8}) {
      ghist::streaming_options o;
      o.buffers = buffers;
      o.copy_threads = threads;
      check_case<Sample, typename TypeParam::Count, typename TypeParam::Weight>(
          test_even_bins<Sample>(), true, stream_values::sum, 1000003, 65537, memory::pageable,
          spread(buffers % 4), o, rng);
    }
}

// register_bytes: large pageable pushes are pinned in place; a push that overlaps a range registered by an earlier
// push (cudaHostRegister fails) falls back to staging; synchronize() unregisters, so the range can be registered
// again.
TYPED_TEST(StreamingVsCpu, RegisterInPlace) {
  using Sample = typename TypeParam::Sample;
  using Count = typename TypeParam::Count;
  using Weight = typename TypeParam::Weight;
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  ghist::streaming_options o;
  o.register_bytes = 4096;
  o.chunk_bytes = 10007 * sizeof(Sample);
  for (stream_values v : {stream_values::none, stream_values::sum, stream_values::max})
    check_case<Sample, Count, Weight>(test_even_bins<Sample>(), true, v, 300007, 10007, memory::pageable,
                                      spread::uniform, o, rng);
  const std::int64_t n = 100003;
  const auto bins = test_even_bins<Sample>();
  const auto x = make_samples<Sample>(n, spread::skewed, false, bins.num_bins, rng);
  const auto w = make_weights<Weight>(n, rng);
  ghist::streaming_histogram<Sample, Count, Weight> h(bins, true, stream_values::min, o);
  const std::int64_t half = n / 2;
  h.push(x.data(), w.data(), half);  // registers the first halves
  h.push(x.data(), w.data(), n);     // overlaps them: cannot be registered, staged
  h.synchronize();
  h.push(x.data(), w.data(), n);  // unregistered by synchronize(): registered again
  const auto got = h.finish();
  auto want = cpu_reference<Sample, Count, Weight>(bins, true, stream_values::min, x, w);
  const std::vector<Sample> xh(x.begin(), x.begin() + half);
  const std::vector<Weight> wh(w.begin(), w.begin() + half);
  const auto first = cpu_reference<Sample, Count, Weight>(bins, true, stream_values::min, xh, wh);
  for (std::size_t b = 0; b < want.counts.size(); ++b) want.counts[b] = 2 * want.counts[b] + first.counts[b];
  EXPECT_EQ(got.counts, want.counts);
  EXPECT_EQ(got.values, want.values);
  // finish() unregistered everything: registering the array again works.
  ASSERT_EQ(cudaHostRegister(const_cast<Sample*>(x.data()), n * sizeof(Sample), cudaHostRegisterDefault),
            cudaSuccess);
  EXPECT_EQ(cudaHostUnregister(const_cast<Sample*>(x.data())), cudaSuccess);
}

// Large enough for the automatic copy threads (several per 32 MiB staging buffer) and many chunks.
TEST(StreamingOneShot, LargeHostArraysMatchTheCpu) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const std::int64_t n = (std::int64_t(1) << 25) + 3;
  const auto x = make_samples<float>(n, spread::uniform, false, 0, rng);
  const auto b = test_even_bins<float>();
  std::vector<std::uint64_t> want(std::size_t(b.num_bins));
  ghist::cpu::histogram_even(x.data(), n, want.data(), b.num_bins, b.lower, b.upper);
  EXPECT_EQ(ghist::histogram_even_from_host(x.data(), n, b.num_bins, b.lower, b.upper), want);

  const auto keys = make_samples<std::uint32_t>(n, spread::skewed, true, 4096, rng);
  std::vector<std::uint32_t> kwant(4096);
  ghist::cpu::bincount(keys.data(), n, kwant.data(), 4096);
  EXPECT_EQ((ghist::bincount_from_host<std::uint32_t, std::uint32_t>(keys.data(), n, 4096)), kwant);

  const auto w = make_weights<float>(n, rng);
  std::vector<float> mx(4096), sm(std::size_t(b.num_bins));
  ghist::cpu::weighted_bincount(keys.data(), w.data(), n, mx.data(), 4096, ghist::max<float>{});
  EXPECT_EQ(ghist::weighted_bincount_from_host(keys.data(), w.data(), n, 4096, ghist::max<float>{}), mx);
  ghist::cpu::weighted_histogram_even(x.data(), w.data(), n, sm.data(), b.num_bins, b.lower, b.upper,
                                      ghist::plus<float>{});
  EXPECT_EQ(ghist::weighted_histogram_even_from_host(x.data(), w.data(), n, b.num_bins, b.lower, b.upper,
                                                     ghist::plus<float>{}),
            sm);
}

TEST(StreamingOneShot, EmptyInputGivesTheIdentity) {
  const std::vector<double> none;
  EXPECT_EQ(ghist::histogram_even_from_host(none.data(), 0, 5, 0.0, 1.0), std::vector<std::uint64_t>(5, 0));
  const auto mn = ghist::weighted_histogram_even_from_host(none.data(), none.data(), 0, 3, 0.0, 1.0,
                                                           ghist::min<double>{});
  ASSERT_EQ(mn.size(), 3u);
  for (double v : mn) EXPECT_EQ(v, ghist::min<double>::identity());
}

TEST(StreamingResult, DeviceBinsAndRepeatedFinish) {
  std::vector<std::int64_t> x = {0, 1, 1, 2, 2, 2, 9, -1};
  std::vector<double> w = {1, 2, 3, 4, 5, 6, 7, 8};
  ghist::streaming_histogram<std::int64_t> h(ghist::stream_bins<std::int64_t>::keys(3), true, stream_values::sum);
  h.push(x.data(), w.data(), std::int64_t(x.size()));
  h.synchronize();
  std::vector<std::uint64_t> dc(3);
  std::vector<double> dv(3);
  CUDA_OK(cudaMemcpy(dc.data(), h.device_counts(), 3 * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(dv.data(), h.device_values(), 3 * sizeof(double), cudaMemcpyDeviceToHost));
  EXPECT_EQ(dc, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(dv, (std::vector<double>{1, 5, 15}));
  const auto r1 = h.finish();
  const auto r2 = h.finish();
  EXPECT_EQ(r1.counts, dc);
  EXPECT_EQ(r1.values, dv);
  EXPECT_EQ(r2.counts, dc);
  EXPECT_EQ(r2.values, dv);
  // reset(): empty bins again, pushes allowed again, the same answer for the same input.
  h.reset();
  EXPECT_EQ(h.samples_pushed(), 0);
  h.push(x.data(), w.data(), 3);
  const auto r3 = h.finish();
  EXPECT_EQ(r3.counts, (std::vector<std::uint64_t>{1, 2, 0}));
  EXPECT_EQ(r3.values, (std::vector<double>{1, 5, 0}));
  ghist::streaming_histogram<std::int64_t> only(ghist::stream_bins<std::int64_t>::keys(3), false, stream_values::max);
  EXPECT_EQ(only.device_counts(), nullptr);
  EXPECT_NE(only.device_values(), nullptr);
}

template <class Call>
void expect_error(Call&& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "expected ghist::error containing \"" << needle << "\"";
  } catch (const ghist::error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(StreamingErrors, PushCommitAcquireFinish) {
  std::vector<float> x(100, 0.5f), w(100, 1.0f);
  ghist::streaming_options o;
  o.chunk_bytes = 16 * sizeof(float);
  ghist::streaming_histogram<float, std::uint64_t, float> h(ghist::stream_bins<float>::even(4, 0.f, 1.f), true,
                                                            stream_values::sum, o);
  expect_error([&] { h.push(x.data(), w.data(), -1); }, "n must not be negative");
  expect_error([&] { h.push(x.data(), 10); }, "weights missing");
  expect_error([&] { h.push(nullptr, w.data(), 10); }, "samples is null");
  expect_error([&] { h.push(x.data(), nullptr, 10); }, "weights is null");
  expect_error([&] { h.commit(1); }, "commit without acquire");
  auto buf = h.acquire();
  EXPECT_EQ(buf.capacity, 16u);
  expect_error([&] { h.acquire(); }, "acquire twice");
  expect_error([&] { h.push(x.data(), w.data(), 10); }, "between acquire() and commit()");
  expect_error([&] { h.finish(); }, "between acquire() and commit()");
  expect_error([&] { h.commit(17); }, "exceeds the buffer's capacity");
  std::fill(buf.samples, buf.samples + 16, 0.9f);
  std::fill(buf.weights, buf.weights + 16, 2.0f);
  h.commit(16);
  h.push(x.data(), w.data(), 100);
  EXPECT_EQ(h.samples_pushed(), 116);
  // None of the rejected calls changed the bins.
  const auto r = h.finish();
  EXPECT_EQ(r.counts, (std::vector<std::uint64_t>{0, 0, 100, 16}));
  EXPECT_EQ(r.values, (std::vector<float>{0, 0, 100, 32}));
  expect_error([&] { h.push(x.data(), w.data(), 1); }, "push after finish");
  expect_error([&] { h.push(x.data(), w.data(), 0); }, "push after finish");
  expect_error([&] { h.acquire(); }, "acquire after finish");

  ghist::streaming_histogram<float> counts_only(ghist::stream_bins<float>::even(4, 0.f, 1.f), true,
                                                stream_values::none);
  expect_error([&] { counts_only.push(x.data(), reinterpret_cast<const double*>(w.data()), 10); },
               "weights given");
}

}  // namespace
