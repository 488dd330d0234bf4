// The byte path of the CUB-compatible API, the parts that need no GPU: the 256-entry tables equal the bin
// arithmetic applied sample by sample (Even with int, float and double levels, fractional ones; Range, whose device
// kernel runs the same code), which calls take the byte path, and that the size query asks for its storage.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ghist/cub_compat.cuh"

namespace {

namespace cd = ghist::cub_compat::detail;
using Hist = ghist::cub_compat::DeviceHistogram;

/// Every table entry against the transform on the sample that byte stands for, read back as that sample type
/// (so a signed/unsigned mix-up in byte_sample fails here).
template <class S, class Transform>
void expect_table_matches(const Transform& t, const char* what) {
  ghist::detail::bytes::byte_bin_map map{};
  cd::fill_byte_table<S>(t, map);
  for (int raw = 0; raw < 256; ++raw) {
    S s;
    const auto byte = static_cast<std::uint8_t>(raw);
    std::memcpy(&s, &byte, 1);
    const std::int64_t want = t(s);
    ASSERT_EQ(map.bin[raw], want < 0 ? -1 : want) << what << ": raw byte " << raw;
  }
}

template <class S, class L>
void expect_even_table(int num_levels, L lo, L hi) {
  cd::even_transform<S, L> t;
  ASSERT_EQ(cd::make_even_transform(num_levels, lo, hi, t), cd::even_status::ok);
  expect_table_matches<S>(t, "even");
}

TEST(CubCompatBytePath, EvenTablesIntLevels) {
  expect_even_table<std::uint8_t, int>(257, 0, 256);
  expect_even_table<std::uint8_t, int>(8, 3, 250);
  expect_even_table<std::uint8_t, int>(1001, -5, 1000);  // more bins than byte values
  expect_even_table<std::int8_t, int>(257, -128, 128);
  expect_even_table<std::int8_t, int>(6, -100, -7);  // negative levels only
  expect_even_table<std::int8_t, std::int8_t>(101, -128, 127);  // full-range int8 levels (NVIDIA/cccl#10975)
}

TEST(CubCompatBytePath, EvenTablesFloatingLevels) {
  expect_even_table<std::uint8_t, float>(8, 0.5f, 200.25f);
  expect_even_table<std::uint8_t, float>(300, -0.3f, 255.7f);
  expect_even_table<std::int8_t, float>(13, -100.75f, 3.5f);
  expect_even_table<std::int8_t, double>(256, -127.9, 127.9);
  expect_even_table<std::uint8_t, double>(3, 1e-3, 2.5);
}

TEST(CubCompatBytePath, EvenTableSpotValues) {
  // [0.5, 10.5) in 4 bins of 2.5: 0 and 11 are out, 3 is in bin 1 ((3 - 0.5) * 0.4 = 1), 10 in bin 3.
  cd::even_transform<std::uint8_t, float> t;
  ASSERT_EQ(cd::make_even_transform(5, 0.5f, 10.5f, t), cd::even_status::ok);
  ghist::detail::bytes::byte_bin_map map{};
  cd::fill_byte_table<std::uint8_t>(t, map);
  EXPECT_EQ(map.bin[0], -1);
  EXPECT_EQ(map.bin[1], 0);
  EXPECT_EQ(map.bin[3], 1);
  EXPECT_EQ(map.bin[10], 3);
  EXPECT_EQ(map.bin[11], -1);
  EXPECT_EQ(map.bin[255], -1);
  // int8: raw byte 0xff is -1.
  cd::even_transform<std::int8_t, int> s;
  ASSERT_EQ(cd::make_even_transform(4, -2, 1, s), cd::even_status::ok);  // bins of width 1
  cd::fill_byte_table<std::int8_t>(s, map);
  EXPECT_EQ(map.bin[0xff], 1);  // -1 in [-1, 0)
  EXPECT_EQ(map.bin[0xfe], 0);  // -2
  EXPECT_EQ(map.bin[0], 2);
  EXPECT_EQ(map.bin[1], -1);
  EXPECT_EQ(map.bin[0x80], -1);  // -128
}

TEST(CubCompatBytePath, RangeTablesUnevenLevels) {
  std::mt19937 rng(11);
  for (int num_levels : {2, 3, 9, 60, 257, 400}) {
    std::vector<int> levels(static_cast<std::size_t>(num_levels));
    int v = -140;
    for (int& l : levels) l = (v += 1 + static_cast<int>(rng() % 4));
    expect_table_matches<std::int8_t>(cd::range_transform<std::int8_t, int>{levels.data(), num_levels}, "int8 range");
    expect_table_matches<std::uint8_t>(cd::range_transform<std::uint8_t, int>{levels.data(), num_levels},
                                       "uint8 range");
  }
  const std::vector<float> fl = {-3.5f, 0.25f, 0.75f, 17.5f, 100.f, 254.99f};
  expect_table_matches<std::uint8_t>(cd::range_transform<std::uint8_t, float>{fl.data(), 6}, "float levels");
  expect_table_matches<std::int8_t>(cd::range_transform<std::int8_t, float>{fl.data(), 6}, "float levels");
}

TEST(CubCompatBytePath, WhichCallsTakeIt) {
  cd::geometry g;
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(1000), std::int64_t(1), std::size_t(1000), 1, g),
            cudaSuccess);
  EXPECT_TRUE((cd::takes_byte_path<1, const std::uint8_t*>(g)));
  EXPECT_TRUE((cd::takes_byte_path<1, std::int8_t*>(g)));
  EXPECT_FALSE((cd::takes_byte_path<1, const std::int16_t*>(g)));
  EXPECT_TRUE((cd::takes_byte_path<4, const std::uint8_t*>(g)));  // interleaved: the channel kernel
  EXPECT_TRUE((cd::takes_byte_path<3, const std::int8_t*>(g)));
  EXPECT_FALSE((cd::takes_byte_path<5, const std::uint8_t*>(g)));  // more than 4 channels: the engine
  // Pitched rows: gaps up to the row width take it, wider gaps and overlapping rows do not.
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(200), 1, g), cudaSuccess);
  EXPECT_TRUE((cd::takes_byte_path<1, const std::uint8_t*>(g)));
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(201), 1, g), cudaSuccess);
  EXPECT_FALSE((cd::takes_byte_path<1, const std::uint8_t*>(g)));
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(60), 1, g), cudaSuccess);
  EXPECT_FALSE((cd::takes_byte_path<1, const std::uint8_t*>(g)));
  // Interleaved pitched rows: 100 RGBA pixels (400 bytes) per row; strides must keep every row on channel 0.
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(512), 4, g), cudaSuccess);
  EXPECT_TRUE((cd::takes_byte_path<4, const std::uint8_t*>(g)));
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(510), 4, g), cudaSuccess);
  EXPECT_FALSE((cd::takes_byte_path<4, const std::uint8_t*>(g)));
  ASSERT_EQ(cd::make_geometry<std::uint8_t>(std::int64_t(100), std::int64_t(7), std::size_t(801), 3, g), cudaSuccess);
  EXPECT_FALSE((cd::takes_byte_path<3, const std::uint8_t*>(g)));  // 501-byte gaps, 300-byte rows
}

TEST(CubCompatBytePath, QueryAsksForTheBytePathStorage) {
  // The query makes no device call on the byte path, so it runs without a GPU.
  const std::uint8_t* samples = reinterpret_cast<const std::uint8_t*>(std::uintptr_t(0x1000));
  int* hist = reinterpret_cast<int*>(std::uintptr_t(0x2000));
  std::size_t bytes = 0;
  ASSERT_EQ(Hist::HistogramEven(nullptr, bytes, samples, hist, 257, 0, 256, 1 << 20), cudaSuccess);
  EXPECT_GE(bytes, cd::byte_path_temp_bytes);
  bytes = 0;
  const float* levels = reinterpret_cast<const float*>(std::uintptr_t(0x3000));
  ASSERT_EQ(Hist::HistogramRange(nullptr, bytes, samples, hist, 10, levels, 12345), cudaSuccess);
  EXPECT_GE(bytes, cd::byte_path_temp_bytes);
  bytes = 0;
  ASSERT_EQ(Hist::HistogramEven(nullptr, bytes, samples, hist, 5, 0, 256, 0), cudaSuccess);
  EXPECT_GE(bytes, 1u);
  bytes = 0;
  ::cuda::std::array<int*, 3> hists{hist, hist, hist};
  ::cuda::std::array<int, 3> num_levels{257, 17, 100};
  ::cuda::std::array<int, 3> lo{0, 0, 10}, hi{256, 256, 200};
  ASSERT_EQ((Hist::MultiHistogramEven<4, 3>(nullptr, bytes, samples, hists, num_levels, lo, hi, 1000)), cudaSuccess);
  EXPECT_GE(bytes, cd::channel_path_temp_bytes(3));
}

template <int Channels>
void expect_channel_shares() {
  for (int phase = 0; phase < Channels; ++phase) {
    unsigned total = 0;
    for (int c = 0; c < Channels; ++c) {
      unsigned want = 0;
      for (int k = 0; k < 16; ++k) want += (phase + k) % Channels == c;
      EXPECT_EQ(ghist::detail::bytes::channel_share<Channels>(c, phase), want)
          << Channels << " channels, phase " << phase << ", channel " << c;
      total += ghist::detail::bytes::channel_share<Channels>(c, phase);
    }
    EXPECT_EQ(total, 16u);
  }
}

template <int Channels>
void expect_vector_phases() {
  using u128 = unsigned __int128;  // 16 i without overflow, for the expected value
  for (int phase = 0; phase < Channels; ++phase)
    for (std::int64_t i : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(7),
                           std::int64_t(1000001), (std::int64_t(1) << 40) + 5, (std::int64_t(1) << 62) + 3}) {
      const int want = static_cast<int>((u128(phase) + 16 * u128(i)) % Channels);
      EXPECT_EQ(ghist::detail::bytes::vector_phase<Channels>(phase, i), want)
          << Channels << " channels, phase " << phase << ", vector " << i;
    }
}

// Vector i of an image starts on channel (phase + 16 i) % Channels: rotating for 3 channels, fixed for 2 and 4.
TEST(CubCompatBytePath, VectorPhases) {
  expect_vector_phases<2>();
  expect_vector_phases<3>();
  expect_vector_phases<4>();
  EXPECT_EQ(ghist::detail::bytes::vector_phase<3>(0, 1), 1);  // bytes 16.. start on channel 16 % 3 = 1
  EXPECT_EQ(ghist::detail::bytes::vector_phase<3>(2, 2), 1);  // (2 + 32) % 3
  EXPECT_EQ(ghist::detail::bytes::vector_phase<4>(3, 12345), 3);
}

// A vector of 16 equal bytes is one atomic per channel, adding that channel's share of the 16.
TEST(CubCompatBytePath, ChannelSharesOfOneValueVectors) {
  expect_channel_shares<1>();
  expect_channel_shares<2>();
  expect_channel_shares<3>();
  expect_channel_shares<4>();
}

}  // namespace
