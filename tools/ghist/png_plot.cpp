#include "png_plot.hpp"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdint>
#include <cstring>

#ifdef GHIST_HAVE_PNG
#include <png.h>
#endif

#include "cli_error.hpp"

namespace ghist::cli {

#ifdef GHIST_HAVE_PNG

namespace {

struct canvas {
  int w, h;
  std::vector<unsigned char> rgb;
  canvas(int width, int height) : w(width), h(height), rgb(static_cast<std::size_t>(width) * height * 3, 255) {}
  void set(int x, int y, const unsigned char* c, double alpha = 1.0) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    unsigned char* p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
    for (int k = 0; k < 3; ++k) p[k] = static_cast<unsigned char>(std::lround(p[k] * (1 - alpha) + c[k] * alpha));
  }
  void fill(int xa, int ya, int xb, int yb, const unsigned char* c, double alpha = 1.0) {
    for (int y = std::max(ya, 0); y < std::min(yb, h); ++y)
      for (int x = std::max(xa, 0); x < std::min(xb, w); ++x) set(x, y, c, alpha);
  }
};

// A 3x5 font for tick labels: each glyph is 5 rows of 3 bits.
int glyph_rows(char ch, unsigned char rows[5]) {
  static const char* chars = "0123456789.-+e";
  static const unsigned char font[][5] = {
      {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
      {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
      {0, 0, 0, 0, 2}, {0, 0, 7, 0, 0}, {0, 2, 7, 2, 0}, {7, 5, 7, 4, 7}};
  const char* at = std::strchr(chars, ch);
  if (at == nullptr || ch == '\0') return 0;
  std::memcpy(rows, font[at - chars], 5);
  return 1;
}

void draw_text(canvas& cv, int x, int y, const std::string& s, int scale, const unsigned char* c) {
  for (char ch : s) {
    unsigned char rows[5];
    if (glyph_rows(ch, rows))
      for (int r = 0; r < 5; ++r)
        for (int col = 0; col < 3; ++col)
          if (rows[r] & (4 >> col)) cv.fill(x + col * scale, y + r * scale, x + (col + 1) * scale, y + (r + 1) * scale, c);
    x += 4 * scale;
  }
}

struct png_sink {
  std::string bytes;
  char message[200] = {};
};

void sink_write(png_structp png, png_bytep data, png_size_t n) {
  static_cast<png_sink*>(png_get_io_ptr(png))->bytes.append(reinterpret_cast<const char*>(data), n);
}
void sink_flush(png_structp) {}
void sink_error(png_structp png, png_const_charp message) {
  std::snprintf(static_cast<png_sink*>(png_get_error_ptr(png))->message, 200, "%s", message);
  png_longjmp(png, 1);
}
void sink_warning(png_structp, png_const_charp) {}

bool encode(png_sink& sink, const canvas& cv, std::vector<png_bytep>& rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, sink_error, sink_warning);
  if (!png) return false;
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &sink, sink_write, sink_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(cv.w), static_cast<png_uint_32>(cv.h), 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

void colour_of(const std::string& name, std::size_t i, unsigned char c[3]) {
  static const unsigned char palette[][3] = {{76, 114, 176}, {221, 132, 82}, {85, 168, 104}, {196, 78, 82}};
  static const unsigned char red[3] = {214, 39, 40}, green[3] = {44, 160, 44}, blue[3] = {31, 119, 180};
  const unsigned char* p = palette[i % 4];
  if (name == "r") p = red;
  if (name == "g") p = green;
  if (name == "b") p = blue;
  std::memcpy(c, p, 3);
}

}  // namespace

std::string png_plot(const plot_series& p, int width, int height) {
  canvas cv(width, height);
  const int left = 70, right = 20, top = 20, bottom = 40;
  const int pw = width - left - right, ph = height - top - bottom;
  const double x0 = p.edges.front(), x1 = p.edges.back();
  double y0 = 0, y1 = 0;
  value_axis(p, y0, y1);
  auto sx = [&](double x) { return static_cast<int>(std::lround(left + (x - x0) / (x1 - x0) * pw)); };
  auto sy = [&](double y) { return static_cast<int>(std::lround(top + (y1 - y) / (y1 - y0) * ph)); };
  const double alpha = p.values.size() > 1 ? 0.5 : 1.0;
  for (std::size_t s = 0; s < p.values.size(); ++s) {
    unsigned char c[3];
    colour_of(p.names[s], s, c);
    for (std::size_t b = 0; b < p.values[s].size(); ++b) {
      const double v = p.values[s][b];
      if (!std::isfinite(v) || v == 0) continue;
      const int xa = sx(p.edges[b]), xb = std::max(sx(p.edges[b + 1]), xa + 1);
      cv.fill(xa, sy(std::max(v, 0.0)), xb, sy(std::min(v, 0.0)), c, alpha);
    }
  }
  const unsigned char black[3] = {0, 0, 0};
  cv.fill(left, top + ph, left + pw, top + ph + 1, black);
  cv.fill(left - 1, top, left, top + ph + 1, black);
  for (double t : nice_ticks(x0, x1, 8)) {
    const int x = sx(t);
    cv.fill(x, top + ph, x + 1, top + ph + 5, black);
    const std::string label = tick_label(t);
    draw_text(cv, x - static_cast<int>(label.size()) * 4, top + ph + 9, label, 2, black);
  }
  for (double t : nice_ticks(y0, y1, 6)) {
    const int y = sy(t);
    cv.fill(left - 6, y, left, y + 1, black);
    const std::string label = tick_label(t);
    draw_text(cv, left - 9 - static_cast<int>(label.size()) * 8, y - 5, label, 2, black);
  }
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) rows[static_cast<std::size_t>(y)] = &cv.rgb[static_cast<std::size_t>(y) * width * 3];
  png_sink sink;
  if (!encode(sink, cv, rows)) throw data_error(std::string("cannot encode the PNG plot: ") + sink.message);
  return sink.bytes;
}

#else

std::string png_plot(const plot_series&, int, int) {
  throw usage_error("--plot FILE.png: this ghist was built without libpng (use FILE.svg, or install libpng-dev)");
}

#endif

}  // namespace ghist::cli
