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

namespace ghist::cli {

namespace {

// The weights in step with INPUT: exactly as many as the chunk's samples; a different total is an error.
class weight_feed {
 public:
  weight_feed(column_stream& w, const cli_options& o) : w_(w), o_(o) {}
  const std::vector<double>& take(std::size_t n, std::uint64_t input_so_far, column_stream& input) {
    while (buffer_.size() - pos_ < n) {
      std::vector<sample_column> chunk;
      if (!w_.next(chunk)) mismatch(input_so_far, input);
      buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(pos_));
      pos_ = 0;
      std::vector<double> d = to_doubles(std::move(chunk[0]));
      buffer_.insert(buffer_.end(), d.begin(), d.end());
    }
    out_.assign(buffer_.begin() + static_cast<std::ptrdiff_t>(pos_),
                buffer_.begin() + static_cast<std::ptrdiff_t>(pos_ + n));
    pos_ += n;
    taken_ += n;
    return out_;
  }
  // At the end of INPUT: no weight may be left.
  void finish(std::uint64_t input_total) {
    std::uint64_t extra = buffer_.size() - pos_;
    std::vector<sample_column> chunk;
    while (w_.next(chunk)) extra += column_size(chunk[0]);
    if (extra) fail(taken_ + extra, input_total);
  }

 private:
  [[noreturn]] void mismatch(std::uint64_t input_so_far, column_stream& input) {
    std::uint64_t total = input_so_far;
    std::vector<sample_column> chunk;
    while (input.next(chunk)) total += column_size(chunk[0]);
    fail(taken_ + (buffer_.size() - pos_), total);
  }
  [[noreturn]] void fail(std::uint64_t weights, std::uint64_t input) {
    throw data_error("weights " + display_name(*o_.weights_path) + " has " + std::to_string(weights) +
                     " values but INPUT " + display_name(o_.input) + " has " + std::to_string(input));
  }
  column_stream& w_;
  const cli_options& o_;
  std::vector<double> buffer_, out_;
  std::size_t pos_ = 0;
  std::uint64_t taken_ = 0;
};

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
