#include "svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ghist::cli {

namespace {

std::string xml_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

const char* series_colour(const std::string& name, std::size_t i) {
  if (name == "r") return "#d62728";
  if (name == "g") return "#2ca02c";
  if (name == "b") return "#1f77b4";
  static const char* palette[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52"};
  return palette[i % 4];
}

}  // namespace

std::string svg_plot(const plot_series& p, int width, int height) {
  const double left = 80, right = 20, top = 40, bottom = 60;
  const double pw = width - left - right, ph = height - top - bottom;
  const double x0 = p.edges.front(), x1 = p.edges.back();
  double y0 = 0, y1 = 0;
  value_axis(p, y0, y1);
  auto sx = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
  auto sy = [&](double y) { return top + (y1 - y) / (y1 - y0) * ph; };

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) + "\" height=\"" +
         std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<title>" + xml_text(p.title) + "</title>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
         "\" fill=\"white\"/>\n";
  out += "<text x=\"" + num(left + pw / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" +
         xml_text(p.title) + "</text>\n";
  const double opacity = p.values.size() > 1 ? 0.5 : 0.9;
  for (std::size_t s = 0; s < p.values.size(); ++s) {
    out += "<g class=\"bars\" fill=\"" + std::string(series_colour(p.names[s], s)) + "\" fill-opacity=\"" +
           num(opacity) + "\">\n";
    for (std::size_t b = 0; b < p.values[s].size(); ++b) {
      const double v = p.values[s][b];
      if (!std::isfinite(v) || v == 0) continue;
      const double xa = sx(p.edges[b]), xb = sx(p.edges[b + 1]);
      const double ya = sy(std::max(v, 0.0)), yb = sy(std::min(v, 0.0));
      out += "<rect x=\"" + num(xa) + "\" y=\"" + num(ya) + "\" width=\"" + num(std::max(xb - xa, 0.5)) +
             "\" height=\"" + num(yb - ya) + "\"/>\n";
    }
    out += "</g>\n";
  }
  // Axes, ticks and labels.
  out += "<g class=\"axes\" stroke=\"black\" stroke-width=\"1\">\n";
  out += "<line x1=\"" + num(left) + "\" y1=\"" + num(top + ph) + "\" x2=\"" + num(left + pw) + "\" y2=\"" +
         num(top + ph) + "\"/>\n";
  out += "<line x1=\"" + num(left) + "\" y1=\"" + num(top) + "\" x2=\"" + num(left) + "\" y2=\"" + num(top + ph) +
         "\"/>\n";
  std::string labels;
  for (double t : nice_ticks(x0, x1, 8)) {
    const double x = sx(t);
    out += "<line x1=\"" + num(x) + "\" y1=\"" + num(top + ph) + "\" x2=\"" + num(x) + "\" y2=\"" +
           num(top + ph + 5) + "\"/>\n";
    labels += "<text x=\"" + num(x) + "\" y=\"" + num(top + ph + 18) + "\" text-anchor=\"middle\">" +
              xml_text(tick_label(t)) + "</text>\n";
  }
  for (double t : nice_ticks(y0, y1, 6)) {
    const double y = sy(t);
    out += "<line x1=\"" + num(left - 5) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left) + "\" y2=\"" + num(y) +
           "\"/>\n";
    labels += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
              xml_text(tick_label(t)) + "</text>\n";
  }
  out += "</g>\n<g class=\"labels\">\n" + labels;
  out += "<text x=\"" + num(left + pw / 2) + "\" y=\"" + num(height - 15.0) + "\" text-anchor=\"middle\">" +
         xml_text(p.x_label) + "</text>\n";
  out += "<text x=\"18\" y=\"" + num(top + ph / 2) + "\" text-anchor=\"middle\" transform=\"rotate(-90 18 " +
         num(top + ph / 2) + ")\">" + xml_text(p.y_label) + "</text>\n";
  if (p.values.size() > 1) {
    for (std::size_t s = 0; s < p.names.size(); ++s) {
      const double y = top + 12 + 16 * static_cast<double>(s);
      out += "<rect x=\"" + num(left + pw - 60) + "\" y=\"" + num(y - 10) + "\" width=\"12\" height=\"12\" fill=\"" +
             series_colour(p.names[s], s) + "\"/>\n";
      out += "<text x=\"" + num(left + pw - 42) + "\" y=\"" + num(y) + "\">" + xml_text(p.names[s]) + "</text>\n";
    }
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace ghist::cli
