// Probe: what the shared-memory lock path (xcg) costs, per ingredient. N = 50M uniform uint32, seed 000's unpacked
// argmax, bin = x % H, one sub-histogram per block (M = 1), rows folded on the host and compared with a reference.
// Not part of the build: nvcc -O3 -arch=sm_90 -std=c++17 -o lock_ordering_probe lock_ordering_probe.cu
// ./lock_ordering_probe [N] (with N: only H = 2048, for compute-sanitizer). Results:
// bench/results/2026-11-25-h100-experiment-lock-ordering.txt.
#include <cuda/atomic>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstring>

struct iv { unsigned index; int value; };
__host__ __device__ __forceinline__ iv op(iv a, iv b) {
  if (a.value != b.value) return a.value > b.value ? a : b;
  return a.index <= b.index ? a : b;
}
__host__ __device__ __forceinline__ iv ident() { return {0xffffffffu, INT32_MIN}; }

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

enum variant { current = 0, plain_fenced, acq_rel, no_fence_atomic, packed_cas, exch_acq_rel, nanosleep_acq_rel, ptx_acq_rel, ptx_acq_rel_atomic_data, fence_acq_rel, ptx_relaxed_data, nvariants };
const char* names[] = {"current (CAS lock, fence, ATOMS data, fence, EXCH)", "fenced plain data", "acquire/release atomic_ref, plain data",
                       "no fences, ATOMS data (unsafe)", "packed 64-bit CAS loop (reference)", "exch-acquire lock, release store",
                       "acq_rel + relaxed test first", "PTX atom.acquire.exch / st.release, plain data", "PTX acquire/release, ATOMS data", "ATOMS.EXCH + fence.acq_rel.cta x2, ATOMS data", "PTX acquire/release, ld/st.relaxed.cta data"};

__device__ __forceinline__ unsigned long long pack(iv v) {
  return (static_cast<unsigned long long>(static_cast<unsigned>(v.value) ^ 0x80000000u) << 32) | v.index;
}
__device__ __forceinline__ iv unpack(unsigned long long p) {
  return {static_cast<unsigned>(p), static_cast<int>(static_cast<unsigned>(p >> 32) ^ 0x80000000u)};
}
__device__ __forceinline__ unsigned long long op_packed(unsigned long long a, unsigned long long b) {
  const unsigned va = unsigned(a >> 32), vb = unsigned(b >> 32);
  if (va != vb) return va > vb ? a : b;
  return unsigned(a) <= unsigned(b) ? a : b;
}

// The section's data through atomics: a compare-and-swap that changes nothing reads the pair, an exchange writes it.
__device__ __forceinline__ void update_with_atomic_words(iv* p, iv v) {
  auto* w = reinterpret_cast<unsigned long long*>(p);
  const unsigned long long r = atomicCAS(w, 0ull, 0ull);
  iv cur;
  memcpy(&cur, &r, 8);
  const iv nv = op(cur, v);
  unsigned long long s;
  memcpy(&s, &nv, 8);
  atomicExch(w, s);
}

template <int V>
__device__ __forceinline__ void update(iv* vals, int* locks, int b, iv v) {
  if constexpr (V == packed_cas) {
    auto* w = reinterpret_cast<unsigned long long*>(vals) + b;
    const unsigned long long pv = pack(v);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(w), assumed;
    do { assumed = old; old = atomicCAS(w, assumed, op_packed(assumed, pv)); } while (old != assumed);
  } else if constexpr (V == ptx_acq_rel || V == ptx_acq_rel_atomic_data || V == fence_acq_rel || V == ptx_relaxed_data) {
    const unsigned lock_addr = static_cast<unsigned>(__cvta_generic_to_shared(locks + b));
    bool done = false;
    while (!done) {
      int old;
      if constexpr (V == fence_acq_rel) old = atomicExch(locks + b, 1);
      else asm volatile("atom.acquire.cta.shared::cta.exch.b32 %0, [%1], 1;" : "=r"(old) : "r"(lock_addr) : "memory");
      if (old == 0) {
        if constexpr (V == fence_acq_rel) asm volatile("fence.acq_rel.cta;" ::: "memory");
        if constexpr (V == ptx_acq_rel) {
          vals[b] = op(vals[b], v);
        } else if constexpr (V == ptx_relaxed_data) {
          const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(vals + b));
          unsigned long long r;
          asm volatile("ld.relaxed.cta.shared::cta.b64 %0, [%1];" : "=l"(r) : "r"(a) : "memory");
          iv cur;
          memcpy(&cur, &r, 8);
          iv nv = op(cur, v);
          memcpy(&r, &nv, 8);
          asm volatile("st.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(a), "l"(r) : "memory");
        } else {
          update_with_atomic_words(vals + b, v);
        }
        if constexpr (V == fence_acq_rel) { asm volatile("fence.acq_rel.cta;" ::: "memory"); atomicExch(locks + b, 0); }
        else asm volatile("st.release.cta.shared::cta.b32 [%0], 0;" :: "r"(lock_addr) : "memory");
        done = true;
      }
    }
  } else if constexpr (V == acq_rel || V == exch_acq_rel || V == nanosleep_acq_rel) {
    cuda::atomic_ref<int, cuda::thread_scope_block> l(locks[b]);
    bool done = false;
    while (!done) {
      bool got;
      if constexpr (V == exch_acq_rel) got = l.exchange(1, cuda::memory_order_acquire) == 0;
      else {
        int e = 0;
        got = l.compare_exchange_strong(e, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed);
      }
      if (got) {
        vals[b] = op(vals[b], v);
        l.store(0, cuda::memory_order_release);
        done = true;
      }
    }
  } else {
    bool done = false;
    while (!done) {
      if (atomicCAS(locks + b, 0, 1) == 0) {
        if constexpr (V != no_fence_atomic) __threadfence_block();
        if constexpr (V == current || V == no_fence_atomic) {
          update_with_atomic_words(vals + b, v);
        } else {
          volatile iv* p = vals + b;
          iv cur{p->index, p->value};
          iv nv = op(cur, v);
          p->index = nv.index;
          p->value = nv.value;
        }
        if constexpr (V != no_fence_atomic) __threadfence_block();
        atomicExch(locks + b, 0);
        done = true;
      }
    }
  }
}

template <int V>
__global__ void __launch_bounds__(1024) probe_kernel(const uint4* in, long long n4, int H, iv* rows) {
  extern __shared__ __align__(16) unsigned char sh[];
  iv* vals = reinterpret_cast<iv*>(sh);
  int* locks = reinterpret_cast<int*>(sh + H * sizeof(iv));
  for (int i = threadIdx.x; i < H; i += blockDim.x) {
    if constexpr (V == packed_cas) reinterpret_cast<unsigned long long*>(vals)[i] = 0xffffffffull; // packed identity
    else vals[i] = ident();
    locks[i] = 0;
  }
  __syncthreads();
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  uint4 next = i < n4 ? in[i] : make_uint4(0, 0, 0, 0);
  for (; i < n4; i += stride) {
    const uint4 cur = next;
    if (i + stride < n4) next = in[i + stride];
    const unsigned xs[4] = {cur.x, cur.y, cur.z, cur.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned x = xs[k];
      update<V>(vals, locks, static_cast<int>(x % static_cast<unsigned>(H)), iv{x / 64, static_cast<int>(x)});
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < H; b += blockDim.x) {
    iv r = vals[b];
    if constexpr (V == packed_cas) r = unpack(reinterpret_cast<unsigned long long*>(vals)[b]);
    rows[(long long)blockIdx.x * H + b] = r;
  }
}

__global__ void fill(unsigned* x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long z = i * 0x9E3779B97F4A7C15ull + 12345;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    x[i] = unsigned(z ^ (z >> 31));
  }
}

template <int V>
float run(const uint4* in, long long n4, int H, iv* rows, int grid, std::vector<iv>& host_rows) {
  const size_t shmem = H * (sizeof(iv) + 4);
  CK(cudaFuncSetAttribute(probe_kernel<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 8; ++r) {
    cudaEventRecord(a);
    probe_kernel<V><<<grid, 1024, shmem>>>(in, n4, H, rows);
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (r > 0) t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  host_rows.resize((size_t)grid * H);
  CK(cudaMemcpy(host_rows.data(), rows, host_rows.size() * sizeof(iv), cudaMemcpyDeviceToHost));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  const long long n = argc > 1 ? atoll(argv[1]) : 50'000'000, n4 = n / 4;
  unsigned* x; CK(cudaMalloc(&x, n * 4));
  fill<<<1024, 256>>>(x, n);
  std::vector<unsigned> hx(n);
  CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int optin; cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  iv* rows; CK(cudaMalloc(&rows, (size_t)2 * sms * 16384 * sizeof(iv)));
  printf("N = %lld uniform uint32, unpacked argmax, bin = x %% H, M = 1, grid = blocks x 1024, median of 7\n", n);
  for (int H : {505, 2048, 6144, 12288}) {
    if (argc > 1 && H != 2048) continue;
    std::vector<iv> ref(H, ident());
    for (long long i = 0; i < n; ++i) { unsigned v = hx[i]; ref[v % H] = op(ref[v % H], iv{v / 64, (int)v}); }
    const int blocks_per_sm = H * 12 * 2 <= 228 * 1024 - 2048 ? 2 : 1;
    const int grid = sms * blocks_per_sm;
    std::vector<iv> hr;
    auto report = [&](int V, float us) {
      std::vector<iv> got(H, ident());
      for (int g = 0; g < grid; ++g) for (int b = 0; b < H; ++b) got[b] = op(got[b], hr[(size_t)g * H + b]);
      bool ok = memcmp(got.data(), ref.data(), H * sizeof(iv)) == 0;
      printf("H=%6d grid=%d  %-55s %8.1f us  %s\n", H, grid, names[V], us, ok ? "ok" : "WRONG");
    };
    report(current, run<current>((const uint4*)x, n4, H, rows, grid, hr));
    report(plain_fenced, run<plain_fenced>((const uint4*)x, n4, H, rows, grid, hr));
    report(acq_rel, run<acq_rel>((const uint4*)x, n4, H, rows, grid, hr));
    report(no_fence_atomic, run<no_fence_atomic>((const uint4*)x, n4, H, rows, grid, hr));
    report(packed_cas, run<packed_cas>((const uint4*)x, n4, H, rows, grid, hr));
    report(exch_acq_rel, run<exch_acq_rel>((const uint4*)x, n4, H, rows, grid, hr));
    report(ptx_acq_rel, run<ptx_acq_rel>((const uint4*)x, n4, H, rows, grid, hr));
    report(ptx_acq_rel_atomic_data, run<ptx_acq_rel_atomic_data>((const uint4*)x, n4, H, rows, grid, hr));
    report(fence_acq_rel, run<fence_acq_rel>((const uint4*)x, n4, H, rows, grid, hr));
    report(ptx_relaxed_data, run<ptx_relaxed_data>((const uint4*)x, n4, H, rows, grid, hr));
  }
  return 0;
}
