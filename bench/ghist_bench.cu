// Seed 000's benchmark grid on one GPU, in one run.
//
// Input: N 32-bit integers (uniform by default, --dist for others), bin = (x % max(1, H / RF)) * RF, for every H of
// the grid and RF in {1, 63}. Operators: HDW (int32 + 1), CAS (24-bit saturating add), XCG (argmax over an unpacked
// (index, value) struct, lock path) and packed (the same argmax in 64 bits, CAS path); seed000_ops.cuh has them.
// For every (operator, H, RF) it times:
//   - ghist auto (the planner's choice; options.race_factor = RF for uniform input, which the benchmark knows, and
//     0 (unknown) for the skewed and sorted ones, whose race the RF column does not describe; --tell-rf);
//   - ghist with each fixed (M, S) of seed 000's Fig. 7 sweep: shared memory (B = 1024, M = 1 and
//     M = k * floor(B / min(H, B)) for k in {1, 3, 6, 9}, S the smallest that fits) for H <= 49152, global memory
//     (M in {1, 4, 8, 16, 32}, S = 1) for H >= 12288;
//   - CUB: HistogramEven for HDW, radix sort + ReduceByKey for the others (cub_baselines.cuh);
// and once per run the read-only floor over the same bytes and a device-to-device copy (timing.cuh).
// Every result, ghist's and CUB's, is checked against the CPU backend (one reference per (operator, H, RF)) before
// it is timed; a variant that differs is reported and not timed, and the run then exits with status 2.
//
// ghist's temporaries come from its own stream-ordered pool, which keeps them between calls (as any program that
// calls ghist repeatedly gets); CUB's temporary storage is likewise allocated once, before timing.
//
// Run with --help for the options.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "ghist/cpu.hpp"
#include "ghist/error.hpp"
#include "ghist/generalized_histogram.cuh"
#include "ghist/histogram.hpp"

#include "check.cuh"
#include "cub_baselines.cuh"
#include "inputs.hpp"
#include "report.hpp"
#include "seed000_ops.cuh"
#include "timing.cuh"

namespace {

using bench::record;
using bench::variant_kind;

const std::vector<std::int64_t> full_Hs = {31,    127,    505,    2048,   6144,   12288,
                                           24576, 49152, 196608, 393216, 786432, 1572864};
const std::vector<std::int64_t> quick_Hs = {31, 505, 2048, 12288, 49152, 196608, 1572864};

// Seed 000's Fig. 7 sweep.
constexpr int shared_block = 1024;
constexpr std::int64_t max_shared_sweep_H = 49152;
constexpr std::int64_t min_global_sweep_H = 12288;
const std::vector<int> shared_k = {1, 3, 6, 9};
const std::vector<int> global_M = {1, 4, 8, 16, 32};
// The partitioned strategy (seed 003's idea) for large H: groups of bins, each histogrammed in shared memory.
constexpr std::int64_t min_partition_sweep_H = 49152;
const std::vector<int> partition_groups = {32, 96, 192, 384, 768};
// A copy per thread (plan_overrides::thread_private) for the compare-and-swap and lock classes, while a copy takes
// at most this many bytes (H = 1024 of 4 bytes, 512 of 8: one warp's copies fit the 227 KiB of an SM).
constexpr std::int64_t max_thread_private_sweep_bytes = 4096;

// ---- options ----

struct config {
  bool quick = false;
  std::int64_t n = 50'000'000;
  bench::timing_policy timing;
  std::vector<std::string> ops = {"hdw", "cas", "xcg", "packed"};
  std::vector<std::int64_t> rfs = {1, 63};
  std::vector<std::int64_t> Hs = full_Hs;
  bench::distribution dist;
  std::string csv_path, json_path;
  bool fixed = true;
  bool cub = true;
  /// Non-uniform inputs: pass the cell's RF as options.race_factor anyway (default: 0, unknown; see race_factor_for).
  bool tell_rf = false;
  /// Uniform input too: tell ghist the RF is unknown (what a caller who does not pass options.race_factor gets).
  bool rf_unknown = false;
  /// auto with plan_overrides::thread_private = -1, for a same-run comparison with the plans before it.
  bool no_thread_private = false;
  /// auto with plan_overrides::hot_bins = this: -1 none, 1 even where the RF is told (for the A/B of plan::hot_slots).
  int hot_bins = 0;
  /// auto with plan_overrides::staged_input = this: 1 where the plan allows it, -1 never (the A/B of plan::staged_input).
  int staged_input = 0;
  /// auto with plan_overrides::counted_groups = this where it partitions: 1 the counted layout, -1 the tile layout.
  int counted = 0;
  /// auto with plan_overrides::dense_second_pass = this: 1 wherever it applies, -1 never (the A/B of
  /// plan::dense_second_pass).
  int dense = 0;
  /// auto with plan_overrides::hashed_bins = this: 1 wherever the tables fit, -1 never (the A/B of plan::hashed_bins).
  int hashed = 0;
  /// XCG's auto with plan_overrides::lock_queue = this: 1 wherever the queue fits, -1 never (the A/B of
  /// plan::lock_queue).
  int lock_queue = 0;
  /// auto with plan_overrides::hot_split = this: 1 splits off the sample's heavy hitters whenever it finds some, -1
  /// never samples for them (the A/B of the heavy-hitter split).
  int hot_split = 0;
  /// > 0: auto with plan_overrides::M = this (with --hashed on: the copies of the table's values).
  int copies = 0;
  /// > 0: auto with plan_overrides::kind = partitioned and S = this many groups (with --counted, either layout).
  int groups = 0;
  /// > 0: auto with plan_overrides::kind = shared_memory and S = this many passes.
  int passes = 0;
};

const char* usage_text =
    "usage: ghist_bench [options]\n"
    "\n"
    "Seed 000's generalized-histogram grid on the current GPU in one run: N 32-bit integers, bin =\n"
    "(x % max(1, H/RF)) * RF, operators HDW (int32 +1), CAS (24-bit saturating add), XCG (argmax over an unpacked\n"
    "(index, value) struct: lock path) and packed (the same argmax in 64 bits: CAS path). For each (op, H, RF) it\n"
    "times ghist auto, ghist with every fixed (M, S) of seed 000's Fig. 7 sweep (shared memory, B = 1024,\n"
    "M = 1 and k*floor(B/min(H,B)) for k in 1,3,6,9, for H <= 49152; global memory, M in 1,4,8,16,32, S = 1, for\n"
    "H >= 12288; a copy per thread for CAS, XCG and packed, up to 4 KiB a copy), CUB (HistogramEven for HDW, radix\n"
    "sort + ReduceByKey otherwise), and once the read-only floor and a device-to-device copy of the same bytes.\n"
    "Every result is checked against the CPU backend before it is timed. Times are medians over CUDA events after\n"
    "a warm-up.\n"
    "\n"
    "Options:\n"
    "  --quick            H in {31, 505, 2048, 12288, 49152, 196608, 1572864} and 7 runs (fixed sweeps kept)\n"
    "  --n N              inputs (default 50000000)\n"
    "  --reps R           timed runs per variant, median reported (default 25; 7 with --quick)\n"
    "  --budget-ms T      per variant: fewer runs (at least 3) when R runs would take longer than T ms, one\n"
    "                     when a single run does (default 400); the runs taken are in the CSV/JSON\n"
    "  --ops LIST         comma-separated subset of hdw,cas,xcg,packed (default all)\n"
    "  --rf LIST          race factors (default 1,63)\n"
    "  --h LIST           histogram sizes H (default the full grid, 31 ... 1572864)\n"
    "  --dist D           uniform (default), one_bin, zipf:S (exponent S > 0, e.g. zipf:1.1) or sorted; the\n"
    "                     non-uniform ones draw bins over the same max(1, H/RF) active bins, RF-strided (zipf:\n"
    "                     ranks spread over the bins by a fixed permutation; sorted: bins nondecreasing)\n"
    "  --tell-rf          with a non-uniform --dist, still tell ghist the cell's RF (by default it is told the\n"
    "                     RF is unknown: the RF column fixes the active bins, not the race of a skewed input)\n"
    "  --rf-unknown       tell ghist the RF is unknown for uniform input too (options.race_factor = 0)\n"
    "  --no-fixed         only ghist auto and the baselines\n"
    "  --no-thread-private  auto without a copy per thread (plan_overrides::thread_private = -1)\n"
    "  --hot-bins on|off  auto with hot-bin slots for CAS and packed even where the RF is told, or never (XCG\n"
    "                     too: its slot per active bin) (plan_overrides::hot_bins = 1 / -1; default: the\n"
    "                     planner's, slots when RF is unknown or told over few active bins)\n"
    "  --staged-input on|off  auto with the input staged through shared memory by the bulk-copy engine where the\n"
    "                     plan allows it, or never (plan_overrides::staged_input = 1 / -1; default: the planner's)\n"
    "  --counted on|off   auto's partitioned plans in the counted layout, or the tile layout\n"
    "                     (plan_overrides::counted_groups = 1 / -1; default: the planner's)\n"
    "  --dense on|off     auto's partitioned 32-bit CAS with the dense second pass wherever it applies, or never\n"
    "                     (plan_overrides::dense_second_pass = 1 / -1; default: the planner's, where RF is told)\n"
    "  --hashed on|off    auto as the hashed shared-memory strategy wherever H / RF active bins fit its tables,\n"
    "                     or never (plan_overrides::hashed_bins = 1 / -1; default: the planner's)\n"
    "  --lock-queue on|off  XCG's auto with the updates that change a bin queued per warp in partitioned plans\n"
    "                     wherever the queue fits, or never (plan_overrides::lock_queue = 1 / -1; default: the\n"
    "                     planner's)\n"
    "  --hot-split on|off auto for XCG with the heavy hitters of an input with an unknown race factor split off\n"
    "                     when its sample finds some, or never (plan_overrides::hot_split = 1 / -1; default: the\n"
    "                     planner's: hot_split_rule.hpp)\n"
    "  --copies M         auto with plan_overrides::M = M (with --hashed on: copies of the hashed table's values)\n"
    "  --groups S         auto as the partitioned strategy with S groups (plan_overrides::kind and S)\n"
    "  --passes S         auto as the shared-memory strategy in S passes (plan_overrides::kind and S)\n"
    "  --no-cub           no CUB baselines\n"
    "  --csv FILE         one row per measured variant, written as it is measured\n"
    "  --json FILE        the same as JSON, with the run's device, N, floors\n"
    "  --help             this text\n"
    "\n"
    "Output: per operator and RF a row per H with auto's time (us), GB/s of input, ratio to the read floor,\n"
    "x_vs_CUB (CUB time / auto time), the best fixed (M, S) and auto/best (auto time / best time), and auto's plan;\n"
    "then each operator's worst cells and every variant that could not run or gave a wrong answer.\n"
    "Exit status: 0, 1 on a usage error or without a GPU, 2 if any result differed from the CPU backend.\n";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) parts.push_back(item);
  return parts;
}

std::int64_t parse_int(const std::string& s, const char* what, std::int64_t lo, std::int64_t hi) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || v < lo || v > hi)
    throw usage_error(std::string(what) + " must be an integer in [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "], got '" + s + "'");
  return v;
}

std::vector<std::int64_t> parse_int_list(const std::string& s, const char* what, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (const auto& item : split(s)) v.push_back(parse_int(item, what, lo, hi));
  if (v.empty()) throw usage_error(std::string(what) + " needs at least one value");
  return v;
}

// Returns false when --help was asked for. Throws usage_error.
bool parse(int argc, char** argv, config& c) {
  bool reps_given = false, Hs_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    // An override's on / off: 1 / -1 (plan_overrides' "yes" and "never").
    auto on_off = [&](const std::string& v) {
      if (v != "on" && v != "off") throw usage_error(a + " takes on or off, got '" + v + "'");
      return v == "on" ? 1 : -1;
    };
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") return false;
    else if (a == "--quick") c.quick = true;
    else if (a == "--n") c.n = parse_int(value(), "--n", 1, std::int64_t(1) << 34);
    else if (a == "--reps") {
      c.timing.reps = static_cast<int>(parse_int(value(), "--reps", 1, 100000));
      reps_given = true;
    }
    else if (a == "--budget-ms") c.timing.budget_ms = double(parse_int(value(), "--budget-ms", 1, 3600000));
    else if (a == "--ops") {
      c.ops = split(value());
      for (const auto& op : c.ops)
        if (op != "hdw" && op != "cas" && op != "xcg" && op != "packed")
          throw usage_error("--ops takes hdw, cas, xcg, packed; got '" + op + "'");
      if (c.ops.empty()) throw usage_error("--ops needs at least one operator");
    } else if (a == "--rf") c.rfs = parse_int_list(value(), "--rf", 1, std::numeric_limits<std::int32_t>::max());
    else if (a == "--h") {
      c.Hs = parse_int_list(value(), "--h", 1, std::numeric_limits<std::int32_t>::max() - 1);
      Hs_given = true;
    } else if (a == "--dist") {
      try {
        c.dist = bench::distribution::parse(value());
      } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
      }
    } else if (a == "--tell-rf") c.tell_rf = true;
    else if (a == "--rf-unknown") c.rf_unknown = true;
    else if (a == "--no-fixed") c.fixed = false;
    else if (a == "--no-thread-private") c.no_thread_private = true;
    else if (a == "--hot-bins") c.hot_bins = on_off(value());
    else if (a == "--staged-input") c.staged_input = on_off(value());
    else if (a == "--counted") c.counted = on_off(value());
    else if (a == "--dense") c.dense = on_off(value());
    else if (a == "--lock-queue") c.lock_queue = on_off(value());
    else if (a == "--hashed") c.hashed = on_off(value());
    else if (a == "--hot-split") c.hot_split = on_off(value());
    else if (a == "--copies") c.copies = static_cast<int>(parse_int(value(), "--copies", 1, 1024));
    else if (a == "--groups") c.groups = static_cast<int>(parse_int(value(), "--groups", 1, 1 << 20));
    else if (a == "--passes") c.passes = static_cast<int>(parse_int(value(), "--passes", 1, 1 << 20));
    else if (a == "--no-cub") c.cub = false;
    else if (a == "--csv") c.csv_path = value();
    else if (a == "--json") c.json_path = value();
    else throw usage_error("unknown option '" + a + "'");
  }
  if (c.quick) {
    if (!reps_given) c.timing.reps = 7;
    if (!Hs_given) c.Hs = quick_Hs;
  }
  if (c.passes > 0 && c.groups > 0) throw usage_error("--passes and --groups ask for different strategies; give one");
  c.timing.min_reps = std::min(c.timing.min_reps, c.timing.reps);
  return true;
}

/// options.race_factor for a cell: its RF for uniform input, which has exactly that race factor. A skewed or sorted
/// input draws from the same H / RF bins but races differently (one bin: every input on one word), so ghist is told
/// what a user who has not measured it would say: 0, unknown (the library samples the input where the plan depends
/// on it). --tell-rf passes the cell's RF anyway.
double race_factor_for(const config& cfg, std::int64_t RF) {
  const bool uniform = cfg.dist.what == bench::distribution::kind::uniform;
  if (cfg.rf_unknown) return 0.0;
  return uniform || cfg.tell_rf ? double(RF) : 0.0;
}

// ---- the variants of one (op, H, RF) ----

struct variant {
  std::string label;
  variant_kind kind;
  ghist::plan_overrides overrides;
};

ghist::plan_overrides fixed_plan(ghist::strategy kind, int M, int S, int block) {
  ghist::plan_overrides o;
  o.kind = kind;
  o.M = M;
  o.S = S;  // 0: the planner's (for shared memory the fewest passes whose M chunks fit)
  o.block = block;
  return o;
}

// private_copy_bytes: a thread-private copy's bytes per bin, 0 for operators with hardware atomics; cas_class: the
// operator takes compare-and-swap (hot-bin slots apply; the lock class only takes a slot per active bin, which
// --hot-bins off forbids too).
std::vector<variant> variants_for(std::int64_t H, const config& cfg, std::size_t private_copy_bytes, bool cas_class) {
  std::vector<variant> v = {{"auto", variant_kind::automatic, {}}};
  if (cfg.no_thread_private) v[0].overrides.thread_private = -1;
  v[0].overrides.staged_input = cfg.staged_input;
  v[0].overrides.counted_groups = cfg.counted;
  v[0].overrides.dense_second_pass = cfg.dense;
  v[0].overrides.hashed_bins = cfg.hashed;
  if (private_copy_bytes > 0 && !cas_class) v[0].overrides.hot_split = cfg.hot_split;  // the lock class only
  if (private_copy_bytes > 0 && !cas_class) v[0].overrides.lock_queue = cfg.lock_queue;
  if (cfg.copies > 0) v[0].overrides.M = cfg.copies;
  if (cfg.groups > 0) {
    v[0].overrides.kind = ghist::strategy::partitioned;
    v[0].overrides.S = cfg.groups;
  }
  if (cfg.passes > 0) {
    v[0].overrides.kind = ghist::strategy::shared_memory;
    v[0].overrides.S = cfg.passes;
  }
  if (cas_class || (private_copy_bytes > 0 && cfg.hot_bins < 0)) v[0].overrides.hot_bins = cfg.hot_bins;
  if (!cfg.fixed) return v;
  if (H <= max_shared_sweep_H) {
    std::vector<int> Ms = {1};
    const int per_block = shared_block / static_cast<int>(std::min<std::int64_t>(H, shared_block));
    for (int k : shared_k) Ms.push_back(k * per_block);
    std::sort(Ms.begin(), Ms.end());
    Ms.erase(std::unique(Ms.begin(), Ms.end()), Ms.end());
    for (int M : Ms)
      v.push_back({"shared M=" + std::to_string(M), variant_kind::fixed,
                   fixed_plan(ghist::strategy::shared_memory, M, 0, shared_block)});
  }
  if (private_copy_bytes > 0 && H * std::int64_t(private_copy_bytes) <= max_thread_private_sweep_bytes) {
    ghist::plan_overrides o;
    o.thread_private = 1;
    v.push_back({"thread-private", variant_kind::fixed, o});
  }
  if (H >= min_global_sweep_H)
    for (int M : global_M)
      v.push_back({"global M=" + std::to_string(M), variant_kind::fixed,
                   fixed_plan(ghist::strategy::global_memory, M, 1, 0)});
  // The partitioned strategy with S groups (rounded to a power of two of bins per group).
  if (H >= min_partition_sweep_H)
    for (int groups : partition_groups)
      v.push_back({"partitioned S=" + std::to_string(groups), variant_kind::fixed,
                   fixed_plan(ghist::strategy::partitioned, 0, groups, 0)});
  return v;
}

// ---- one (op, H, RF) ----

struct context {
  const config* cfg;
  std::int64_t n;
  const std::uint32_t* d_in;
  const std::vector<std::uint32_t>* host_in;
  void* d_hist;  // max H * 8 bytes
  bench::cub_buffers* cub;
  bench::event_timer* timer;
  double floor_us;
  void* inspector;  // ghist::detail::inspector_bytes, for reporting the plan a call with an unknown RF runs
};

template <class D>
void run_op(const context& ctx, std::int64_t H, std::int64_t RF, std::vector<record>& rows) {
  using Op = typename D::op;
  using T = typename Op::value_type;
  const auto started = std::chrono::steady_clock::now();
  const bench::seed000_bin bin = bench::seed000_bin::make(H, RF);
  const typename D::fn fn{bin};
  const std::int64_t n = ctx.n;
  T* d_hist = static_cast<T*>(ctx.d_hist);

  std::vector<T> expected(static_cast<std::size_t>(H));
  ghist::cpu::generalized_histogram(ctx.host_in->data(), n, fn, Op{}, expected.data(), H);
  std::vector<T> got(static_cast<std::size_t>(H));

  const std::size_t first_row = rows.size();
  int fixed_ok = 0, fixed_total = 0;
  for (const variant& v : variants_for(H, *ctx.cfg, D::id == bench::op_id::hdw ? 0 : sizeof(T),
                                            ghist::atomic_class_of<Op> == ghist::atomic_class::cas)) {
    record r;
    r.op = D::name;
    r.H = H;
    r.RF = RF;
    r.dist = ctx.cfg->dist.label();
    r.kind = v.kind;
    r.variant = v.label;
    r.floor_us = ctx.floor_us;
    ghist::options opts;
    opts.race_factor = race_factor_for(*ctx.cfg, RF);
    opts.overrides = v.overrides;
    try {
      // What the call below runs (the bin function decides whether it counts).
      ghist::plan pl = ghist::plan_for_elements<Op, std::uint32_t, decltype(fn)>(n, H, opts);
      if (opts.race_factor == 0 && ghist::detail::race_factor_matters<Op>(pl, opts.overrides)) {
        // The call samples the input and plans for the RF it finds: report that plan.
        ghist::options sampled = opts;
        sampled.race_factor = ghist::detail::estimate_race_factor(
            ghist::detail::element_source<std::uint32_t, decltype(fn)>{ctx.d_in, n, fn}, n, H, ctx.inspector, 0);
        pl = ghist::plan_for_elements<Op, std::uint32_t, decltype(fn)>(n, H, sampled);
      }
      r.plan = pl.to_string();
      r.plan_short = bench::short_plan(pl);
      // Poisoned first, so that a call that writes nothing cannot pass on the previous variant's answer.
      BENCH_CHECK(cudaMemset(d_hist, 0xab, got.size() * sizeof(T)));
      auto run = [&] { ghist::generalized_histogram_async(ctx.d_in, n, fn, Op{}, d_hist, H, 0, opts); };
      const float check_ms = ctx.timer->once(run);
      BENCH_CHECK(cudaMemcpy(got.data(), d_hist, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
      r.status = bench::compare(got, expected);
      if (r.status == "ok") {
        const bench::timing t = ctx.timer->median(run, ctx.cfg->timing, check_ms);
        r.us = t.us;
        r.reps = t.reps;
      }
    } catch (const ghist::error& e) {
      r.status = std::string("n/a: ") + e.what();
    }
    if (v.kind == variant_kind::fixed) {
      ++fixed_total;
      fixed_ok += r.ok();
    }
    rows.push_back(r);
  }

  if (ctx.cfg->cub) {
    bench::baseline_result b;
    if constexpr (D::id == bench::op_id::hdw)
      b = bench::cub_histogram_even(ctx.d_in, n, H, bin, expected, *ctx.cub, *ctx.timer, ctx.cfg->timing);
    else
      b = bench::cub_sort_reduce<Op>(ctx.d_in, n, H, fn, expected, *ctx.cub, *ctx.timer, ctx.cfg->timing);
    record r;
    r.op = D::name;
    r.H = H;
    r.RF = RF;
    r.dist = ctx.cfg->dist.label();
    r.kind = variant_kind::baseline;
    r.variant = b.label;
    r.floor_us = ctx.floor_us;
    r.us = b.t.us;
    r.reps = b.t.reps;
    r.status = b.status;
    rows.push_back(r);
    for (std::size_t k = first_row; k < rows.size(); ++k) rows[k].cub_us = b.status == "ok" ? b.t.us : NAN;
  }

  const record& a = rows[first_row];
  const std::string auto_text = a.ok() ? bench::detail::fmt("%.1f us", a.us) : a.status.substr(0, 60);
  const std::string cub_text = ctx.cfg->cub ? bench::detail::fmt("%.1f us", rows.back().us) : "-";
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::fprintf(stderr, "  %-6s H=%-7lld RF=%-3lld auto %s, %d/%d fixed ok, CUB %s (%.1f s)\n", D::name,
               static_cast<long long>(H), static_cast<long long>(RF), auto_text.c_str(), fixed_ok, fixed_total,
               cub_text.c_str(), seconds);
}

const char* op_label(const std::string& op) {
  if (op == "hdw") return bench::op_hdw::name;
  if (op == "cas") return bench::op_cas::name;
  if (op == "xcg") return bench::op_xcg::name;
  return bench::op_packed::name;
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  try {
    if (!parse(argc, argv, cfg)) {
      std::fputs(usage_text, stdout);
      return 0;
    }
  } catch (const usage_error& e) {
    std::fprintf(stderr, "ghist_bench: %s (see --help)\n", e.what());
    return 1;
  }

  if (!bench::require_gpu("ghist_bench")) return 1;

  const auto started = std::chrono::steady_clock::now();
  int device = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, device));

  bench::csv_writer csv;
  if (!cfg.csv_path.empty() && !csv.open(cfg.csv_path)) {
    std::fprintf(stderr, "ghist_bench: cannot write %s\n", cfg.csv_path.c_str());
    return 1;
  }

  const std::int64_t n = cfg.n;
  const std::int64_t max_H = *std::max_element(cfg.Hs.begin(), cfg.Hs.end());
  bench::run_info info;
  info.device = prop.name;
  info.sms = prop.multiProcessorCount;
  info.l2_mib = prop.l2CacheSize >> 20;
  info.n = n;
  info.dist = cfg.dist.label();
  info.reps = cfg.timing.reps;
  info.budget_ms = cfg.timing.budget_ms;
  std::printf("device: %s, %d SMs, L2 %d MiB; N = %lld %s uint32; bin = (x %% max(1, H/RF)) * RF\n", prop.name,
              info.sms, info.l2_mib, static_cast<long long>(n), info.dist.c_str());
  std::printf("median of %d runs after a warm-up (fewer, at least %d, when %d runs exceed %.0f ms); %s%s\n",
              cfg.timing.reps, cfg.timing.min_reps, cfg.timing.reps, cfg.timing.budget_ms,
              cfg.fixed ? "fixed (M, S) sweeps" : "no fixed sweeps", cfg.cub ? ", CUB baselines" : "");

  // Input, first as the uniform array (the floors only depend on its size).
  std::vector<std::uint32_t> host_in(static_cast<std::size_t>(n));
  bench::make_input(bench::distribution{}, 1, host_in);
  std::uint32_t* d_in = nullptr;
  const std::size_t in_bytes = static_cast<std::size_t>(n) * sizeof(std::uint32_t);
  BENCH_CHECK(cudaMalloc(&d_in, in_bytes));
  BENCH_CHECK(cudaMemcpy(d_in, host_in.data(), in_bytes, cudaMemcpyHostToDevice));

  bench::event_timer timer;
  const bench::floors fl = bench::measure_floors(d_in, n, timer, cfg.timing);
  info.floor_us = fl.read.us;
  info.copy_us = fl.copy.us;
  const double gb = double(in_bytes) * 1e-9;
  std::printf("read floor: %.1f us (%.0f GB/s); device-to-device copy: %.1f us (%.0f GB/s read+write)\n",
              fl.read.us, gb / (fl.read.us * 1e-6), fl.copy.us, 2 * gb / (fl.copy.us * 1e-6));
  std::fflush(stdout);

  std::vector<record> rows;
  {
    record r;
    r.op = "floor";
    r.dist = info.dist;
    r.kind = variant_kind::floor;
    r.floor_us = fl.read.us;
    r.variant = "read";
    r.us = fl.read.us;
    r.reps = fl.read.reps;
    rows.push_back(r);
    r.variant = "copy";
    r.us = fl.copy.us;
    r.reps = fl.copy.reps;
    rows.push_back(r);
    csv.write(rows[0]);
    csv.write(rows[1]);
  }

  void* d_hist = nullptr;
  BENCH_CHECK(cudaMalloc(&d_hist, static_cast<std::size_t>(max_H) * 8));
  void* d_inspector = nullptr;
  BENCH_CHECK(cudaMalloc(&d_inspector, ghist::detail::inspector_bytes));
  std::unique_ptr<bench::cub_buffers> cub;
  if (cfg.cub) cub = std::make_unique<bench::cub_buffers>(n, max_H);
  const context ctx{&cfg, n, d_in, &host_in, d_hist, cub.get(), &timer, fl.read.us, d_inspector};

  for (std::int64_t RF : cfg.rfs) {
    for (std::int64_t H : cfg.Hs) {
      if (cfg.dist.per_cell()) {
        bench::make_input(cfg.dist, bench::seed000_bin::make(H, RF).active, host_in);
        BENCH_CHECK(cudaMemcpy(d_in, host_in.data(), in_bytes, cudaMemcpyHostToDevice));
      }
      for (const auto& op : cfg.ops) {
        const std::size_t first = rows.size();
        if (op == "hdw") run_op<bench::op_hdw>(ctx, H, RF, rows);
        else if (op == "cas") run_op<bench::op_cas>(ctx, H, RF, rows);
        else if (op == "xcg") run_op<bench::op_xcg>(ctx, H, RF, rows);
        else run_op<bench::op_packed>(ctx, H, RF, rows);
        for (std::size_t k = first; k < rows.size(); ++k) csv.write(rows[k]);
      }
    }
  }

  std::vector<std::string> op_names;
  for (const auto& op : cfg.ops) op_names.push_back(op_label(op));
  bench::print_tables(rows, op_names, cfg.rfs, cfg.Hs, info);

  int status = 0;
  for (const auto& r : rows)
    if (r.status.rfind("MISMATCH", 0) == 0) status = 2;
  if (!csv.close()) {
    std::fprintf(stderr, "ghist_bench: cannot write %s\n", cfg.csv_path.c_str());
    status = status ? status : 1;
  }
  if (!cfg.json_path.empty() && !bench::write_json(cfg.json_path, rows, info)) {
    std::fprintf(stderr, "ghist_bench: cannot write %s\n", cfg.json_path.c_str());
    status = status ? status : 1;
  }
  cub.reset();
  BENCH_CHECK(cudaFree(d_hist));
  BENCH_CHECK(cudaFree(d_inspector));
  BENCH_CHECK(cudaFree(d_in));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("\n%s in %.0f s\n", status == 2 ? "MISMATCHES FOUND" : "done", seconds);
  return status;
}
