// Not a test that runs: one kernel per (operator, type, memory level) so that scripts/gpu_check.sh can read, in the
// SASS, which instruction sm_90 gives each hardware atomic that ghist::detail::atomic_update uses ("check, do not
// assume"). The result is recorded in bench/results/ and summarised in ghist/atomic_class.hpp.
#include <cstdint>

#include "ghist/detail/atomic_update.cuh"

namespace probe {

using ghist::detail::atomic_update;
using ghist::detail::memory_level;

template <class Op>
__device__ void shared_case(Op op, typename Op::value_type* out, typename Op::value_type v) {
  __shared__ typename Op::value_type bins[64];
  bins[threadIdx.x % 64] = Op::identity();
  __syncthreads();
  atomic_update<memory_level::shared>(op, bins + (threadIdx.x * 7) % 64, v, nullptr);
  __syncthreads();
  out[threadIdx.x % 64] = bins[threadIdx.x % 64];
}

#define GHIST_PROBE(NAME, OP)                                                                                \
  __global__ void NAME##_shared(OP::value_type* out, OP::value_type v) { shared_case(OP{}, out, v); }        \
  __global__ void NAME##_global(OP::value_type* out, OP::value_type v) {                                     \
    atomic_update<memory_level::global>(OP{}, out + threadIdx.x % 64, v, nullptr);                           \
  }

GHIST_PROBE(plus_i32, ghist::plus<std::int32_t>)
GHIST_PROBE(plus_u32, ghist::plus<std::uint32_t>)
GHIST_PROBE(plus_i64, ghist::plus<std::int64_t>)
GHIST_PROBE(plus_u64, ghist::plus<std::uint64_t>)
GHIST_PROBE(plus_f32, ghist::plus<float>)
GHIST_PROBE(plus_f64, ghist::plus<double>)
GHIST_PROBE(min_i32, ghist::min<std::int32_t>)
GHIST_PROBE(min_u32, ghist::min<std::uint32_t>)
GHIST_PROBE(min_i64, ghist::min<std::int64_t>)
GHIST_PROBE(max_u64, ghist::max<std::uint64_t>)
GHIST_PROBE(max_f32_cas, ghist::max<float>)
GHIST_PROBE(min_f64_cas, ghist::min<double>)
GHIST_PROBE(and_u32, ghist::bit_and<std::uint32_t>)
GHIST_PROBE(or_i64, ghist::bit_or<std::int64_t>)
GHIST_PROBE(xor_u64, ghist::bit_xor<std::uint64_t>)

}  // namespace probe

int main() { return 0; }
