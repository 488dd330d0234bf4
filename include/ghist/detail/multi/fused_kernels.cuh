// Kernels of the fused histogram (seed 000 IV-B, horizontal fusion): one walk over the input, each input giving k
// updates, one per target. Shared memory: the k targets' M copies side by side in one block's shared memory, merged
// into the destinations at the end; global memory: each update goes to its destination with the global atomic.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cuda/std/tuple>

#include "ghist/detail/multi/sub_histograms.cuh"

namespace ghist::detail::multi {

/// One target as the kernel sees it: operator, destination, bins, global locks (lock class) and where its copies
/// start in shared memory.
template <class Op>
struct fused_slot {
  using op_type = Op;
  Op op;
  typename Op::value_type* dest;
  std::int64_t num_bins;
  int* locks;
  std::size_t shared_offset;
};

template <class... Ops>
using fused_slots = cuda::std::tuple<fused_slot<Ops>...>;

/// The J-th update of f's result, a cuda::std::tuple or (with --expt-relaxed-constexpr) a std::tuple.
template <std::size_t J, class Tuple>
__device__ __forceinline__ decltype(auto) update_at(const Tuple& updates) {
  using cuda::std::get;
  using std::get;
  return get<J>(updates);
}

template <class F, std::size_t... J>
__device__ __forceinline__ void for_each_slot(std::index_sequence<J...>, F&& f) {
  (f(std::integral_constant<std::size_t, J>{}), ...);
}

template <class Source, class... Ops>
__global__ void __launch_bounds__(1024) fused_shared_kernel(Source src, fused_slots<Ops...> slots, int M) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  using seq = std::index_sequence_for<Ops...>;
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const int copy = static_cast<int>(threadIdx.x % M);
  auto copies_of = [&](const auto& s) {
    using Op = typename std::decay_t<decltype(s)>::op_type;
    return block_copies<Op>::at(shared_bytes + s.shared_offset, M, s.num_bins);
  };
  for_each_slot(seq{}, [&](auto J) { copies_of(cuda::std::get<decltype(J)::value>(slots)).init(); });
  __syncthreads();
  src.for_each(rank, threads, [&](const auto& updates) {
    for_each_slot(seq{}, [&](auto J) {
      const auto& s = cuda::std::get<decltype(J)::value>(slots);
      using T = typename std::decay_t<decltype(s)>::op_type::value_type;
      const auto& u = update_at<decltype(J)::value>(updates);
      if (static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(s.num_bins))
        copies_of(s).update(s.op, copy, u.bin, static_cast<T>(u.value));
    });
  });
  __syncthreads();
  for_each_slot(seq{}, [&](auto J) {
    const auto& s = cuda::std::get<decltype(J)::value>(slots);
    copies_of(s).merge(s.op, s.dest, s.locks);
  });
}

template <class Source, class... Ops>
__global__ void fused_global_kernel(Source src, fused_slots<Ops...> slots) {
  using seq = std::index_sequence_for<Ops...>;
  const std::int64_t rank = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  src.for_each(rank, threads, [&](const auto& updates) {
    for_each_slot(seq{}, [&](auto J) {
      const auto& s = cuda::std::get<decltype(J)::value>(slots);
      using T = typename std::decay_t<decltype(s)>::op_type::value_type;
      const auto& u = update_at<decltype(J)::value>(updates);
      if (static_cast<std::uint64_t>(u.bin) < static_cast<std::uint64_t>(s.num_bins))
        update_bin<memory_level::global>(s.op, s.dest, s.locks, u.bin, s.num_bins, static_cast<T>(u.value));
    });
  });
}

}  // namespace ghist::detail::multi
