#include "streaming.hpp"

#include <algorithm>
#include <cstdint>
#include <variant>

#include "bar_chart.hpp"
#include "bin_layout.hpp"
#include "cli_error.hpp"
#include "csv_writer.hpp"
#include "json_writer.hpp"
#include "plot_writer.hpp"
#include "progress.hpp"
#include "weight_feed.hpp"

namespace ghist::cli {

namespace {

template <class Sample>
std::string run(const cli_options& options, column_stream& input, column_stream* weights,
                const backend_choice& backend, std::string* plot_file) {
  const bool data_range = options.bincount ? !options.bins : !options.range;
  progress_bar progress(!options.no_progress,
                        input.total_bytes() ? std::optional<std::uint64_t>(*input.total_bytes() * (data_range ? 2 : 1))
                                            : std::nullopt);
  std::uint64_t first_pass_bytes = 0;
  std::vector<sample_column> chunk;
  histogram_report<Sample> report;
  if (data_range) {
    if (!input.seekable()) input.spool();  // stdin: the second pass reads a copy (see column_stream::spool)
    sample_summary<Sample> summary;
    while (input.next(chunk)) {
      summary.add(std::get<std::vector<Sample>>(chunk[0]));
      progress.update(input.bytes_read());
    }
    first_pass_bytes = input.bytes_read();
    input.rewind();
    report.layout = resolve_layout(options, summary);
  } else {
    report.layout = resolve_layout(options, sample_summary<Sample>{});
  }
  histogram_accumulator<Sample> acc(backend.kind, report.layout, options.op);
  std::optional<weight_feed> feed;
  if (weights) feed.emplace(*weights, options);
  while (input.next(chunk)) {
    const auto& x = std::get<std::vector<Sample>>(chunk[0]);
    const std::vector<double>* w = feed ? &feed->take(x.size(), report.samples + x.size(), input) : nullptr;
    acc.add(x, w);
    report.samples += x.size();
    report.ignored += x.size() - count_in_bins(report.layout, x);
    progress.update(first_pass_bytes + input.bytes_read());
  }
  if (feed) feed->finish(report.samples);
  report.results.push_back(acc.finish());
  progress.finish();
  report.op = options.op;
  report.channel_names = {"value"};
  report.backend = backend.kind == backend_kind::gpu ? "gpu" : "cpu";
  report.input = options.input;
  report.format = input.format();
  report.element = input.element();
  if (options.plot_path) *plot_file = render_plot(report, *options.plot_path);
  switch (options.format) {
    case output_format::json: return format_json(report);
    case output_format::bars: return format_bars(report, terminal_columns(), locale_is_utf8());
    default: return format_csv(report);
  }
}

}  // namespace

std::string stream_histogram(const cli_options& options, column_stream& input, column_stream* weights,
                             const backend_choice& backend, std::string* plot_file) {
  if (weights && input.known_count() && weights->known_count() && *input.known_count() != *weights->known_count())
    throw data_error("weights " + display_name(*options.weights_path) + " has " +
                     std::to_string(*weights->known_count()) + " values but INPUT " + display_name(options.input) +
                     " has " + std::to_string(*input.known_count()));
  return std::visit(
      [&](const auto& empty) {
        using Sample = typename std::decay_t<decltype(empty)>::value_type;
        return run<Sample>(options, input, weights, backend, plot_file);
      },
      input.empty_column());
}

}  // namespace ghist::cli
