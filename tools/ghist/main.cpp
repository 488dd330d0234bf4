// ghist: histogram of a file of numbers on the GPU (or the CPU), as CSV. See `ghist --help` (cli_options.cpp).
//
// Flow: parse the command line, choose the backend, read the input (and weights) chunk by chunk (images whole),
// choose the bins, compute, print.
// Every failure is one line on stderr, "ghist: error: ...", and a non-zero exit, before anything is written.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <variant>

#include "backend.hpp"
#include "bin_layout.hpp"
#include "cli_error.hpp"
#include "cli_options.hpp"
#include "bar_chart.hpp"
#include "csv_writer.hpp"
#include "json_writer.hpp"
#include "plot_writer.hpp"
#include "ghist/error.hpp"
#include "histogram_2d.hpp"
#include "input_formats.hpp"
#include "input_reader.hpp"
#include "stream_input.hpp"
#include "streaming.hpp"

#ifndef GHIST_VERSION
#define GHIST_VERSION "unknown"
#endif

namespace {

using namespace ghist::cli;

int run(int argc, char** argv) {
  const cli_options options = parse_command_line(argc, argv);
  if (options.show_help) {
    std::fputs(help_text().c_str(), stdout);
    return 0;
  }
  if (options.show_version) {
    std::puts("ghist " GHIST_VERSION);
    return 0;
  }
  const backend_choice backend = choose_backend(options.backend);
  const text_values text = options.bincount ? text_values::integer : text_values::real;

  // Streaming (bounded memory) unless the input is an image. A range from the data costs a first pass of min/max:
  // a second read of a file, or of a spooled copy of stdin (column_stream::spool).
  column_stream stream(options.input, options.input_dtype, options.csv_columns, options.csv_delimiter, text,
                       options.chunk_bytes);
  if (!stream.whole_file_only()) {
    std::optional<column_stream> weights_stream;
    if (options.weights_path) {
      weights_stream.emplace(*options.weights_path, options.weights_dtype, std::vector<std::string>{},
                             options.csv_delimiter, text_values::real, options.chunk_bytes);
      if (weights_stream->whole_file_only())
        throw data_error("weights " + display_name(*options.weights_path) +
                         " is an image; only INPUT can be an image");
    }
    column_stream* weights = weights_stream ? &*weights_stream : nullptr;
    std::string plot_file;
    const std::string output = options.csv_columns.size() == 2
                                   ? histogram_2d(options, stream, weights, backend.kind)
                                   : stream_histogram(options, stream, weights, backend, &plot_file);
    if (options.plot_path) write_output(plot_file, options.plot_path);
    write_output(output, options.output_path);
    std::fprintf(stderr, "ghist: %s\n", backend.describe().c_str());
    return 0;
  }
  input_data input = read_input_bytes(options.input, stream.slurp(), options.input_dtype, options.csv_columns,
                                      options.csv_delimiter, text, /*images=*/true, "INPUT");
  if (input.image_maxval && input.channels.size() > 1 && options.weights_path)
    throw usage_error("--weights does not apply to " + input.format + " images with several channels");
  std::vector<double> weights;
  if (options.weights_path) {
    input_data w = read_input(*options.weights_path, options.weights_dtype, {}, options.csv_delimiter,
                              text_values::real, /*images=*/false, "weights");
    weights = to_doubles(std::move(w.channels[0]));
    if (weights.size() != column_size(input.channels[0]))
      throw data_error("weights " + display_name(*options.weights_path) + " has " + std::to_string(weights.size()) +
                       " values but INPUT " + display_name(options.input) + " has " +
                       std::to_string(column_size(input.channels[0])));
  }
  cli_options layout_options = options;
  if (input.image_maxval && !options.range && !options.bincount) {
    // Images: bins over every possible sample value [0, maxval + 1), at most 256 of them by default.
    range_option r;
    r.lower_text = "0";
    r.upper_text = std::to_string(std::uint64_t(*input.image_maxval) + 1);
    r.upper = static_cast<double>(*input.image_maxval) + 1;
    layout_options.range = r;
    if (!options.bins) layout_options.bins = std::min<std::int64_t>(std::int64_t(*input.image_maxval) + 1, 256);
  }

  std::string plot_file;
  const std::string output = std::visit(
      [&](auto& first) {
        using Sample = typename std::decay_t<decltype(first)>::value_type;
        histogram_report<Sample> report;
        report.op = options.op;
        report.channel_names = input.channel_names;
        report.backend = backend.kind == backend_kind::gpu ? "gpu" : "cpu";
        report.input = options.input;
        report.format = input.format;
        report.element = input.element;
        // The layout is the same for every channel: chosen from all of their values.
        if (input.channels.size() == 1) {
          report.layout = resolve_layout(layout_options, first);
        } else {
          std::vector<Sample> all;
          for (const sample_column& c : input.channels) {
            const auto& v = std::get<std::vector<Sample>>(c);
            all.insert(all.end(), v.begin(), v.end());
          }
          report.layout = resolve_layout(layout_options, all);
        }
        for (const sample_column& c : input.channels) {
          const auto& column = std::get<std::vector<Sample>>(c);
          histogram_job<Sample> job;
          job.samples = &column;
          job.weights = options.weights_path ? &weights : nullptr;
          job.op = options.op;
          job.bins = report.layout;
          report.results.push_back(run_histogram(backend.kind, job));
          report.samples += column.size();
          report.ignored += column.size() - count_in_bins(report.layout, column);
        }
        if (options.plot_path) plot_file = render_plot(report, *options.plot_path);
        switch (options.format) {
          case output_format::json: return format_json(report);
          case output_format::bars: return format_bars(report, terminal_columns(), locale_is_utf8());
          default: return format_csv(report);
        }
      },
      input.channels[0]);
  if (options.plot_path) write_output(plot_file, options.plot_path);
  write_output(output, options.output_path);
  std::fprintf(stderr, "ghist: %s\n", backend.describe().c_str());
  return 0;
}

void print_error(const std::string& message) {
  std::string text = message;
  if (text.rfind("ghist: ", 0) == 0) text.erase(0, 7);  // ghist::error adds its own prefix
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "ghist: error: %s\n", text.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const cli_error& e) {
    print_error(e.what());
    return e.exit_status();
  } catch (const std::bad_alloc&) {
    print_error("out of host memory");
  } catch (const std::exception& e) {
    print_error(e.what());
  }
  return exit_failure;
}
