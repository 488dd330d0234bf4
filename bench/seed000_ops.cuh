// Seed 000's benchmark operators and bin functions, one descriptor per measured operator.
//
// Every input is a 32-bit integer x; its bin is (x % active) * RF with active = max(1, H / RF), in 32-bit
// arithmetic as seed 000 measured it (active * RF <= H fits in 32 bits). The value folded into the bin is derived
// from x with one or two integer operations, so that f costs next to nothing next to the update.
//
//   HDW    int32 add of 1                                   (plus<int32>: a hardware atomic)
//   CAS    24-bit saturating add of x >> 30 (0..3)          (uint32: a compare-and-swap loop)
//   XCG    argmax over an (index, value) struct, not packed  (8 bytes, forced onto the lock path)
//   packed the same argmax packed into 64 bits               (uint64: a compare-and-swap loop)
//
// The argmax keeps the larger value and, on equal values, the smaller index: a total order, so the operator is
// associative and commutative and every backend gives bit-identical results.
#pragma once

#include <climits>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ghist/atomic_class.hpp"
#include "ghist/invariant_divisor.hpp"
#include "ghist/operators.hpp"
#include "ghist/update.hpp"

namespace bench {

// ---- operators ----

struct saturating_add24 {
  using value_type = std::uint32_t;
  static constexpr std::uint32_t max_value = (1u << 24) - 1;
  __host__ __device__ static std::uint32_t identity() { return 0; }
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    const std::uint32_t s = a + b;
    return s > max_value || s < a ? max_value : s;
  }
};

struct index_value {
  std::uint32_t index;
  std::int32_t value;
};

// Argmax kept as a struct. 8 bytes would fit a compare-and-swap, so it asks for the lock path explicitly: this is
// seed 000's XCG case (a value the hardware cannot update in one atomic).
struct argmax_unpacked {
  using value_type = index_value;
  static constexpr ghist::atomic_class preferred_class = ghist::atomic_class::xcg;
  static constexpr bool idempotent = true;  // op(a, a) == a (ghist/operators.hpp: a hint to the planner)
  __host__ __device__ static index_value identity() { return {0xffffffffu, INT32_MIN}; }
  __host__ __device__ index_value operator()(index_value a, index_value b) const {
    if (a.value != b.value) return a.value > b.value ? a : b;
    return a.index <= b.index ? a : b;
  }
};

// The same argmax packed into 64 bits: the value biased to unsigned in the high word, the index in the low word.
struct argmax_packed {
  using value_type = std::uint64_t;
  static constexpr bool idempotent = true;
  __host__ __device__ static std::uint64_t identity() { return 0xffffffffull; }  // value INT32_MIN, index ~0
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    const std::uint32_t va = std::uint32_t(a >> 32), vb = std::uint32_t(b >> 32);
    if (va != vb) return va > vb ? a : b;
    return std::uint32_t(a) <= std::uint32_t(b) ? a : b;
  }
};

static_assert(ghist::atomic_class_of<ghist::plus<std::int32_t>> == ghist::atomic_class::hdw, "HDW must be hdw");
static_assert(ghist::atomic_class_of<saturating_add24> == ghist::atomic_class::cas, "CAS must take the CAS path");
static_assert(ghist::atomic_class_of<argmax_unpacked> == ghist::atomic_class::xcg, "XCG must take the lock path");
static_assert(ghist::atomic_class_of<argmax_packed> == ghist::atomic_class::cas, "packed must take the CAS path");
static_assert(sizeof(index_value) == 8, "index_value has no padding (results are compared bytewise)");

// ---- bin functions ----

/// bin = (x % active) * rf, active = max(1, H / RF): seed 000's bins, 32-bit arithmetic.
/// The modulo divides by a precomputed multiplier (ghist::invariant_divisor): the plain `x % active` of a kernel
/// parameter compiled to ~20 instructions per input (a reciprocal recomputed each time), ~7 this way; the same bins
/// (bench/NOTES.md, twenty-second session).
struct seed000_bin {
  std::uint32_t active, rf;
  ghist::invariant_divisor by_active;
  static seed000_bin make(std::int64_t H, std::int64_t RF) {
    const std::int64_t active = H / RF > 1 ? H / RF : 1;
    return {static_cast<std::uint32_t>(active), static_cast<std::uint32_t>(RF),
            ghist::invariant_divisor::make(static_cast<std::uint32_t>(active))};
  }
  __host__ __device__ __forceinline__ std::uint32_t operator()(std::uint32_t x) const {
    return by_active.remainder(x) * rf;
  }
};

struct hdw_fn {
  static constexpr bool counts = true;  // HDW adds 1
  seed000_bin bin;
  __host__ __device__ ghist::bin_update<std::int32_t> operator()(std::uint32_t x) const { return {bin(x), 1}; }
};
// The value is x's top two bits, not x % 4: the skewed inputs fix x % active (inputs.hpp), so with active a multiple
// of 4 (H = 2048, 12288, ... at RF 1) x % 4 would be the same for every input of a bin, and all zero for some bins:
// a bin updated only with the identity (until 2026-11-22: one bin at H = 24576 measured 425 us for that reason, a
// compare-and-swap that never loses; bench/results/2026-11-22-h100-experiment-cas-deferred-keep-policy.txt).
struct cas_fn {
  seed000_bin bin;
  __host__ __device__ ghist::bin_update<std::uint32_t> operator()(std::uint32_t x) const { return {bin(x), x >> 30}; }
};
struct xcg_fn {
  seed000_bin bin;
  __host__ __device__ ghist::bin_update<index_value> operator()(std::uint32_t x) const {
    return {bin(x), index_value{x / 64, static_cast<std::int32_t>(x)}};
  }
};
struct packed_fn {
  seed000_bin bin;
  __host__ __device__ ghist::bin_update<std::uint64_t> operator()(std::uint32_t x) const {
    const std::uint32_t biased = x ^ 0x80000000u;  // (int32)x biased to unsigned: the same order as XCG's value
    return {bin(x), (std::uint64_t(biased) << 32) | (x / 64)};
  }
};

/// CUB HistogramEven's sample: the bin as an int (levels 0, 1, ..., H make one bin per integer).
struct cub_sample_of {
  seed000_bin bin;
  __host__ __device__ std::int32_t operator()(std::uint32_t x) const { return static_cast<std::int32_t>(bin(x)); }
};

// ---- descriptors: what the benchmark needs to know of each operator ----

enum class op_id { hdw, cas, xcg, packed };

struct op_hdw {
  static constexpr op_id id = op_id::hdw;
  static constexpr const char* name = "HDW";
  using op = ghist::plus<std::int32_t>;
  using fn = hdw_fn;
};
struct op_cas {
  static constexpr op_id id = op_id::cas;
  static constexpr const char* name = "CAS";
  using op = saturating_add24;
  using fn = cas_fn;
};
struct op_xcg {
  static constexpr op_id id = op_id::xcg;
  static constexpr const char* name = "XCG";
  using op = argmax_unpacked;
  using fn = xcg_fn;
};
struct op_packed {
  static constexpr op_id id = op_id::packed;
  static constexpr const char* name = "packed";
  using op = argmax_packed;
  using fn = packed_fn;
};

// ---- printing a bin's value (mismatch reports) ----

inline std::string value_text(std::int32_t v) { return std::to_string(v); }
inline std::string value_text(std::uint32_t v) { return std::to_string(v); }
inline std::string value_text(std::uint64_t v) {
  char s[32];
  std::snprintf(s, sizeof s, "0x%016llx", static_cast<unsigned long long>(v));
  return s;
}
inline std::string value_text(const index_value& v) {
  return "(index " + std::to_string(v.index) + ", value " + std::to_string(v.value) + ")";
}

}  // namespace bench
