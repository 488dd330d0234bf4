#include "histogram_2d.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <variant>

#include "bin_layout.hpp"
#include "cli_error.hpp"
#include "json_writer.hpp"
#include "progress.hpp"
#include "result_text.hpp"
#include "weight_feed.hpp"

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

std::string histogram_2d(const cli_options& options, column_stream& input, column_stream* weights,
                         backend_kind backend) {
  if (options.format == output_format::bars || options.plot_path)
    throw usage_error("--bars and --plot draw 1-D histograms only (not --csv-column2)");
  cli_options oy = options;
  oy.bins = options.bins2;
  oy.range = options.range2;
  const bool data_range = !options.range || !options.range2;
  progress_bar progress(!options.no_progress,
                        input.total_bytes() ? std::optional<std::uint64_t>(*input.total_bytes() * (data_range ? 2 : 1))
                                            : std::nullopt);
  std::vector<sample_column> chunk;
  std::uint64_t first_pass_bytes = 0;
  // The ranges taken from the data: a first pass of min/max, as in 1-D (stdin: of a spooled copy).
  sample_summary<double> sx, sy;
  if (data_range) {
    if (!input.seekable()) input.spool();
    while (input.next(chunk)) {
      if (!options.range) sx.add(std::get<std::vector<double>>(chunk[0]));
      if (!options.range2) sy.add(std::get<std::vector<double>>(chunk[1]));
      progress.update(input.bytes_read());
    }
    first_pass_bytes = input.bytes_read();
    input.rewind();
  }
  const bin_layout<double> lx = resolve_layout(options, sx);
  const bin_layout<double> ly = resolve_layout(oy, sy);
  if (lx.num_bins > max_bins / ly.num_bins)
    throw usage_error("--bins x --bins2 is more than the maximum " + std::to_string(max_bins) + " bins");

  // Each chunk's pairs become keys bin_x * bins_y + bin_y (-1: outside), added into one bincount.
  bin_layout<std::int64_t> cells;
  cells.bincount = true;
  cells.num_bins = lx.num_bins * ly.num_bins;
  histogram_accumulator<std::int64_t> acc(backend, cells, options.op);
  std::optional<weight_feed> feed;
  if (weights) feed.emplace(*weights, options);
  std::vector<std::int64_t> keys;
  std::uint64_t samples = 0, in_bins = 0;
  while (input.next(chunk)) {
    const auto& x = std::get<std::vector<double>>(chunk[0]);
    const auto& y = std::get<std::vector<double>>(chunk[1]);
    keys.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::int64_t bx = bin_of(lx, x[i]), by = bin_of(ly, y[i]);
      keys[i] = bx < 0 || by < 0 ? -1 : bx * ly.num_bins + by;
      in_bins += keys[i] >= 0;
    }
    const std::vector<double>* w = feed ? &feed->take(x.size(), samples + x.size(), input) : nullptr;
    acc.add(keys, w);  // returns once the keys are copied (GPU: into a pinned buffer), so `keys` can be reused
    samples += x.size();
    progress.update(first_pass_bytes + input.bytes_read());
  }
  if (feed) feed->finish(samples);
  const histogram_result result = acc.finish();
  progress.finish();

  std::string out;
  if (options.format == output_format::json) {
    out = "{\n  \"backend\": " + json_string(backend == backend_kind::gpu ? "gpu" : "cpu") + ",\n";
    out += "  \"input\": " + json_string(options.input == "-" ? "<stdin>" : options.input) + ",\n";
    out += "  \"format\": \"csv\",\n  \"columns\": [" + json_string(options.csv_columns[0]) + ", " +
           json_string(options.csv_columns[1]) + "],\n";
    out += "  \"op\": " + json_string(to_string(options.op)) + ",\n  \"samples\": ";
    append_unsigned(out, samples);
    out += ",\n  \"ignored\": ";
    append_unsigned(out, samples - in_bins);
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
