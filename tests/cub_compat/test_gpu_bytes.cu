// The byte path of ghist::cub_compat::DeviceHistogram (uint8 and int8 samples, detail/cub_compat/byte_path.cuh)
// on the GPU: against the CPU reference (the bin arithmetic applied sample by sample) and against
// cub::DeviceHistogram on the same input, on fresh random data (uniform bytes, one repeated value, image-like
// ramps, a linear 0..255 sweep), odd sizes, unaligned pointers, fractional float levels, uneven Range levels, int8
// with negative levels, pitched rows (gaps narrower and wider than the rows, i.e. both paths), many bins (the fold
// after a memset), every counter type, interleaved channels (RGBA with 3 active, RGB, ...: the channel kernel; RGBA
// also over several whole rounds of its tiles), temporary storage and graph capture.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cub_compat_test_support.cuh"

namespace cub_compat_test {
namespace {

using GhistHist = ghist::cub_compat::DeviceHistogram;
namespace cd = ghist::cub_compat::detail;

enum class byte_dist { uniform, one_value, image, linear };
const byte_dist all_byte_dists[] = {byte_dist::uniform, byte_dist::one_value, byte_dist::image, byte_dist::linear};
const char* to_string(byte_dist d) {
  switch (d) {
    case byte_dist::uniform: return "uniform";
    case byte_dist::one_value: return "one_value";
    case byte_dist::image: return "image";
    case byte_dist::linear: return "linear";
  }
  return "?";
}

/// n bytes as S: uniform over all 256 values; one random value; a smooth image-like surface (a slow 2-D ramp over
/// rows of 1000 samples plus a little noise, runs of equal bytes included); or 0, 1, ..., 255 repeating.
template <class S>
std::vector<S> make_bytes(byte_dist d, std::int64_t n, std::mt19937_64& rng) {
  std::vector<S> v(static_cast<std::size_t>(n));
  const auto one = static_cast<std::uint8_t>(rng());
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint8_t b = 0;
    switch (d) {
      case byte_dist::uniform: b = static_cast<std::uint8_t>(rng()); break;
      case byte_dist::one_value: b = one; break;
      case byte_dist::image: {
        const std::int64_t x = i % 1000, y = i / 1000;
        const int noise = rng() % 8 == 0 ? static_cast<int>(rng() % 5) - 2 : 0;
        b = static_cast<std::uint8_t>((x / 5 + y / 3 + noise) & 0xff);
        break;
      }
      case byte_dist::linear: b = static_cast<std::uint8_t>(i); break;
    }
    std::memcpy(&v[static_cast<std::size_t>(i)], &b, 1);
  }
  return v;
}

/// Levels of one test case: Even (lo, hi as L) or Range (the level array), as the CUB user passes them.
template <class L>
struct byte_levels {
  bool even;
  int num_levels;
  L lo{}, hi{};
  std::vector<L> levels;  ///< Range
  bool cub_too;           ///< CUB computes this case correctly (compared too)
  std::string name;
};

template <class CounterT, class S, class L>
void check_case(const byte_levels<L>& lv, const layout& lay, std::int64_t offset, byte_dist d, std::mt19937_64& rng) {
  SCOPED_TRACE(lv.name + " " + lay.name() + " offset " + std::to_string(offset) + " " + to_string(d) +
               " counter bytes " + std::to_string(sizeof(CounterT)));
  const std::vector<S> all = make_bytes<S>(d, lay.total_samples() + offset, rng);
  device_buffer<S> d_all(all);
  const std::vector<S> samples(all.begin() + offset, all.end());
  const S* d_samples = d_all.get() + offset;
  std::array<std::vector<std::uint64_t>, 1> want, got, cub_got;
  const std::int64_t bins = lv.num_levels - 1;
  if (lv.even) {
    std::array<cd::even_transform<S, L>, 1> t{};
    ASSERT_EQ(cd::make_even_transform(lv.num_levels, lv.lo, lv.hi, t[0]), cd::even_status::ok);
    want = reference<1>(lay, samples, t, std::array<std::int64_t, 1>{bins});
    ASSERT_EQ((run_even<GhistHist, 1, 1, CounterT>(lay, d_samples, std::array<int, 1>{lv.num_levels},
                                                   std::array<L, 1>{lv.lo}, std::array<L, 1>{lv.hi}, got)),
              cudaSuccess);
    if constexpr (std::is_same_v<CounterT, int>)  // CUB's atomics have no long long overload
      if (lv.cub_too)
        ASSERT_EQ((run_even<cub::DeviceHistogram, 1, 1, CounterT>(lay, d_samples, std::array<int, 1>{lv.num_levels},
                                                                  std::array<L, 1>{lv.lo}, std::array<L, 1>{lv.hi},
                                                                  cub_got)),
                  cudaSuccess);
  } else {
    std::array<cd::range_transform<S, L>, 1> t{cd::range_transform<S, L>{lv.levels.data(), lv.num_levels}};
    want = reference<1>(lay, samples, t, std::array<std::int64_t, 1>{bins});
    ASSERT_EQ((run_range<GhistHist, 1, 1, CounterT>(lay, d_samples, std::array<std::vector<L>, 1>{lv.levels}, got)),
              cudaSuccess);
    if constexpr (std::is_same_v<CounterT, int>)
      if (lv.cub_too)
        ASSERT_EQ((run_range<cub::DeviceHistogram, 1, 1, CounterT>(lay, d_samples,
                                                                   std::array<std::vector<L>, 1>{lv.levels}, cub_got)),
                  cudaSuccess);
  }
  ASSERT_EQ(got[0], want[0]);
  if (!cub_got[0].empty()) EXPECT_EQ(cub_got[0], want[0]) << "CUB differs from the reference";
}

byte_levels<int> even_int(int num_levels, int lo, int hi, bool cub_too) {
  return {true, num_levels, lo, hi, {}, cub_too,
          "even int " + std::to_string(num_levels) + " levels [" + std::to_string(lo) + ", " + std::to_string(hi) +
              ")"};
}
byte_levels<float> even_float(int num_levels, float lo, float hi, bool cub_too) {
  return {true, num_levels, lo, hi, {}, cub_too,
          "even float " + std::to_string(num_levels) + " levels [" + std::to_string(lo) + ", " + std::to_string(hi) +
              ")"};
}
template <class L>
byte_levels<L> range_of(std::vector<L> levels, bool cub_too, const std::string& name) {
  const int n = static_cast<int>(levels.size());
  return {false, n, L{}, L{}, std::move(levels), cub_too, "range " + name};
}

/// Uneven increasing int levels from `start`, steps of 1..max_step.
std::vector<int> uneven_levels(int count, int start, int max_step, std::mt19937_64& rng) {
  std::vector<int> l(static_cast<std::size_t>(count));
  int v = start;
  for (int& x : l) x = (v += 1 + static_cast<int>(rng() % static_cast<unsigned>(max_step)));
  return l;
}

const std::int64_t byte_counts[] = {0, 1, 15, 4097, 1000003};

template <class CounterT, class S, class L>
void sweep(const byte_levels<L>& lv, std::mt19937_64& rng) {
  int rotate = 0;
  for (std::int64_t n : byte_counts)
    for (byte_dist d : all_byte_dists) {
      const std::int64_t offset = (rotate++ * 7) % 16;  // aligned and unaligned starts (1..15)
      check_case<CounterT, S>(lv, layout{1, 1, n, n == 0 ? 0 : 1, 0}, offset, d, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(CubCompatBytes, Uint8EvenAndRangeAllCounters) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<byte_levels<int>> int_cases = {
      even_int(257, 0, 256, true), even_int(33, 0, 256, true), even_int(8, 3, 250, true),
      even_int(5001, 0, 256, false),  // more bins than fold_clear_limit: cleared by a memset (reference only)
      range_of(uneven_levels(40, -3, 9, rng), true, "uneven int levels"),
      range_of(uneven_levels(300, -20, 1, rng), true, "300 int levels")};
  for (const auto& lv : int_cases) {
    sweep<int, std::uint8_t>(lv, rng);
    sweep<unsigned, std::uint8_t>(lv, rng);
    sweep<long long, std::uint8_t>(lv, rng);
    sweep<std::uint64_t, std::uint8_t>(lv, rng);
    if (HasFatalFailure()) return;
  }
}

TEST(CubCompatBytes, Uint8FractionalFloatLevels) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<byte_levels<float>> cases = {
      even_float(8, 0.5f, 200.25f, true), even_float(300, -0.3f, 255.7f, true), even_float(11, 16.9f, 18.3f, true),
      range_of(std::vector<float>{-3.5f, 0.25f, 0.75f, 17.5f, 100.f, 254.99f}, true, "fractional float levels")};
  for (const auto& lv : cases) {
    sweep<int, std::uint8_t>(lv, rng);
    sweep<std::uint64_t, std::uint8_t>(lv, rng);
    if (HasFatalFailure()) return;
  }
}

// int8: CUB drops negative int8 samples (NVIDIA/cccl#10977), so the reference alone judges negative levels.
TEST(CubCompatBytes, Int8NegativeLevels) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::vector<byte_levels<int>> cases = {
      even_int(257, -128, 128, false), even_int(6, -100, -7, false), even_int(20, -50, 60, false),
      even_int(5000, -128, 127, false), range_of(uneven_levels(31, -130, 9, rng), false, "uneven negative levels")};
  for (const auto& lv : cases) {
    sweep<int, std::int8_t>(lv, rng);
    sweep<long long, std::int8_t>(lv, rng);
    if (HasFatalFailure()) return;
  }
  sweep<int, std::int8_t>(byte_levels<float>{true, 9, -99.5f, 0.25f, {}, false, "even float negative"}, rng);
  // Full-range int8 levels (CUB: NVIDIA/cccl#10975, everything in bin 0).
  sweep<int, std::int8_t>(byte_levels<std::int8_t>{true, 101, -128, 127, {}, false, "even int8 full range"}, rng);
}

// Pitched rows: gaps up to the row width take the byte path (span minus gaps), wider gaps the engine; both must
// equal the reference and CUB, whatever the padding holds.
TEST(CubCompatBytes, PitchedRows) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const layout layouts[] = {{1, 1, 333, 17, 9},   {1, 1, 100, 50, 100}, {1, 1, 64, 30, 200},
                            {1, 1, 61, 4096, 3},  {1, 1, 4000, 300, 96}, {1, 1, 1, 1000, 1},
                            {1, 1, 5000, 1, 17}};
  for (const layout& lay : layouts)
    for (byte_dist d : all_byte_dists) {
      SCOPED_TRACE(std::string("byte path: ") +
                   (cd::byte_rows_supported(lay.row_pixels, lay.rows, lay.row_stride()) ? "yes" : "no"));
      check_case<int, std::uint8_t>(even_int(257, 0, 256, true), lay, 5, d, rng);
      check_case<unsigned, std::uint8_t>(range_of(uneven_levels(20, 0, 20, rng), true, "uneven"), lay, 0, d, rng);
      check_case<long long, std::int8_t>(even_int(13, -90, 90, false), lay, 3, d, rng);
      if (HasFatalFailure()) return;
    }
}

/// Interleaved pixels: channel c has num_levels[c] Even levels [lo[c], hi[c]) or, when `range`, the levels
/// levels[c]; through the channel kernel (or the engine where the layout is not for the byte kernels), against the
/// reference and, when cub_too and the counters are int, CUB.
template <int Channels, int Active, class CounterT, class S, class L>
void check_multi(bool range, const std::array<int, Active>& num_levels, const std::array<L, Active>& lo,
                 const std::array<L, Active>& hi, const std::array<std::vector<L>, Active>& levels, const layout& lay,
                 std::int64_t offset, byte_dist d, bool cub_too, std::mt19937_64& rng) {
  const std::size_t stride = static_cast<std::size_t>(lay.row_stride());
  cd::geometry g;
  ASSERT_EQ(cd::make_geometry<S>(lay.row_pixels, lay.rows, stride, Channels, g), cudaSuccess);
  SCOPED_TRACE(std::string(range ? "range " : "even ") + lay.name() + " offset " + std::to_string(offset) + " " +
               to_string(d) + " counter bytes " + std::to_string(sizeof(CounterT)) +
               (cd::takes_byte_path<Channels, const S*>(g) ? " (channel kernel)" : " (engine)"));
  const std::vector<S> all = make_bytes<S>(d, lay.total_samples() + offset, rng);
  device_buffer<S> d_all(all);
  const std::vector<S> samples(all.begin() + offset, all.end());
  const S* d_samples = d_all.get() + offset;
  std::array<std::int64_t, Active> bins{};
  std::array<std::vector<std::uint64_t>, Active> want, got, cub_got;
  const bool with_cub = cub_too && std::is_same_v<CounterT, int>;
  if (!range) {
    std::array<cd::even_transform<S, L>, Active> t{};
    for (int c = 0; c < Active; ++c) {
      ASSERT_EQ(cd::make_even_transform(num_levels[c], lo[c], hi[c], t[c]), cd::even_status::ok);
      bins[c] = num_levels[c] - 1;
    }
    want = reference<Active>(lay, samples, t, bins);
    ASSERT_EQ((run_even<GhistHist, Channels, Active, CounterT>(lay, d_samples, num_levels, lo, hi, got)), cudaSuccess);
    if constexpr (std::is_same_v<CounterT, int>)  // CUB's atomics have no long long overload
      if (with_cub)
        ASSERT_EQ((run_even<cub::DeviceHistogram, Channels, Active, CounterT>(lay, d_samples, num_levels, lo, hi,
                                                                              cub_got)),
                  cudaSuccess);
  } else {
    std::array<cd::range_transform<S, L>, Active> t{};
    for (int c = 0; c < Active; ++c) {
      t[c] = cd::range_transform<S, L>{levels[c].data(), static_cast<int>(levels[c].size())};
      bins[c] = static_cast<std::int64_t>(levels[c].size()) - 1;
    }
    want = reference<Active>(lay, samples, t, bins);
    ASSERT_EQ((run_range<GhistHist, Channels, Active, CounterT>(lay, d_samples, levels, got)), cudaSuccess);
    if constexpr (std::is_same_v<CounterT, int>)
      if (with_cub)
        ASSERT_EQ((run_range<cub::DeviceHistogram, Channels, Active, CounterT>(lay, d_samples, levels, cub_got)),
                  cudaSuccess);
  }
  for (int c = 0; c < Active; ++c) {
    ASSERT_EQ(got[c], want[c]) << "channel " << c;
    if (with_cub) EXPECT_EQ(cub_got[c], want[c]) << "CUB differs from the reference, channel " << c;
  }
}

/// Layouts of interleaved pixels: flat of several sizes (odd pixel counts, so the tail is not whole vectors), and
/// pitched with strides that keep rows on channel 0 (channel kernel), wide gaps or odd strides (the engine).
template <int Channels>
std::vector<layout> multi_layouts(int active) {
  return {{Channels, active, 0, 0, 0},           {Channels, active, 1, 1, 0},
          {Channels, active, 5, 1, 0},           {Channels, active, 1025, 1, 0},
          {Channels, active, 250001, 1, 0},      {Channels, active, 333, 17, 4 * Channels},
          {Channels, active, 61, 1000, Channels}, {Channels, active, 40, 30, 100 * Channels},
          {Channels, active, 100, 9, 1}};  // a stride off the channel grid (for 3 and 4 channels): the engine
}

template <int Channels, int Active, class CounterT, class S>
void sweep_multi(bool cub_too, int lo_shift, std::mt19937_64& rng) {
  std::array<int, Active> nl{}, lo{}, hi{};
  std::array<std::vector<int>, Active> levels;
  const int starts[] = {0, 0, 10, 3};
  const int stops[] = {256, 256, 200, 101};
  const int counts[] = {257, 17, 100, 7};
  for (int c = 0; c < Active; ++c) {
    nl[c] = counts[c];
    lo[c] = starts[c] + lo_shift;
    hi[c] = stops[c] + lo_shift;
    levels[c] = uneven_levels(5 + 9 * c, lo_shift - 2, 11, rng);
  }
  int rotate = 0;
  for (const layout& lay : multi_layouts<Channels>(Active))
    for (byte_dist d : all_byte_dists) {
      const std::int64_t offset = (rotate++ * 5) % 16;
      check_multi<Channels, Active, CounterT, S, int>(false, nl, lo, hi, levels, lay, offset, d, cub_too, rng);
      check_multi<Channels, Active, CounterT, S, int>(true, nl, lo, hi, levels, lay, offset, d, cub_too, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// RGBA (three active channels: CUB's most common use), RGB, two channels, four of four; uint8 against the
// reference and CUB, int8 with negative levels against the reference (CUB drops negative int8 samples,
// NVIDIA/cccl#10977).
TEST(CubCompatBytes, InterleavedChannels) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  sweep_multi<4, 3, int, std::uint8_t>(true, 0, rng);
  sweep_multi<4, 3, std::uint64_t, std::uint8_t>(true, 0, rng);
  sweep_multi<3, 3, int, std::uint8_t>(true, 0, rng);
  sweep_multi<3, 2, unsigned, std::uint8_t>(true, 0, rng);
  sweep_multi<2, 1, long long, std::uint8_t>(true, 0, rng);
  sweep_multi<4, 4, int, std::uint8_t>(true, 0, rng);
  sweep_multi<4, 3, int, std::int8_t>(false, -128, rng);
  sweep_multi<3, 2, long long, std::int8_t>(false, -100, rng);
}

// RGBA images of several whole rounds of the channel kernel's tiles (the layouts above stay within its first round:
// the tail, split over the blocks): 2000003 pixels (8 MB; one round of 12 warps x 8 vectors on 132 SMs is 6.3 MB),
// an aligned and an unaligned start, Even and Range, uniform and image-like bytes, against the reference and CUB.
TEST(CubCompatBytes, InterleavedChannelsSeveralRounds) {
  const std::uint64_t seed = ghist_test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::array<int, 3> nl{257, 17, 100}, lo{0, 0, 10}, hi{256, 256, 200};
  std::array<std::vector<int>, 3> levels;
  for (int c = 0; c < 3; ++c) levels[static_cast<std::size_t>(c)] = uneven_levels(5 + 9 * c, -2, 11, rng);
  const layout lay{4, 3, 2000003, 1, 0};
  for (const std::int64_t offset : {std::int64_t(0), std::int64_t(5)})
    for (const byte_dist d : {byte_dist::uniform, byte_dist::image})
      for (const bool range : {false, true}) {
        check_multi<4, 3, int, std::uint8_t, int>(range, nl, lo, hi, levels, lay, offset, d, true, rng);
        if (HasFatalFailure()) return;
      }
}

// The two-phase protocol on the byte path: the query asks for the byte path's storage, one byte less is refused
// with the histogram untouched, the histogram is overwritten (not added to) on every call, and repeated calls on the
// same storage give the same counts (the totals are cleared per call).
TEST(CubCompatBytes, TempStorageAndOverwrite) {
  std::vector<std::uint8_t> h(100003);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i % 251);
  device_buffer<std::uint8_t> d(h);
  const std::vector<int> levels_h = {0, 10, 11, 100, 250, 256};
  device_buffer<int> levels(levels_h);
  for (bool even : {true, false}) {
    SCOPED_TRACE(even ? "even" : "range");
    device_buffer<int> hist(std::vector<int>(5, 7));
    auto call = [&](void* temp, std::size_t& bytes) {
      if (even) return GhistHist::HistogramEven(temp, bytes, d.get() + 1, hist.get(), 6, 0, 250, 100000);
      return GhistHist::HistogramRange(temp, bytes, d.get() + 1, hist.get(), 6, levels.get(), 100000);
    };
    std::size_t bytes = 0;
    ASSERT_EQ(call(nullptr, bytes), cudaSuccess);
    EXPECT_GE(bytes, cd::byte_path_temp_bytes);
    {
      device_buffer<unsigned char> small(bytes - 1);
      std::size_t less = bytes - 1;
      EXPECT_EQ(call(small.get(), less), cudaErrorInvalidValue);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(hist.download(), std::vector<int>(5, 7));
    }
    device_buffer<unsigned char> temp(bytes);
    std::vector<std::uint64_t> want(5, 0);
    for (std::size_t i = 1; i <= 100000; ++i) {
      const int v = h[i];
      const std::int64_t b = even ? (v < 250 ? v / 50 : -1)
                                  : std::upper_bound(levels_h.begin(), levels_h.end(), v) - levels_h.begin() - 1;
      if (b >= 0 && b < 5) ++want[static_cast<std::size_t>(b)];
    }
    for (int rep = 0; rep < 3; ++rep) {
      ASSERT_EQ(call(temp.get(), bytes), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const auto got = hist.download();
      for (std::size_t b = 0; b < 5; ++b)
        ASSERT_EQ(static_cast<std::uint64_t>(got[b]), want[b]) << "rep " << rep << " bin " << b;
    }
  }
}

// Range on the byte path builds its table on the device, stream-ordered: capturable, and correct when the levels
// change between launches of the graph (the table is rebuilt from them each time).
TEST(CubCompatBytes, RangeGraphCaptureReadsLevelsAtRunTime) {
  std::vector<std::uint8_t> h(1 << 20);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7);
  device_buffer<std::uint8_t> d(h);
  device_buffer<unsigned> hist(2);
  device_buffer<int> levels(std::vector<int>{0, 128, 256});
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  std::size_t bytes = 0;
  const int n = static_cast<int>(h.size());
  ASSERT_EQ(GhistHist::HistogramRange(nullptr, bytes, d.get(), hist.get(), 3, levels.get(), n, s), cudaSuccess);
  device_buffer<unsigned char> temp(bytes);
  cudaGraph_t graph;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  const cudaError_t e = GhistHist::HistogramRange(temp.get(), bytes, d.get(), hist.get(), 3, levels.get(), n, s);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  ASSERT_EQ(e, cudaSuccess);
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(hist.download(), (std::vector<unsigned>{1u << 19, 1u << 19}));
  levels.upload({0, 64, 256});
  ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(hist.download(), (std::vector<unsigned>{1u << 18, 3u << 18}));
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace cub_compat_test
