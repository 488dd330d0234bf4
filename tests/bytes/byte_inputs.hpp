// The four byte distributions of the byte-histogram tests and benchmark (issue 4, item 1), as a counter-based
// function of (distribution, index, seed) so that the host (tests) and the device (benchmark) make the same data:
//   uniform  independent uniformly random bytes
//   zero     every byte 0 (one bin; the worst case for plain atomics)
//   linear   0, 1, ..., 255, 0, 1, ... (every value equally often, no two neighbours equal)
//   image    4096 x 4096 8-bit images one after another: a smooth diagonal gradient plus noise in [-2, 2], so
//            neighbours are nearly equal (runs of equal bytes, a few hundred bins in use)
#pragma once

#include <cstdint>
#include <string>

#if defined(__CUDACC__)
#define GHIST_BYTES_HD __host__ __device__
#else
#define GHIST_BYTES_HD
#endif

namespace ghist_bytes {

enum class byte_dist { uniform, zero, linear, image };
inline constexpr byte_dist all_byte_dists[] = {byte_dist::uniform, byte_dist::zero, byte_dist::linear,
                                               byte_dist::image};

inline const char* to_string(byte_dist d) {
  switch (d) {
    case byte_dist::uniform: return "uniform";
    case byte_dist::zero: return "zero";
    case byte_dist::linear: return "linear";
    case byte_dist::image: return "image";
  }
  return "?";
}

/// splitmix64 finaliser: a counter-based generator, good enough for test data.
GHIST_BYTES_HD inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline constexpr std::int64_t image_side = 4096;

/// Byte i of distribution d for this seed.
GHIST_BYTES_HD inline std::uint8_t byte_at(byte_dist d, std::int64_t i, std::uint64_t seed) {
  switch (d) {
    case byte_dist::uniform:
      return static_cast<std::uint8_t>(mix64(seed ^ static_cast<std::uint64_t>(i >> 3)) >> (8 * (i & 7)));
    case byte_dist::zero: return 0;
    case byte_dist::linear: return static_cast<std::uint8_t>(i & 255);
    case byte_dist::image: {
      const std::int64_t col = i % image_side, row = (i / image_side) % image_side;
      const int smooth = static_cast<int>((col * 255 / image_side + row * 255 / image_side) / 2);
      const int noise = static_cast<int>(mix64(seed ^ static_cast<std::uint64_t>(i)) % 5) - 2;
      const int v = smooth + noise;
      return static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
  return 0;
}

}  // namespace ghist_bytes
