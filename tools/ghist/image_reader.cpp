#include "image_reader.hpp"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#ifdef GHIST_HAVE_PNG
#include <png.h>
#endif

#include "cli_error.hpp"

namespace ghist::cli {

namespace {

[[noreturn]] void bad_image(const std::string& path, const std::string& what) {
  throw data_error(display_name(path) + ": unreadable image: " + what);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// PNM header and ASCII samples: decimal integers separated by white space, '#' comments to the end of a line.
class pnm_tokens {
 public:
  pnm_tokens(const std::string& path, std::string_view bytes, std::size_t pos) : path_(path), b_(bytes), pos_(pos) {}

  std::uint64_t next(const char* what) {
    for (;;) {
      while (pos_ < b_.size() && is_space(b_[pos_])) ++pos_;
      if (pos_ < b_.size() && b_[pos_] == '#') {
        while (pos_ < b_.size() && b_[pos_] != '\n' && b_[pos_] != '\r') ++pos_;
        continue;
      }
      break;
    }
    if (pos_ >= b_.size()) bad_image(path_, std::string("truncated: no ") + what);
    std::uint64_t v = 0;
    std::size_t start = pos_;
    while (pos_ < b_.size() && b_[pos_] >= '0' && b_[pos_] <= '9') {
      v = v * 10 + static_cast<unsigned>(b_[pos_] - '0');
      if (v > 0xFFFFFFFFull) bad_image(path_, std::string(what) + " too large");
      ++pos_;
    }
    if (pos_ == start || (pos_ < b_.size() && !is_space(b_[pos_]) && b_[pos_] != '#'))
      bad_image(path_, std::string("bad ") + what);
    return v;
  }
  std::size_t pos() const { return pos_; }

 private:
  const std::string& path_;
  std::string_view b_;
  std::size_t pos_;
};

image_data make_image(const char* format, std::int64_t width, std::int64_t height, std::uint32_t maxval, int planes) {
  image_data img;
  img.format = format;
  img.width = width;
  img.height = height;
  img.maxval = maxval;
  img.channel_names = planes == 1 ? std::vector<std::string>{"value"} : std::vector<std::string>{"r", "g", "b"};
  for (int c = 0; c < planes; ++c) {
    std::vector<std::int64_t> v;
    v.reserve(static_cast<std::size_t>(width * height));
    img.channels.emplace_back(std::move(v));
  }
  return img;
}

std::vector<std::int64_t>& plane(image_data& img, std::size_t c) { return std::get<0>(img.channels[c]); }

}  // namespace

bool looks_like_pnm(std::string_view b) {
  return b.size() >= 3 && b[0] == 'P' && (b[1] == '2' || b[1] == '3' || b[1] == '5' || b[1] == '6') &&
         is_space(b[2]);
}

bool looks_like_png(std::string_view b) { return b.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8); }

image_data read_pnm(const std::string& path, std::string_view bytes) {
  if (!looks_like_pnm(bytes)) bad_image(path, "not a PGM/PPM file (P2, P3, P5 or P6)");
  const char kind = bytes[1];
  const bool ascii = kind == '2' || kind == '3';
  const int planes = (kind == '3' || kind == '6') ? 3 : 1;
  pnm_tokens tokens(path, bytes, 2);
  const std::uint64_t width = tokens.next("width"), height = tokens.next("height"), maxval = tokens.next("maxval");
  if (width == 0 || height == 0) bad_image(path, "empty image");
  if (maxval == 0 || maxval > 65535) bad_image(path, "maxval " + std::to_string(maxval) + " is not 1..65535");
  const std::uint64_t samples = width * height * static_cast<std::uint64_t>(planes);
  if (samples / width / height != static_cast<std::uint64_t>(planes) || samples > (std::uint64_t(1) << 34))
    bad_image(path, "image too large");
  image_data img = make_image(planes == 1 ? "pgm" : "ppm", static_cast<std::int64_t>(width),
                              static_cast<std::int64_t>(height), static_cast<std::uint32_t>(maxval), planes);
  if (ascii) {
    for (std::uint64_t i = 0; i < samples; ++i) {
      std::uint64_t v = tokens.next("sample");
      if (v > maxval) bad_image(path, "sample " + std::to_string(v) + " above maxval " + std::to_string(maxval));
      plane(img, i % static_cast<std::uint64_t>(planes)).push_back(static_cast<std::int64_t>(v));
    }
    return img;
  }
  // Binary: exactly one white-space character after maxval, then 1 or 2 (big-endian) bytes per sample.
  const std::size_t data = tokens.pos() + 1;
  const std::uint64_t sample_bytes = maxval < 256 ? 1 : 2;
  const std::uint64_t need = samples * sample_bytes;
  if (data > bytes.size() || bytes.size() - data < need)
    bad_image(path, "truncated: " + std::to_string(data > bytes.size() ? 0 : bytes.size() - data) +
                        " bytes of pixel data, " + std::to_string(need) + " expected");
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + data);
  for (std::uint64_t i = 0; i < samples; ++i) {
    std::uint64_t v = sample_bytes == 1 ? p[i] : (std::uint64_t(p[2 * i]) << 8 | p[2 * i + 1]);
    if (v > maxval) bad_image(path, "sample " + std::to_string(v) + " above maxval " + std::to_string(maxval));
    plane(img, i % static_cast<std::uint64_t>(planes)).push_back(static_cast<std::int64_t>(v));
  }
  return img;
}

#ifdef GHIST_HAVE_PNG

bool png_supported() { return true; }

namespace {

struct png_source {
  std::string_view bytes;
  std::size_t pos = 0;
  char message[200] = {};
};

void png_read_bytes(png_structp png, png_bytep out, png_size_t length) {
  auto* src = static_cast<png_source*>(png_get_io_ptr(png));
  if (src->bytes.size() - src->pos < length) png_error(png, "truncated file");
  std::memcpy(out, src->bytes.data() + src->pos, length);
  src->pos += length;
}

void png_on_error(png_structp png, png_const_charp message) {
  auto* src = static_cast<png_source*>(png_get_error_ptr(png));
  std::snprintf(src->message, sizeof src->message, "%s", message);
  png_longjmp(png, 1);
}

void png_on_warning(png_structp, png_const_charp) {}

// Decodes into `pixels` (rows of 8- or 16-bit samples, channels interleaved); no C++ object with a destructor is
// created between setjmp and a longjmp to it. Returns false with src.message set on error.
bool decode_png(png_source& src, std::vector<unsigned char>& pixels, png_uint_32& width, png_uint_32& height,
                int& bit_depth, int& channels) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_on_error, png_on_warning);
  if (!png) {
    std::snprintf(src.message, sizeof src.message, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(src.message, sizeof src.message, "out of memory");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, &src, png_read_bytes);
  png_read_info(png, info);
  const int color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (color & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  width = png_get_image_width(png, info);
  height = png_get_image_height(png, info);
  bit_depth = png_get_bit_depth(png, info);
  channels = png_get_channels(png, info);
  const png_size_t row_bytes = png_get_rowbytes(png, info);
  if (width == 0 || height == 0 || static_cast<unsigned long long>(row_bytes) * height > (1ull << 34))
    png_error(png, "image too large");
  pixels.resize(static_cast<std::size_t>(row_bytes) * height);
  std::vector<png_bytep>* rows_holder = new std::vector<png_bytep>(height);  // freed below on both paths
  for (png_uint_32 y = 0; y < height; ++y) (*rows_holder)[y] = pixels.data() + static_cast<std::size_t>(y) * row_bytes;
  if (setjmp(png_jmpbuf(png))) {
    delete rows_holder;
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_read_image(png, rows_holder->data());
  png_read_end(png, nullptr);
  delete rows_holder;
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

image_data read_png(const std::string& path, std::string_view bytes) {
  if (!looks_like_png(bytes)) bad_image(path, "no PNG signature");
  png_source src;
  src.bytes = bytes;
  std::vector<unsigned char> pixels;
  png_uint_32 width = 0, height = 0;
  int bit_depth = 8, channels = 1;
  if (!decode_png(src, pixels, width, height, bit_depth, channels)) bad_image(path, src.message);
  if (channels != 1 && channels != 3) bad_image(path, "unexpected " + std::to_string(channels) + " channels");
  const std::uint32_t maxval = bit_depth == 16 ? 65535 : 255;
  image_data img = make_image("png", width, height, maxval, channels);
  const std::size_t n = static_cast<std::size_t>(width) * height * static_cast<std::size_t>(channels);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t v = bit_depth == 16 ? (std::int64_t(pixels[2 * i]) << 8 | pixels[2 * i + 1]) : pixels[i];
    plane(img, i % static_cast<std::size_t>(channels)).push_back(v);
  }
  return img;
}

#else

bool png_supported() { return false; }

image_data read_png(const std::string& path, std::string_view) {
  bad_image(path, "this ghist was built without libpng (install libpng-dev and rebuild)");
}

#endif

}  // namespace ghist::cli
