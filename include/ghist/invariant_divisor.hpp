// Division of 32-bit unsigned integers by a divisor fixed before the kernel runs (a bin function's `x % H` or
// `x / width`), with a multiply-high, two adds and two shifts instead of the GPU's integer division.
//
// Why: the GPU has no integer divide instruction. For a divisor that is a kernel parameter, nvcc emits a reciprocal
// (I2F, MUFU.RCP, F2I) and a correction, about 20 instructions per division, and where registers are short it
// recomputes the reciprocal for every input instead of keeping it: seed 000's bin function, (x % (H / RF)) * RF, took
// ~20 of the lock class's ~165 instructions per input, ~7 through this class (SASS under ncu on the lent H100,
// 2026-11-26; the benchmark's XCG 2-9% and CAS 1-7% faster, bench/NOTES.md, twenty-second session).
//
// The method is Granlund and Montgomery's for unsigned division by run-time invariant integers ("Division by
// invariant integers using multiplication", PLDI 1994, figure 4.1), valid for every n and every d >= 1 below 2^32:
// with l = ceil(log2 d), m = floor(2^32 (2^l - d) / d) + 1, t = floor(m n / 2^32),
//   n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0).
#pragma once

#include <cstdint>
#include <string>

#include "ghist/config.hpp"
#include "ghist/error.hpp"

namespace ghist {

class invariant_divisor {
 public:
  invariant_divisor() = default;  // divides by 1

  /// Precomputes the multiplier for `d` (on the host). Throws ghist::error unless 1 <= d <= 2^32 - 1.
  static invariant_divisor make(std::int64_t divisor) {
    if (divisor < 1 || divisor > std::int64_t{0xffffffff})
      throw error("invariant_divisor::make: the divisor d must be in [1, 2^32 - 1] (got " +
                  std::to_string(divisor) + ")");
    const auto d = static_cast<std::uint32_t>(divisor);
    int l = 0;
    while (l < 32 && (std::uint64_t{1} << l) < d) ++l;
    invariant_divisor v;
    v.d_ = d;
    v.m_ = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d)) / d + 1);
    v.shift1_ = l < 1 ? l : 1;
    v.shift2_ = l > 1 ? l - 1 : 0;
    return v;
  }

  GHIST_HD std::uint32_t divisor() const { return d_; }

  /// n / d.
  GHIST_HD std::uint32_t divide(std::uint32_t n) const {
#ifdef __CUDA_ARCH__
    const std::uint32_t t = __umulhi(m_, n);
#else
    const std::uint32_t t = static_cast<std::uint32_t>((std::uint64_t{m_} * n) >> 32);
#endif
    return (t + ((n - t) >> shift1_)) >> shift2_;
  }

  /// n % d.
  GHIST_HD std::uint32_t remainder(std::uint32_t n) const { return n - divide(n) * d_; }

 private:
  std::uint32_t d_ = 1;
  std::uint32_t m_ = 1;  // d = 1: t = 0 and n / 1 = (0 + (n >> 0)) >> 0
  std::uint32_t shift1_ = 0, shift2_ = 0;
};

}  // namespace ghist
