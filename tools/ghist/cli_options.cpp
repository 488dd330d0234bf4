#include "cli_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cli_error.hpp"
#include "text_number.hpp"

namespace ghist::cli {

namespace {

std::int64_t parse_bins(const std::string& text) {
  std::optional<std::int64_t> n = parse_integer(text);
  if (!n) throw usage_error("--bins must be a positive integer, got '" + printable(text) + "'");
  if (*n <= 0) throw usage_error("--bins must be > 0, got " + std::to_string(*n));
  if (*n > max_bins)
    throw usage_error("--bins " + std::to_string(*n) + " is more than the maximum " + std::to_string(max_bins));
  return *n;
}

range_option parse_range(const std::string& text) {
  std::size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw usage_error("--range must be LO:HI, got '" + printable(text) + "'");
  range_option r;
  r.lower_text = text.substr(0, colon);
  r.upper_text = text.substr(colon + 1);
  for (const std::string* part : {&r.lower_text, &r.upper_text}) {
    std::optional<double> v = parse_real(*part);
    if (!v) throw usage_error("--range bound '" + printable(*part) + "' is not a number");
    if (!std::isfinite(*v)) throw usage_error("--range must be finite, got '" + printable(text) + "'");
    (part == &r.lower_text ? r.lower : r.upper) = *v;
  }
  if (!(r.lower < r.upper))
    throw usage_error("empty --range " + printable(text) + ": LO must be less than HI");
  return r;
}

dtype parse_dtype_option(const std::string& option, const std::string& text) {
  std::optional<dtype> t = parse_dtype(text);
  if (!t)
    throw usage_error("unknown " + option + " '" + printable(text) + "' (expected one of " + dtype_names() + ")");
  return *t;
}

op_kind parse_op(const std::string& text) {
  if (text == "count") return op_kind::count;
  if (text == "sum") return op_kind::sum;
  if (text == "min") return op_kind::min;
  if (text == "max") return op_kind::max;
  throw usage_error("unknown --op '" + printable(text) + "' (expected count, sum, min or max)");
}

output_format parse_format(const std::string& text) {
  if (text == "csv") return output_format::csv;
  if (text == "json") return output_format::json;
  if (text == "bars") return output_format::bars;
  throw usage_error("unknown --format '" + printable(text) + "' (expected csv, json or bars)");
}

// N, or N followed by K, M or G (powers of 1024); at least 1.
std::uint64_t parse_chunk_bytes(const std::string& text) {
  std::string digits = text;
  std::uint64_t scale = 1;
  if (!digits.empty()) {
    char s = digits.back();
    if (s == 'K' || s == 'k') scale = std::uint64_t(1) << 10;
    if (s == 'M' || s == 'm') scale = std::uint64_t(1) << 20;
    if (s == 'G' || s == 'g') scale = std::uint64_t(1) << 30;
    if (scale != 1) digits.pop_back();
  }
  std::optional<std::int64_t> n = parse_integer(digits);
  if (!n || *n < 1 || digits.find_first_not_of("0123456789") != std::string::npos ||
      static_cast<std::uint64_t>(*n) > (std::uint64_t(1) << 50) / scale)
    throw usage_error("--chunk-bytes must be a positive number of bytes (suffixes K, M, G), got '" + printable(text) +
                      "'");
  return static_cast<std::uint64_t>(*n) * scale;
}

char parse_delimiter(const std::string& text) {
  if (text == "\\t" || text == "tab") return '\t';
  if (text.size() != 1 || text == "\"" || text == "\n" || text == "\r")
    throw usage_error("--csv-delimiter must be one character (or 'tab'), got '" + printable(text) + "'");
  return text[0];
}

backend_request parse_backend(const std::string& text) {
  if (text == "auto") return backend_request::automatic;
  if (text == "gpu") return backend_request::gpu;
  if (text == "cpu") return backend_request::cpu;
  throw usage_error("unknown --backend '" + printable(text) + "' (expected auto, gpu or cpu)");
}

}  // namespace

cli_options parse_command_line(int argc, const char* const* argv) {
  cli_options o;
  std::vector<std::string> inputs;
  bool op_given = false;
  bool weights_dtype_given = false;
  bool weights_text = false;  // --weights-dtype text
  bool options_done = false;
  std::optional<std::string> endian;
  std::optional<std::string> column2;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg == "-" || arg.empty() || arg[0] != '-') {
      inputs.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    // "--name=value" or "--name value".
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (std::size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    auto flag = [&] {
      if (inline_value) throw usage_error("option " + name + " takes no value");
    };
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) throw usage_error("option " + name + " needs a value");
      return argv[++i];
    };
    if (name == "-h" || name == "--help") {
      flag();
      o.show_help = true;
    } else if (name == "--version") {
      flag();
      o.show_version = true;
    } else if (name == "--dtype") {
      o.input_dtype = parse_dtype_option("--dtype", value());
    } else if (name == "--bins") {
      o.bins = parse_bins(value());
    } else if (name == "--range") {
      o.range = parse_range(value());
    } else if (name == "--closed") {
      flag();
      o.closed_last = true;
    } else if (name == "--bincount") {
      flag();
      o.bincount = true;
    } else if (name == "--op") {
      o.op = parse_op(value());
      op_given = true;
    } else if (name == "--weights") {
      o.weights_path = value();
    } else if (name == "--weights-dtype") {
      std::string v = value();
      weights_dtype_given = true;
      weights_text = v == "text";
      if (!weights_text) o.weights_dtype = parse_dtype_option("--weights-dtype", v);
    } else if (name == "-o" || name == "--output") {
      o.output_path = value();
    } else if (name == "--endian") {
      endian = value();
      if (*endian != "little" && *endian != "big")
        throw usage_error("--endian must be little or big, got '" + printable(*endian) + "'");
    } else if (name == "--csv-column") {
      if (!o.csv_columns.empty()) throw usage_error("--csv-column given twice (use --csv-column2 for a 2-D histogram)");
      o.csv_columns.push_back(value());
    } else if (name == "--csv-column2") {
      column2 = value();
    } else if (name == "--csv-delimiter") {
      o.csv_delimiter = parse_delimiter(value());
    } else if (name == "--bins2") {
      o.bins2 = parse_bins(value());
    } else if (name == "--range2") {
      o.range2 = parse_range(value());
    } else if (name == "--format") {
      o.format = parse_format(value());
    } else if (name == "--bars") {
      flag();
      o.format = output_format::bars;
    } else if (name == "--plot") {
      o.plot_path = value();
      if (!(o.plot_path->size() > 4 && (o.plot_path->compare(o.plot_path->size() - 4, 4, ".svg") == 0 ||
                                        o.plot_path->compare(o.plot_path->size() - 4, 4, ".png") == 0)))
        throw usage_error("--plot FILE must end in .svg or .png, got '" + printable(*o.plot_path) + "'");
    } else if (name == "--chunk-bytes") {
      o.chunk_bytes = parse_chunk_bytes(value());
    } else if (name == "--no-progress") {
      flag();
      o.no_progress = true;
    } else if (name == "--backend") {
      o.backend = parse_backend(value());
    } else {
      throw usage_error("unknown option '" + printable(arg) + "' (see ghist --help)");
    }
  }
  if (o.show_help || o.show_version) return o;

  if (inputs.empty()) throw usage_error("missing INPUT file (use - for stdin; see ghist --help)");
  if (inputs.size() > 1)
    throw usage_error("expected one INPUT file, got " + std::to_string(inputs.size()) + " ('" +
                      printable(inputs[0]) + "', '" + printable(inputs[1]) + "', ...)");
  o.input = inputs[0];

  if (endian) {
    if (!o.input_dtype) throw usage_error("--endian needs --dtype");
    if (o.input_dtype->bytes > 1) o.input_dtype->big_endian = *endian == "big";
  }
  if (o.input_dtype && !o.csv_columns.empty()) throw usage_error("--dtype and --csv-column cannot both be given");
  if (column2) {
    if (o.csv_columns.empty()) throw usage_error("--csv-column2 needs --csv-column");
    o.csv_columns.push_back(*column2);
    if (o.bincount) throw usage_error("--bincount does not apply to 2-D histograms");
  } else if (o.bins2 || o.range2) {
    throw usage_error("--bins2 and --range2 need --csv-column2 (a 2-D histogram)");
  }

  if (o.weights_path) {
    if (!op_given) o.op = op_kind::sum;
    if (o.op == op_kind::count) throw usage_error("--op count takes no --weights (use --op sum to add weights)");
    if (*o.weights_path == "-" && o.input == "-") throw usage_error("INPUT and --weights cannot both be stdin");
    // Raw weights default to float64 when the input is raw; text stays text.
    if (!weights_dtype_given && o.input_dtype) o.weights_dtype = parse_dtype("float64");
    if (weights_text) o.weights_dtype.reset();
    if (endian && o.weights_dtype && o.weights_dtype->bytes > 1) o.weights_dtype->big_endian = *endian == "big";
  } else {
    if (o.op != op_kind::count)
      throw usage_error(std::string("--op ") + to_string(o.op) + " needs --weights FILE");
    if (weights_dtype_given) throw usage_error("--weights-dtype needs --weights FILE");
  }
  if (o.bincount) {
    if (o.range) throw usage_error("--range does not apply to --bincount (bin k holds key k)");
    if (o.closed_last) throw usage_error("--closed does not apply to --bincount");
    if (o.input_dtype && !o.input_dtype->is_integer())
      throw usage_error("--bincount needs integer keys, got --dtype " + o.input_dtype->name());
  }
  return o;
}

std::string help_text() {
  return R"help(Usage: ghist [options] INPUT

Histogram of a column of numbers (or of each channel of an image, or of two CSV columns), on the GPU when one is
present (else on all CPU cores). INPUT is a file, or - for stdin. Output is CSV on stdout: bin,lower,upper,value

Input (the format is found from the options, then the file's first bytes, then its extension):
  --dtype T            INPUT is raw binary of type T: int8, uint8, int16, uint16, int32, uint32, int64, uint64,
                       float16, bfloat16, float32, float64 (aliases: i1..i8, u1..u8, f2, half, f4, f8, float,
                       double). Little-endian unless --endian big or a NumPy prefix '>' (e.g. '>f8'). The file size
                       must be a multiple of the type size. float16 and bfloat16 are converted exactly.
  --endian E           little (default) or big: the byte order of --dtype and --weights-dtype.
  --csv-column C       INPUT is CSV; histogram of column C: a header name, or a 0-based index. The first row is a
                       header when C names one of its fields, or when its field C is not a number. Fields may be
                       quoted ("a, b", "" for a quote). Blank lines are skipped; any other row whose field C is
                       missing, empty or not a number is an error naming the line and the column.
  --csv-delimiter D    the CSV field separator: one character, or 'tab' (default ',').
  .npy files           NumPy arrays (format 1.0, 2.0, 3.0) of bool, int8..int64, uint8..uint64, float16, float32 or
                       float64, either byte order, any shape (all elements are counted).
  images               PGM/PPM (P2, P5, P3, P6; 8 or 16 bits) and PNG (gray, gray+alpha, RGB, RGBA, palette; 1 to
                       16 bits; alpha is ignored, palette images become RGB). A colour image gives one value column
                       per channel: bin,lower,upper,r,g,b. Without --range, bins cover every sample value
                       [0, maxval + 1) and there are maxval + 1 of them up to 256 (so bin k of an 8-bit image is
                       the value k); --bins N alone keeps that range.
  text                 otherwise: one number per line; blank lines and lines starting with # are skipped; anything
                       else that is not a number is an error naming the line.
                       Text and CSV are read as float64 (as integers with --bincount).

Bins:
  --bins N             number of bins (default 10; with --bincount: the largest key + 1).
  --range LO:HI        even bins over the half-open range [LO, HI): a value equal to HI is not counted (unlike
                       numpy.histogram; add --closed for that). Values outside the range, NaN and infinities
                       are ignored.
                       Without --range the range covers the data, as NumPy does: [min, max] with the maximum
                       counted in the last bin (float data: bins over [min, max), last bin closed; integer data:
                       [min, max + 1)). If min == max, float data uses [min - 0.5, max + 0.5).
                       NaN and infinities are left out of the automatic range and of the histogram.
  --closed             the last bin of --range also holds values equal to HI (numpy.histogram's closed last bin).
  --bincount           integer keys: bin k holds the values equal to k; negative keys and keys >= --bins are
                       ignored.

Values:
  --op OP              count (default), or sum, min, max of the weights in each bin (needs --weights);
                       --weights alone means --op sum.
  --weights FILE       one weight per input value, in the same order: raw, .npy or text (not CSV, not an image).
  --weights-dtype T    raw type of the weights file, or 'text'. Default: float64 when --dtype is given, else text.
                       Weights are used as float64.

2-D histograms:
  --csv-column2 C      with --csv-column X: the 2-D histogram of X and C. --bins and --range give the bins along X,
                       --bins2 N and --range2 LO:HI those along C (same rules). CSV output:
                       bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value (bin_x major); JSON: x_edges, y_edges and
                       values[bin_x][bin_y]. --weights and --op apply as in 1-D.

Output:
  -o, --output FILE    write the output to FILE instead of stdout (nothing is written on error).
  --format F           csv (default), json or bars.
                       json: one object with backend, input, format, dtype, op, bins, range ([LO, HI]; null for
                       --bincount), closed_last, bincount, samples (values read), ignored (values in no bin),
                       channels, edges (bins + 1, as the CSV prints them) and values (an array per bin; for an image
                       with several channels, an array per channel). An empty bin's min or max, and a value that is
                       not finite, is null.
  --bars               the same as --format bars: a bar chart for the terminal, one line per bin
                       "[lower, upper) value bar", as wide as $COLUMNS (default 80), drawn with Unicode blocks when
                       the locale is UTF-8, else with '#'.
  --plot FILE          also draw the histogram into FILE: FILE.svg (a standalone SVG) or FILE.png (800x450 RGB),
                       with axes, ticks, a title and axis labels (the PNG has tick numbers only). The CSV, JSON or
                       bars still go to stdout or --output.
  CSV columns: bin (0-based), lower, upper, value.
    Even bins over float data: the edges LO + i * (HI - LO) / N, in the shortest form that reads back exactly;
    a bin holds lower <= x < upper, and the last bin also upper when the range is automatic or --closed is given.
    Even bins over integer data (--dtype int*/uint*): exact integer edges such that the bin holds the integers x
    with lower <= x < upper (a bin is empty when --bins exceeds the number of integers in the range).
    --bincount: lower = k, upper = k + 1.
    value: counts as integers; sums, minima and maxima as shortest exact decimals. The sum of an empty bin is 0;
    the min and max of an empty bin is an empty field.

Large inputs:
  --chunk-bytes N      read INPUT (and the weights, in step) N bytes at a time (default 64M; suffixes K, M, G) and
                       add each chunk into one result, so files larger than memory work. Raw, text, CSV and .npy
                       inputs stream (2-D histograms too); images are read whole. When the range must come from
                       the data (no --range, or --bincount without --bins; for 2-D, no --range or no --range2), a
                       file is read twice (min/max first); stdin is read once and copied as it is read, into
                       memory up to N bytes, beyond that into a temporary file in $TMPDIR (default /tmp; deleted
                       at once, so it needs free disk space as large as the input), and the copy is read again.
  --no-progress        no progress bar. The bar (bytes read, total when known, rate) appears on stderr when the
                       input takes more than a second and stderr is a terminal.

Backend:
  --backend B          auto (default: the GPU when a CUDA device is usable, else the CPU), gpu (an error without
                       a GPU) or cpu. A line on stderr says which ran, e.g. "ghist: backend=cpu (--backend cpu)".

  -h, --help           this text
  --version            the version

Errors are one line on stderr starting "ghist: error:"; the exit status is 2 for a bad command line and 1 for a
problem with the data, a file or the device.

Examples:
  ghist --bins 20 examples/data/samples.txt
  ghist --dtype int32 --bincount --weights examples/data/weights.f64 --op max examples/data/keys.i32
  seq 1 100 | ghist --bins 4 -
  ghist --csv-column height_cm --bars examples/data/people.csv
  ghist --csv-column height_cm --csv-column2 weight_kg --bins 4 --bins2 3 examples/data/people.csv
  ghist --bins 8 --plot hist.svg examples/data/gradient.ppm
)help";
}

}  // namespace ghist::cli
