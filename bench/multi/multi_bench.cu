// Benchmark of the fused, batched and vector-valued histograms (issue 5 items 1-3), each against what it replaces,
// measured in the same run (medians of CUDA-event times, bench/timing.cuh):
//   fused k = 2, 3, 4 (byte j of each uint32 word counted into target j)  vs  k generalized_histogram_async calls;
//   batched, tpacf shape (200 segments x 97,178 inputs, 22 bins) and k-means shape (256 dimensions x 1024 clusters
//     of float sums over 100,000 points)  vs  one call per segment  and  one flattened N_out x H histogram;
//   vector-valued k-means centroid sums (100,000 points, d = 256, k = 1024 and k = 5)  vs  one flattened scalar
//     histogram of n x d updates  and  d scalar histograms (one per coordinate).
// Every variant's result is checked against the CPU reference (cpu_fused / cpu_batched / cpu_vector) before it is
// timed. Usage: ghist_multi_bench [--quick] [--csv FILE] [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda/std/tuple>
#include <cuda_runtime_api.h>

#include "ghist/batched.cuh"
#include "ghist/cpu_batched.hpp"
#include "ghist/cpu_fused.hpp"
#include "ghist/cpu_vector.hpp"
#include "ghist/fused.cuh"
#include "ghist/generalized_histogram.cuh"
#include "ghist/vector_histogram.cuh"
#include "report.hpp"
#include "timing.cuh"

namespace {

using u32 = std::uint32_t;
using i64 = std::int64_t;

// ---- device buffers (the benchmark exits on any CUDA error) ----
template <class T>
struct dbuf {
  T* p = nullptr;
  std::size_t n = 0;
  explicit dbuf(std::size_t count) : n(count) { BENCH_CHECK(cudaMalloc(&p, std::max<std::size_t>(1, n) * sizeof(T))); }
  explicit dbuf(const std::vector<T>& h) : dbuf(h.size()) {
    BENCH_CHECK(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~dbuf() { cudaFree(p); }
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(n);
    BENCH_CHECK(cudaDeviceSynchronize());
    BENCH_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

struct row {
  std::string group;    // fused k=2, batched tpacf, ...
  std::string variant;  // fused, separate, batched, per-segment, flattened, vector, scalar d calls
  double us = NAN;
  int reps = 0;
  double speedup = NAN;  // the group's first variant (the new feature) against this one: this.us / first.us
  std::string status = "ok";
};

bool close(double got, double want) { return std::fabs(got - want) <= 1e-3 * std::max(1.0, std::fabs(want)); }

template <class T>
std::string compare(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) return "MISMATCH: size";
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool same = std::is_floating_point_v<T> ? close(double(got[i]), double(want[i])) : got[i] == want[i];
    if (!same)
      return "MISMATCH: value " + std::to_string(i) + " is " + std::to_string(double(got[i])) + ", expected " +
             std::to_string(double(want[i]));
  }
  return "ok";
}

struct bench_env {
  bench::event_timer timer;
  bench::timing_policy policy;
  std::vector<row> rows;

  /// Runs `run` once, checks with `check` (returns "ok" or why not), then times it if it was right.
  template <class Run, class Check>
  void measure(const std::string& group, const std::string& variant, Run&& run, Check&& check) {
    row r{group, variant};
    const float first_ms = timer.once(run);
    r.status = check();
    if (r.status == "ok") {
      const bench::timing t = timer.median(run, policy, first_ms);
      r.us = t.us;
      r.reps = t.reps;
    }
    std::printf("  %-22s %-26s %12.1f us  %s\n", group.c_str(), variant.c_str(), r.us, r.status.c_str());
    std::fflush(stdout);
    rows.push_back(r);
  }
};

// ---- fused: byte j of each word, counted into target j ----
struct byte_bin {
  int j;
  __device__ ghist::bin_update<u32> operator()(u32 x) const { return {(x >> (8 * j)) & 0xff, 1u}; }
};
template <std::size_t K>
struct byte_bins {
  template <std::size_t... J>
  __host__ __device__ static auto make(u32 x, std::index_sequence<J...>) {
    return cuda::std::make_tuple(ghist::bin_update<u32>{(x >> (8 * J)) & 0xff, 1u}...);
  }
  __host__ __device__ auto operator()(u32 x) const { return make(x, std::make_index_sequence<K>{}); }
  template <std::size_t... J>
  static auto host(u32 x, std::index_sequence<J...>) {
    return std::make_tuple(ghist::bin_update<u32>{(x >> (8 * J)) & 0xff, 1u}...);
  }
};

template <std::size_t... J>
auto count_targets(const std::vector<u32*>& dest, i64 H, std::index_sequence<J...>) {
  return std::make_tuple(ghist::make_target(ghist::plus<u32>{}, dest[J], H)...);
}

template <std::size_t K>
void bench_fused(bench_env& env, const std::vector<u32>& input, const dbuf<u32>& d_in) {
  const i64 n = static_cast<i64>(input.size());
  constexpr i64 H = 256;
  std::vector<std::vector<u32>> want(K, std::vector<u32>(H));
  std::vector<u32*> want_ptrs;
  for (auto& w : want) want_ptrs.push_back(w.data());
  auto cpu_targets = count_targets(want_ptrs, H, std::make_index_sequence<K>{});
  ghist::cpu::fused_histogram(input.data(), n, [](u32 x) { return byte_bins<K>::host(x, std::make_index_sequence<K>{}); },
                              cpu_targets);
  std::vector<dbuf<u32>*> dest;
  for (std::size_t j = 0; j < K; ++j) dest.push_back(new dbuf<u32>(H));
  std::vector<u32*> dest_ptrs;
  for (auto* d : dest) dest_ptrs.push_back(d->p);
  auto gpu_targets = count_targets(dest_ptrs, H, std::make_index_sequence<K>{});
  auto check = [&] {
    for (std::size_t j = 0; j < K; ++j) {
      const std::string s = compare(dest[j]->get(), want[j]);
      if (s != "ok") return "target " + std::to_string(j) + ": " + s;
    }
    return std::string("ok");
  };
  const std::string group = "fused k=" + std::to_string(K);
  env.measure(group, "fused (1 call)", [&] { ghist::fused_histogram_async(d_in.p, n, byte_bins<K>{}, gpu_targets); },
              check);
  env.measure(group, std::to_string(K) + " separate calls",
              [&] {
                for (std::size_t j = 0; j < K; ++j)
                  ghist::generalized_histogram_async(d_in.p, n, byte_bin{int(j)}, ghist::plus<u32>{}, dest[j]->p, H);
              },
              check);
  for (auto* d : dest) delete d;
}

// ---- batched ----
// tpacf-like bins: 22 bins over a log scale of a uniform value in (0, 1], so low bins are hit more often.
struct tpacf_bin {
  __host__ __device__ static i64 of(float u) {
    const float l = -log2f(u) * 2.0f;
    return l >= 21.0f ? 21 : static_cast<i64>(l);
  }
};
struct tpacf_segment {
  const float* u;
  i64 length;
  __host__ __device__ ghist::bin_update<u32> operator()(i64 s, i64 j) const {
    return {tpacf_bin::of(u[s * length + j]), 1u};
  }
};
struct tpacf_one {
  const float* u;
  __device__ ghist::bin_update<u32> operator()(i64 j) const { return {tpacf_bin::of(u[j]), 1u}; }
};
struct tpacf_flat {
  const float* u;
  i64 length;
  __device__ ghist::bin_update<u32> operator()(i64 i) const { return {(i / length) * 22 + tpacf_bin::of(u[i]), 1u}; }
};

// k-means as batched: segment s = dimension s; coordinates stored dimension-major, [d][n].
struct km_segment {
  const float* coords;
  const std::int32_t* member;
  i64 n;
  __host__ __device__ ghist::bin_update<float> operator()(i64 s, i64 j) const { return {member[j], coords[s * n + j]}; }
};
struct km_one {
  const float* coords;  // one dimension's n coordinates
  const std::int32_t* member;
  __device__ ghist::bin_update<float> operator()(i64 j) const { return {member[j], coords[j]}; }
};
struct km_flat {
  const float* coords;
  const std::int32_t* member;
  i64 n, k;
  __device__ ghist::bin_update<float> operator()(i64 i) const {
    const i64 s = i / n, j = i % n;
    return {s * k + member[j], coords[i]};
  }
};

template <class T, class SegmentF, class OneF, class FlatF>
void bench_batched(bench_env& env, const std::string& group, i64 segments, i64 length, i64 H, SegmentF seg_dev,
                   OneF make_one, FlatF flat_dev, const std::vector<T>& want) {
  dbuf<T> dest(static_cast<std::size_t>(segments * H));
  auto check = [&] { return compare(dest.get(), want); };
  env.measure(group, "batched (1 call)",
              [&] { ghist::batched_histogram_async(segments, length, seg_dev, ghist::plus<T>{}, dest.p, H); }, check);
  env.measure(group, std::to_string(segments) + " per-segment calls",
              [&] {
                for (i64 s = 0; s < segments; ++s)
                  ghist::generalized_histogram_indexed_async(length, make_one(s), ghist::plus<T>{}, dest.p + s * H, H,
                                                             0, ghist::options{});
              },
              check);
  ghist::options flat_opts;
  flat_opts.race_factor = 1.0;  // no inspector wait inside the timing
  env.measure(group, "flattened N_out*H",
              [&] { ghist::generalized_histogram_indexed_async(segments * length, flat_dev, ghist::plus<T>{}, dest.p,
                                                               segments * H, 0, flat_opts); },
              check);
}

// ---- vector-valued k-means centroid sums: points row-major [n][d] ----
struct km_member {
  const std::int32_t* member;
  __device__ i64 operator()(i64 i) const { return member[i]; }
};
struct km_coord {
  const float* points;
  i64 d;
  __device__ float operator()(i64 i, i64 c) const { return points[i * d + c]; }
};
struct km_scalar_flat {
  const float* points;
  const std::int32_t* member;
  i64 d;
  __device__ ghist::bin_update<float> operator()(i64 i) const { return {member[i / d] * d + i % d, points[i]}; }
};
struct km_scalar_dim {
  const float* points;
  const std::int32_t* member;
  i64 d, c;
  __device__ ghist::bin_update<float> operator()(i64 i) const { return {member[i], points[i * d + c]}; }
};

void bench_vector(bench_env& env, i64 n, i64 d, i64 k, std::mt19937_64& rng) {
  std::vector<float> points(static_cast<std::size_t>(n * d));
  std::uniform_real_distribution<float> coord(0.f, 1.f);
  for (auto& p : points) p = coord(rng);
  std::vector<std::int32_t> member(static_cast<std::size_t>(n));
  for (auto& m : member) m = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
  std::vector<float> want(static_cast<std::size_t>(k * d));
  ghist::cpu::vector_histogram(
      n, d,
      [&](i64 i, float* v) {
        std::copy(points.begin() + i * d, points.begin() + (i + 1) * d, v);
        return static_cast<i64>(member[i]);
      },
      ghist::plus<float>{}, want.data(), k);
  dbuf<float> d_points(points);
  dbuf<std::int32_t> d_member(member);
  dbuf<float> dest(static_cast<std::size_t>(k * d));
  auto check = [&] { return compare(dest.get(), want); };
  const std::string group = "vector k=" + std::to_string(k) + " d=" + std::to_string(d);
  env.measure(group, "vector (1 call)",
              [&] { ghist::vector_histogram_async(n, d, km_member{d_member.p}, km_coord{d_points.p, d},
                                                  ghist::plus<float>{}, dest.p, k); },
              check);
  ghist::options flat_opts;
  flat_opts.race_factor = 1.0;
  env.measure(group, "flattened n*d scalar",
              [&] { ghist::generalized_histogram_indexed_async(n * d, km_scalar_flat{d_points.p, d_member.p, d},
                                                               ghist::plus<float>{}, dest.p, k * d, 0, flat_opts); },
              check);
  // d scalar histograms of k bins, one per coordinate, into a [d][k] buffer, then compared after a transpose.
  dbuf<float> by_dim(static_cast<std::size_t>(k * d));
  auto check_dims = [&] {
    const auto got = by_dim.get();
    std::vector<float> t(got.size());
    for (i64 c = 0; c < d; ++c)
      for (i64 b = 0; b < k; ++b) t[b * d + c] = got[c * k + b];
    return compare(t, want);
  };
  env.measure(group, std::to_string(d) + " scalar calls",
              [&] {
                for (i64 c = 0; c < d; ++c)
                  ghist::generalized_histogram_indexed_async(n, km_scalar_dim{d_points.p, d_member.p, d, c},
                                                             ghist::plus<float>{}, by_dim.p + c * k, k, 0,
                                                             ghist::options{});
              },
              check_dims);
}

void write_outputs(const std::vector<row>& rows, const std::string& csv, const std::string& json,
                   const std::string& device) {
  if (!csv.empty()) {
    FILE* f = std::fopen(csv.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "ghist_multi_bench: cannot write %s\n", csv.c_str());
      std::exit(1);
    }
    std::fprintf(f, "device,group,variant,median_us,reps,speedup_of_first,status\n");
    for (const auto& r : rows)
      std::fprintf(f, "%s,%s,%s,%.3f,%d,%.3f,%s\n", bench::detail::csv_quote(device).c_str(),
                   bench::detail::csv_quote(r.group).c_str(), bench::detail::csv_quote(r.variant).c_str(), r.us,
                   r.reps, r.speedup, bench::detail::csv_quote(r.status).c_str());
    std::fclose(f);
  }
  if (!json.empty()) {
    FILE* f = std::fopen(json.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "ghist_multi_bench: cannot write %s\n", json.c_str());
      std::exit(1);
    }
    std::fprintf(f, "{\"device\": %s, \"results\": [\n", bench::detail::json_string(device).c_str());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::fprintf(f, "  {\"group\": %s, \"variant\": %s, \"median_us\": %s, \"reps\": %d, \"speedup_of_first\": %s, "
                      "\"status\": %s}%s\n",
                   bench::detail::json_string(r.group).c_str(), bench::detail::json_string(r.variant).c_str(),
                   bench::detail::json_number(r.us).c_str(), r.reps, bench::detail::json_number(r.speedup).c_str(),
                   bench::detail::json_string(r.status).c_str(), i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string csv, json;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--quick") quick = true;
    else if (arg == "--csv" && a + 1 < argc) csv = argv[++a];
    else if (arg == "--json" && a + 1 < argc) json = argv[++a];
    else {
      std::fprintf(stderr, "usage: ghist_multi_bench [--quick] [--csv FILE] [--json FILE]\n");
      return 2;
    }
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("ghist_multi_bench: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  bench_env env;
  env.policy.reps = quick ? 9 : 25;
  env.policy.budget_ms = quick ? 150.0 : 400.0;
  std::mt19937_64 rng(20261121);

  const i64 n = quick ? 20'000'000 : 50'000'000;
  std::printf("ghist_multi_bench on %s (%d SMs)%s\n", prop.name, prop.multiProcessorCount, quick ? ", quick" : "");
  {
    std::vector<u32> input(static_cast<std::size_t>(n));
    for (auto& x : input) x = static_cast<u32>(rng());
    dbuf<u32> d_in(input);
    bench_fused<2>(env, input, d_in);
    bench_fused<3>(env, input, d_in);
    bench_fused<4>(env, input, d_in);
    const bench::floors fl = bench::measure_floors(d_in.p, n, env.timer, env.policy);
    std::printf("  read floor of the fused input: %.1f us (%lld words)\n", fl.read.us, static_cast<long long>(n));
  }
  {  // tpacf: 200 segments (2 x 100 histograms) of 97,178 inputs, 22 bins
    const i64 segments = 200, length = 97'178, H = 22;
    std::vector<float> u(static_cast<std::size_t>(segments * length));
    std::uniform_real_distribution<float> unit(0.f, 1.f);
    for (auto& x : u) x = 1.0f - unit(rng);  // (0, 1]
    std::vector<u32> want(static_cast<std::size_t>(segments * H));
    ghist::cpu::batched_histogram(segments, length, tpacf_segment{u.data(), length}, ghist::plus<u32>{}, want.data(),
                                  H);
    dbuf<float> d_u(u);
    bench_batched<u32>(env, "batched tpacf 200x22", segments, length, H, tpacf_segment{d_u.p, length},
                       [&](i64 s) { return tpacf_one{d_u.p + s * length}; }, tpacf_flat{d_u.p, length}, want);
  }
  {  // k-means as batched: 256 dimensions x 1024 clusters, 100,000 points
    const i64 dims = 256, points = 100'000, k = 1024;
    std::vector<float> coords(static_cast<std::size_t>(dims * points));
    std::uniform_real_distribution<float> unit(0.f, 1.f);
    for (auto& x : coords) x = unit(rng);
    std::vector<std::int32_t> member(static_cast<std::size_t>(points));
    for (auto& m : member) m = static_cast<std::int32_t>(rng() % k);
    std::vector<float> want(static_cast<std::size_t>(dims * k));
    ghist::cpu::batched_histogram(dims, points, km_segment{coords.data(), member.data(), points}, ghist::plus<float>{},
                                  want.data(), k);
    dbuf<float> d_c(coords);
    dbuf<std::int32_t> d_m(member);
    bench_batched<float>(env, "batched k-means 256x1024", dims, points, k, km_segment{d_c.p, d_m.p, points},
                         [&](i64 s) { return km_one{d_c.p + s * points, d_m.p}; }, km_flat{d_c.p, d_m.p, points, k},
                         want);
  }
  bench_vector(env, 100'000, 256, 1024, rng);
  bench_vector(env, 100'000, 256, 5, rng);

  // Speedups: each group's first row (the new call) against every row of the group.
  for (auto& r : env.rows)
    for (const auto& first : env.rows)
      if (first.group == r.group) {
        r.speedup = r.us / first.us;
        break;
      }
  std::printf("\nSummary (median us; speedup = this variant's time / the one-call feature's time, > 1: feature wins)\n");
  std::printf("%-26s %-26s %12s %9s  %s\n", "group", "variant", "median_us", "speedup", "status");
  for (const auto& r : env.rows)
    std::printf("%-26s %-26s %12.1f %8.2fx  %s\n", r.group.c_str(), r.variant.c_str(), r.us, r.speedup,
                r.status.c_str());
  write_outputs(env.rows, csv, json, prop.name);
  bool ok = true;
  for (const auto& r : env.rows) ok = ok && r.status == "ok";
  return ok ? 0 : 1;
}
