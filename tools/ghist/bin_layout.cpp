#include "bin_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "cli_error.hpp"
#include "input_reader.hpp"
#include "text_number.hpp"

namespace ghist::cli {

namespace {

template <class Sample>
bin_layout<Sample> bincount_layout(const cli_options& options, const sample_summary<Sample>& keys) {
  bin_layout<Sample> layout;
  layout.bincount = true;
  if (options.bins) {
    layout.num_bins = *options.bins;
    return layout;
  }
  const std::optional<Sample> largest = keys.largest_key;
  if (!largest)
    throw data_error("INPUT " + display_name(options.input) +
                     (keys.count == 0 ? " has no keys" : " has no key >= 0") + ": give --bins to print empty bins");
  if (static_cast<std::uint64_t>(*largest) >= static_cast<std::uint64_t>(max_bins))
    throw data_error("the largest key " + std::to_string(*largest) + " would need more than " +
                     std::to_string(max_bins) + " bins: give --bins to keep the keys below it");
  layout.num_bins = static_cast<std::int64_t>(*largest) + 1;
  return layout;
}

// An integer --range bound re-read from its text, so that large bounds stay exact.
template <class Sample>
Sample integer_bound(const std::string& text, const std::string& range_text) {
  std::optional<__int128> v = parse_integral(text);
  if (!v)
    throw usage_error("--range " + range_text + ": integer data needs integer bounds, got '" + printable(text) + "'");
  if (*v < static_cast<__int128>(std::numeric_limits<Sample>::min()) ||
      *v > static_cast<__int128>(std::numeric_limits<Sample>::max()))
    throw usage_error("--range " + range_text + ": bound '" + printable(text) + "' does not fit " +
                      (std::is_signed_v<Sample> ? "int64" : "uint64") + " data");
  return static_cast<Sample>(*v);
}

template <class Sample>
bin_layout<Sample> explicit_range_layout(const cli_options& options) {
  const range_option& r = *options.range;
  bin_layout<Sample> layout;
  layout.num_bins = options.bins.value_or(default_bins);
  layout.closed_last = options.closed_last;
  if constexpr (std::is_floating_point_v<Sample>) {
    layout.lower = r.lower;
    layout.upper = r.upper;
  } else {
    std::string range_text = printable(r.lower_text + ":" + r.upper_text);
    layout.lower = integer_bound<Sample>(r.lower_text, range_text);
    layout.upper = integer_bound<Sample>(r.upper_text, range_text);
    if (!(layout.lower < layout.upper)) throw usage_error("empty --range " + range_text + ": LO must be less than HI");
  }
  return layout;
}

template <class Sample>
bin_layout<Sample> automatic_range_layout(const cli_options& options, const sample_summary<Sample>& samples) {
  bin_layout<Sample> layout;
  layout.num_bins = options.bins.value_or(default_bins);
  const std::optional<Sample> lo = samples.lo, hi = samples.hi;
  if (!lo) {
    if (samples.count == 0)
      throw data_error("INPUT " + display_name(options.input) + " has no values: give --range to print empty bins");
    throw data_error("INPUT " + display_name(options.input) +
                     " has no finite values to choose a range from: give --range");
  }
  if constexpr (std::is_floating_point_v<Sample>) {
    // [min, max) with the maximum folded into the last bin: the edges are those NumPy prints.
    layout.lower = *lo;
    layout.upper = *hi;
    layout.closed_last = true;
    if (*lo == *hi) {
      layout.lower = *lo - 0.5;
      layout.upper = *hi + 0.5;
      layout.closed_last = false;
      if (!(layout.lower < *lo) || !(*hi < layout.upper) || !std::isfinite(layout.upper) ||
          !std::isfinite(layout.lower)) {
        // Too large for +-0.5 to change it: the narrowest range that holds the value.
        layout.lower = std::nextafter(*lo, -std::numeric_limits<Sample>::infinity());
        layout.upper = *hi;
        layout.closed_last = true;
      }
    }
  } else {
    // Integer data: [min, max + 1), so that bins hold whole integers; at the type's maximum, [min, max] instead.
    layout.lower = *lo;
    if (*hi < std::numeric_limits<Sample>::max()) {
      layout.upper = *hi + 1;
    } else {
      layout.upper = *hi;
      layout.closed_last = true;
      if (layout.lower == layout.upper) layout.lower = *hi - 1;
    }
  }
  return layout;
}

}  // namespace

template <class Sample>
bin_layout<Sample> resolve_layout(const cli_options& options, const std::vector<Sample>& samples) {
  sample_summary<Sample> summary;
  if (options.bincount ? !options.bins : !options.range) summary.add(samples);
  return resolve_layout(options, summary);
}

template <class Sample>
bin_layout<Sample> resolve_layout(const cli_options& options, const sample_summary<Sample>& samples) {
  if (options.bincount) {
    if constexpr (std::is_integral_v<Sample>) return bincount_layout(options, samples);
    else throw usage_error("--bincount needs integer keys");
  }
  if (options.range) return explicit_range_layout<Sample>(options);
  return automatic_range_layout(options, samples);
}

template bin_layout<std::int64_t> resolve_layout(const cli_options&, const std::vector<std::int64_t>&);
template bin_layout<std::uint64_t> resolve_layout(const cli_options&, const std::vector<std::uint64_t>&);
template bin_layout<double> resolve_layout(const cli_options&, const std::vector<double>&);
template bin_layout<std::int64_t> resolve_layout(const cli_options&, const sample_summary<std::int64_t>&);
template bin_layout<std::uint64_t> resolve_layout(const cli_options&, const sample_summary<std::uint64_t>&);
template bin_layout<double> resolve_layout(const cli_options&, const sample_summary<double>&);

}  // namespace ghist::cli
