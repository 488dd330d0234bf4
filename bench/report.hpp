// The benchmark's results: one record per measured variant, printed as tables (one per operator and RF, a row
// per H) with the worst cells of each operator, and written as CSV and JSON.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ghist/plan.hpp"

namespace bench {

enum class variant_kind { floor, automatic, fixed, baseline };

inline const char* to_string(variant_kind k) {
  switch (k) {
    case variant_kind::floor: return "floor";
    case variant_kind::automatic: return "auto";
    case variant_kind::fixed: return "fixed";
    case variant_kind::baseline: return "baseline";
  }
  return "?";
}

struct record {
  std::string op;               ///< HDW, CAS, XCG, packed; "floor" for the floors
  std::int64_t H = 0, RF = 0;
  std::string dist;
  variant_kind kind = variant_kind::automatic;
  std::string variant;          ///< auto, shared M=.., global M=.., cub ..., read, copy
  double us = NAN;              ///< median time; NaN when not timed
  int reps = 0;
  double floor_us = NAN;        ///< the read-only floor of this run
  double cub_us = NAN;          ///< the CUB baseline of the same (op, H, RF)
  std::string plan;             ///< ghist::plan::to_string() of what ran
  std::string plan_short;
  std::string status = "ok";    ///< ok, n/a: <why>, MISMATCH: <what>

  bool ok() const { return status == "ok" && std::isfinite(us); }
};

struct run_info {
  std::string device;
  int sms = 0;
  int l2_mib = 0;
  std::int64_t n = 0;
  std::string dist;
  int reps = 0;
  double budget_ms = 0;
  double floor_us = NAN, copy_us = NAN;
};

inline std::string short_plan(const ghist::plan& p) {
  return std::string(ghist::to_string(p.kind)) + " M=" + std::to_string(p.M) + " S=" + std::to_string(p.S) +
         " H_chk=" + std::to_string(p.H_chk) + " grid=" + std::to_string(p.grid) + "x" + std::to_string(p.block) +
         (p.thread_private ? " per-thread" : p.warp_private ? " per-warp" : "") +
         (p.counted_groups ? " counted" : "") + (p.dense_second_pass ? " dense" : "") +
         (p.hashed_bins ? (p.hashed_tags ? " hashed tags" : " hashed") : "") + (p.lock_queue ? " queued" : "");
}

namespace detail {

inline std::string fmt(const char* format, double v) {
  if (!std::isfinite(v)) return "-";
  char s[64];
  std::snprintf(s, sizeof s, format, v);
  return s;
}

struct cell {
  const record* automatic = nullptr;
  const record* best = nullptr;      ///< fastest fixed (M, S) that ran and matched
  const record* baseline = nullptr;
  std::vector<const record*> problems;  ///< n/a and mismatches
  double x_floor() const { return automatic && automatic->ok() ? automatic->us / automatic->floor_us : NAN; }
  double x_vs_cub() const {
    return automatic && automatic->ok() && baseline && baseline->ok() ? baseline->us / automatic->us : NAN;
  }
  double auto_vs_best() const { return automatic && automatic->ok() && best ? automatic->us / best->us : NAN; }
};

inline cell find_cell(const std::vector<record>& rows, const std::string& op, std::int64_t H, std::int64_t RF) {
  cell c;
  for (const auto& r : rows) {
    if (r.op != op || r.H != H || r.RF != RF) continue;
    if (r.status != "ok") c.problems.push_back(&r);
    if (r.kind == variant_kind::automatic) c.automatic = &r;
    else if (r.kind == variant_kind::baseline) c.baseline = &r;
    else if (r.kind == variant_kind::fixed && r.ok() && (!c.best || r.us < c.best->us)) c.best = &r;
  }
  return c;
}

inline std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

inline std::string json_string(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') q += std::string("\\") + ch;
    else if (static_cast<unsigned char>(ch) < 0x20) {
      char e[8];
      std::snprintf(e, sizeof e, "\\u%04x", ch);
      q += e;
    } else {
      q += ch;
    }
  }
  return q + "\"";
}

inline std::string json_number(double v, const char* format = "%.3f") {
  return std::isfinite(v) ? fmt(format, v) : std::string("null");
}

}  // namespace detail

/// Tables: for each operator and RF a row per H; then, per operator, its worst cells; then every n/a or mismatch.
inline void print_tables(const std::vector<record>& rows, const std::vector<std::string>& ops,
                         const std::vector<std::int64_t>& rfs, const std::vector<std::int64_t>& Hs,
                         const run_info& info) {
  const double gb = double(info.n) * sizeof(std::uint32_t) * 1e-9;
  for (const auto& op : ops) {
    for (std::int64_t RF : rfs) {
      std::printf("\n== %s, RF = %lld, %s ==\n", op.c_str(), static_cast<long long>(RF), info.dist.c_str());
      std::printf("%8s %9s %6s %7s %8s  %-14s %9s %9s  %s\n", "H", "auto_us", "GB/s", "x_floor", "x_vs_CUB",
                  "best fixed", "best_us", "auto/best", "auto plan");
      for (std::int64_t H : Hs) {
        const detail::cell c = detail::find_cell(rows, op, H, RF);
        if (!c.automatic) continue;
        const record& a = *c.automatic;
        const std::string auto_us = a.ok() ? detail::fmt("%.1f", a.us) : a.status.substr(0, a.status.find(':'));
        std::printf("%8lld %9s %6s %7s %8s  %-14s %9s %9s  %s\n", static_cast<long long>(H), auto_us.c_str(),
                    detail::fmt("%.0f", a.ok() ? gb / (a.us * 1e-6) : NAN).c_str(),
                    detail::fmt("%.2f", c.x_floor()).c_str(), detail::fmt("%.2f", c.x_vs_cub()).c_str(),
                    c.best ? c.best->variant.c_str() : "-", detail::fmt("%.1f", c.best ? c.best->us : NAN).c_str(),
                    detail::fmt("%.2f", c.auto_vs_best()).c_str(), a.plan_short.c_str());
      }
    }
  }

  std::printf("\nWorst cells (x_vs_CUB = CUB time / auto time; auto/best = auto time / best fixed (M, S) time):\n");
  for (const auto& op : ops) {
    const detail::cell* worst_best = nullptr;
    const detail::cell* worst_cub = nullptr;
    const detail::cell* worst_floor = nullptr;
    std::vector<detail::cell> cells;
    cells.reserve(rfs.size() * Hs.size());
    for (std::int64_t RF : rfs)
      for (std::int64_t H : Hs) cells.push_back(detail::find_cell(rows, op, H, RF));
    for (const auto& c : cells) {
      if (std::isfinite(c.auto_vs_best()) && (!worst_best || c.auto_vs_best() > worst_best->auto_vs_best()))
        worst_best = &c;
      if (std::isfinite(c.x_vs_cub()) && (!worst_cub || c.x_vs_cub() < worst_cub->x_vs_cub())) worst_cub = &c;
      if (std::isfinite(c.x_floor()) && (!worst_floor || c.x_floor() > worst_floor->x_floor())) worst_floor = &c;
    }
    auto where = [](const detail::cell* c) {
      return "H=" + std::to_string(c->automatic->H) + " RF=" + std::to_string(c->automatic->RF);
    };
    std::string line = op + ":";
    if (worst_best)
      line += " auto/best " + detail::fmt("%.2f", worst_best->auto_vs_best()) + " at " + where(worst_best) +
              " (auto " + detail::fmt("%.1f", worst_best->automatic->us) + " us, " + worst_best->best->variant +
              " " + detail::fmt("%.1f", worst_best->best->us) + " us);";
    if (worst_cub)
      line += " x_vs_CUB " + detail::fmt("%.2f", worst_cub->x_vs_cub()) + " at " + where(worst_cub) + ";";
    if (worst_floor)
      line += " x_floor " + detail::fmt("%.2f", worst_floor->x_floor()) + " at " + where(worst_floor) + ";";
    if (!worst_best && !worst_cub && !worst_floor) line += " nothing measured";
    std::printf("  %s\n", line.c_str());
  }

  int problems = 0;
  for (const auto& r : rows)
    if (r.status != "ok") {
      if (problems++ == 0) std::printf("\nNot measured or wrong:\n");
      std::printf("  %s H=%lld RF=%lld %s: %s\n", r.op.c_str(), static_cast<long long>(r.H),
                  static_cast<long long>(r.RF), r.variant.c_str(), r.status.c_str());
    }
}

/// One row per measured variant (floors included), written as it is measured (so that a run cut short keeps what
/// it measured): op,H,RF,dist,variant,kind,us,floor_us,cub_us,plan,reps,status.
class csv_writer {
 public:
  csv_writer() = default;
  csv_writer(const csv_writer&) = delete;
  csv_writer& operator=(const csv_writer&) = delete;
  ~csv_writer() { close(); }

  bool open(const std::string& path) {
    f_ = std::fopen(path.c_str(), "w");
    if (!f_) return false;
    std::fprintf(f_, "op,H,RF,dist,variant,kind,us,floor_us,cub_us,plan,reps,status\n");
    return true;
  }
  void write(const record& r) {
    if (!f_) return;
    std::fprintf(f_, "%s,%lld,%lld,%s,%s,%s,%s,%s,%s,%s,%d,%s\n", r.op.c_str(), static_cast<long long>(r.H),
                 static_cast<long long>(r.RF), detail::csv_quote(r.dist).c_str(), detail::csv_quote(r.variant).c_str(),
                 to_string(r.kind), detail::fmt("%.2f", r.us).c_str(), detail::fmt("%.2f", r.floor_us).c_str(),
                 detail::fmt("%.2f", r.cub_us).c_str(), detail::csv_quote(r.plan).c_str(), r.reps,
                 detail::csv_quote(r.status).c_str());
    std::fflush(f_);
  }
  /// False when the file could not be written completely.
  bool close() {
    if (!f_) return true;
    const bool ok = std::ferror(f_) == 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    return ok && closed;
  }

 private:
  FILE* f_ = nullptr;
};

/// {"device": ..., ..., "results": [{...}, ...]} with the same fields as the CSV (null for what was not timed).
inline bool write_json(const std::string& path, const std::vector<record>& rows, const run_info& info) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f, "{\n  \"device\": %s,\n  \"sms\": %d,\n  \"l2_mib\": %d,\n  \"n\": %lld,\n  \"dist\": %s,\n",
               detail::json_string(info.device).c_str(), info.sms, info.l2_mib, static_cast<long long>(info.n),
               detail::json_string(info.dist).c_str());
  std::fprintf(f, "  \"reps\": %d,\n  \"budget_ms\": %s,\n  \"read_floor_us\": %s,\n  \"copy_us\": %s,\n", info.reps,
               detail::json_number(info.budget_ms, "%.1f").c_str(), detail::json_number(info.floor_us).c_str(),
               detail::json_number(info.copy_us).c_str());
  std::fprintf(f, "  \"results\": [\n");
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const record& r = rows[k];
    std::fprintf(f,
                 "    {\"op\": %s, \"H\": %lld, \"RF\": %lld, \"dist\": %s, \"variant\": %s, \"kind\": \"%s\", "
                 "\"us\": %s, \"reps\": %d, \"floor_us\": %s, \"cub_us\": %s, \"plan\": %s, \"status\": %s}%s\n",
                 detail::json_string(r.op).c_str(), static_cast<long long>(r.H), static_cast<long long>(r.RF),
                 detail::json_string(r.dist).c_str(), detail::json_string(r.variant).c_str(), to_string(r.kind),
                 detail::json_number(r.us).c_str(), r.reps, detail::json_number(r.floor_us).c_str(),
                 detail::json_number(r.cub_us).c_str(), detail::json_string(r.plan).c_str(),
                 detail::json_string(r.status).c_str(), k + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace bench
