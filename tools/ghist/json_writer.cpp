#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "result_text.hpp"

namespace ghist::cli {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

template <class Sample>
std::string format_json(const histogram_report<Sample>& r) {
  const bin_layout<Sample>& layout = r.layout;
  std::string out = "{\n";
  out += "  \"backend\": " + json_string(r.backend) + ",\n";
  out += "  \"input\": " + json_string(r.input == "-" ? "<stdin>" : r.input) + ",\n";
  out += "  \"format\": " + json_string(r.format) + ",\n";
  out += "  \"dtype\": " + json_string(r.element) + ",\n";
  out += "  \"op\": " + json_string(to_string(r.op)) + ",\n";
  out += "  \"bins\": ";
  append_integer(out, layout.num_bins);
  out += ",\n  \"range\": ";
  if (layout.bincount) {
    out += "null";
  } else {
    out += '[';
    append_edge(out, layout, 0);
    out += ", ";
    append_edge(out, layout, layout.num_bins);
    out += ']';
  }
  out += std::string(",\n  \"closed_last\": ") + (layout.closed_last ? "true" : "false");
  out += std::string(",\n  \"bincount\": ") + (layout.bincount ? "true" : "false");
  out += ",\n  \"samples\": ";
  append_unsigned(out, r.samples);
  out += ",\n  \"ignored\": ";
  append_unsigned(out, r.ignored);
  out += ",\n  \"channels\": [";
  for (std::size_t c = 0; c < r.channel_names.size(); ++c) out += (c ? ", " : "") + json_string(r.channel_names[c]);
  out += "],\n  \"edges\": [";
  for (std::int64_t e = 0; e <= layout.num_bins; ++e) {
    if (e) out += ", ";
    append_edge(out, layout, e);
  }
  out += "],\n  \"values\": ";
  const bool several = r.results.size() > 1;
  if (several) out += "[\n    ";
  for (std::size_t c = 0; c < r.results.size(); ++c) {
    if (c) out += ",\n    ";
    out += '[';
    for (std::int64_t b = 0; b < layout.num_bins; ++b) {
      if (b) out += ", ";
      const auto i = static_cast<std::size_t>(b);
      if (r.op == op_kind::count) {
        append_unsigned(out, r.results[c].counts[i]);
      } else {
        const double v = r.value(c, i);
        if (std::isfinite(v)) append_real(out, v);
        else out += "null";
      }
    }
    out += ']';
  }
  if (several) out += "\n  ]";
  out += "\n}\n";
  return out;
}

template std::string format_json(const histogram_report<std::int64_t>&);
template std::string format_json(const histogram_report<std::uint64_t>&);
template std::string format_json(const histogram_report<double>&);

}  // namespace ghist::cli
