#include "plot_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "png_plot.hpp"
#include "svg_plot.hpp"

namespace ghist::cli {

void value_axis(const plot_series& p, double& lo, double& hi) {
  lo = 0;
  hi = 0;
  for (const auto& series : p.values)
    for (double v : series)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi <= lo) hi = lo + 1;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double step = (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10) * mag;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    double t = k * step;
    if (std::fabs(t) < step * 1e-9) t = 0;
    ticks.push_back(t);
    if (ticks.size() > 100) break;
  }
  return ticks;
}

std::string tick_label(double v) {
  // 12 significant digits hide the rounding of k * step (0.30000000000000004 prints 0.3).
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

template <class Sample>
std::string render_plot(const histogram_report<Sample>& r, const std::string& path) {
  plot_series p;
  for (std::int64_t e = 0; e <= r.layout.num_bins; ++e) p.edges.push_back(r.edge(e));
  p.names = r.channel_names;
  for (std::size_t c = 0; c < r.results.size(); ++c) {
    std::vector<double> v(static_cast<std::size_t>(r.layout.num_bins));
    for (std::size_t b = 0; b < v.size(); ++b) v[b] = r.value(c, b);
    p.values.push_back(std::move(v));
  }
  p.title = "Histogram of " + (r.input == "-" ? std::string("<stdin>") : r.input);
  p.x_label = r.layout.bincount ? "key" : (r.format == "csv" ? "value (CSV column)" : "value");
  p.y_label = r.op == op_kind::count ? "count" : std::string(to_string(r.op)) + " of weights";
  const bool png = path.size() >= 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  return png ? png_plot(p) : svg_plot(p);
}

template std::string render_plot(const histogram_report<std::int64_t>&, const std::string&);
template std::string render_plot(const histogram_report<std::uint64_t>&, const std::string&);
template std::string render_plot(const histogram_report<double>&, const std::string&);

}  // namespace ghist::cli
