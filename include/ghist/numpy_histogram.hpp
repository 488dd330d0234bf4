// NumPy-compatible even-bin histograms on the CPU: numpy.histogram(a, bins=<int>, range=..., weights=...,
// density=...) in the native API. This is the reference that the GPU version is tested against. Host-only (no nvcc).
//
//   ghist::cpu::numpy_result r = ghist::cpu::numpy_histogram(a, n, bins);                 // range from the data
//   auto r = ghist::cpu::numpy_histogram(a, n, bins, std::make_pair(0.0, 3.0));           // range given
//   auto r = ghist::cpu::numpy_histogram(a, n, bins, std::nullopt, w, /*density=*/true);  // weighted density
//
// Result (numpy_result): `edges` holds the bins + 1 edges (NumPy's bin_edges, as double); `values` holds the
// histogram as double in every case; `counts` holds the int64 counts when there are no weights (empty otherwise).
// What NumPy returns is, exactly:
//   - no weights, no density: counts (NumPy's int64 array); values[b] == double(counts[b]);
//   - weights, no density: values[b] is NumPy's value of the weights' type (Weight), converted to double (exact for
//     float and double; exact for integer weights below 2^53);
//   - density: values (float64 in NumPy too); counts is still filled when there are no weights.
//
// Semantics (those of numpy.histogram with an integer `bins`, NumPy 2):
//   - range: when given, (lo, hi) is checked in NumPy's order: lo > hi throws "max must be larger than min in range
//     parameter."; a non-finite bound throws "supplied range of [lo, hi] is not finite". When not given, lo = min(a)
//     and hi = max(a); a NaN or an infinity in the data throws "autodetected range of [lo, hi] is not finite"; empty
//     input gives (0, 1). When lo == hi (given or detected), the range is (lo - 0.5, hi + 0.5). bins <= 0 throws
//     "`bins` must be positive, when an integer". Numbers in messages are written as Python writes floats ("1.0",
//     "nan", "-inf", "1e+20"); a range given in Python as integers would print without ".0" there.
//   - edges: numpy.linspace(lo, hi, bins + 1): edges[i] = i * step + lo with step = (hi - lo) / bins computed in
//     double (when step underflows to 0: i / bins * (hi - lo) + lo), and edges[bins] = hi exactly. For float samples
//     NumPy's edges are float32 (bin_type is the samples' type): each edge is that double rounded to float, and for
//     a detected lo == hi the +-0.5 is applied in float32 (NumPy 2 rules). Integer samples use double edges.
//   - binning: every bin is half-open [edges[b], edges[b+1]) except the last, which is closed [edges[bins-1],
//     edges[bins]]; samples outside [edges[0], edges[bins]] and NaN are ignored. The bin is found as NumPy does
//     (index ((x - lo) / (hi - lo)) * bins, then one step down when x < edges[b] and one step up when
//     x >= edges[b+1] except for the last bin), so the result agrees exactly with the edges; should one step not be
//     enough (it always is for sane ranges) a binary search over the edges finishes the job, where NumPy would not.
//   - integer samples are converted to double before any comparison, as NumPy does (lossy beyond 2^53 for int64 and
//     uint64, as in NumPy).
//   - weights: per block of 65,536 inputs, the weights of each bin are summed in double in input order (NumPy's
//     bincount), converted to Weight, and added to the Weight-typed histogram block after block (NumPy's loop); the
//     summation order is therefore NumPy's whatever the thread count (not checked against a NumPy install here).
//   - density: values[b] = hist[b] / (edges[b+1] - edges[b]) / sum(hist), in that order, with the width computed in
//     the edges' type and sum(hist) as NumPy computes it (int64 for counts, NumPy's pairwise summation in Weight for
//     floating-point weights). An all-zero histogram gives NaN, as in NumPy.
//   - deviation: a range whose width hi - lo overflows double (e.g. (-1e308, 1e308)) throws "range too wide"; NumPy
//     returns NaN edges there.
// Compile without FMA contraction of i * step + lo (the default on x86-64 without -march flags) to get NumPy's
// edges to the last bit.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ghist/cpu.hpp"
#include "ghist/error.hpp"
#include "ghist/operators.hpp"

namespace ghist::cpu {

/// The result of numpy_histogram (see the header comment for what each field holds).
struct numpy_result {
  std::vector<double> values;         ///< the histogram as double: counts, weighted sums (of Weight) or density
  std::vector<std::int64_t> counts;   ///< the counts when unweighted (NumPy's int64 array); empty when weighted
  std::vector<double> edges;          ///< bins + 1 edges (NumPy's bin_edges; float32 values for float samples)
};

namespace detail {

/// A double as Python's repr writes it: shortest round-trip digits, fixed notation for exponents in [-4, 16) with
/// at least one decimal ("1.0"), otherwise d.ddde+XX ("1e+20", "1.5e-07"); "nan", "inf", "-inf".
inline std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);  // e.g. "-1.2345e+02"
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  std::size_t e = s.find('e');
  int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exp >= -4 && exp < 16) {
    std::string out;
    if (exp < 0) {
      out = "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    } else {
      std::size_t int_len = static_cast<std::size_t>(exp) + 1;
      if (digits.size() <= int_len)
        out = digits + std::string(int_len - digits.size(), '0') + ".0";
      else
        out = digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
    return sign + out;
  }
  std::string mant = digits.size() > 1 ? digits.substr(0, 1) + "." + digits.substr(1) : digits;
  std::string ex = std::to_string(exp < 0 ? -exp : exp);
  if (ex.size() < 2) ex = "0" + ex;
  return sign + mant + "e" + (exp < 0 ? "-" : "+") + ex;
}

/// NumPy's pairwise summation (the float add reduction): a[0] + pairwise(a[1..n)), in T.
template <class T>
T numpy_pairwise(const T* a, std::int64_t n) {
  if (n < 8) {
    T r = T(-0.0);
    for (std::int64_t i = 0; i < n; ++i) r += a[i];
    return r;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::int64_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return numpy_pairwise(a, n2) + numpy_pairwise(a + n2, n - n2);
}

template <class T>
T numpy_sum(const std::vector<T>& v) {
  if (v.empty()) return T(0);
  if constexpr (std::is_floating_point_v<T>) {
    return v[0] + numpy_pairwise(v.data() + 1, static_cast<std::int64_t>(v.size()) - 1);
  } else {
    T s = 0;
    for (T x : v) s += x;
    return s;
  }
}

/// The bins of numpy.histogram: edges, and the bin of a sample (as double) consistent with them.
struct numpy_bins {
  std::vector<double> edges;
  double lo = 0, hi = 0;  // the outer edges used for NumPy's index estimate
  std::int64_t bins = 0;

  std::int64_t operator()(double x) const {
    const double* e = edges.data();
    if (!(x >= e[0] && x <= e[bins])) return no_bin;  // also drops NaN
    double f = ((x - lo) / (hi - lo)) * static_cast<double>(bins);
    std::int64_t b;
    if (!(f >= 0)) b = 0;
    else if (!(f < static_cast<double>(bins))) b = bins - 1;
    else b = static_cast<std::int64_t>(f);
    if (x < e[b]) --b;
    else if (b != bins - 1 && x >= e[b + 1]) ++b;
    if (b >= 0 && b < bins && e[b] <= x && (x < e[b + 1] || b == bins - 1)) return b;
    // Fallback: the last b with e[b] <= x (e[0] <= x <= e[bins] holds), the last bin for x == e[bins].
    b = static_cast<std::int64_t>(std::upper_bound(e, e + bins, x) - e) - 1;
    return b;
  }
};

template <class Sample>
numpy_bins make_numpy_bins(const Sample* a, std::int64_t n, std::int64_t bins,
                           std::optional<std::pair<double, double>> range, int threads) {
  static_assert(std::is_arithmetic_v<Sample> && !std::is_same_v<Sample, bool>,
                "numpy_histogram needs an integer, float or double sample type");
  static_assert(!std::is_floating_point_v<Sample> || std::is_same_v<Sample, float> ||
                    std::is_same_v<Sample, double>,
                "numpy_histogram supports float and double floating-point samples");
  constexpr bool f32 = std::is_same_v<Sample, float>;
  if (n < 0) throw error("n must be >= 0, got " + std::to_string(n));
  if (a == nullptr && n > 0) throw error("a is null with n = " + std::to_string(n) + " > 0");
  if (threads < 0) throw error("threads must be >= 0, got " + std::to_string(threads));
  if (bins <= 0) throw error("`bins` must be positive, when an integer");
  double lo, hi;
  if (range) {
    lo = range->first;
    hi = range->second;
    if (lo > hi) throw error("max must be larger than min in range parameter.");
    if (!std::isfinite(lo) || !std::isfinite(hi))
      throw error("supplied range of [" + python_float(lo) + ", " + python_float(hi) + "] is not finite");
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
  } else if (n == 0) {
    lo = 0.0;
    hi = 1.0;
  } else {
    // min and max in parallel; a NaN makes the detected range NaN (as NumPy's min/max propagate it).
    const int t = threads_for(n, threads);
    std::vector<Sample> mins(static_cast<std::size_t>(t)), maxs(static_cast<std::size_t>(t));
    std::vector<char> nan(static_cast<std::size_t>(t), 0);
    run_parts(t, [&](int k) {
      std::int64_t b = n * k / t, e = n * (k + 1) / t;
      Sample mn = a[b], mx = a[b];
      bool has_nan = false;
      for (std::int64_t i = b; i < e; ++i) {
        Sample x = a[i];
        if constexpr (std::is_floating_point_v<Sample>) {
          if (std::isnan(x)) {
            has_nan = true;
            continue;
          }
        }
        if (x < mn || (mn != mn)) mn = x;
        if (x > mx || (mx != mx)) mx = x;
      }
      mins[k] = mn;
      maxs[k] = mx;
      nan[k] = has_nan;
    });
    Sample mn = mins[0], mx = maxs[0];
    bool has_nan = false;
    for (int k = 0; k < t; ++k) {
      has_nan = has_nan || nan[k] || mins[k] != mins[k];
      if (mins[k] < mn) mn = mins[k];
      if (maxs[k] > mx) mx = maxs[k];
    }
    lo = has_nan ? std::nan("") : static_cast<double>(mn);
    hi = has_nan ? std::nan("") : static_cast<double>(mx);
    if (!std::isfinite(lo) || !std::isfinite(hi))
      throw error("autodetected range of [" + python_float(lo) + ", " + python_float(hi) + "] is not finite");
    if (lo == hi) {
      if constexpr (f32) {
        lo = static_cast<double>(static_cast<float>(mn) - 0.5f);
        hi = static_cast<double>(static_cast<float>(mx) + 0.5f);
      } else {
        lo -= 0.5;
        hi += 0.5;
      }
    }
  }
  const double delta = hi - lo;
  if (!std::isfinite(delta))
    throw error("range too wide: hi - lo overflows double for range [" + python_float(lo) + ", " +
                python_float(hi) + "]");
  numpy_bins nb;
  nb.lo = lo;
  nb.hi = hi;
  nb.bins = bins;
  nb.edges.resize(static_cast<std::size_t>(bins) + 1);
  const double div = static_cast<double>(bins);
  const double step = delta / div;
  for (std::int64_t i = 0; i < bins; ++i) {
    double y;
    if (step == 0) {
      y = static_cast<double>(i) / div;
      y = y * delta;
    } else {
      y = static_cast<double>(i) * step;
    }
    y = y + lo;
    nb.edges[static_cast<std::size_t>(i)] = f32 ? static_cast<double>(static_cast<float>(y)) : y;
  }
  nb.edges[static_cast<std::size_t>(bins)] = f32 ? static_cast<double>(static_cast<float>(hi)) : hi;
  return nb;
}

}  // namespace detail

/// numpy.histogram(a[0..n), bins=bins, range=range, weights=weights, density=density) with an integer `bins`
/// (see the header comment for the exact semantics, the result and the errors). weights: n values or nullptr (no
/// weights). threads = 0 uses default_threads(); the result does not depend on the thread count.
template <class Sample, class Weight = double>
numpy_result numpy_histogram(const Sample* a, std::int64_t n, std::int64_t bins,
                             std::optional<std::pair<double, double>> range = std::nullopt,
                             const Weight* weights = nullptr, bool density = false, int threads = 0) {
  static_assert(std::is_arithmetic_v<Weight> && !std::is_same_v<Weight, bool>,
                "numpy_histogram needs arithmetic weights");
  const detail::numpy_bins nb = detail::make_numpy_bins(a, n, bins, range, threads);
  numpy_result r;
  r.edges = nb.edges;
  const std::size_t H = static_cast<std::size_t>(bins);
  // Widths in the edges' type (float32 for float samples, as numpy.diff of float32 edges).
  auto width = [&](std::size_t b) {
    if constexpr (std::is_same_v<Sample, float>)
      return static_cast<double>(static_cast<float>(nb.edges[b + 1]) - static_cast<float>(nb.edges[b]));
    else
      return nb.edges[b + 1] - nb.edges[b];
  };
  if (weights == nullptr) {
    r.counts.assign(H, 0);
    if (n > 0)
      generalized_histogram_indexed(
          n, [&](std::int64_t i) { return bin_update<std::int64_t>{nb(static_cast<double>(a[i])), 1}; },
          plus<std::int64_t>{}, r.counts.data(), bins, mode::overwrite, threads);
    r.values.resize(H);
    if (density) {
      std::int64_t total = detail::numpy_sum(r.counts);
      for (std::size_t b = 0; b < H; ++b)
        r.values[b] = static_cast<double>(r.counts[b]) / width(b) / static_cast<double>(total);
    } else {
      for (std::size_t b = 0; b < H; ++b) r.values[b] = static_cast<double>(r.counts[b]);
    }
    return r;
  }

  // Weighted: bins of a chunk are found in parallel, then NumPy's block loop runs in input order.
  constexpr std::int64_t block = 65536;
  std::vector<Weight> hist(H, Weight(0));
  std::vector<double> acc(H, 0.0);
  std::vector<char> touched_flag(H, 0);
  std::vector<std::int64_t> touched;
  const int t = threads == 0 ? default_threads() : threads;
  const std::int64_t chunk = block * 16 * t;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(std::min(n, chunk)));
  for (std::int64_t base = 0; base < n; base += chunk) {
    const std::int64_t len = std::min(chunk, n - base);
    const int tt = detail::threads_for(len, t);
    detail::run_parts(tt, [&](int k) {
      for (std::int64_t i = len * k / tt; i < len * (k + 1) / tt; ++i)
        idx[static_cast<std::size_t>(i)] = nb(static_cast<double>(a[base + i]));
    });
    for (std::int64_t b0 = 0; b0 < len; b0 += block) {
      const std::int64_t b1 = std::min(len, b0 + block);
      for (std::int64_t i = b0; i < b1; ++i) {
        std::int64_t b = idx[static_cast<std::size_t>(i)];
        if (b < 0) continue;
        if (!touched_flag[static_cast<std::size_t>(b)]) {
          touched_flag[static_cast<std::size_t>(b)] = 1;
          touched.push_back(b);
        }
        acc[static_cast<std::size_t>(b)] += static_cast<double>(weights[base + i]);
      }
      for (std::int64_t b : touched) {
        const std::size_t ub = static_cast<std::size_t>(b);
        hist[ub] = static_cast<Weight>(hist[ub] + static_cast<Weight>(acc[ub]));
        acc[ub] = 0.0;
        touched_flag[ub] = 0;
      }
      touched.clear();
    }
  }
  r.values.resize(H);
  if (density) {
    const Weight total = detail::numpy_sum(hist);
    for (std::size_t b = 0; b < H; ++b)
      r.values[b] = static_cast<double>(hist[b]) / width(b) / static_cast<double>(total);
  } else {
    for (std::size_t b = 0; b < H; ++b) r.values[b] = static_cast<double>(hist[b]);
  }
  return r;
}

}  // namespace ghist::cpu
