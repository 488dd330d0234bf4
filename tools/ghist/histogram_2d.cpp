#include "histogram_2d.hpp"

#include <cmath>

#include "bin_layout.hpp"
#include "cli_error.hpp"
#include "json_writer.hpp"
#include "result_text.hpp"

namespace ghist::cli {

namespace {

// The bin of x in even float bins, or -1 (outside, NaN); as the backends and the closed-last fix-up count it.
std::int64_t bin_of(const bin_layout<double>& l, double x) {
  if (!(x >= l.lower && x <= l.upper)) return -1;
  if (x == l.upper) return l.closed_last ? l.num_bins - 1 : -1;
  auto b = static_cast<std::int64_t>((x - l.lower) / (l.upper - l.lower) * static_cast<double>(l.num_bins));
  return std::min(std::max<std::int64_t>(b, 0), l.num_bins - 1);
}

void append_value(std::string& out, op_kind op, const histogram_result& r, std::size_t i, bool json) {
  if (op == op_kind::count) return append_unsigned(out, r.counts[i]);
  if (op != op_kind::sum && r.counts[i] == 0) {
    if (json) out += "null";
    return;
  }
  if (json && !std::isfinite(r.values[i])) out += "null";
  else append_real(out, r.values[i]);
}

}  // namespace

std::string histogram_2d(const cli_options& options, input_data& input, const std::vector<double>* weights,
                         backend_kind backend) {
  if (options.format == output_format::bars || options.plot_path)
    throw usage_error("--bars and --plot draw 1-D histograms only (not --csv-column2)");
  const auto& x = std::get<std::vector<double>>(input.channels[0]);
  const auto& y = std::get<std::vector<double>>(input.channels[1]);
  const bin_layout<double> lx = resolve_layout(options, x);
  cli_options oy = options;
  oy.bins = options.bins2;
  oy.range = options.range2;
  const bin_layout<double> ly = resolve_layout(oy, y);
  if (lx.num_bins > max_bins / ly.num_bins)
    throw usage_error("--bins x --bins2 is more than the maximum " + std::to_string(max_bins) + " bins");

  std::vector<std::int64_t> keys(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t bx = bin_of(lx, x[i]), by = bin_of(ly, y[i]);
    keys[i] = bx < 0 || by < 0 ? -1 : bx * ly.num_bins + by;
  }
  histogram_job<std::int64_t> job;
  job.samples = &keys;
  job.weights = weights;
  job.op = options.op;
  job.bins.bincount = true;
  job.bins.num_bins = lx.num_bins * ly.num_bins;
  const histogram_result result = run_histogram(backend, job);

  std::string out;
  if (options.format == output_format::json) {
    out = "{\n  \"backend\": " + json_string(backend == backend_kind::gpu ? "gpu" : "cpu") + ",\n";
    out += "  \"input\": " + json_string(options.input == "-" ? "<stdin>" : options.input) + ",\n";
    out += "  \"format\": \"csv\",\n  \"columns\": [" + json_string(options.csv_columns[0]) + ", " +
           json_string(options.csv_columns[1]) + "],\n";
    out += "  \"op\": " + json_string(to_string(options.op)) + ",\n  \"samples\": ";
    append_unsigned(out, x.size());
    std::uint64_t in_bins = 0;
    for (std::int64_t k : keys) in_bins += k >= 0;
    out += ",\n  \"ignored\": ";
    append_unsigned(out, x.size() - in_bins);
    for (const auto* l : {&lx, &ly}) {
      out += std::string(",\n  \"") + (l == &lx ? "x" : "y") + "_edges\": [";
      for (std::int64_t e = 0; e <= l->num_bins; ++e) {
        if (e) out += ", ";
        append_edge(out, *l, e);
      }
      out += ']';
    }
    out += ",\n  \"values\": [";
    for (std::int64_t bx = 0; bx < lx.num_bins; ++bx) {
      out += bx ? ",\n    [" : "\n    [";
      for (std::int64_t by = 0; by < ly.num_bins; ++by) {
        if (by) out += ", ";
        append_value(out, options.op, result, static_cast<std::size_t>(bx * ly.num_bins + by), true);
      }
      out += ']';
    }
    out += "\n  ]\n}\n";
    return out;
  }
  out = "bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value\n";
  for (std::int64_t bx = 0; bx < lx.num_bins; ++bx) {
    for (std::int64_t by = 0; by < ly.num_bins; ++by) {
      append_integer(out, bx);
      out += ',';
      append_integer(out, by);
      out += ',';
      append_edge(out, lx, bx);
      out += ',';
      append_edge(out, lx, bx + 1);
      out += ',';
      append_edge(out, ly, by);
      out += ',';
      append_edge(out, ly, by + 1);
      out += ',';
      append_value(out, options.op, result, static_cast<std::size_t>(bx * ly.num_bins + by), false);
      out += '\n';
    }
  }
  return out;
}

}  // namespace ghist::cli
