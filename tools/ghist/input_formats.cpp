#include "input_formats.hpp"

#include "cli_error.hpp"
#include "csv_reader.hpp"
#include "image_reader.hpp"
#include "npy_reader.hpp"

namespace ghist::cli {

bool has_suffix(const std::string& path, const char* suffix) {
  std::string lower;
  for (char c : path) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  const std::string suf(suffix);
  return lower.size() >= suf.size() && lower.compare(lower.size() - suf.size(), suf.size(), suf) == 0;
}

input_data read_input(const std::string& path, const std::optional<dtype>& type,
                      const std::vector<std::string>& csv_columns, char csv_delimiter, text_values text,
                      bool images, const char* role) {
  return read_input_bytes(path, read_all_bytes(path), type, csv_columns, csv_delimiter, text, images, role);
}

input_data read_input_bytes(const std::string& path, const std::string& bytes, const std::optional<dtype>& type,
                            const std::vector<std::string>& csv_columns, char csv_delimiter, text_values text,
                            bool images, const char* role) {
  input_data in;
  in.channel_names = {"value"};
  if (type) {
    in.format = "raw";
    in.element = type->name();
    in.channels.push_back(decode_raw(path, bytes, *type));
    return in;
  }
  if (!csv_columns.empty()) {
    in.format = "csv";
    in.element = text == text_values::integer ? "int64" : "float64";
    in.channels = read_csv_columns(path, bytes, csv_columns, csv_delimiter, text);
    if (in.channels.size() == 2) in.channel_names = {"x", "y"};
    return in;
  }
  if (looks_like_npy(bytes) || has_suffix(path, ".npy")) {
    npy_array a = read_npy(path, bytes);
    in.format = "npy";
    in.element = a.type.name();
    in.channels.push_back(std::move(a.values));
    return in;
  }
  const bool pnm = looks_like_pnm(bytes) || has_suffix(path, ".pgm") || has_suffix(path, ".ppm") ||
                   has_suffix(path, ".pnm");
  const bool png = looks_like_png(bytes) || has_suffix(path, ".png");
  if (pnm || png) {
    if (!images)
      throw data_error(std::string(role) + " " + display_name(path) + " is an image; only INPUT can be an image");
    image_data img = png && !looks_like_pnm(bytes) ? read_png(path, bytes) : read_pnm(path, bytes);
    in.format = img.format;
    in.element = img.maxval > 255 ? "uint16" : "uint8";
    in.channel_names = std::move(img.channel_names);
    in.channels = std::move(img.channels);
    in.image_maxval = img.maxval;
    return in;
  }
  in.format = "text";
  in.element = "text";
  in.channels.push_back(parse_text(path, bytes, text));
  return in;
}

}  // namespace ghist::cli
