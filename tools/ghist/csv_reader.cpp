#include "csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>

#include "cli_error.hpp"
#include "text_number.hpp"

namespace ghist::cli {

namespace {

struct csv_record {
  std::size_t line = 0;  ///< 1-based line where the record starts
  std::vector<std::string> fields;
};

class csv_parser {
 public:
  csv_parser(const std::string& path, std::string_view text, char delimiter)
      : path_(path), text_(text), delimiter_(delimiter) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
  }

  /// The next non-blank record; false at the end.
  bool next(csv_record& record) {
    while (pos_ < text_.size()) {
      record.fields.clear();
      record.line = line_;
      read_record(record);
      bool blank = record.fields.size() == 1 && record.fields[0].find_first_not_of(" \t") == std::string::npos &&
                   !quoted_;
      if (!blank) return true;
    }
    return false;
  }

 private:
  void read_record(csv_record& record) {
    std::string field;
    quoted_ = false;
    for (;;) {
      if (pos_ >= text_.size()) {
        record.fields.push_back(std::move(field));
        return;
      }
      char c = text_[pos_];
      if (c == '"' && field.find_first_not_of(" \t") == std::string::npos) {
        field.clear();
        quoted_ = true;
        read_quoted(field);
        continue;
      }
      ++pos_;
      if (c == delimiter_) {
        record.fields.push_back(std::move(field));
        field.clear();
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        ++line_;
        record.fields.push_back(std::move(field));
        return;
      } else {
        field += c;
      }
    }
  }

  // At the opening quote: reads to the closing one; after it only blanks may come before the delimiter or the end.
  void read_quoted(std::string& field) {
    const std::size_t start_line = line_;
    ++pos_;
    for (;;) {
      if (pos_ >= text_.size())
        throw data_error(display_name(path_) + ":" + std::to_string(start_line) + ": unterminated quoted field");
      char c = text_[pos_++];
      if (c == '"') {
        if (pos_ < text_.size() && text_[pos_] == '"') {
          field += '"';
          ++pos_;
          continue;
        }
        break;
      }
      if (c == '\n') ++line_;
      field += c;
    }
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n' && text_[pos_] != '\r')
      throw data_error(display_name(path_) + ":" + std::to_string(line_) + ": text after a closing quote");
  }

  const std::string& path_;
  std::string_view text_;
  char delimiter_;
  std::size_t pos_ = 0, line_ = 1;
  bool quoted_ = false;
};

std::string_view trimmed(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  std::size_t e = s.find_last_not_of(" \t");
  return std::string_view(s).substr(b, e - b + 1);
}

std::optional<double> real_field(std::string_view t) {
  if (t.empty()) return std::nullopt;
  std::string copy(t);  // strtod needs a terminated string
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> integer_field(std::string_view t) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (!t.empty() && ec == std::errc() && end == t.data() + t.size()) return v;
  std::optional<__int128> wide = parse_integral(t);
  if (!wide) return std::nullopt;
  constexpr __int128 lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::clamp(*wide, lo, hi));
}

struct chosen_column {
  std::size_t index = 0;
  std::string label;  ///< for messages: 'name' or index N
};

std::string join_fields(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size() && i < 12; ++i) out += (i ? ", " : "") + printable(fields[i]);
  if (fields.size() > 12) out += ", ...";
  return out;
}

}  // namespace

std::vector<sample_column> read_csv_columns(const std::string& path, std::string_view bytes,
                                            const std::vector<std::string>& specs, char delimiter,
                                            text_values values) {
  csv_parser parser(path, bytes, delimiter);
  csv_record first;
  const bool any = parser.next(first);

  std::vector<chosen_column> columns;
  bool header = false;
  for (const std::string& spec : specs) {
    auto named = any ? std::find(first.fields.begin(), first.fields.end(), spec) : first.fields.end();
    if (any && named == first.fields.end()) {
      // Names compare after trimming blanks too (a header "a, b").
      named = std::find_if(first.fields.begin(), first.fields.end(),
                           [&](const std::string& f) { return trimmed(f) == spec; });
    }
    if (any && named != first.fields.end()) {
      columns.push_back({static_cast<std::size_t>(named - first.fields.begin()), "'" + printable(spec) + "'"});
      header = true;
      continue;
    }
    std::optional<std::int64_t> index = parse_integer(spec);
    if (!index || *index < 0 || spec.find_first_not_of("0123456789") != std::string::npos)
      throw data_error("unknown CSV column '" + printable(spec) + "' in " + display_name(path) +
                       (any ? " (header: " + join_fields(first.fields) + ")" : " (the file is empty)"));
    columns.push_back({static_cast<std::size_t>(*index), "index " + spec});
    if (any && static_cast<std::size_t>(*index) < first.fields.size() &&
        !real_field(trimmed(first.fields[static_cast<std::size_t>(*index)])))
      header = true;
  }

  std::vector<std::vector<double>> reals(values == text_values::real ? columns.size() : 0);
  std::vector<std::vector<std::int64_t>> keys(values == text_values::integer ? columns.size() : 0);
  auto take = [&](const csv_record& record) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const chosen_column& col = columns[c];
      const std::string where = display_name(path) + ":" + std::to_string(record.line) + ": column " + col.label;
      if (col.index >= record.fields.size())
        throw data_error(where + ": the row has only " + std::to_string(record.fields.size()) + " field" +
                         (record.fields.size() == 1 ? "" : "s"));
      std::string_view t = trimmed(record.fields[col.index]);
      if (t.empty()) throw data_error(where + ": empty field");
      if (values == text_values::integer) {
        std::optional<std::int64_t> v = integer_field(t);
        if (!v) throw data_error(where + ": '" + printable(t) + "' is not an integer key");
        keys[c].push_back(*v);
      } else {
        std::optional<double> v = real_field(t);
        if (!v) throw data_error(where + ": '" + printable(t) + "' is not a number");
        reals[c].push_back(*v);
      }
    }
  };
  if (any && !header) take(first);
  csv_record record;
  while (parser.next(record)) take(record);

  std::vector<sample_column> out;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (values == text_values::integer) out.emplace_back(std::move(keys[c]));
    else out.emplace_back(std::move(reals[c]));
  }
  return out;
}

}  // namespace ghist::cli
