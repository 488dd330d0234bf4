// The benchmark's inputs: N 32-bit integers whose bins (x % active) * RF follow a chosen distribution.
//
//   uniform     x uniformly distributed over all 32-bit values (seed 000's input; one array for every H and RF)
//   one_bin     every x falls in the same bin
//   zipf:S      bin ranks r in [0, active) drawn with probability proportional to 1 / (r + 1)^S (inverse CDF on
//               the host), ranks mapped to bins by a fixed multiplicative permutation so that hot bins are spread
//   sorted      bins nondecreasing along the input, every active bin about N / active times
//
// For the non-uniform ones, each x is a uniformly random 32-bit integer moved to the nearest value with the wanted
// x % active, so that the bin function is the same for every distribution and the values derived from x's high
// bits stay varied (its low bits are fixed by the bin when active has small factors: seed000_ops.cuh's CAS value
// uses the top bits for that reason). Those inputs depend on active = max(1, H / RF): they are made again for each (H, RF).
//
// Generation is counter-based (element i depends on the seed and i only) and runs on all host threads, so the
// input is the same whatever the thread count.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench {

struct distribution {
  enum class kind { uniform, one_bin, zipf, sorted } what = kind::uniform;
  double zipf_s = 1.1;

  /// Parses "uniform", "one_bin", "zipf", "zipf:S" (S > 0) or "sorted"; throws std::invalid_argument otherwise.
  static distribution parse(const std::string& text) {
    distribution d;
    if (text == "uniform") d.what = kind::uniform;
    else if (text == "one_bin") d.what = kind::one_bin;
    else if (text == "sorted") d.what = kind::sorted;
    else if (text == "zipf" || text.rfind("zipf:", 0) == 0) {
      d.what = kind::zipf;
      if (text.size() > 5) {
        std::size_t used = 0;
        const std::string s = text.substr(5);
        try {
          d.zipf_s = std::stod(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != s.size() || !(d.zipf_s > 0) || !std::isfinite(d.zipf_s))
          throw std::invalid_argument("--dist zipf:S needs an exponent S > 0, got '" + s + "'");
      }
    } else {
      throw std::invalid_argument("--dist must be uniform, one_bin, zipf:S or sorted, got '" + text + "'");
    }
    return d;
  }

  std::string label() const {
    switch (what) {
      case kind::uniform: return "uniform";
      case kind::one_bin: return "one_bin";
      case kind::sorted: return "sorted";
      case kind::zipf: {
        char s[32];
        std::snprintf(s, sizeof s, "zipf:%g", zipf_s);
        return s;
      }
    }
    return "?";
  }

  /// True when the input depends on H and RF (everything but uniform).
  bool per_cell() const { return what != kind::uniform; }
};

namespace detail {

// splitmix64: a counter-based generator, good enough for benchmark inputs.
inline std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
inline std::uint32_t random_u32(std::uint64_t seed, std::int64_t i) {
  return static_cast<std::uint32_t>(mix(seed ^ mix(static_cast<std::uint64_t>(i))) >> 32);
}
inline double random_unit(std::uint64_t seed, std::int64_t i) {  // [0, 1)
  return static_cast<double>(mix(seed ^ mix(static_cast<std::uint64_t>(i)) ^ 0x5bd1e995ull) >> 11) * 0x1.0p-53;
}

// body(begin, end) over [0, n) split across the host's threads.
template <class Body>
void parallel_for(std::int64_t n, Body body) {
  const int t = static_cast<int>(std::clamp<std::int64_t>(std::thread::hardware_concurrency(), 1, 64));
  if (n < (1 << 20) || t == 1) {
    body(std::int64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  for (int k = 0; k < t; ++k) pool.emplace_back(body, n * k / t, n * (k + 1) / t);
  for (auto& th : pool) th.join();
}

// A random x with x % active == b (b < active): a uniform x moved down to the nearest such value.
inline std::uint32_t with_residue(std::uint32_t x, std::uint32_t active, std::uint32_t b) {
  const std::uint64_t base = std::uint64_t(x) - x % active + b;
  return static_cast<std::uint32_t>(base > 0xffffffffull ? base - active : base);
}

// rank -> bin: r * a mod active with gcd(a, active) = 1 (a near active * 0.618, so consecutive ranks land far apart).
struct rank_permutation {
  std::uint64_t active, a;
  explicit rank_permutation(std::uint32_t act) : active(act), a(1) {
    if (active <= 2) return;
    a = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(0.6180339887498949 * static_cast<double>(active)));
    while (std::gcd(a, active) != 1) ++a;
  }
  std::uint32_t operator()(std::uint64_t r) const { return static_cast<std::uint32_t>(r * a % active); }
};

}  // namespace detail

/// Fills `out` (its size is N) with the distribution's input for active = max(1, H / RF) bins.
inline void make_input(const distribution& d, std::uint32_t active, std::vector<std::uint32_t>& out) {
  constexpr std::uint64_t seed = 2006;
  const std::int64_t n = static_cast<std::int64_t>(out.size());
  std::uint32_t* x = out.data();
  const detail::rank_permutation perm(active);
  switch (d.what) {
    case distribution::kind::uniform:
      detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) x[i] = detail::random_u32(seed, i);
      });
      return;
    case distribution::kind::one_bin: {
      const std::uint32_t b = perm(0);
      detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) x[i] = detail::with_residue(detail::random_u32(seed, i), active, b);
      });
      return;
    }
    case distribution::kind::sorted:
      detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) {
          const auto b = static_cast<std::uint32_t>(
              std::min<double>(active - 1, std::floor(double(i) * double(active) / double(n))));
          x[i] = detail::with_residue(detail::random_u32(seed, i), active, b);
        }
      });
      return;
    case distribution::kind::zipf: {
      std::vector<double> cdf(active);
      double sum = 0;
      for (std::uint32_t r = 0; r < active; ++r) cdf[r] = sum += std::pow(double(r) + 1.0, -d.zipf_s);
      for (auto& c : cdf) c /= sum;
      cdf.back() = 1.0;
      detail::parallel_for(n, [&](std::int64_t lo, std::int64_t hi) {
        for (std::int64_t i = lo; i < hi; ++i) {
          const double u = detail::random_unit(seed, i);
          const auto r = static_cast<std::uint64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
          x[i] = detail::with_residue(detail::random_u32(seed, i), active, perm(std::min<std::uint64_t>(r, active - 1)));
        }
      });
      return;
    }
  }
}

}  // namespace bench
