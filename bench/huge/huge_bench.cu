// Benchmark of huge histograms (issue 5 item 4): N = 50M uniform uint32, bin = (x % max(1, H/RF)) * RF as in
// ghist_bench, an int32 count per bin (HDW), H = 1.5M, 4M, 16M, 60M, 100M (--quick: 1.5M, 16M, 100M; RF = 63 too
// without --quick). In one run, medians of CUDA-event times (bench/timing.cuh) of
//   ghist auto; forced global memory (the planner's M, and M = 1: one global atomic per element); forced
//   partitioned (the planner's groups, and 32 / 64 / 256 groups where the planner accepts them; the tile and the
//   counted layouts forced, see grid_variants);
//   CUB HistogramEven (its temporary storage is bins x blocks, cccl#912: a size it cannot get is recorded, not fatal);
//   floors: a read of the input, a device-to-device copy of it, a write of H counters, and copy + write (the
//   H = 100M target: "within 2x of a copy of the input plus a write of the histogram");
// and Parboil histo's real data (1M bins, 8-bit saturating add): ghist auto against forced global memory.
// Every ghist and CUB result is checked against the CPU backend (Parboil: against the expected file) before it is
// timed. CUB runs last, after every ghist cell: a fault inside CUB would end the CUDA context.
//
// Usage: ghist_huge_bench [--quick] [--csv FILE] [--json FILE] [--n N] [--h H,H,...] [--data DIR]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime_api.h>
#include <thrust/iterator/transform_iterator.h>

#include "check.cuh"
#include "ghist/cpu.hpp"
#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "inputs.hpp"
#include "parboil_data.hpp"
#include "report.hpp"
#include "seed000_ops.cuh"
#include "timing.cuh"

namespace {

using i64 = std::int64_t;
using u32 = std::uint32_t;

const char* const usage_text =
    "usage: ghist_huge_bench [--quick] [--csv FILE] [--json FILE] [--n N] [--h H,H,...] [--data DIR]\n"
    "  --quick      H = 1.5M, 16M, 100M and RF = 1 only (the GPU check's run, under a minute on an H100)\n"
    "  --csv FILE   every measurement as CSV;  --json FILE  the same as JSON\n"
    "  --n N        inputs (default 50000000)\n"
    "  --data DIR   folder of the Parboil histo files (default: the repository's tests/data)\n"
    "  --h H,H,...  only these histogram sizes (e.g. to profile one cell)\n";

struct config {
  bool quick = false;
  std::string csv_path, json_path;
  i64 n = 50'000'000;
  std::string data_dir = GHIST_BENCH_DATA_DIR;
  std::vector<i64> Hs;  ///< --h: only these H (empty: the default list)
};

/// Parses argv; false after --help; throws std::invalid_argument naming a bad argument.
bool parse(int argc, char** argv, config& cfg) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") return false;
    if (a == "--quick") cfg.quick = true;
    else if (a == "--csv") cfg.csv_path = value();
    else if (a == "--json") cfg.json_path = value();
    else if (a == "--data") cfg.data_dir = value();
    else if (a == "--n") {
      const std::string v = value();
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (end == v.c_str() || *end != '\0' || n < 1 || n > (i64{1} << 31))
        throw std::invalid_argument("--n must be an integer in [1, 2^31], got '" + v + "'");
      cfg.n = n;
    } else if (a == "--h") {
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');) {
        char* end = nullptr;
        const long long H = std::strtoll(item.c_str(), &end, 10);
        if (end == item.c_str() || *end != '\0' || H < 1 || H > (i64{1} << 31))
          throw std::invalid_argument("--h takes H values in [1, 2^31] separated by commas, got '" + item + "'");
        cfg.Hs.push_back(H);
      }
    } else {
      throw std::invalid_argument("unknown argument '" + a + "'");
    }
  }
  return true;
}

/// One measurement. section: floor, huge (the N = 50M grid) or parboil.
struct row {
  std::string section;
  i64 H = 0;
  int RF = 0;
  std::string variant;
  double us = NAN;
  int reps = 0;
  std::string plan;
  std::string status = "ok";  ///< ok, n/a: <why> (not run), failed: <what>, MISMATCH: <what>
  bool ok() const { return status == "ok" && std::isfinite(us); }
};

struct env {
  bench::event_timer timer;
  bench::timing_policy policy;
  std::vector<row> rows;

  /// poison() before a first run that check() judges ("ok" or why not); then the median if it was right.
  void measure(row r, const std::function<void()>& run, const std::function<void()>& poison,
               const std::function<std::string()>& check) {
    poison();
    BENCH_CHECK(cudaDeviceSynchronize());
    const float first_ms = timer.once(run);
    r.status = check();
    if (r.status == "ok") {
      const bench::timing t = timer.median(run, policy, first_ms);
      r.us = t.us;
      r.reps = t.reps;
    }
    add(std::move(r));
  }
  /// A floor: timed only.
  void time_only(row r, const std::function<void()>& run) {
    const bench::timing t = timer.median(run, policy);
    r.us = t.us;
    r.reps = t.reps;
    add(std::move(r));
  }
  void add(row r) {
    std::printf("  %-8s H=%-10lld RF=%-3d %-22s %12s us  %s%s%s\n", r.section.c_str(), static_cast<long long>(r.H),
                r.RF, r.variant.c_str(), bench::detail::fmt("%.1f", r.us).c_str(), r.status.c_str(),
                r.plan.empty() ? "" : "  ", r.plan.c_str());
    std::fflush(stdout);
    rows.push_back(std::move(r));
  }
  const row* find(const std::string& section, i64 H, int RF, const std::string& variant) const {
    for (const row& r : rows)
      if (r.section == section && r.H == H && r.RF == RF && r.variant == variant) return &r;
    return nullptr;
  }
};

template <class T>
std::vector<T> download(const T* d, i64 count) {
  std::vector<T> h(static_cast<std::size_t>(count));
  BENCH_CHECK(cudaDeviceSynchronize());
  BENCH_CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// ---- ghist variants ----

struct ghist_variant {
  std::string name;
  ghist::strategy kind;
  int M, S;
  int counted = 0;  ///< plan_overrides::counted_groups: 1 the counted layout, -1 the tile layout, 0 planner's
};

/// The variants of one cell: auto, global (planner's M and M = 1), partitioned (planner's groups, 32, 64, 256),
/// and both layouts of the partitioned strategy forced: the tile layout, and the counted layout with the planner's
/// groups and with groups of 28000 bins (two second-pass blocks per SM for int32 counts).
std::vector<ghist_variant> grid_variants(i64 H) {
  const int small_groups = static_cast<int>((H + 27999) / 28000);
  return {{"ghist auto", ghist::strategy::automatic, 0, 0},
          {"global", ghist::strategy::global_memory, 0, 0},
          {"global M=1", ghist::strategy::global_memory, 1, 0},
          {"partitioned", ghist::strategy::partitioned, 0, 0},
          {"partitioned S=32", ghist::strategy::partitioned, 0, 32},
          {"partitioned S=64", ghist::strategy::partitioned, 0, 64},
          {"partitioned S=256", ghist::strategy::partitioned, 0, 256},
          {"partitioned tiles", ghist::strategy::partitioned, 0, 0, -1},
          {"partitioned counted", ghist::strategy::partitioned, 0, 0, 1},
          {"partitioned counted S=" + std::to_string(small_groups), ghist::strategy::partitioned, 0, small_groups, 1}};
}

/// Runs one ghist variant over `d_in` into `d_hist` (checked against `expected`, then timed); a plan the planner
/// refuses is recorded as n/a with its message.
template <class Op, class In, class Fn>
void measure_ghist(env& e, const std::string& section, i64 H, int RF, const ghist_variant& v, const In* d_in, i64 n,
                   Fn f, typename Op::value_type* d_hist, const std::vector<typename Op::value_type>& expected,
                   double race_factor) {
  using T = typename Op::value_type;
  row r{section, H, RF, v.name};
  ghist::options opts;
  opts.race_factor = race_factor;  // known: no inspector wait inside the timed region
  opts.overrides.kind = v.kind;
  opts.overrides.M = v.M;
  opts.overrides.S = v.S;
  opts.overrides.counted_groups = v.counted;
  try {
    r.plan = bench::short_plan(ghist::plan_for_elements<Op, In, Fn>(n, H, opts));
  } catch (const ghist::error& err) {
    r.status = std::string("n/a: ") + err.what();
    e.add(std::move(r));
    return;
  }
  e.measure(
      std::move(r), [&] { ghist::generalized_histogram_async(d_in, n, f, Op{}, d_hist, H, 0, opts); },
      [&] { BENCH_CHECK(cudaMemset(d_hist, 0xab, static_cast<std::size_t>(H) * sizeof(T))); },
      [&] { return bench::compare(download(d_hist, H), expected); });
}

// ---- CUB HistogramEven, with its failures recorded ----

struct cub_cell {
  i64 H;
  int RF;
  std::vector<std::int32_t> expected;  // kept from the ghist pass (CUB runs last)
};

std::string gb_text(std::size_t bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f GB", double(bytes) * 1e-9);
  return s;
}

/// CUB HistogramEven on the cell's bins. Returns false when CUB left the CUDA context unusable (a sticky error):
/// the caller then records the remaining cells without running them.
bool measure_cub(env& e, const cub_cell& c, const u32* d_in, i64 n, std::int32_t* d_hist) {
  row r{"huge", c.H, c.RF, "cub HistogramEven"};
  const bench::seed000_bin bin = bench::seed000_bin::make(c.H, c.RF);
  auto samples = thrust::make_transform_iterator(d_in, bench::cub_sample_of{bin});
  const int levels = static_cast<int>(c.H + 1);
  std::size_t temp_bytes = 0;
  cudaError_t err =
      cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, d_hist, levels, 0, int(c.H), n);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    r.status = std::string("failed: size query: ") + cudaGetErrorString(err);
    e.add(std::move(r));
    return true;
  }
  r.plan = "temp " + gb_text(temp_bytes);
  std::size_t free_bytes = 0, total_bytes = 0;
  BENCH_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::size_t{256} << 20;
  if (temp_bytes + margin > free_bytes) {
    r.status = "n/a: needs " + gb_text(temp_bytes) + " of temporary storage, " + gb_text(free_bytes) +
               " free (bins x blocks, cccl#912)";
    e.add(std::move(r));
    return true;
  }
  void* temp = nullptr;
  err = cudaMalloc(&temp, temp_bytes);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    r.status = "n/a: cudaMalloc of " + gb_text(temp_bytes) + " failed: " + cudaGetErrorString(err);
    e.add(std::move(r));
    return true;
  }
  BENCH_CHECK(cudaMemset(d_hist, 0xab, static_cast<std::size_t>(c.H) * sizeof(std::int32_t)));
  // The first run outside the timer, so that an error is recorded instead of ending the benchmark.
  const auto start = std::chrono::steady_clock::now();
  err = cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, d_hist, levels, 0, int(c.H), n);
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    r.status = std::string("failed: ") + cudaGetErrorString(err);
    const bool usable = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
    if (usable) (void)cudaFree(temp);
    e.add(std::move(r));
    return usable;
  }
  const float first_ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.status = bench::compare(download(d_hist, c.H), c.expected);
  if (r.status == "ok") {
    const bench::timing t = e.timer.median(
        [&] {
          BENCH_CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, d_hist, levels, 0, int(c.H), n));
        },
        e.policy, first_ms);
    r.us = t.us;
    r.reps = t.reps;
  }
  BENCH_CHECK(cudaFree(temp));
  e.add(std::move(r));
  return true;
}

// ---- Parboil histo ----

void measure_parboil(env& e, const std::string& dir) {
  ghist_huge::parboil_histo data;
  try {
    data = ghist_huge::load_parboil_histo(dir);
  } catch (const std::exception& err) {
    row r{"parboil", ghist_huge::parboil_histo::num_bins, 0, "ghist auto"};
    r.status = std::string("n/a: ") + err.what();
    e.add(std::move(r));
    return;
  }
  const i64 n = static_cast<i64>(data.bins.size()), H = ghist_huge::parboil_histo::num_bins;
  std::int32_t* d_bins = nullptr;
  std::uint32_t* d_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_bins, data.bins.size() * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMalloc(&d_hist, static_cast<std::size_t>(H) * sizeof(std::uint32_t)));
  BENCH_CHECK(cudaMemcpy(d_bins, data.bins.data(), data.bins.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  const std::vector<ghist_variant> variants = {{"ghist auto", ghist::strategy::automatic, 0, 0},
                                               {"global", ghist::strategy::global_memory, 0, 0},
                                               {"global M=1", ghist::strategy::global_memory, 1, 0},
                                               {"partitioned", ghist::strategy::partitioned, 0, 0},
                                               {"partitioned counted", ghist::strategy::partitioned, 0, 0, 1}};
  // race_factor 0: the auto plan a user gets without knowing the data (the inspector may wait once, inside the
  // timed region, as it would for them); the forced plans are measured the same way.
  for (const auto& v : variants)
    measure_ghist<ghist_huge::sat8_add>(e, "parboil", H, 0, v, d_bins, n, ghist_huge::parboil_update{}, d_hist,
                                        data.expected, 0.0);
  BENCH_CHECK(cudaFree(d_hist));
  BENCH_CHECK(cudaFree(d_bins));
}

// ---- output ----

bool write_csv(const std::string& path, const std::vector<row>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "section,H,RF,variant,us,reps,plan,status\n");
  for (const row& r : rows)
    std::fprintf(f, "%s,%lld,%d,%s,%s,%d,%s,%s\n", r.section.c_str(), static_cast<long long>(r.H), r.RF,
                 bench::detail::csv_quote(r.variant).c_str(), bench::detail::fmt("%.3f", r.us).c_str(), r.reps,
                 bench::detail::csv_quote(r.plan).c_str(), bench::detail::csv_quote(r.status).c_str());
  return std::fclose(f) == 0;
}

bool write_json(const std::string& path, const std::vector<row>& rows, const std::string& device, i64 n) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"device\": %s,\n  \"n\": %lld,\n  \"rows\": [\n", bench::detail::json_string(device).c_str(),
               static_cast<long long>(n));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    std::fprintf(f,
                 "    {\"section\": %s, \"H\": %lld, \"RF\": %d, \"variant\": %s, \"us\": %s, \"reps\": %d, "
                 "\"plan\": %s, \"status\": %s}%s\n",
                 bench::detail::json_string(r.section).c_str(), static_cast<long long>(r.H), r.RF,
                 bench::detail::json_string(r.variant).c_str(), bench::detail::json_number(r.us).c_str(), r.reps,
                 bench::detail::json_string(r.plan).c_str(), bench::detail::json_string(r.status).c_str(),
                 i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

double us_of(const row* r) { return r && r->ok() ? r->us : NAN; }

/// Whether a CUB row records that CUB could not run the cell: CUB's own error, the temporary storage it could not
/// get (bins x blocks, cccl#912), or a context that an earlier CUB call left unusable.
bool cub_could_not(const row* c) {
  return c != nullptr && (c->status.rfind("failed", 0) == 0 || c->status.rfind("n/a: needs", 0) == 0 ||
                          c->status.rfind("n/a: cudaMalloc", 0) == 0 || c->status.rfind("n/a: not run", 0) == 0);
}

/// The summary: a row per (RF, H) with the ratios the issue sets targets for, then the targets, then Parboil.
void print_summary(const env& e, const std::vector<i64>& Hs, const std::vector<int>& RFs, double read_us,
                   double copy_us) {
  std::printf("\n== huge histograms: int32 count, N uniform uint32; read floor %.1f us, copy %.1f us ==\n", read_us,
              copy_us);
  std::printf("%3s %10s %9s %9s %7s %9s %10s %7s %10s %7s  %s\n", "RF", "H", "auto_us", "glob1_us", "x_glob1",
              "part_best", "cub_us", "x_cub", "copy+write", "auto/cw", "auto plan");
  // Worst ratio over the cells a target covers; a cell not measured (NaN) makes the target not met.
  struct worst {
    double value = NAN;
    bool missing = false, any = false;
    void take(double x, bool higher_is_better) {
      if (!std::isfinite(x)) {
        missing = true;
        return;
      }
      if (!any || (higher_is_better ? x < value : x > value)) value = x;
      any = true;
    }
    const char* verdict(bool met) const { return !any || missing ? "NOT met (cells not measured)" : met ? "met" : "NOT met"; }
  } vs_glob1, vs_cub, vs_cw;
  std::string cub_failed_cells;  // cells of the CUB target where CUB itself could not run
  for (int RF : RFs)
    for (i64 H : Hs) {
      const row* a = e.find("huge", H, RF, "ghist auto");
      if (!a) continue;
      double part_best = NAN;
      for (const row& r : e.rows)
        if (r.section == "huge" && r.H == H && r.RF == RF && r.ok() && r.variant.rfind("partitioned", 0) == 0)
          part_best = std::isfinite(part_best) ? std::min(part_best, r.us) : r.us;
      const double au = us_of(a), g1 = us_of(e.find("huge", H, RF, "global M=1")),
                   cub = us_of(e.find("huge", H, RF, "cub HistogramEven")),
                   cw = us_of(e.find("floor", H, RF, "copy + write H"));
      const row* c = e.find("huge", H, RF, "cub HistogramEven");
      const std::string cub_text =
          std::isfinite(cub) ? bench::detail::fmt("%.1f", cub) : (c ? c->status.substr(0, c->status.find(':')) : "-");
      std::printf("%3d %10lld %9s %9s %7s %9s %10s %7s %10s %7s  %s\n", RF, static_cast<long long>(H),
                  a->ok() ? bench::detail::fmt("%.1f", au).c_str() : a->status.substr(0, 12).c_str(),
                  bench::detail::fmt("%.1f", g1).c_str(), bench::detail::fmt("%.2f", g1 / au).c_str(),
                  bench::detail::fmt("%.1f", part_best).c_str(), cub_text.c_str(),
                  bench::detail::fmt("%.1f", cub / au).c_str(), bench::detail::fmt("%.1f", cw).c_str(),
                  bench::detail::fmt("%.2f", au / cw).c_str(), a->plan.c_str());
      if (H >= 1'500'000 && H <= 16'777'216) {
        vs_glob1.take(g1 / au, true);
        // A cell CUB could not run (its error, the temporaries it could not get, or a context an earlier CUB call
        // left unusable) is listed by name; any other missing cell makes the target not met.
        if (std::isfinite(cub) || !cub_could_not(c)) vs_cub.take(cub / au, true);
        else cub_failed_cells += " H=" + std::to_string(H) + " RF=" + std::to_string(RF) + " (" +
                                 c->status.substr(0, c->status.find(':')) + ")";
      }
      if (H >= 100'000'000) vs_cw.take(au / cw, false);
    }
  std::printf("target H 1.5M..16M, auto >= 2x global M=1: worst %sx, %s\n", bench::detail::fmt("%.2f", vs_glob1.value).c_str(),
              vs_glob1.verdict(vs_glob1.value >= 2.0));
  std::printf("target H 1.5M..16M, auto >= 10x CUB HistogramEven: worst %sx where CUB ran, %s%s%s\n",
              bench::detail::fmt("%.1f", vs_cub.value).c_str(), vs_cub.verdict(vs_cub.value >= 10.0),
              cub_failed_cells.empty() ? "" : "; CUB could not run (ghist did):", cub_failed_cells.c_str());
  std::printf("target H = 100M, auto within 2x of copy + write: %sx, %s\n", bench::detail::fmt("%.2f", vs_cw.value).c_str(),
              vs_cw.verdict(vs_cw.value <= 2.0));
  auto verdict = [](bool met) { return met ? "met" : "NOT met"; };

  const i64 PH = ghist_huge::parboil_histo::num_bins;
  const row* pa = e.find("parboil", PH, 0, "ghist auto");
  if (pa) {
    const double au = us_of(pa), g = us_of(e.find("parboil", PH, 0, "global")),
                 g1 = us_of(e.find("parboil", PH, 0, "global M=1")), p = us_of(e.find("parboil", PH, 0, "partitioned"));
    std::printf("parboil histo (1M bins, sat8, exact vs expected file): auto %s us (%s), global %s, global M=1 %s, "
                "partitioned %s; auto vs global M=1 %sx, %s\n",
                bench::detail::fmt("%.1f", au).c_str(), pa->ok() ? pa->plan.c_str() : pa->status.c_str(),
                bench::detail::fmt("%.1f", g).c_str(), bench::detail::fmt("%.1f", g1).c_str(),
                bench::detail::fmt("%.1f", p).c_str(), bench::detail::fmt("%.2f", g1 / au).c_str(),
                verdict(g1 / au > 1.0));
  }
  int problems = 0, cub_failures = 0;
  for (const row& r : e.rows) {
    const bool bad = r.status.rfind("MISMATCH", 0) == 0 || r.status.rfind("failed", 0) == 0;
    (r.variant.rfind("cub", 0) == 0 ? cub_failures : problems) += bad;
  }
  std::printf("%d ghist mismatches or failures, %d of CUB (n/a rows are plans the planner refuses, CUB's memory it "
              "cannot get, or CUB calls after one that left the context unusable)\n",
              problems, cub_failures);
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  try {
    if (!parse(argc, argv, cfg)) {
      std::fputs(usage_text, stdout);
      return 0;
    }
  } catch (const std::invalid_argument& err) {
    std::fprintf(stderr, "ghist_huge_bench: %s (see --help)\n", err.what());
    return 1;
  }
  if (!bench::require_gpu("ghist_huge_bench")) return 1;
  const auto started = std::chrono::steady_clock::now();
  int device = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));

  const std::vector<i64> Hs = !cfg.Hs.empty() ? cfg.Hs
                              : cfg.quick    ? std::vector<i64>{1'572'864, 16'777'216, 100'000'000}
                                             : std::vector<i64>{1'572'864, 4'194'304, 16'777'216, 60'000'000, 100'000'000};
  const std::vector<int> RFs = cfg.quick ? std::vector<int>{1} : std::vector<int>{1, 63};
  const i64 n = cfg.n, max_H = *std::max_element(Hs.begin(), Hs.end());
  std::printf("device: %s, %d SMs; N = %lld uniform uint32; bin = (x %% max(1, H/RF)) * RF, int32 count per bin\n",
              prop.name, prop.multiProcessorCount, static_cast<long long>(n));

  std::vector<u32> host_in(static_cast<std::size_t>(n));
  bench::make_input(bench::distribution{}, 1, host_in);
  const std::size_t in_bytes = host_in.size() * sizeof(u32);
  u32 *d_in = nullptr, *d_copy = nullptr;
  std::int32_t* d_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, in_bytes));
  BENCH_CHECK(cudaMalloc(&d_copy, in_bytes));
  BENCH_CHECK(cudaMalloc(&d_hist, static_cast<std::size_t>(max_H) * sizeof(std::int32_t)));
  BENCH_CHECK(cudaMemcpy(d_in, host_in.data(), in_bytes, cudaMemcpyHostToDevice));

  env e;
  const bench::floors fl = bench::measure_floors(d_in, n, e.timer, e.policy);
  {
    row r{"floor", 0, 0, "read"};
    r.us = fl.read.us;
    r.reps = fl.read.reps;
    e.add(r);
    r.variant = "copy";
    r.us = fl.copy.us;
    r.reps = fl.copy.reps;
    e.add(r);
  }

  std::vector<cub_cell> cub_cells;
  for (int RF : RFs)
    for (i64 H : Hs) {
      const bench::hdw_fn f{bench::seed000_bin::make(H, RF)};
      std::vector<std::int32_t> expected(static_cast<std::size_t>(H));
      ghist::cpu::generalized_histogram(host_in.data(), n, f, ghist::plus<std::int32_t>{}, expected.data(), H);
      const std::size_t hist_bytes = static_cast<std::size_t>(H) * sizeof(std::int32_t);
      e.time_only(row{"floor", H, RF, "write H"},
                  [&] { BENCH_CHECK(cudaMemsetAsync(d_hist, 0, hist_bytes)); });
      e.time_only(row{"floor", H, RF, "copy + write H"}, [&] {
        BENCH_CHECK(cudaMemcpyAsync(d_copy, d_in, in_bytes, cudaMemcpyDeviceToDevice));
        BENCH_CHECK(cudaMemsetAsync(d_hist, 0, hist_bytes));
      });
      for (const ghist_variant& v : grid_variants(H))
        measure_ghist<ghist::plus<std::int32_t>>(e, "huge", H, RF, v, d_in, n, f, d_hist, expected, double(RF));
      cub_cells.push_back({H, RF, std::move(expected)});
    }

  measure_parboil(e, cfg.data_dir);

  // CUB last (see the header comment); the copy buffer is freed first, CUB's temporaries need the room. Smaller H
  // first, both RFs of each: CUB faults at H = 16M (an illegal memory access with 26.6 GB of temporaries on the
  // lent H100), after which no CUB call can run, so the cells it can run come before it.
  std::stable_sort(cub_cells.begin(), cub_cells.end(), [](const cub_cell& a, const cub_cell& b) { return a.H < b.H; });
  BENCH_CHECK(cudaFree(d_copy));
  bool usable = true;
  for (const cub_cell& c : cub_cells) {
    if (!usable) {
      row r{"huge", c.H, c.RF, "cub HistogramEven"};
      r.status = "n/a: not run, an earlier CUB call left the CUDA context unusable";
      e.add(std::move(r));
      continue;
    }
    usable = measure_cub(e, c, d_in, n, d_hist);
  }

  print_summary(e, Hs, RFs, fl.read.us, fl.copy.us);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("total %.1f s\n", seconds);

  int status = 0;
  if (!cfg.csv_path.empty() && !write_csv(cfg.csv_path, e.rows)) {
    std::fprintf(stderr, "ghist_huge_bench: cannot write %s\n", cfg.csv_path.c_str());
    status = 1;
  }
  if (!cfg.json_path.empty() && !write_json(cfg.json_path, e.rows, prop.name, n)) {
    std::fprintf(stderr, "ghist_huge_bench: cannot write %s\n", cfg.json_path.c_str());
    status = 1;
  }
  if (usable) {
    (void)cudaFree(d_hist);
    (void)cudaFree(d_in);
  }
  return status;
}
