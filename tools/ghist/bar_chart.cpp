#include "bar_chart.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "result_text.hpp"
#include "text_number.hpp"

namespace ghist::cli {

int terminal_columns() {
  const char* c = std::getenv("COLUMNS");
  if (c == nullptr) return 80;
  std::optional<std::int64_t> n = parse_integer(c);
  if (!n || *n <= 0 || *n > 1000) return 80;
  return static_cast<int>(*n);
}

bool locale_is_utf8() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    std::string s(v);
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos;
  }
  return false;
}

template <class Sample>
std::string format_bars(const histogram_report<Sample>& r, int width, bool unicode) {
  width = std::max(width, 40);
  const std::size_t n = static_cast<std::size_t>(r.layout.num_bins);
  std::vector<std::string> lower(n), upper(n);
  std::size_t lower_w = 0, upper_w = 0;
  for (std::size_t b = 0; b < n; ++b) {
    append_edge(lower[b], r.layout, static_cast<std::int64_t>(b));
    append_edge(upper[b], r.layout, static_cast<std::int64_t>(b) + 1);
    lower_w = std::max(lower_w, lower[b].size());
    upper_w = std::max(upper_w, upper[b].size());
  }
  std::string out;
  for (std::size_t c = 0; c < r.results.size(); ++c) {
    if (r.results.size() > 1) out += (c ? "\n" : "") + r.channel_names[c] + ":\n";
    std::vector<std::string> values(n);
    std::size_t value_w = 0;
    double top = 0;
    for (std::size_t b = 0; b < n; ++b) {
      const double v = r.value(c, b);
      if (r.op == op_kind::count) append_unsigned(values[b], r.results[c].counts[b]);
      else if (!std::isnan(v)) append_real(values[b], v);
      value_w = std::max(value_w, values[b].size());
      if (std::isfinite(v)) top = std::max(top, v);
    }
    // "[lower, upper) value " then the bar.
    const std::size_t label_w = lower_w + upper_w + value_w + 6;
    const int bar_w = std::max(10, width - static_cast<int>(label_w));
    for (std::size_t b = 0; b < n; ++b) {
      out += '[' + std::string(lower_w - lower[b].size(), ' ') + lower[b] + ", " + upper[b] + ')' +
             std::string(upper_w - upper[b].size(), ' ') + ' ' + std::string(value_w - values[b].size(), ' ') +
             values[b] + ' ';
      const double v = r.value(c, b);
      if (top > 0 && std::isfinite(v) && v > 0) {
        const long eighths = std::lround(v / top * bar_w * 8);
        if (unicode) {
          static const char* partial[] = {"", "\u258F", "\u258E", "\u258D", "\u258C", "\u258B", "\u258A", "\u2589"};
          for (long i = 0; i < eighths / 8; ++i) out += "\u2588";
          out += partial[eighths % 8];
        } else {
          out += std::string(static_cast<std::size_t>((eighths + 4) / 8), '#');
        }
      }
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += '\n';
    }
  }
  return out;
}

template std::string format_bars(const histogram_report<std::int64_t>&, int, bool);
template std::string format_bars(const histogram_report<std::uint64_t>&, int, bool);
template std::string format_bars(const histogram_report<double>&, int, bool);

}  // namespace ghist::cli
