// Byte histograms at the read-bandwidth limit (issue 4, item 1), in one run on one GPU.
//
// Input: N bytes (1 GiB; --quick 256 MiB) of each distribution of tests/bytes/byte_inputs.hpp (uniform, zero,
// linear, image), made on the device. For 256, 64 and 32 even bins over [0, 256) it times ghist's two methods
// (packed_counters, shared_atomics) and the automatic choice, CUB's HistogramEven over the same uint8 samples
// (num_bins + 1 levels, int counters), and, once per distribution, the read-only floor over the same bytes
// (bench/timing.cuh). For 256 bins it also times other tunings of both kernels (other layouts of the warp
// histograms, longer atomics tiles, an atomic or byte-wide increment of the packed counters, shorter packed
// tiles), so that one run shows whether the library's defaults (detail/byte_histogram/*.cuh) should change.
// Every result is checked against the CPU backend (256 raw counts per distribution, folded into the bins) before
// it is timed; a wrong one is reported, not timed, and the run exits with status 2.
//
// Output: a summary table (last lines of the output), optional --csv / --json with one record per variant.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime_api.h>

#include "byte_inputs.hpp"
#include "ghist/binning.hpp"
#include "ghist/byte_histogram.hpp"
#include "ghist/cpu.hpp"
#include "ghist/detail/byte_histogram/launch.cuh"
#include "ghist/detail/byte_histogram/tunings.cuh"
#include "ghist/error.hpp"
#include "report.hpp"
#include "timing.cuh"

namespace {

using bench::record;
using bench::variant_kind;
using ghist::byte_method;
using ghist_bytes::byte_dist;

const int bin_counts[] = {256, 64, 32};
const byte_method methods[] = {byte_method::packed_counters, byte_method::shared_atomics, byte_method::automatic};

namespace bytes = ghist::detail::bytes;

struct tuned_variant {
  const char* name;
  byte_method method;
  void (*run)(const std::uint8_t*, std::int64_t, std::uint64_t*, int, byte_method);
};

template <class Packed, class Atomics>
void run_tuned(const std::uint8_t* d, std::int64_t n, std::uint64_t* hist, int bins, byte_method m) {
  bytes::byte_histogram<std::uint64_t, Packed, Atomics>(d, false, n, hist, bins, 0, 256, 0, {}, m);
}

const tuned_variant tuned_variants[] = {
    {"pair unroll 4", byte_method::packed_counters,
     run_tuned<bytes::pair_counters_unroll4_tuning, bytes::shared_atomics_tuning>},
    {"pair 1/4 atomics", byte_method::packed_counters,
     run_tuned<bytes::pair_counters_quarter_atomics_tuning, bytes::shared_atomics_tuning>},
    {"pair no atomics", byte_method::packed_counters,
     run_tuned<bytes::pair_counters_no_atomics_tuning, bytes::shared_atomics_tuning>},
    {"packed 8-bit", byte_method::packed_counters,
     run_tuned<bytes::packed8_tuning, bytes::shared_atomics_tuning>},
    {"packed atomic-inc", byte_method::packed_counters,
     run_tuned<bytes::packed8_atomic_increment_tuning, bytes::shared_atomics_tuning>},
    {"packed byte-stores", byte_method::packed_counters,
     run_tuned<bytes::packed8_byte_stores_tuning, bytes::shared_atomics_tuning>},
    {"packed unroll 3", byte_method::packed_counters,
     run_tuned<bytes::packed8_unroll3_tuning, bytes::shared_atomics_tuning>},
    {"atomics per lane", byte_method::shared_atomics,
     run_tuned<bytes::pair_counters_tuning, bytes::atomics_per_lane_tuning>},
    {"per warp unswizzled", byte_method::shared_atomics,
     run_tuned<bytes::pair_counters_tuning, bytes::atomics_per_warp_unswizzled_tuning>},
    {"atomics unroll 12", byte_method::shared_atomics,
     run_tuned<bytes::pair_counters_tuning, bytes::atomics_per_lane_unroll12_tuning>},
    {"8 copies", byte_method::shared_atomics,
     run_tuned<bytes::pair_counters_tuning, bytes::eight_copies_tuning>},
    {"8 copies swizzled", byte_method::shared_atomics,
     run_tuned<bytes::pair_counters_tuning, bytes::eight_copies_swizzled_tuning>},
};

struct config {
  bool quick = false;
  std::int64_t n = std::int64_t(1) << 30;
  int reps = 25;
  std::string csv_path, json_path;
};

void usage() {
  std::printf(
      "ghist_bytes_bench: uint8 histograms (256/64/32 bins) of 4 distributions, ghist's methods vs CUB and the\n"
      "read floor.\n"
      "  --quick       256 MiB and 9 runs per variant (under a minute)\n"
      "  --bytes N     input size in bytes (default 1 GiB; a multiple of 4)\n"
      "  --reps R      timed runs per variant, median reported (default 25)\n"
      "  --csv FILE    one row per measured variant\n"
      "  --json FILE   the same as JSON\n");
}

bool parse(int argc, char** argv, config& c) {
  bool reps_given = false, bytes_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--quick") c.quick = true;
    else if (a == "--bytes") {
      c.n = std::stoll(value());
      bytes_given = true;
    } else if (a == "--reps") {
      c.reps = std::stoi(value());
      reps_given = true;
    } else if (a == "--csv") c.csv_path = value();
    else if (a == "--json") c.json_path = value();
    else if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
  }
  if (c.quick && !bytes_given) c.n = std::int64_t(1) << 28;
  if (c.quick && !reps_given) c.reps = 9;
  if (c.n <= 0 || c.n % 4 != 0) throw std::invalid_argument("--bytes must be a positive multiple of 4");
  if (c.reps < 1) throw std::invalid_argument("--reps must be >= 1");
  return true;
}

__global__ void fill_bytes(std::uint8_t* out, std::int64_t n, byte_dist d, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = ghist_bytes::byte_at(d, i, seed);
}

/// The CPU backend's 256 raw counts of the bytes (one bin per value).
std::vector<std::uint64_t> cpu_raw_counts(const std::vector<std::uint8_t>& h) {
  std::vector<std::uint64_t> counts(256);
  ghist::cpu::generalized_histogram(
      h.data(), static_cast<std::int64_t>(h.size()),
      [](std::uint8_t x) { return ghist::bin_update<std::uint64_t>{x, 1}; }, ghist::plus<std::uint64_t>{},
      counts.data(), 256);
  return counts;
}

/// Expected counts in `bins` even bins over [0, 256), from the raw counts.
std::vector<std::uint64_t> fold(const std::vector<std::uint64_t>& raw, int bins) {
  const auto eb = ghist::make_even_bins<int>(0, 256, bins);
  std::vector<std::uint64_t> out(static_cast<std::size_t>(bins));
  for (int v = 0; v < 256; ++v) out[static_cast<std::size_t>(eb(v))] += raw[static_cast<std::size_t>(v)];
  return out;
}

template <class T>
std::string compare(const T* d_hist, const std::vector<std::uint64_t>& want) {
  std::vector<T> got(want.size());
  BENCH_CHECK(cudaMemcpy(got.data(), d_hist, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  for (std::size_t b = 0; b < want.size(); ++b)
    if (static_cast<std::uint64_t>(got[b]) != want[b])
      return "MISMATCH: bin " + std::to_string(b) + " got " + std::to_string(static_cast<std::uint64_t>(got[b])) +
             " want " + std::to_string(want[b]);
  return "ok";
}

std::string fmt(const char* f, double v) {
  if (!std::isfinite(v)) return "-";
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}

const record* find(const std::vector<record>& rows, const std::string& dist, int bins, const std::string& variant) {
  for (const auto& r : rows)
    if (r.dist == dist && r.H == bins && r.variant == variant) return &r;
  return nullptr;
}

void print_summary(const std::vector<record>& rows, const bench::run_info& info) {
  const double gb = double(info.n) * 1e-9;
  auto gbs = [&](const record* r) { return r && r->ok() ? gb / (r->us * 1e-6) : NAN; };
  auto frac = [&](const record* r) { return r && r->ok() ? r->floor_us / r->us : NAN; };
  auto cell = [&](const record* r) {
    if (r && !r->ok()) return r->status.substr(0, 12);
    return fmt("%5.0f", gbs(r)) + " (" + fmt("%.2f", frac(r)) + ")";
  };
  std::printf("\nTunings, 256 bins: GB/s (fraction of the read floor)\n%-8s", "dist");
  std::printf(" %-17s %-17s", "packed_counters", "shared_atomics");
  for (const auto& v : tuned_variants) std::printf(" %-18s", v.name);
  std::printf("\n");
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    const std::string dist = ghist_bytes::to_string(d);
    std::printf("%-8s %-17s %-17s", dist.c_str(), cell(find(rows, dist, 256, "packed_counters")).c_str(),
                cell(find(rows, dist, 256, "shared_atomics")).c_str());
    for (const auto& v : tuned_variants) std::printf(" %-18s", cell(find(rows, dist, 256, v.name)).c_str());
    std::printf("\n");
  }
  std::printf("\nByte histograms on %s, %.0f MiB of uint8, [0, 256); GB/s (fraction of the read floor measured in "
              "the same run)\n",
              info.device.c_str(), double(info.n) / (1 << 20));
  std::printf("%-8s %4s %7s | %-13s %-13s %-13s | %7s %6s\n", "dist", "bins", "floor", "packed", "atomics", "auto",
              "CUB", "auto/CUB");
  double worst_auto = INFINITY;
  std::string worst_where;
  for (byte_dist d : ghist_bytes::all_byte_dists) {
    const std::string dist = ghist_bytes::to_string(d);
    for (int bins : bin_counts) {
      const record* p = find(rows, dist, bins, "packed_counters");
      const record* a = find(rows, dist, bins, "shared_atomics");
      const record* au = find(rows, dist, bins, "automatic");
      const record* c = find(rows, dist, bins, "cub");
      const record* fl = find(rows, dist, 0, "read floor");
      std::printf("%-8s %4d %7s | %-13s %-13s %-13s | %7s %6s\n", dist.c_str(), bins, fmt("%.0f", gbs(fl)).c_str(),
                  cell(p).c_str(), cell(a).c_str(), cell(au).c_str(), fmt("%.0f", gbs(c)).c_str(),
                  fmt("%.2f", au && au->ok() && c && c->ok() ? c->us / au->us : NAN).c_str());
      if (std::isfinite(frac(au)) && frac(au) < worst_auto) {
        worst_auto = frac(au);
        worst_where = dist + " " + std::to_string(bins) + " bins";
      }
    }
  }
  std::printf("auto: worst fraction of the read floor %s at %s (target >= 0.95)\n", fmt("%.3f", worst_auto).c_str(),
              worst_where.c_str());
  int problems = 0;
  for (const auto& r : rows)
    if (r.status != "ok") {
      if (problems++ == 0) std::printf("Not measured or wrong:\n");
      std::printf("  %s %lld bins %s: %s\n", r.dist.c_str(), static_cast<long long>(r.H), r.variant.c_str(),
                  r.status.c_str());
    }
}

int run(const config& cfg) {
  int device = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));

  bench::run_info info;
  info.device = prop.name;
  info.sms = prop.multiProcessorCount;
  info.l2_mib = prop.l2CacheSize >> 20;
  info.n = cfg.n;
  info.dist = "uniform,zero,linear,image";
  info.reps = cfg.reps;
  bench::timing_policy policy;
  policy.reps = cfg.reps;
  policy.budget_ms = 2000.0;
  info.budget_ms = policy.budget_ms;

  std::uint8_t* d_data = nullptr;
  BENCH_CHECK(cudaMalloc(&d_data, static_cast<std::size_t>(cfg.n)));
  std::uint64_t* d_hist = nullptr;
  int* d_cub_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_hist, 256 * sizeof(std::uint64_t)));
  BENCH_CHECK(cudaMalloc(&d_cub_hist, 256 * sizeof(int)));
  void* cub_temp = nullptr;
  std::size_t cub_temp_bytes = 0;
  const int n_items = cfg.n > INT32_MAX ? -1 : static_cast<int>(cfg.n);  // CUB's int item count

  bench::csv_writer csv;
  if (!cfg.csv_path.empty() && !csv.open(cfg.csv_path)) throw std::runtime_error("cannot write " + cfg.csv_path);
  std::vector<record> rows;
  bench::event_timer timer;
  std::vector<std::uint8_t> host(static_cast<std::size_t>(cfg.n));
  bool wrong = false;
  auto add = [&](record r) {
    if (r.status != "ok") wrong = wrong || r.status.rfind("MISMATCH", 0) == 0;
    csv.write(r);
    rows.push_back(std::move(r));
  };

  for (byte_dist d : ghist_bytes::all_byte_dists) {
    const std::string dist = ghist_bytes::to_string(d);
    fill_bytes<<<prop.multiProcessorCount * 8, 512>>>(d_data, cfg.n, d, 0x5eed0000u + static_cast<unsigned>(d));
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaMemcpy(host.data(), d_data, host.size(), cudaMemcpyDeviceToHost));
    const std::vector<std::uint64_t> raw = cpu_raw_counts(host);

    const bench::floors fl =
        bench::measure_floors(reinterpret_cast<const std::uint32_t*>(d_data), cfg.n / 4, timer, policy);
    record floor_row;
    floor_row.op = "uint8";
    floor_row.dist = dist;
    floor_row.kind = variant_kind::floor;
    floor_row.variant = "read floor";
    floor_row.us = fl.read.us;
    floor_row.reps = fl.read.reps;
    floor_row.floor_us = fl.read.us;
    add(floor_row);
    info.floor_us = fl.read.us;
    info.copy_us = fl.copy.us;
    std::printf("%s: read floor %.1f us (%.0f GB/s), copy %.1f us\n", dist.c_str(), fl.read.us,
                double(cfg.n) * 1e-9 / (fl.read.us * 1e-6), fl.copy.us);

    for (int bins : bin_counts) {
      const std::vector<std::uint64_t> want = fold(raw, bins);
      record cub_row;
      cub_row.op = "uint8";
      cub_row.H = bins;
      cub_row.RF = 1;
      cub_row.dist = dist;
      cub_row.kind = variant_kind::baseline;
      cub_row.variant = "cub";
      cub_row.floor_us = fl.read.us;
      if (n_items < 0) {
        cub_row.status = "n/a: CUB takes an int item count";
      } else {
        auto cub_call = [&] {
          BENCH_CHECK(cub::DeviceHistogram::HistogramEven(cub_temp, cub_temp_bytes, d_data, d_cub_hist, bins + 1, 0,
                                                          256, n_items));
        };
        std::size_t need = 0;
        BENCH_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, d_data, d_cub_hist, bins + 1, 0, 256, n_items));
        if (need > cub_temp_bytes) {
          BENCH_CHECK(cudaFree(cub_temp));
          BENCH_CHECK(cudaMalloc(&cub_temp, need));
          cub_temp_bytes = need;
        }
        cub_call();
        BENCH_CHECK(cudaDeviceSynchronize());
        cub_row.status = compare(d_cub_hist, want);
        if (cub_row.status == "ok") {
          const bench::timing t = timer.median(cub_call, policy);
          cub_row.us = t.us;
          cub_row.reps = t.reps;
        }
      }
      add(cub_row);

      // One variant: checked, then timed; a tuning the device cannot run is reported as n/a.
      auto measure = [&](const std::string& name, byte_method m, variant_kind kind, auto call) {
        record r;
        r.op = "uint8";
        r.H = bins;
        r.RF = 1;
        r.dist = dist;
        r.kind = kind;
        r.variant = name;
        r.plan = ghist::to_string(ghist::resolve_byte_method(m, cfg.n));
        r.plan_short = r.plan;
        r.floor_us = fl.read.us;
        r.cub_us = cub_row.us;
        try {
          call();
          BENCH_CHECK(cudaDeviceSynchronize());
          r.status = compare(d_hist, want);
        } catch (const ghist::error& e) {
          r.status = std::string("n/a: ") + e.what();
        }
        if (r.status == "ok") {
          const bench::timing t = timer.median(call, policy);
          r.us = t.us;
          r.reps = t.reps;
        }
        add(r);
      };
      for (byte_method m : methods)
        measure(ghist::to_string(m), m,
                m == byte_method::automatic ? variant_kind::automatic : variant_kind::fixed,
                [&] { ghist::byte_histogram_even_async(d_data, cfg.n, d_hist, bins, 0, 256, 0, {}, m); });
      if (bins == 256)
        for (const auto& v : tuned_variants)
          measure(v.name, v.method, variant_kind::fixed, [&] { v.run(d_data, cfg.n, d_hist, bins, v.method); });
    }
  }
  BENCH_CHECK(cudaFree(cub_temp));
  BENCH_CHECK(cudaFree(d_cub_hist));
  BENCH_CHECK(cudaFree(d_hist));
  BENCH_CHECK(cudaFree(d_data));

  print_summary(rows, info);
  if (!csv.close()) throw std::runtime_error("cannot finish " + cfg.csv_path);
  if (!cfg.json_path.empty() && !bench::write_json(cfg.json_path, rows, info))
    throw std::runtime_error("cannot write " + cfg.json_path);
  return wrong ? 2 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    config cfg;
    parse(argc, argv, cfg);
    return run(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ghist_bytes_bench: %s\n", e.what());
    return 1;
  }
}
