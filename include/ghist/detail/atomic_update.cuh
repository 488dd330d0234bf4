// atomic_update: the one place where a bin is updated concurrently, dest (+)= value, with the primitive of the
// operator's class (seed 000 III-B): the hardware atomic (hdw), a compare-and-swap loop (cas), or a per-bin lock (xcg).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ghist/atomic_class.hpp"
#include "ghist/operators.hpp"

namespace ghist::detail {

enum class memory_level { shared, global };

template <class To, class From>
__device__ __forceinline__ To bit_cast_device(const From& from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

template <class T>
__device__ __forceinline__ bool bitwise_equal(const T& a, const T& b) {
  if constexpr (sizeof(T) == 4) return bit_cast_device<std::uint32_t>(a) == bit_cast_device<std::uint32_t>(b);
  else if constexpr (sizeof(T) == 8) return bit_cast_device<std::uint64_t>(a) == bit_cast_device<std::uint64_t>(b);
  else {
    const auto* pa = reinterpret_cast<const unsigned char*>(&a);
    const auto* pb = reinterpret_cast<const unsigned char*>(&b);
    for (unsigned i = 0; i < sizeof(T); ++i)
      if (pa[i] != pb[i]) return false;
    return true;
  }
}

// Loads and stores that bypass the non-coherent L1, word by word when the type allows it: the lock path needs every
// thread to see the value the last lock holder wrote, wherever it ran.
template <class T>
__device__ __forceinline__ T load_volatile(const T* p) {
  T out;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    auto* src = reinterpret_cast<const volatile std::uint32_t*>(p);
    auto* dst = reinterpret_cast<std::uint32_t*>(&out);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) dst[i] = src[i];
  } else {
    auto* src = reinterpret_cast<const volatile unsigned char*>(p);
    auto* dst = reinterpret_cast<unsigned char*>(&out);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  }
  return out;
}

template <class T>
__device__ __forceinline__ void store_volatile(T* p, const T& v) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    auto* dst = reinterpret_cast<volatile std::uint32_t*>(p);
    auto* src = reinterpret_cast<const std::uint32_t*>(&v);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i) dst[i] = src[i];
  } else {
    auto* dst = reinterpret_cast<volatile unsigned char*>(p);
    auto* src = reinterpret_cast<const unsigned char*>(&v);
#pragma unroll
    for (unsigned i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  }
}

// The lock of the lock class (xcg): taken with an acquiring exchange and given back with a releasing store, the
// PTX memory model's own lock idiom, so that the critical section's accesses are ordered without a full fence.
// __threadfence_block() on both sides of the section (the code until 2026-11-25) compiles to MEMBAR.SC.CTA, a
// sequentially consistent fence, twice per update. On the lent H100 (N = 50M, seed 000's unpacked argmax, one
// sub-histogram per block) acquire/release took H = 2048 / 6144 / 12288 from 690 / 526 / 465 us to
// 442 / 326 / 291 us (bench/results/2026-11-25-h100-experiment-lock-ordering.txt).
template <memory_level Level>
__device__ __forceinline__ bool try_lock(int* lock) {
  int old;
  if constexpr (Level == memory_level::shared) {
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(lock));
    asm volatile("atom.acquire.cta.shared::cta.exch.b32 %0, [%1], 1;" : "=r"(old) : "r"(at) : "memory");
  } else {
    asm volatile("atom.acquire.gpu.exch.b32 %0, [%1], 1;" : "=r"(old) : "l"(lock) : "memory");
  }
  return old == 0;
}

template <memory_level Level>
__device__ __forceinline__ void unlock(int* lock) {
  if constexpr (Level == memory_level::shared) {
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(lock));
    asm volatile("st.release.cta.shared::cta.b32 [%0], 0;" ::"r"(at) : "memory");
  } else {
    asm volatile("st.release.gpu.b32 [%0], 0;" ::"l"(lock) : "memory");
  }
}

// The bin's value inside the critical section, read and written with relaxed (not plain) accesses in 8- or 4-byte
// words where the type allows it: the lock orders them, and strong accesses keep the code free of data races in the
// PTX model's sense. In shared memory they compile to plain LDS/STS; relaxed atomic read-modify-writes instead
// (ATOMS.CAS.64 to read, ATOMS.EXCH.64 to write) cost 28% more (H = 6144: 418 against 326 us, same experiment).
// compute-sanitizer's racecheck does not model locks and reports these accesses as hazards; scripts/gpu_check.sh runs
// the lock path's tests under memcheck and synccheck instead (Sanitizer* vs SanitizerLocks* in tests/gpu).
//
// In shared memory, values of a multiple of 8 bytes take 8-byte accesses wherever their address allows it, also with
// a 4-byte alignment (seed 000's (index, value) pair): the lock class's read outside the lock
// (shared_update_changes_nothing) needs an 8-byte value stored whole. In global memory the same for 8-byte values at
// 8-aligned addresses (global_update_changes_nothing).
template <memory_level Level, class T>
__device__ __forceinline__ T locked_load(const T* p) {
  if constexpr (Level == memory_level::shared && sizeof(T) % 8 == 0 && alignof(T) >= 4) {
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if (alignof(T) >= 8 || at % 8 == 0) {
      unsigned long long words[sizeof(T) / 8];
#pragma unroll
      for (unsigned i = 0; i < sizeof(T) / 8; ++i)
        asm volatile("ld.relaxed.cta.shared::cta.b64 %0, [%1];" : "=l"(words[i]) : "r"(at + 8 * i) : "memory");
      T out;
      memcpy(&out, words, sizeof(T));
      return out;
    }
  }
  if constexpr (Level == memory_level::shared && sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    T out;
    auto* dst = reinterpret_cast<unsigned int*>(&out);
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(p));
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i)
      asm volatile("ld.relaxed.cta.shared::cta.b32 %0, [%1];" : "=r"(dst[i]) : "r"(at + 4 * i) : "memory");
    return out;
  } else {
    if constexpr (Level == memory_level::global && sizeof(T) == 8 && alignof(T) >= 4)
      if (alignof(T) >= 8 || reinterpret_cast<std::uintptr_t>(p) % 8 == 0) {  // whole, as locked_store writes it
        const unsigned long long word = *reinterpret_cast<const volatile unsigned long long*>(p);
        return bit_cast_device<T>(word);
      }
    return load_volatile(p);  // volatile accesses are relaxed at system scope in the PTX model
  }
}

template <memory_level Level, class T>
__device__ __forceinline__ void locked_store(T* p, const T& v) {
  if constexpr (Level == memory_level::shared && sizeof(T) % 8 == 0 && alignof(T) >= 4) {
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    if (alignof(T) >= 8 || at % 8 == 0) {
      unsigned long long src[sizeof(T) / 8];
      memcpy(src, &v, sizeof(T));
#pragma unroll
      for (unsigned i = 0; i < sizeof(T) / 8; ++i)
        asm volatile("st.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(at + 8 * i), "l"(src[i]) : "memory");
      return;
    }
  }
  if constexpr (Level == memory_level::shared && sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    const auto* src = reinterpret_cast<const unsigned int*>(&v);
    const auto at = static_cast<unsigned>(__cvta_generic_to_shared(p));
#pragma unroll
    for (unsigned i = 0; i < sizeof(T) / 4; ++i)
      asm volatile("st.relaxed.cta.shared::cta.b32 [%0], %1;" ::"r"(at + 4 * i), "r"(src[i]) : "memory");
  } else {
    // An 8-byte value at an 8-aligned address in one access, so that global_update_changes_nothing reads it whole.
    if constexpr (Level == memory_level::global && sizeof(T) == 8 && alignof(T) >= 4) {
      if (alignof(T) >= 8 || reinterpret_cast<std::uintptr_t>(p) % 8 == 0) {
        *reinterpret_cast<volatile unsigned long long*>(p) = bit_cast_device<unsigned long long>(v);
        return;
      }
    }
    store_volatile(p, v);
  }
}

/// A shared-memory compare-and-swap of the 8-byte *word from `assumed` to `desired`, predicated off where they are
/// equal: it then returns `assumed` as a swap that won would. Why that is right for any associative and commutative
/// operator: see shared_update_changes_nothing below (`assumed` was read from the word, whole). Predicated, not
/// branched, so that the warp does not split around it (deferred_cas.cuh says where it pays, and why 4-byte words
/// keep atomicCAS).
__device__ __forceinline__ unsigned long long shared_cas_unless_equal(unsigned long long* word,
                                                                      unsigned long long assumed,
                                                                      unsigned long long desired) {
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(word));
  unsigned long long old = assumed;
  asm volatile("{\n .reg .pred p;\n setp.ne.b64 p, %2, %3;\n @p atom.shared.cas.b64 %0, [%1], %2, %3;\n}"
               : "+l"(old)
               : "r"(at), "l"(assumed), "l"(desired)
               : "memory");
  return old;
}

// ---- hdw: CUDA's atomic intrinsics, reached through the unsigned/signed word type of the right width ----
template <class T>
using word_t = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
template <class T>
using signed_word_t = std::conditional_t<sizeof(T) == 4, int, long long>;

template <class T>
__device__ __forceinline__ void hardware_update(plus<T>, T* p, T v) {
  if constexpr (std::is_floating_point_v<T>) atomicAdd(p, v);
  else atomicAdd(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));  // two's complement: same bits
}
template <class T>
__device__ __forceinline__ void hardware_update(min<T>, T* p, T v) {
  if constexpr (std::is_signed_v<T>) atomicMin(reinterpret_cast<signed_word_t<T>*>(p), static_cast<signed_word_t<T>>(v));
  else atomicMin(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));
}
template <class T>
__device__ __forceinline__ void hardware_update(max<T>, T* p, T v) {
  if constexpr (std::is_signed_v<T>) atomicMax(reinterpret_cast<signed_word_t<T>*>(p), static_cast<signed_word_t<T>>(v));
  else atomicMax(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));
}
template <class T>
__device__ __forceinline__ void hardware_update(bit_and<T>, T* p, T v) {
  atomicAnd(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));
}
template <class T>
__device__ __forceinline__ void hardware_update(bit_or<T>, T* p, T v) {
  atomicOr(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));
}
template <class T>
__device__ __forceinline__ void hardware_update(bit_xor<T>, T* p, T v) {
  atomicXor(reinterpret_cast<word_t<T>*>(p), static_cast<word_t<T>>(v));
}

/// Where a bin lives: its value and (lock class) its lock, nullptr for the other classes. A nonzero lock_bit says
/// the lock is that bit of the word at `lock` (shared memory only: shared_memory_kernel packs the lock class's locks
/// 32 to a word).
template <class T>
struct bin_slot {
  T* value;
  int* lock;
  unsigned lock_bit = 0;
};

// A lock that is one bit of a shared 32-bit word: taken with an acquiring OR (free if the bit was clear), given back
// with a releasing AND. Why bits: the lock class's 4-byte locks made a bin of seed 000's argmax 12 bytes in shared
// memory, 8 + 1/8 with bits; H = 12288 then fits two blocks per SM, H = 6144 two copies per block, H = 24576 one
// pass. Lent H100, 2026-11-25, N = 50M, seed 000's unpacked argmax, same run: uniform RF 1 H = 24576 606 -> 243 us,
// RF 63 H = 2048 / 6144 / 12288 / 24576 606 / 685 / 626 / 765 -> 562 / 563 / 565 / 513, Zipf(1.1) H = 6144 / 12288
// 1314 / 1658 -> 1007 / 1448; one bin 3-5% slower (bench/results/2026-11-25-h100-experiment-bit-locks.txt).
__device__ __forceinline__ bool try_lock_bit(int* word, unsigned bit) {
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(word));
  unsigned old;
  asm volatile("atom.acquire.cta.shared::cta.or.b32 %0, [%1], %2;" : "=r"(old) : "r"(at), "r"(bit) : "memory");
  return (old & bit) == 0;
}

__device__ __forceinline__ void unlock_bit(int* word, unsigned bit) {
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(word));
  asm volatile("red.release.cta.shared::cta.and.b32 [%0], %1;" ::"r"(at), "r"(~bit) : "memory");
}

/// The lock class's shortcut before it takes a bin's lock in shared memory: whether op(bin, v) would leave the bin as
/// it is, judged on one read of it without the lock. Dropping v is then right for every associative and commutative
/// operator: the read gives a state s that the bin had, and op(s, v) == s makes every later state t = op(s, w) keep
/// op(t, v) = op(op(s, v), w) = t, so the bin ends the same with v or without it. The read must give a whole state,
/// not halves of two: one access of a 4-byte value or of an 8-aligned 8-byte one (which the lock holder also stores
/// in one access: locked_store); other values never take the shortcut. A selection (argmax, minimum, or) seldom
/// changes a bin that has seen a few inputs (the k-th of random values is a new maximum with chance 1/k), so most of
/// its updates then cost a read and a compare instead of a lock's two atomics.
template <class Op>
__device__ __forceinline__ bool shared_update_changes_nothing(Op op, const typename Op::value_type* addr,
                                                              const typename Op::value_type& v) {
  using T = typename Op::value_type;
  const auto at = static_cast<unsigned>(__cvta_generic_to_shared(addr));
  if constexpr (sizeof(T) == 8) {
    if (alignof(T) < 8 && at % 8 != 0) return false;
    unsigned long long word;
    asm volatile("ld.relaxed.cta.shared::cta.b64 %0, [%1];" : "=l"(word) : "r"(at));
    return bit_cast_device<decltype(word)>(op(bit_cast_device<T>(word), v)) == word;
  } else if constexpr (sizeof(T) == 4) {
    if (alignof(T) < 4 && at % 4 != 0) return false;
    unsigned word;
    asm volatile("ld.relaxed.cta.shared::cta.b32 %0, [%1];" : "=r"(word) : "r"(at));
    return bit_cast_device<decltype(word)>(op(bit_cast_device<T>(word), v)) == word;
  } else {
    (void)op, (void)v, (void)at;
    return false;
  }
}

/// The same shortcut in global memory, for operators that say they are idempotent (ghist::is_idempotent_v), whose
/// updates seldom change a bin that has seen a few: one gpu-scope relaxed read of an 8-aligned 8-byte or a 4-byte bin
/// (from L2) before the lock's atomics. Other operators take the lock at once: for them the read would be one L2
/// round trip more per update.
template <class Op>
__device__ __forceinline__ bool global_update_changes_nothing(Op op, const typename Op::value_type* addr,
                                                              const typename Op::value_type& v) {
  using T = typename Op::value_type;
  if constexpr (is_idempotent_v<Op> && sizeof(T) == 8) {
    if (alignof(T) < 8 && reinterpret_cast<std::uintptr_t>(addr) % 8 != 0) return false;
    unsigned long long word;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(word) : "l"(addr));
    return bitwise_equal(op(bit_cast_device<T>(word), v), bit_cast_device<T>(word));
  } else if constexpr (is_idempotent_v<Op> && sizeof(T) == 4) {
    if (alignof(T) < 4 && reinterpret_cast<std::uintptr_t>(addr) % 4 != 0) return false;
    unsigned word;
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(word) : "l"(addr));
    return bitwise_equal(op(bit_cast_device<T>(word), v), bit_cast_device<T>(word));
  } else {
    (void)op, (void)addr, (void)v;
    return false;
  }
}

/// The lock class's update, one try: if the bin's lock is free, *addr = op(*addr, v) under it and true; else false.
/// `lock_bit` nonzero (shared memory): the lock is that bit of *lock. An update that would change nothing is done at
/// once, without the lock: in shared memory (shared_update_changes_nothing), and in global memory for idempotent
/// operators (global_update_changes_nothing).
template <memory_level Level, class Op>
__device__ __forceinline__ bool try_locked_update(Op op, typename Op::value_type* addr,
                                                  const typename Op::value_type& v, int* lock,
                                                  unsigned lock_bit = 0) {
  if constexpr (Level == memory_level::global) {
    if (global_update_changes_nothing(op, addr, v)) return true;
  }
  if constexpr (Level == memory_level::shared) {
    if (shared_update_changes_nothing(op, addr, v)) return true;
    if (lock_bit != 0) {
      if (!try_lock_bit(lock, lock_bit)) return false;
      locked_store<Level>(addr, op(locked_load<Level>(addr), v));
      unlock_bit(lock, lock_bit);
      return true;
    }
  }
  if (!try_lock<Level>(lock)) return false;
  locked_store<Level>(addr, op(locked_load<Level>(addr), v));
  unlock<Level>(lock);
  return true;
}

/// *addr = op(*addr, v), atomically with respect to every other atomic_update of the same bin.
/// `lock` is the bin's lock (xcg only; 0 = free), ignored by the other classes.
template <memory_level Level, class Op>
__device__ __forceinline__ void atomic_update(Op op, typename Op::value_type* addr, typename Op::value_type v,
                                              int* lock) {
  using T = typename Op::value_type;
  constexpr atomic_class cls = atomic_class_of<Op>;
  if constexpr (cls == atomic_class::hdw) {
    (void)lock;
    hardware_update(op, addr, v);
  } else if constexpr (cls == atomic_class::cas) {
    (void)lock;
    using W = word_t<T>;
    W* word = reinterpret_cast<W*>(addr);
    W old = *reinterpret_cast<volatile W*>(word);
    if constexpr (Level == memory_level::shared) {
      // The plain loop, even when the update changes nothing: testing for that first made seed 000's saturating
      // add 1.5-2.5x slower in shared memory on the lent H100 (2026-11-22, H = 31..12288; the extra branch splits
      // the warp around a latency-bound chain), and a shared compare-and-swap that succeeds costs no more. The test
      // predicated instead (shared_cas_unless_equal) was slower here too: the packed argmax at told RF 63 1.05-1.23x
      // and the saturating add 1.05-1.09x at H = 505..24576 (lent H200, 2026-12-02,
      // bench/results/2026-12-02-h200-unchanged-bins.txt).
      W assumed;
      do {
        assumed = old;
        old = atomicCAS(word, assumed, bit_cast_device<W>(op(bit_cast_device<T>(assumed), v)));
      } while (old != assumed);
    } else {
      while (true) {
        const W desired = bit_cast_device<W>(op(bit_cast_device<T>(old), v));
        if (desired == old) return;  // the update changes nothing (saturated, not a new maximum, ...): no L2 atomic
        const W seen = atomicCAS(word, old, desired);
        if (seen == old) return;
        old = seen;
      }
    }
  } else {
    // The critical section sits inside the branch that took the lock, so a thread never waits on a lock held by a
    // thread of its own warp that cannot run: no intra-warp deadlock, with or without independent thread scheduling.
    // Written as one loop with the section inside the branch (not as a loop over try_locked_update), so that the
    // lanes that failed wait for the holder at the end of each round.
    bool done = false;
    while (!done) {
      if constexpr (Level == memory_level::shared)
        if (shared_update_changes_nothing(op, addr, v)) break;
      if constexpr (Level == memory_level::global)
        if (global_update_changes_nothing(op, addr, v)) break;
      if (try_lock<Level>(lock)) {
        locked_store<Level>(addr, op(locked_load<Level>(addr), v));
        unlock<Level>(lock);
        done = true;
      }
    }
  }
}

/// The same, for a bin given by its slot (bin_slot: its value and, for the lock class, its lock).
template <memory_level Level, class Op>
__device__ __forceinline__ void atomic_update(Op op, const bin_slot<typename Op::value_type>& slot,
                                              const typename Op::value_type& v) {
  if (slot.lock_bit != 0) {  // a bit lock: the section inside the branch that took it (as above)
    bool done = false;
    while (!done) done = try_locked_update<Level>(op, slot.value, v, slot.lock, slot.lock_bit);
    return;
  }
  atomic_update<Level>(op, slot.value, v, slot.lock);
}

}  // namespace ghist::detail
