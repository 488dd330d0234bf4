#include "histogram_report.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

namespace ghist::cli {

template <class Sample>
double histogram_report<Sample>::value(std::size_t c, std::size_t b) const {
  const histogram_result& r = results[c];
  if (op == op_kind::count) return static_cast<double>(r.counts[b]);
  if (op != op_kind::sum && r.counts[b] == 0) return std::numeric_limits<double>::quiet_NaN();
  return r.values[b];
}

template <class Sample>
double histogram_report<Sample>::edge(std::int64_t e) const {
  if (layout.bincount) return static_cast<double>(e);
  const double lo = static_cast<double>(layout.lower), hi = static_cast<double>(layout.upper);
  const double n = static_cast<double>(layout.num_bins);
  if (e == layout.num_bins) return hi + (std::is_integral_v<Sample> && layout.closed_last ? 1.0 : 0.0);
  return lo + (hi - lo) * static_cast<double>(e) / n;
}

template <class Sample>
std::uint64_t count_in_bins(const bin_layout<Sample>& layout, const std::vector<Sample>& samples) {
  std::uint64_t n = 0;
  for (Sample x : samples) {
    if (layout.bincount) {
      n += !(x < 0) && static_cast<std::uint64_t>(x) < static_cast<std::uint64_t>(layout.num_bins);
    } else {
      n += (x >= layout.lower && x < layout.upper) || (layout.closed_last && x == layout.upper);
    }
  }
  return n;
}

template struct histogram_report<std::int64_t>;
template struct histogram_report<std::uint64_t>;
template struct histogram_report<double>;
template std::uint64_t count_in_bins(const bin_layout<std::int64_t>&, const std::vector<std::int64_t>&);
template std::uint64_t count_in_bins(const bin_layout<std::uint64_t>&, const std::vector<std::uint64_t>&);
template std::uint64_t count_in_bins(const bin_layout<double>&, const std::vector<double>&);

}  // namespace ghist::cli
