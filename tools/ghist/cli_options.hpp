// The command line of `ghist`: what each option means (help_text) and its parsed form (cli_options).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "histogram_job.hpp"

namespace ghist::cli {

enum class backend_request { automatic, gpu, cpu };
enum class output_format { csv, json, bars };

/// --range LO:HI as written (integer data re-reads the text exactly) and as doubles (checked: finite, LO < HI).
struct range_option {
  std::string lower_text, upper_text;
  double lower = 0.0, upper = 0.0;
};

struct cli_options {
  std::string input;                       ///< path, or "-" for stdin
  std::optional<dtype> input_dtype;        ///< raw binary when set, else text
  std::optional<std::int64_t> bins;        ///< > 0 and <= max_bins when set
  std::optional<range_option> range;
  bool closed_last = false;                ///< --closed
  bool bincount = false;
  op_kind op = op_kind::count;
  std::optional<std::string> weights_path;
  std::optional<dtype> weights_dtype;      ///< raw binary when set, else text (resolved by the parser)
  std::optional<std::string> output_path;  ///< stdout when unset
  backend_request backend = backend_request::automatic;
  std::vector<std::string> csv_columns;    ///< --csv-column (then --csv-column2 for a 2-D histogram)
  char csv_delimiter = ',';
  output_format format = output_format::csv;
  std::optional<std::string> plot_path;    ///< --plot FILE.svg or FILE.png
  // 2-D histograms (--csv-column2): the bins along y.
  std::optional<std::int64_t> bins2;
  std::optional<range_option> range2;
  std::uint64_t chunk_bytes = std::uint64_t(64) << 20;  ///< --chunk-bytes: how much of INPUT is read at a time
  bool no_progress = false;                ///< --no-progress
  bool show_help = false;
  bool show_version = false;
};

/// The most bins the CLI accepts (given or implied by --bincount): its output has one CSV line per bin.
inline constexpr std::int64_t max_bins = std::int64_t(1) << 30;
/// Bins when neither --bins nor --bincount says otherwise.
inline constexpr std::int64_t default_bins = 10;

/// Parses argv (without checking that files exist). Throws cli_error with exit_usage, naming the option.
cli_options parse_command_line(int argc, const char* const* argv);

/// The --help text.
std::string help_text();

}  // namespace ghist::cli
