// ghist: histogram of a file of numbers on the GPU (or the CPU), as CSV. See `ghist --help` (cli_options.cpp).
//
// Flow: parse the command line, choose the backend, read the input (and weights), choose the bins, compute, print.
// Every failure is one line on stderr, "ghist: error: ...", and a non-zero exit, before anything is written.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <variant>

#include "backend.hpp"
#include "bin_layout.hpp"
#include "cli_error.hpp"
#include "cli_options.hpp"
#include "csv_writer.hpp"
#include "ghist/error.hpp"
#include "input_reader.hpp"

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

  sample_column samples = read_column(options.input, options.input_dtype,
                                      options.bincount ? text_values::integer : text_values::real);
  std::vector<double> weights;
  if (options.weights_path) {
    weights = to_doubles(read_column(*options.weights_path, options.weights_dtype, text_values::real));
    if (weights.size() != column_size(samples))
      throw data_error("weights " + display_name(*options.weights_path) + " has " + std::to_string(weights.size()) +
                       " values but INPUT " + display_name(options.input) + " has " +
                       std::to_string(column_size(samples)));
  }

  const std::string csv = std::visit(
      [&](const auto& column) {
        using Sample = typename std::decay_t<decltype(column)>::value_type;
        histogram_job<Sample> job;
        job.samples = &column;
        job.weights = options.weights_path ? &weights : nullptr;
        job.op = options.op;
        job.bins = resolve_layout(options, column);
        return format_csv(job.bins, job.op, run_histogram(backend.kind, job));
      },
      samples);
  write_output(csv, options.output_path);
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
