// Dispatch: the one place that checks a call, makes its plan (running the race-factor inspector when the plan
// depends on an unknown RF), gets scratch memory and turns the plan into kernel launches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "ghist/atomic_class.hpp"
#include "ghist/detail/cuda_check.hpp"
#include "ghist/detail/hot_split.cuh"
#include "ghist/detail/kernel_fill_reduce.cuh"
#include "ghist/detail/kernel_global.cuh"
#include "ghist/detail/kernel_hashed.cuh"
#include "ghist/detail/kernel_partition.cuh"
#include "ghist/detail/kernel_partition_counted.cuh"
#include "ghist/detail/kernel_partition_narrow.cuh"
#include "ghist/detail/kernel_partition_ring.cuh"
#include "ghist/detail/kernel_shared.cuh"
#include "ghist/detail/kernel_shared_one_pass.cuh"
#include "ghist/detail/launch_attributes.hpp"
#include "ghist/detail/race_factor.cuh"
#include "ghist/detail/unit_increments.hpp"
#include "ghist/detail/validate.hpp"
#include "ghist/detail/workspace_pool.hpp"
#include "ghist/device_info.hpp"
#include "ghist/error.hpp"
#include "ghist/operators.hpp"
#include "ghist/options.hpp"
#include "ghist/plan.hpp"
#include "ghist/update.hpp"

namespace ghist::detail {

inline constexpr int fill_block = 256;
inline constexpr std::int64_t fill_max_grid = 4096;

inline int fill_grid(std::int64_t count) {
  const std::int64_t g = (count + fill_block - 1) / fill_block;
  return static_cast<int>(g < 1 ? 1 : (g > fill_max_grid ? fill_max_grid : g));
}

inline std::size_t round_up_256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// The caller's workspace, or stream-ordered temporaries from ghist's pool (workspace_pool.hpp), freed on the same
/// stream when the call returns.
class scratch_space {
 public:
  scratch_space(const workspace& user, cudaStream_t stream) : user_(user), stream_(stream) {}
  scratch_space(const scratch_space&) = delete;
  scratch_space& operator=(const scratch_space&) = delete;
  ~scratch_space() {
    if (owned_ != nullptr) (void)cudaFreeAsync(owned_, stream_);
  }

  /// At least `bytes` of device memory (contents undefined).
  void* get(std::size_t bytes) {
    if (user_.data != nullptr) return user_.data;  // its size was checked against the plan before any work
    if (bytes > owned_bytes_) {
      if (owned_ != nullptr) GHIST_CUDA_CHECK(cudaFreeAsync(owned_, stream_));
      owned_ = nullptr;
      owned_bytes_ = 0;
      owned_ = workspace_malloc_async(bytes, stream_);
      owned_bytes_ = bytes;
    }
    return owned_;
  }

 private:
  workspace user_;
  cudaStream_t stream_;
  void* owned_ = nullptr;
  std::size_t owned_bytes_ = 0;
};

/// out[0, count) = value. An all-zero value (the identity of plus, or of max over unsigned) goes through
/// cudaMemsetAsync, which the host enqueues faster than a kernel (lent H100, 2026-11-22: 1.0 against 3.8 us); the
/// fill is on the critical path of every overwrite call. Before a 200 MB read kernel a fill of up to 4 KiB added
/// 1-3 us as a memset and 4-5 us as a kernel; from 8 KiB on both added 4-6 us (event-timed medians against the read
/// alone, bench/results/2026-11-22-h100-experiment-hdw-host-overhead.txt).
template <class T>
void fill_async(T* out, std::int64_t count, const T& value, cudaStream_t stream) {
  if (count <= 0) return;
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (std::all_of(bytes, bytes + sizeof(T), [](unsigned char b) { return b == 0; })) {
    GHIST_CUDA_CHECK(cudaMemsetAsync(out, 0, static_cast<std::size_t>(count) * sizeof(T), stream));
    return;
  }
  fill_kernel<<<fill_grid(count), fill_block, 0, stream>>>(out, count, value);
  GHIST_CUDA_CHECK(cudaGetLastError());
}

/// The classes the planner gives private copies (plan::warp_private, plan::thread_private): their kernels with
/// private copies are compiled for these only.
template <class Op>
inline constexpr bool private_copy_class =
    atomic_class_of<Op> == atomic_class::xcg || atomic_class_of<Op> == atomic_class::cas;

template <class Source, class Op>
void launch_shared(const Source& src, Op op, typename Op::value_type* dest, std::int64_t num_bins, const plan& pl,
                   mode how, scratch_space& scratch, cudaStream_t stream) {
  using T = typename Op::value_type;
  if (pl.hot_active_bins && (pl.hot_samples < 1 || pl.hot_samples > hot_bin_max_samples))
    throw error("a plan with a slot per active bin samples 1.." + std::to_string(hot_bin_max_samples) +
                " inputs per thread (" + pl.to_string() + ")");
  int* dest_locks = nullptr;
  T* rows = nullptr;
  overwrite_gate gate;
  if (pl.merge_rows) {
    rows = static_cast<T*>(scratch.get(pl.temp_bytes));  // in overwrite mode the fold writes every bin: no fill
  } else {
    // The hardware-atomic class's overwrite call has dest filled by the kernel's first block to merge, where the
    // stream has a gate and the blocks' merges are small (overwrite_gate_wanted); otherwise before the launch.
    if (atomic_class_of<Op> == atomic_class::hdw && how == mode::overwrite &&
        overwrite_gate_wanted(num_bins, pl.race_factor) && !pl.warp_private && !pl.thread_private)
      gate = overwrite_gate_for(stream);
    if (how == mode::overwrite && gate.words == nullptr) fill_async(dest, num_bins, Op::identity(), stream);
    if constexpr (atomic_class_of<Op> == atomic_class::xcg) {
      dest_locks = static_cast<int*>(scratch.get(pl.temp_bytes));
      GHIST_CUDA_CHECK(cudaMemsetAsync(dest_locks, 0, static_cast<std::size_t>(num_bins) * sizeof(int), stream));
    }
  }
  if (pl.seed_inputs > 0 && (!is_idempotent_v<Op> || rows == nullptr || pl.seed_grid < 1 || pl.seed_grid > pl.grid))
    throw error("a plan with a seed launch needs an idempotent operator, merge_rows and 1 <= seed_grid <= grid (" +
                pl.to_string() + ")");
  auto launch = [&](auto kernel) {
    allow_dynamic_shared(kernel, pl.shared_bytes);
    auto run = [&](const Source& part, int grid, const T* seed, bool overwrite) {
      kernel<<<grid, pl.block, pl.shared_bytes, stream>>>(part, op, dest, dest_locks, rows, gate, num_bins, pl.M,
                                                          pl.H_chk, pl.S, pl.hot_slots, pl.hot_samples, seed);
      GHIST_CUDA_CHECK(cudaGetLastError());
      if (rows == nullptr) return;
      const auto folds = static_cast<unsigned>((num_bins + 31) / 32);
      merge_rows_kernel<<<folds, dim3(32, merge_rows_slices), 0, stream>>>(rows, grid, num_bins, op, dest, overwrite);
      GHIST_CUDA_CHECK(cudaGetLastError());
    };
    if (pl.seed_inputs <= 0) {
      run(src, pl.grid, nullptr, how == mode::overwrite);
      return;
    }
    // plan::seed_inputs: the first inputs into dest, then every input (the seed's again: the operator is
    // idempotent) with the copies starting from dest, whose rows fold into it.
    Source head = src;
    head.n = std::min<std::int64_t>(src.n, pl.seed_inputs);
    run(head, pl.seed_grid, nullptr, how == mode::overwrite);
    run(src, pl.grid, dest, false);
  };
  // The warp- and thread-private variants are compiled only for the lock and compare-and-swap classes, the deferring
  // one only for the compare-and-swap class: the classes the planner gives them to.
  if constexpr (private_copy_class<Op>) {
    if (pl.warp_private) {
      if (pl.block % 32 != 0 || pl.M != pl.block / 32)
        throw error("a warp-private plan needs whole warps and M = block / 32 (" + pl.to_string() + ")");
      launch(shared_memory_kernel<Source, Op, copy_owner::warp>);
      return;
    }
    if (pl.thread_private) {
      if (pl.M != pl.block || pl.S != 1 || pl.block > thread_private_max_block)
        throw error("a thread-private plan needs M = block <= " + std::to_string(thread_private_max_block) +
                    " and one pass (" + pl.to_string() + ")");
      launch(shared_memory_kernel<Source, Op, copy_owner::thread>);
      return;
    }
  }
  if constexpr (atomic_class_of<Op> == atomic_class::cas) {
    if (pl.defer_lost_updates) {
      if (pl.hot_slots > 0) {
        // Shared slot words are compiled for 4-byte values only (the packed argmax's loop lost 5% with the choice
        // compiled in), and for them always: a block shares words only where a word per thread does not fit.
        constexpr bool shares = sizeof(T) == 4;
        const int most = !pl.hot_active_bins ? hot_bin_max_slots
                         : shares            ? hot_bin_max_shared_word_slots
                                             : hot_bin_max_active_slots;
        if (pl.block % 32 != 0 || pl.hot_slots > most || (pl.hot_active_bins && pl.hot_shared_words != shares))
          throw error("a plan with hot-bin slots needs whole warps, at most " + std::to_string(most) +
                      " slots, and shared slot words for 4-byte values only and always (" + pl.to_string() + ")");
        if (pl.hot_active_bins && pl.staged_input) {
          if constexpr (stageable_source<Source>::value) {
            const std::size_t table = shares ? hot_bin_shared_words_table_bytes : hot_bin_table_bytes;
            if (pl.block < 64 || pl.shared_bytes < staged_ring_bytes(pl.block) + table)
              throw error("a staged-input plan needs at least two warps and room for its ring (" + pl.to_string() +
                          ")");
            launch(shared_memory_kernel<Source, Op, copy_owner::threads, true, true, true, shares, true>);
          } else {
            throw error("a staged-input plan needs an element input of 1, 2, 4 or 8 bytes (" + pl.to_string() + ")");
          }
        } else if (pl.hot_active_bins)
          launch(shared_memory_kernel<Source, Op, copy_owner::threads, true, true, true, shares>);
        else
          launch(shared_memory_kernel<Source, Op, copy_owner::threads, true, true>);
      } else if (pl.staged_input) {
        if constexpr (stageable_source<Source>::value) {
          if (pl.block % 32 != 0 || pl.block < 64 ||
              pl.shared_bytes < staged_ring_offset(shared_values_bytes<T>(pl.M * shared_copy_stride(pl.H_chk, pl.M))) +
                                    staged_ring_bytes(pl.block))
            throw error("a staged-input plan needs whole warps, at least two, and room for its ring (" +
                        pl.to_string() + ")");
          launch(shared_memory_kernel<Source, Op, copy_owner::threads, true, false, false, false, true>);
        } else {
          throw error("a staged-input plan needs an element input of 1, 2, 4 or 8 bytes (" + pl.to_string() + ")");
        }
      } else {
        launch(shared_memory_kernel<Source, Op, copy_owner::threads, true>);
      }
      return;
    }
  }
  if constexpr (atomic_class_of<Op> == atomic_class::xcg) {
    if (pl.hot_slots > 0 && !pl.hot_active_bins) {  // sampled hot bins: slots of shared words beside the copies
      if (pl.block % 32 != 0 || pl.hot_slots > hot_bin_max_shared_word_slots || pl.hot_shared_words ||
          pl.shared_bytes < hot_bin_shared_words_table_bytes)
        throw error("a lock-class plan with sampled hot bins needs whole warps, at most " +
                    std::to_string(hot_bin_max_shared_word_slots) + " of them and room for their table (" +
                    pl.to_string() + ")");
      launch(shared_memory_kernel<Source, Op, copy_owner::threads, false, true, false, true>);
      return;
    }
    if (pl.hot_slots > 0) {  // a slot per active bin beside one locked copy
      const int most = pl.hot_shared_words ? hot_bin_max_shared_word_slots : hot_bin_max_active_slots;
      if (pl.block % 32 != 0 || !pl.hot_active_bins || pl.M != 1 || pl.hot_slots > most)
        throw error("a lock-class plan with hot-bin slots needs whole warps, one copy and a slot per active bin, at "
                    "most " + std::to_string(most) + " (" + pl.to_string() + ")");
      if (pl.hot_shared_words)
        launch(shared_memory_kernel<Source, Op, copy_owner::threads, false, true, true, true>);
      else
        launch(shared_memory_kernel<Source, Op, copy_owner::threads, false, true, true>);
      return;
    }
  }
  if constexpr (atomic_class_of<Op> == atomic_class::hdw) {
    if (pl.S == 1 && num_bins <= pl.H_chk && rows == nullptr) {  // kernel_shared_one_pass.cuh
      auto kernel =
          gate.words != nullptr ? hdw_one_pass_kernel<Source, Op, true> : hdw_one_pass_kernel<Source, Op, false>;
      allow_dynamic_shared(kernel, pl.shared_bytes);
      kernel<<<pl.grid, pl.block, pl.shared_bytes, stream>>>(src, op, dest, gate, static_cast<unsigned>(num_bins), pl.M,
                                                             static_cast<int>(shared_copy_stride(pl.H_chk, pl.M)));
      GHIST_CUDA_CHECK(cudaGetLastError());
      return;
    }
    if (gate.words != nullptr) {
      launch(shared_memory_kernel<Source, Op, copy_owner::threads, false, false, false, false, false, true>);
      return;
    }
  }
  launch(shared_memory_kernel<Source, Op, copy_owner::threads>);
}

/// plan::hashed_bins (kernel_hashed.cuh), a pass per chunk of H_chk bins: a sample fills the table, the blocks
/// update, the rows are folded into dest. dest starts from the identity in an overwrite call (the bins without a
/// sampled slot go to it with the global update, the merge folds into it); the lock class's global updates take a
/// lock per bin.
template <class Source, class Op>
void launch_hashed(const Source& src, Op op, typename Op::value_type* dest, std::int64_t num_bins, const plan& pl,
                   mode how, scratch_space& scratch, cudaStream_t stream) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  const std::int64_t slots =
      pl.M >= 1 ? hashed_slots_for(pl.shared_bytes, sizeof(T), xcg, pl.M, pl.hashed_key_bytes()) : 0;
  if (pl.block != hashed_block || pl.M < 1 || pl.M > hashed_block / 32 || slots < 1 || pl.H_chk < 1 ||
      pl.H_chk > INT32_MAX || pl.S < (num_bins + pl.H_chk - 1) / pl.H_chk ||
      (pl.hashed_tags && !hashed_tags_fit(slots, pl.H_chk)) ||
      pl.temp_bytes < hashed_workspace_bytes(slots, pl.grid, sizeof(T), num_bins, xcg))
    throw error("a hashed plan needs blocks of " + std::to_string(hashed_block) + " threads, a copy per warp at " +
                "most, room for a slot, enough slots to tell the keys' tags apart, passes of at most 2^31 - 1 bins " +
                "that cover H and its workspace (" + pl.to_string() + ")");
  if (how == mode::overwrite) fill_async(dest, num_bins, Op::identity(), stream);
  auto* base = static_cast<unsigned char*>(scratch.get(pl.temp_bytes));
  int* keys = reinterpret_cast<int*>(base);
  T* rows = reinterpret_cast<T*>(base + hashed_rows_offset(slots));
  int* dest_locks = nullptr;
  if constexpr (xcg) {
    dest_locks = reinterpret_cast<int*>(base + hashed_locks_workspace_offset(slots, pl.grid, sizeof(T)));
    GHIST_CUDA_CHECK(cudaMemsetAsync(dest_locks, 0, static_cast<std::size_t>(num_bins) * sizeof(int), stream));
  }
  const std::int64_t samples = slots * hashed_samples_per_slot;
  const auto discover_grid = static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(pl.grid, (std::min(samples, src.n) + hashed_discover_block - 1) /
                                             hashed_discover_block)));
  // A grid of one block per SM at most takes the instance made for one (launch bounds of one 1024-thread block: up
  // to 64 registers, no spills). Lent H100, 2026-11-27, seed 000's input told RF 63, us, against the instance for
  // two blocks per SM (32 registers): the packed argmax H = 393216 / 786432 265-268 / 300-308 -> 211 / 243, the
  // saturating add 1572864 256-258 -> 240-247, HDW 1572864 222-226 -> 216, the unpacked argmax within 1-4%
  // (bench/results/2026-11-27-h100-hashed-tags.txt, section 5).
  const bool one_per_sm = pl.grid <= device_info::current().sm_count;
  auto kernel = pl.hashed_tags ? (one_per_sm ? hashed_shared_kernel<Source, Op, std::uint16_t, 1>
                                             : hashed_shared_kernel<Source, Op, std::uint16_t, 2>)
                               : (one_per_sm ? hashed_shared_kernel<Source, Op, int, 1>
                                             : hashed_shared_kernel<Source, Op, int, 2>);
  allow_dynamic_shared(kernel, pl.shared_bytes);
  const auto folds = static_cast<unsigned>((slots + 31) / 32);
  const hashed_shape shape = hashed_shape_for(slots, pl.H_chk);
  for (std::int64_t lo = 0; lo < num_bins; lo += pl.H_chk) {
    const std::int64_t len = std::min(pl.H_chk, num_bins - lo);
    GHIST_CUDA_CHECK(cudaMemsetAsync(keys, 0xff, static_cast<std::size_t>(slots) * sizeof(int), stream));  // -1
    hashed_discover_kernel<<<discover_grid, hashed_discover_block, 0, stream>>>(src, lo, len, keys, shape, samples);
    GHIST_CUDA_CHECK(cudaGetLastError());
    kernel<<<pl.grid, pl.block, pl.shared_bytes, stream>>>(src, op, dest, dest_locks, lo, len, keys, shape, pl.M,
                                                           rows);
    GHIST_CUDA_CHECK(cudaGetLastError());
    hashed_merge_kernel<<<folds, dim3(32, merge_rows_slices), 0, stream>>>(rows, pl.grid, keys,
                                                                           static_cast<int>(slots), op, dest + lo);
    GHIST_CUDA_CHECK(cudaGetLastError());
  }
}

template <class Source, class Op>
void launch_global(const Source& src, Op op, typename Op::value_type* dest, std::int64_t num_bins, const plan& pl,
                   mode how, scratch_space& scratch, cudaStream_t stream) {
  using T = typename Op::value_type;
  constexpr bool locked = atomic_class_of<Op> == atomic_class::xcg;
  const std::int64_t threads = static_cast<std::int64_t>(pl.grid) * pl.block;
  // C from the plan may not divide the threads; ceil(threads / M) keeps every thread's sub-histogram index < M.
  const std::int64_t C = (threads + pl.M - 1) / pl.M;
  auto kernel = global_memory_kernel<Source, Op>;
  if (pl.M == 1) {
    // One sub-histogram: the destination itself.
    int* locks = nullptr;
    if constexpr (locked) {
      locks = static_cast<int*>(scratch.get(pl.temp_bytes));
      GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, static_cast<std::size_t>(num_bins) * sizeof(int), stream));
    }
    for (std::int64_t lo = 0; lo < num_bins; lo += pl.H_chk) {
      const std::int64_t len = std::min<std::int64_t>(pl.H_chk, num_bins - lo);
      kernel<<<pl.grid, pl.block, 0, stream>>>(src, op, dest + lo, locked ? locks + lo : nullptr, 0, lo, len, C);
      GHIST_CUDA_CHECK(cudaGetLastError());
    }
    return;
  }
  const std::size_t values_bytes = round_up_256(static_cast<std::size_t>(pl.M) * pl.H_chk * sizeof(T));
  auto* base = static_cast<unsigned char*>(scratch.get(pl.temp_bytes));
  T* subs = reinterpret_cast<T*>(base);
  int* locks = locked ? reinterpret_cast<int*>(base + values_bytes) : nullptr;
  if constexpr (locked)
    GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, static_cast<std::size_t>(pl.M) * pl.H_chk * sizeof(int), stream));
  for (std::int64_t lo = 0; lo < num_bins; lo += pl.H_chk) {
    const std::int64_t len = std::min<std::int64_t>(pl.H_chk, num_bins - lo);
    fill_async(subs, static_cast<std::int64_t>(pl.M) * pl.H_chk, Op::identity(), stream);
    kernel<<<pl.grid, pl.block, 0, stream>>>(src, op, subs, locks, pl.H_chk, lo, len, C);
    GHIST_CUDA_CHECK(cudaGetLastError());
    reduce_sub_histograms_kernel<<<fill_grid(len), fill_block, 0, stream>>>(op, subs, pl.M, pl.H_chk, dest, lo, len,
                                                                          how);
    GHIST_CUDA_CHECK(cudaGetLastError());
  }
}

/// kernel<<<grid, block, shared, stream>>>(args...) as a programmatic dependent launch: the GPU may start it while
/// the kernel before it on the stream finishes, hiding the launch's latency; the kernel calls
/// wait_for_prior_kernels() before reading what came before. The counted layout's chain of six kernels, lent H100,
/// N = 50M uniform, H = 100M, three same-run pairs: 557.6 / 553.2 / 551.4 -> 540.2 / 543.6 / 543.6 us
/// (bench/results/2026-11-27-h100-ring-first-aside.txt).
template <class... Params, class... Args>
void launch_after_prior(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                        Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  GHIST_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

/// The partitioned strategy's first passes: sets `kernel` up for `shared` bytes of dynamic shared memory and returns
/// how many of its blocks of partition_block threads the device holds at once.
template <class Kernel>
std::int64_t resident_partition_blocks(Kernel kernel, std::size_t shared) {
  allow_dynamic_shared(kernel, shared);
  int per_sm = 0;
  GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, partition_block, shared));
  return std::int64_t{std::max(1, per_sm)} * device_info::current().sm_count;
}

/// The partitioned strategy's second pass: sets `histogram` (partition_block threads) up for `shared` bytes and,
/// where that leaves one block per SM (a group of more than half the SM's shared memory), switches to `wide`, the
/// same kernel with twice the threads, whose extra warps hide more of the record loads' latency (H100, N = 50M
/// counted, 16-bit records: bench/NOTES.md, twelfth session). Where two blocks fit and `dense` is given (the same
/// kernel with twice the threads, two blocks per SM: plan::dense_second_pass), switches to it if two of its blocks
/// fit too. Returns the block's threads.
template <class Kernel>
int second_pass_threads(Kernel& histogram, Kernel wide, std::size_t shared, Kernel dense = nullptr) {
  allow_dynamic_shared(histogram, shared);
  int per_sm = 0;
  GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram, partition_block, shared));
  if (per_sm >= 2 && dense != nullptr) {
    allow_dynamic_shared(dense, shared);
    int dense_per_sm = 0;
    GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&dense_per_sm, dense, 2 * partition_block, shared));
    if (dense_per_sm >= partition_blocks_per_sm) {
      histogram = dense;
      return 2 * partition_block;
    }
  }
  if (per_sm >= 2 || wide == nullptr) return partition_block;
  histogram = wide;
  allow_dynamic_shared(histogram, shared);
  return 2 * partition_block;
}

/// plan::lock_queue: the plan's shared memory holds the block's copies and, after them, the queue of a block of
/// `threads`.
template <class T>
void check_lock_queue_room(const plan& pl, int threads) {
  const std::size_t copies = locked_copies_bytes<T>(std::int64_t{pl.M} * pl.H_chk);
  const std::size_t needed = lock_queue_offset(copies) + lock_queue_bytes(threads, sizeof(T));
  if (pl.shared_bytes < needed)
    throw error("a lock queue for blocks of " + std::to_string(threads) + " threads needs " + std::to_string(needed) +
                " bytes of shared memory per block, the plan gives " + std::to_string(pl.shared_bytes) + " (" +
                pl.to_string() + ")");
}

/// The lock-queue instances of a partitioned second-pass kernel (make(Threads, QueuedLocks)) in place of the plain
/// ones, for a plan with plan::lock_queue; throws for operators it does not apply to.
template <class In, class Op, class Record, class Kernel, class Make>
void take_lock_queue_kernels(const plan& pl, Kernel& histogram, Kernel& wide, Make make) {
  if (!pl.lock_queue) return;
  using T = typename Op::value_type;
  // Records that are the inputs themselves: the queue's kernels visit inputs (visit_queued).
  constexpr bool queueable =
      lock_queue_takes(atomic_class_of<Op>, is_idempotent_v<Op>, sizeof(T)) && std::is_same_v<Record, In>;
  if constexpr (queueable) {
    if (pl.warp_private || pl.hot_slots > 0)
      throw error("a lock queue goes with copies shared by the block, without hot-bin slots (" + pl.to_string() + ")");
    histogram = make(std::integral_constant<int, partition_block>{});
    wide = make(std::integral_constant<int, 2 * partition_block>{});
  } else {
    (void)histogram, (void)wide, (void)make;
    throw error("plan::lock_queue applies to idempotent lock-class operators of 4- or 8-byte values (" +
                pl.to_string() + ")");
  }
}

/// Overwriting, before a partitioned second pass: the groups with several blocks start from the identity.
template <class T>
void fill_shared_groups(const unsigned* starts, int groups, const group_divider& group_of, std::int64_t num_bins,
                        T identity, T* dest, cudaStream_t stream) {
  // Every chunk of every group, at most fill_blocks_per_sm blocks per SM taking them in turn.
  constexpr int fill_blocks_per_sm = 8;
  const int chunks = static_cast<int>((group_of.d + fill_group_chunk - 1) / fill_group_chunk);
  const std::int64_t most = std::int64_t{fill_blocks_per_sm} * device_info::current().sm_count;
  const std::int64_t blocks = std::min<std::int64_t>(std::int64_t{groups} * chunks, most);
  launch_after_prior(fill_shared_groups_kernel<T>, static_cast<unsigned>(blocks), fill_group_threads, 0, stream,
                     starts, groups, chunks, group_of, num_bins, identity, dest);
}

/// The partitioned strategy's counted layout (plan::counted_groups, kernel_partition_counted.cuh), slice by slice.
/// Overwriting, the first slice writes dest itself (a group's only block writes all its bins; groups with several
/// blocks are filled with the identity first, or with rows written by merge_group_rows_kernel), so dest is not
/// filled beforehand; later slices accumulate.
template <class In, class BinFn, class Op>
void launch_counted_partition(const In* input, std::int64_t n, BinFn f, Op op, typename Op::value_type* dest,
                              std::int64_t num_bins, const plan& pl, mode how, scratch_space& scratch,
                              cudaStream_t stream) {
  using T = typename Op::value_type;
  constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
  const int groups = pl.S;
  if (groups > max_counted_groups)
    throw error("a counted partitioned plan needs S <= " + std::to_string(max_counted_groups) + " groups (" +
                pl.to_string() + ")");
  const group_divider group_of = group_divider::make(static_cast<std::uint32_t>(pl.H_chk));
  const std::size_t rows_bytes = pl.merge_rows ? group_rows_bytes(pl.grid, groups, pl.H_chk, sizeof(T)) : 0;
  const bool with_locks = xcg && !pl.merge_rows;
  using Record = partition_record_t<In, BinFn, Op>;
  const int sm_count = device_info::current().sm_count;
  const int max_ranges = counted_partition_ranges(sm_count);
  const partition_layout l = make_partition_layout_for(true, n, groups, sm_count, sizeof(In),
                                                       unit_increments_v<BinFn, Op>, num_bins, with_locks, rows_bytes);
  auto* base = static_cast<unsigned char*>(scratch.get(l.bytes));
  Record* records = reinterpret_cast<Record*>(base + l.records);
  auto* table = reinterpret_cast<unsigned*>(base + l.offsets);
  auto* totals = reinterpret_cast<unsigned long long*>(base + l.totals);
  auto* starts = reinterpret_cast<unsigned*>(base + l.starts);
  auto* record_starts = reinterpret_cast<unsigned*>(base + l.record_starts);
  int* locks = with_locks ? reinterpret_cast<int*>(base + l.locks) : nullptr;
  T* rows = pl.merge_rows ? reinterpret_cast<T*>(base + l.rows) : nullptr;
  if (with_locks)
    GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, static_cast<std::size_t>(num_bins) * sizeof(int), stream));

  auto count = count_groups_kernel<In, BinFn>;
  auto partition = partition_counted_kernel<In, BinFn, Record>;
  auto histogram = contiguous_group_histogram_kernel<In, BinFn, Op, Record>;
  decltype(histogram) wide = contiguous_group_histogram_kernel<In, BinFn, Op, Record, false, 2 * partition_block>;
  if constexpr (private_copy_class<Op>) {
    if (pl.warp_private) {  // M = one copy per warp of partition_block threads (checked by launch_partitioned)
      histogram = contiguous_group_histogram_kernel<In, BinFn, Op, Record, true>;
      wide = nullptr;
    }
  }
  take_lock_queue_kernels<In, Op, Record>(pl, histogram, wide, [](auto threads) {
    return contiguous_group_histogram_kernel<In, BinFn, Op, Record, false, decltype(threads)::value, true>;
  });
  const std::size_t count_shared = static_cast<std::size_t>(groups) * sizeof(unsigned);
  const bool sector_buffers =
      counted_sector_buffers(sizeof(Record), groups, device_info::current().shared_per_block_optin);
  // 16-bit records with head sectors: each thread places its own records (kernel_partition_counted.cuh, Direct),
  // or, where the rings fit, the ring kernel (kernel_partition_ring.cuh), whose count runs in blocks of its size.
  if constexpr (!std::is_same_v<Record, In>)
    if (sector_buffers) partition = partition_counted_kernel<In, BinFn, Record, true>;
  const std::size_t partition_shared = counted_pass1_shared_bytes(sizeof(Record), groups, sector_buffers);
  const int ring_sectors =
      std::is_same_v<Record, In> || !sector_buffers
          ? 0 : ring_partition_sectors(groups, device_info::current().shared_per_block_optin);
  const bool ring = ring_sectors > 0;
  allow_dynamic_shared(count, count_shared);
  const std::int64_t resident =  // the ring kernel: one block per SM (__launch_bounds__(ring_block, 1))
      ring ? std::int64_t{device_info::current().sm_count} : resident_partition_blocks(partition, partition_shared);
  const int histogram_threads = second_pass_threads(histogram, wide, pl.shared_bytes);
  if (pl.lock_queue) check_lock_queue_room<T>(pl, histogram_threads);
  // Unit increments whose second pass would run one block per SM (the wide kernel): 16-bit counters where they
  // let two blocks share the SM (kernel_partition_narrow.cuh; the planner sizes such groups for them).
  bool narrow = false;
  const std::size_t narrow_shared = narrow_counts_shared_bytes(pl.H_chk);
  if constexpr (unit_increments_v<BinFn, Op>) {
    if (histogram_threads > partition_block && pl.M == 1 && !pl.warp_private && rows == nullptr) {
      auto kernel = narrow_group_count_kernel<T, partition_block>;
      allow_dynamic_shared(kernel, narrow_shared);
      int per_sm = 0;
      GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, partition_block, narrow_shared));
      narrow = per_sm >= 2;
    }
  }
  // Where 16-bit counters are the second pass (narrow), the ring pads each range to whole sectors (its padding
  // records, local bin H_chk, have a counter of their own there and must fit 16 bits); else the range's first
  // sector is kept aside where it fits.
  const bool padded = ring && narrow && pl.H_chk < max_local_bin_group;
  const bool first_aside =
      !padded && ring_partition_first_aside(groups, ring_sectors, device_info::current().shared_per_block_optin);
  const std::size_t ring_shared = ring ? ring_partition_shared_bytes(groups, ring_sectors, first_aside) : 0;
  auto launch_ring = [&](const In* in, std::int64_t count_n, int ranges, bool overwrite) {
    if constexpr (!std::is_same_v<Record, In>) {
      auto pick = [&](auto sectors) {
        constexpr int S = decltype(sectors)::value;
        return padded        ? ring_partition_kernel<In, BinFn, S, false, true>
               : first_aside ? ring_partition_kernel<In, BinFn, S, true>
                             : ring_partition_kernel<In, BinFn, S, false>;
      };
      auto kernel = pick(std::integral_constant<int, 2>{});
      if (ring_sectors == 4) kernel = pick(std::integral_constant<int, 4>{});
      if (ring_sectors == 8) kernel = pick(std::integral_constant<int, 8>{});
      allow_dynamic_shared(kernel, ring_shared);
      launch_after_prior(kernel, ranges, ring_block, ring_shared, stream, in, count_n, f, num_bins, group_of, groups,
                         table, record_starts, records, starts,
                         overwrite ? reinterpret_cast<std::uint32_t*>(dest) : nullptr);
    }
  };
  auto launch_histogram = [&](bool overwrite) {
    if constexpr (unit_increments_v<BinFn, Op>) {
      if (narrow) {
        launch_after_prior(narrow_group_count_kernel<T, partition_block>, pl.grid + groups, partition_block,
                           narrow_shared, stream, records, record_starts, starts, groups, dest, num_bins, group_of,
                           overwrite);
        return;
      }
    }
    launch_after_prior(histogram, pl.grid + groups, histogram_threads, pl.shared_bytes, stream, records,
                       record_starts, starts, groups, f, op, dest, locks, rows, num_bins, group_of, pl.M, overwrite);
  };
  const std::int64_t slice = l.slice_tiles * partition_tile;
  for (std::int64_t first = 0; first < n; first += slice) {
    const std::int64_t count_n = std::min(slice, n - first);
    const std::int64_t tiles = (count_n + partition_tile - 1) / partition_tile;
    const int ranges = static_cast<int>(std::min<std::int64_t>({resident, tiles, max_ranges}));
    const bool overwrite = how == mode::overwrite && first == 0;
    count<<<ranges, ring ? ring_block : partition_block, count_shared, stream>>>(input + first, count_n, f, num_bins,
                                                                                group_of, groups, table);
    GHIST_CUDA_CHECK(cudaGetLastError());
    launch_after_prior(scan_group_counts_kernel<>, static_cast<unsigned>((groups + 7) / 8), 256, 0, stream, table,
                       groups, ranges, totals, padded ? unsigned{records_per_sector<Record>} : 1u);
    launch_after_prior(assign_group_blocks_kernel<>, 1, partition_block, 0, stream, totals, groups, pl.grid, starts,
                       overwrite ? 1u : 0u, record_starts, false, static_cast<unsigned*>(nullptr));
    // The ring kernel zeroes them itself; with rows, merge_group_rows_kernel writes every bin of those groups.
    if (overwrite && !ring && rows == nullptr) {
      fill_shared_groups<T>(starts, groups, group_of, num_bins, Op::identity(), dest, stream);
    }
    if (ring) launch_ring(input + first, count_n, ranges, overwrite);
    else
      launch_after_prior(partition, ranges, partition_block, partition_shared, stream, input + first, count_n, f,
                         num_bins, group_of, groups, table, record_starts, records, sector_buffers);
    launch_histogram(overwrite);
    if (rows != nullptr)  // a group's only block wrote its bins itself
      launch_after_prior(merge_group_rows_kernel<Op>, static_cast<unsigned>((num_bins + 255) / 256), 256, 0, stream,
                         rows, starts, num_bins, group_of, op, dest, 2u, overwrite);
  }
}

/// The partitioned strategy, slice by slice (kernel_partition.cuh). Overwriting, the first slice writes dest itself
/// (a group's only block writes all its bins; groups with several blocks are filled with the identity first) in the
/// counted layout, and in the tile layout for 16-bit records (tile_groups_write_dest); with rows (plan::merge_rows)
/// every block writes its row and merge_group_rows_kernel writes every bin; otherwise dest is filled with the
/// identity first. Later slices accumulate.
template <class Source, class Op>
void launch_partitioned(const Source& src, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                        const plan& pl, mode how, scratch_space& scratch, cudaStream_t stream) {
  if constexpr (partition_traits<Source>::record_bytes == 0) {
    throw error("strategy partitioned needs element inputs (" + pl.to_string() + ")");
  } else {
    using In = std::remove_cv_t<std::remove_pointer_t<decltype(src.input)>>;
    using BinFn = decltype(src.f);
    constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
    const int groups = pl.S;
    const int most_groups = pl.counted_groups ? max_counted_groups : max_partition_groups;
    if (groups < 1 || groups > most_groups || pl.H_chk < 1 || num_bins > max_partition_bins ||
        std::int64_t{groups} * pl.H_chk < num_bins)
      throw error("a partitioned plan needs S = ceil(H / H_chk) <= " + std::to_string(most_groups) +
                  " groups and H < 2^31 (" + pl.to_string() + ")");
    if (unit_increments_v<BinFn, Op> && pl.H_chk > max_local_bin_group)  // records are 16-bit bins in a group
      throw error("a partitioned plan of unit increments needs groups of at most " +
                  std::to_string(max_local_bin_group) + " bins (" + pl.to_string() + ")");
    if (pl.warp_private && (!private_copy_class<Op> || pl.M != partition_block / 32))
      throw error("a warp-private partitioned plan needs M = " + std::to_string(partition_block / 32) + " (" +
                  pl.to_string() + ")");
    if (pl.counted_groups) {
      launch_counted_partition(src.input, src.n, src.f, op, dest, num_bins, pl, how, scratch, stream);
      return;
    }
    using Record = partition_record_t<In, BinFn, Op>;
    // With rows, every block writes its row in the first slice and merge_group_rows_kernel writes every bin.
    if (how == mode::overwrite && !tile_groups_write_dest<In, Record> && !pl.merge_rows)
      fill_async(dest, num_bins, Op::identity(), stream);
    const group_divider group_of = group_divider::make(static_cast<std::uint32_t>(pl.H_chk));
    using T = typename Op::value_type;
    const std::size_t rows_bytes = pl.merge_rows ? group_rows_bytes(pl.grid, groups, pl.H_chk, sizeof(T)) : 0;
    const bool with_locks = xcg && !pl.merge_rows;  // destination locks (warp-private copies merge the same way)
    const partition_layout l = make_partition_layout(src.n, groups, sizeof(Record), num_bins, with_locks, rows_bytes);
    auto* base = static_cast<unsigned char*>(scratch.get(l.bytes));
    Record* records = reinterpret_cast<Record*>(base + l.records);
    auto* offsets = reinterpret_cast<unsigned*>(base + l.offsets);
    auto* totals = reinterpret_cast<unsigned long long*>(base + l.totals);
    auto* starts = reinterpret_cast<unsigned*>(base + l.starts);
    // The second pass takes its tiles by ticket (group_histogram_kernel) for the compare-and-swap class. Lent H200,
    // 2026-12-04, N = 50M, same run, told RF 1 unless said, fixed shares -> tickets, us
    // (bench/results/2026-12-04-h200-second-pass-tickets.txt, section 5c): the packed argmax H = 49152 / 196608 /
    // 786432 / 1572864 407.6 / 408.5 / 398.8 / 418.0 -> 357.4 / 354.5 / 347.4 / 384.3, one bin 196608 / 786432
    // 355.7 / 345.9 -> 323.1 / 312.9, warp-private groups at RF 63 433.7 / 412.6 -> 349.4 / 341.2 (196608 /
    // 786432); the saturating add 196608 / 786432 / 1572864 327.9 / 337.7 / 355.9 -> 303.0 / 308.0 / 324.0, one bin
    // 362.8 / 365.0 -> 339.6 / 342.5 (196608 / 786432), Zipf(1.1) 786432 553.7 -> 483.6. Not the others (section
    // 5a): int32 counts (16-bit records in short runs) 226.2 / 233.8 / 234.7 -> 241.2 / 242.2 / 255.5 at H = 196608
    // / 786432 / 1572864 (with ~4096 records a ticket 241.3 / 243.3 / 248.3), the lock class with its queue -1% to
    // +4%.
    auto* tickets = atomic_class_of<Op> == atomic_class::cas ? reinterpret_cast<unsigned*>(base + l.tickets) : nullptr;
    int* locks = with_locks ? reinterpret_cast<int*>(base + l.locks) : nullptr;
    T* rows = pl.merge_rows ? reinterpret_cast<T*>(base + l.rows) : nullptr;
    if (with_locks)
      GHIST_CUDA_CHECK(cudaMemsetAsync(locks, 0, static_cast<std::size_t>(num_bins) * sizeof(int), stream));

    auto partition = partition_kernel<In, BinFn, Record>;
    auto histogram = group_histogram_kernel<In, BinFn, Op, Record>;
    decltype(histogram) wide = group_histogram_kernel<In, BinFn, Op, Record, false, 2 * partition_block>;
    // Warp-private copies of a group (no locks, no atomics): compiled only for the lock and compare-and-swap classes,
    // the classes the planner gives them.
    if constexpr (private_copy_class<Op>) {
      if (pl.warp_private) {  // M = one copy per warp of partition_block threads (checked above)
        histogram = group_histogram_kernel<In, BinFn, Op, Record, true>;
        wide = nullptr;
      }
    }
    take_lock_queue_kernels<In, Op, Record>(pl, histogram, wide, [](auto threads) {
      constexpr int Threads = decltype(threads)::value;
      return group_histogram_kernel<In, BinFn, Op, Record, false, Threads,
                                    partition_block * partition_blocks_per_sm / Threads, true>;
    });
    const std::size_t partition_shared = partition_shared_bytes<In, Record>();
    const std::int64_t resident = resident_partition_blocks(partition, partition_shared);
    // plan::dense_second_pass: compiled for 32-bit cas only (the 64-bit instance spills at 32 registers).
    decltype(histogram) dense = nullptr;
    if constexpr (atomic_class_of<Op> == atomic_class::cas && sizeof(T) == 4 && std::is_same_v<Record, In>) {
      if (pl.dense_second_pass && !pl.warp_private)
        dense = group_histogram_kernel<In, BinFn, Op, Record, false, 2 * partition_block, partition_blocks_per_sm>;
    }
    const int histogram_threads = second_pass_threads(histogram, wide, pl.shared_bytes, dense);
    if (pl.lock_queue) check_lock_queue_room<T>(pl, histogram_threads);
    // plan::hot_slots: the compare-and-swap class's input records (4-byte values) in copies shared by the block's
    // threads, with the hot-bin table after the copies (group_histogram_kernel).
    if (pl.hot_slots > 0) {
      constexpr bool hot_capable =
          atomic_class_of<Op> == atomic_class::cas && std::is_same_v<Record, In> && sizeof(T) == 4;
      const std::size_t copies_bytes = static_cast<std::size_t>(pl.M) * static_cast<std::size_t>(pl.H_chk) * sizeof(T);
      if (!hot_capable || pl.warp_private || pl.dense_second_pass || pl.H_chk > hot_bin_max_pass_bins ||
          pl.hot_slots > hot_bin_max_slots || histogram_threads % 32 != 0 ||
          pl.shared_bytes < hot_bin_area_offset(copies_bytes) + hot_bin_table_bytes)
        throw error("a partitioned plan's hot-bin slots need the compare-and-swap class with 4-byte values, the tile "
                    "layout's copies shared by the block (not warp-private, not dense), groups of at most " +
                    std::to_string(hot_bin_max_pass_bins) + " bins, at most " + std::to_string(hot_bin_max_slots) +
                    " slots and room for the hot-bin table after the copies (" + pl.to_string() + ")");
    }
    const std::int64_t slice = l.slice_tiles * partition_tile;
    for (std::int64_t first = 0; first < src.n; first += slice) {
      const std::int64_t count = std::min(slice, src.n - first);
      const std::int64_t tiles = (count + partition_tile - 1) / partition_tile;
      GHIST_CUDA_CHECK(cudaMemsetAsync(totals, 0, static_cast<std::size_t>(groups) * sizeof(unsigned long long),
                                       stream));
      partition<<<static_cast<int>(std::min(resident, tiles)), partition_block, partition_shared, stream>>>(
          src.input + first, count, src.f, num_bins, group_of, groups, records, offsets, l.slice_tiles, totals);
      GHIST_CUDA_CHECK(cudaGetLastError());
      // Overwriting, the first slice writes dest: before, dest was filled first and each one-block group read it
      // back (H100, H = 16777216 in 289 one-block groups 530 -> 440 us: bench/NOTES.md, twenty-sixth session).
      const bool first_overwrite = how == mode::overwrite && first == 0;
      const bool overwrite = tile_groups_write_dest<In, Record> && first_overwrite;
      const bool overwrite_rows =  // input records: every block writes its row (group_histogram_kernel)
          !tile_groups_write_dest<In, Record> && rows != nullptr && first_overwrite;
      // 16-bit records merged with atomics: a partly empty last wave of second-pass blocks is filled with shorter
      // ones (H100, H = 16777216 in 289 one-block groups: see bench/NOTES.md, twenty-sixth session).
      const bool fill_last_wave = tile_groups_write_dest<In, Record> && rows == nullptr && !with_locks;
      launch_after_prior(assign_group_blocks_kernel<>, 1, partition_block, 0, stream, totals, groups, pl.grid, starts,
                         overwrite ? 1u : 0u, static_cast<unsigned*>(nullptr), fill_last_wave, tickets);
      if (overwrite) {
        fill_shared_groups<T>(starts, groups, group_of, num_bins, Op::identity(), dest, stream);
      }
      launch_after_prior(histogram, (fill_last_wave ? 2 * pl.grid : pl.grid) + groups, histogram_threads,
                         pl.shared_bytes, stream, records, offsets, l.slice_tiles, tiles, starts, groups, tickets,
                         totals, src.f, op, dest, locks, rows, num_bins, group_of, pl.M, first_overwrite, pl.hot_slots);
      if (rows != nullptr)  // overwrite_rows: every group; otherwise a group's only block wrote its bins itself
        launch_after_prior(merge_group_rows_kernel<Op>, static_cast<unsigned>((num_bins + 255) / 256), 256, 0,
                           stream, rows, starts, num_bins, group_of, op, dest, overwrite_rows ? 0u : 2u,
                           overwrite_rows);
    }
  }
}

/// Whether a call with an unknown race factor samples its input before launching `pl` (made for RF = 1). The RF
/// decides the global plan's M, and whether the lock class's partitioned plan keeps a copy of each group per warp
/// (RF > 8): skewed input then gets the warp-private copies, 1.2-5x faster on the lent H100 (src/planner.cpp,
/// warp_private_group_bins). It also decides whether the lock class keeps a multi-pass shared plan (RF <= 8; the
/// planner's "kept" departure): taken without a sample, Zipf(1.1) over 24576 bins (sampled RF about 11) ran that
/// plan in 3404 us against 1484 us partitioned (lent H100, 2026-11-25, N = 50M, seed 000's unpacked argmax). Either
/// plan's call takes hundreds of microseconds or more, the sample tens.
template <class Op>
bool race_factor_matters(const plan& pl, const plan_overrides& o) {
  constexpr bool lock_class = atomic_class_of<Op> == atomic_class::xcg;
  const bool lock_class_plan_depends =
      lock_class && (pl.kind == strategy::partitioned || (pl.kind == strategy::shared_memory && pl.S > 1));
  return (pl.kind == strategy::global_memory || lock_class_plan_depends) && o.M == 0 && o.S == 0;
}

/// Calls the heavy-hitter split (hot_split.cuh) is for: element inputs of the lock class with values small enough for
/// 32 of them per thread. Only there did its first build gain (the compare-and-swap class's shared plans stayed
/// contended on the rest; hardware atomics fold a warp's equal bins themselves), and each splittable kind of call
/// compiles the whole engine once more for its pass over the rest (ghist_bench.cu took 188 s to compile without the
/// split and 302 s with it for both classes, here beside another build; CI on a fresh clone 36 min against ~26),
/// as an indexed call would, whose f may also be costly to run twice.
template <class Source>
inline constexpr bool is_element_source = false;
template <class In, class BinFn>
inline constexpr bool is_element_source<element_source<In, BinFn>> = true;
template <class Source, class Op>
inline constexpr bool hot_split_applies =
    is_element_source<Source> && atomic_class_of<Op> == atomic_class::xcg && sizeof(typename Op::value_type) <= 16;

/// Whether a call samples its input for heavy hitters: asked for (plan_overrides::hot_split = 1) or left to the planner
/// (0) where nothing else of the plan is fixed (kind, M, S) and its plan `pl` is neither thread-private nor a one-pass
/// shared plan (hot_split_may_pay), with an unknown race factor and no caller's workspace (the split's passes take
/// their temporaries from the pool). The planner's calls then split only where hot_split_worth says so.
inline bool hot_split_considered(const options& opts, const plan& pl, std::int64_t num_bins) {
  const plan_overrides& o = opts.overrides;
  const bool asked = o.hot_split > 0;
  const bool planner =
      o.hot_split == 0 && o.kind == strategy::automatic && o.M == 0 && o.S == 0 && hot_split_may_pay(pl);
  return (asked || planner) && opts.race_factor == 0.0 && opts.scratch.data == nullptr && num_bins <= INT_MAX;
}

template <bool MaySplit = true, class Source, class Op>
void run_histogram(const Source& src, std::int64_t n, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                   cudaStream_t stream, const options& opts);

/// The heavy-hitter split (hot_split.cuh): samples `src`, waits for the stream, and when the sample finds heavy
/// hitters (and, left to the planner, hot_split_worth for the call's plan `pl`), enqueues their pass, the call's own
/// plan over the rest and the merge, and returns true; else returns false having enqueued only the sample.
template <class Source, class Op>
bool run_hot_split(const Source& src, std::int64_t n, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                   cudaStream_t stream, const options& opts, const plan& pl) {
  using T = typename Op::value_type;
  constexpr int block = hot_bins_block<T>;
  constexpr std::size_t shared_bytes = hot_bins_shared_bytes<T>;
  auto* hot_kernel = hot_bins_kernel<Source, Op>;
  int per_sm = 0;
  GHIST_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hot_kernel, block, shared_bytes));
  const device_info dev = device_info::current();
  const std::int64_t wanted = (n + block - 1) / block;
  const int grid = static_cast<int>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(wanted, static_cast<std::int64_t>(std::max(per_sm, 1)) * dev.sm_count)));
  const std::size_t state_bytes = round_up_256(sizeof(hot_split_state));
  scratch_space scratch(workspace{}, stream);
  char* base = static_cast<char*>(
      scratch.get(state_bytes + static_cast<std::size_t>(grid) * hot_split_max_bins * sizeof(T)));
  auto* state = reinterpret_cast<hot_split_state*>(base);
  T* rows = reinterpret_cast<T*>(base + state_bytes);

  hot_split_sample_kernel<<<1, hot_split_sample_threads, 0, stream>>>(src, n, num_bins, state);
  GHIST_CUDA_CHECK(cudaGetLastError());
  hot_split_stats stats{};
  GHIST_CUDA_CHECK(cudaMemcpyAsync(&stats, &state->stats, sizeof(stats), cudaMemcpyDeviceToHost, stream));
  GHIST_CUDA_CHECK(cudaStreamSynchronize(stream));
  const bool asked = opts.overrides.hot_split > 0;
  if (stats.bins == 0 || !(asked || hot_split_worth(stats, pl))) return false;  // the plan as it is

  hot_kernel<<<grid, block, shared_bytes, stream>>>(src, op, state, rows);
  GHIST_CUDA_CHECK(cudaGetLastError());
  options rest = opts;
  rest.overrides.hot_split = -1;
  run_histogram<false>(with_bin_function(src, hot_bins_excluded<decltype(src.f)>{src.f, state->slots}), n, op, dest,
                       num_bins, stream, rest);
  hot_split_merge_kernel<<<hot_split_max_bins, hot_split_merge_threads, 0, stream>>>(state, rows, grid, op, dest);
  GHIST_CUDA_CHECK(cudaGetLastError());
  return true;
}

/// Checks the arguments, plans and launches. Every check happens before the first enqueued operation. MaySplit:
/// whether the call may take the heavy-hitter split (false for the split's own pass over the rest).
template <bool MaySplit, class Source, class Op>
void run_histogram(const Source& src, std::int64_t n, Op op, typename Op::value_type* dest, std::int64_t num_bins,
                   cudaStream_t stream, const options& opts) {
  using T = typename Op::value_type;
  if (num_bins <= 0) throw error("num_bins must be > 0, got " + std::to_string(num_bins));
  check_non_negative(n, "n");
  check_device_range(dest, static_cast<std::size_t>(num_bins) * sizeof(T), "dest");
  if (!(opts.race_factor == 0.0 || opts.race_factor >= 1.0) || std::isinf(opts.race_factor))
    throw error("options.race_factor must be 0 (unknown) or a finite value >= 1, got " +
                std::to_string(opts.race_factor));
  if (!is_element_source<Source> && opts.overrides.hot_split > 0)
    throw error("plan override hot_split = 1 applies to element inputs (generalized_histogram_async), not to an "
                "indexed call");
  if (opts.scratch.data == nullptr && opts.scratch.bytes > 0)
    throw error("options.scratch.data is null but options.scratch.bytes = " + std::to_string(opts.scratch.bytes));

  problem p = problem_for<Op>(n, num_bins, opts.race_factor);
  p.record_bytes = partition_traits<Source>::record_bytes;
  p.unit_increments = unit_increments_v<std::decay_t<decltype(src.f)>, Op>;
  const device_info dev = device_info::current();
  plan pl = make_plan(p, dev, opts.overrides);
  // A caller's workspace sized with plan_for (which cannot know the input kind) may be too small for a partitioned
  // plan: then the plan the workspace was sized for.
  if (opts.scratch.data != nullptr && pl.kind == strategy::partitioned && opts.overrides.kind == strategy::automatic &&
      opts.scratch.bytes < pl.temp_bytes) {
    p.record_bytes = 0;
    pl = make_plan(p, dev, opts.overrides);
  }
  // A caller's workspace too small for merging through rows: the blocks merge with atomics (and xcg's locks).
  if (opts.scratch.data != nullptr && pl.merge_rows && opts.scratch.bytes < pl.temp_bytes) {
    constexpr bool xcg = atomic_class_of<Op> == atomic_class::xcg;
    pl.merge_rows = false;
    pl.seed_inputs = 0;  // the seed launch merges through the rows too
    pl.seed_grid = 0;
    if (pl.kind == strategy::partitioned)
      pl.temp_bytes = make_partition_layout_for(pl.counted_groups, n, pl.S, dev.sm_count, p.record_bytes,
                                                p.unit_increments, num_bins, xcg)
                          .bytes;
    else
      pl.temp_bytes = xcg ? static_cast<std::size_t>(num_bins) * sizeof(int) : 0;
  }
  if (opts.scratch.data != nullptr) {
    if (opts.scratch.bytes < pl.temp_bytes)
      throw error("options.scratch is too small: the plan needs " + std::to_string(pl.temp_bytes) +
                  " bytes, the workspace has " + std::to_string(opts.scratch.bytes) + " (" + pl.to_string() + ")");
    check_device_range(opts.scratch.data, opts.scratch.bytes, "options.scratch");
  }
  if (n == 0 || pl.grid == 0) {
    if (opts.how == mode::overwrite) fill_async(dest, num_bins, Op::identity(), stream);
    return;
  }

  if constexpr (MaySplit && hot_split_applies<Source, Op>) {
    if (hot_split_considered(opts, pl, num_bins) && run_hot_split(src, n, op, dest, num_bins, stream, opts, pl))
      return;
  }

  scratch_space scratch(opts.scratch, stream);
  if (race_factor_matters<Op>(pl, opts.overrides) && opts.race_factor == 0.0) {
    p.race_factor = estimate_race_factor(src, n, num_bins, scratch.get(pl.temp_bytes), stream);
    p.race_factor_sampled = true;
    plan refined = make_plan(p, dev, opts.overrides);
    // A caller's workspace was sized for the RF = 1 plan; keep that plan if the refined one needs more.
    if (opts.scratch.data == nullptr || refined.temp_bytes <= opts.scratch.bytes) pl = refined;
  }

  if (pl.kind == strategy::shared_memory && pl.hashed_bins) {
    launch_hashed(src, op, dest, num_bins, pl, opts.how, scratch, stream);
  } else if (pl.kind == strategy::shared_memory) {
    launch_shared(src, op, dest, num_bins, pl, opts.how, scratch, stream);
  } else if (pl.kind == strategy::partitioned) {
    launch_partitioned(src, op, dest, num_bins, pl, opts.how, scratch, stream);
  } else {
    if (opts.how == mode::overwrite && pl.M == 1) fill_async(dest, num_bins, Op::identity(), stream);
    launch_global(src, op, dest, num_bins, pl, opts.how, scratch, stream);
  }
}

}  // namespace ghist::detail
