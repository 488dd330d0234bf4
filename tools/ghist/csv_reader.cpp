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
  csv_parser(const std::string& path, std::string_view text, char delimiter, std::size_t first_line = 1,
             bool at_start = true)
      : path_(path), text_(text), delimiter_(delimiter), line_(first_line) {
    if (at_start && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
  }

  std::size_t line() const { return line_; }

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
  std::size_t pos_ = 0, line_;
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

std::string join_fields(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size() && i < 12; ++i) out += (i ? ", " : "") + printable(fields[i]);
  if (fields.size() > 12) out += ", ...";
  return out;
}

}  // namespace

csv_column_reader::csv_column_reader(const std::string& path, std::vector<std::string> specs, char delimiter,
                                     text_values values)
    : path_(path), specs_(std::move(specs)), delimiter_(delimiter), values_(values) {}

void csv_column_reader::resolve(const std::vector<std::string>* first_fields) {
  const bool any = first_fields != nullptr;
  static const std::vector<std::string> none;
  const std::vector<std::string>& fields = any ? *first_fields : none;
  for (const std::string& spec : specs_) {
    auto named = std::find(fields.begin(), fields.end(), spec);
    if (named == fields.end()) {
      // Names compare after trimming blanks too (a header "a, b").
      named = std::find_if(fields.begin(), fields.end(), [&](const std::string& f) { return trimmed(f) == spec; });
    }
    if (named != fields.end()) {
      indices_.push_back(static_cast<std::size_t>(named - fields.begin()));
      labels_.push_back("'" + printable(spec) + "'");
      header_ = true;
      continue;
    }
    std::optional<std::int64_t> index = parse_integer(spec);
    if (!index || *index < 0 || spec.find_first_not_of("0123456789") != std::string::npos)
      throw data_error("unknown CSV column '" + printable(spec) + "' in " + display_name(path_) +
                       (any ? " (header: " + join_fields(fields) + ")" : " (the file is empty)"));
    indices_.push_back(static_cast<std::size_t>(*index));
    labels_.push_back("index " + spec);
    if (static_cast<std::size_t>(*index) < fields.size() &&
        !real_field(trimmed(fields[static_cast<std::size_t>(*index)])))
      header_ = true;
  }
  resolved_ = true;
}

std::vector<sample_column> csv_column_reader::feed(std::string_view piece, bool at_end) {
  csv_parser parser(path_, piece, delimiter_, next_line_, at_start_);
  at_start_ = false;
  std::vector<std::vector<double>> reals(values_ == text_values::real ? specs_.size() : 0);
  std::vector<std::vector<std::int64_t>> keys(values_ == text_values::integer ? specs_.size() : 0);
  auto take = [&](const csv_record& record) {
    for (std::size_t c = 0; c < indices_.size(); ++c) {
      const std::string where = display_name(path_) + ":" + std::to_string(record.line) + ": column " + labels_[c];
      if (indices_[c] >= record.fields.size())
        throw data_error(where + ": the row has only " + std::to_string(record.fields.size()) + " field" +
                         (record.fields.size() == 1 ? "" : "s"));
      std::string_view t = trimmed(record.fields[indices_[c]]);
      if (t.empty()) throw data_error(where + ": empty field");
      if (values_ == text_values::integer) {
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
  csv_record record;
  while (parser.next(record)) {
    if (!resolved_) {
      resolve(&record.fields);
      if (header_) continue;
    }
    take(record);
  }
  if (at_end && !resolved_) resolve(nullptr);
  next_line_ = parser.line();
  std::vector<sample_column> out;
  for (std::size_t c = 0; c < specs_.size(); ++c) {
    if (values_ == text_values::integer) out.emplace_back(std::move(keys[c]));
    else out.emplace_back(std::move(reals[c]));
  }
  return out;
}

std::size_t csv_complete_prefix(std::string_view text, char delimiter) {
  // Mirrors csv_parser: a quote opens a quoted field only at a field's start (after blanks); inside, "" is a quote.
  std::size_t cut = 0;
  bool field_start = true, quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') ++i;
        else quoted = false;
      }
      continue;
    }
    if (c == '"' && field_start) {
      quoted = true;
      continue;
    }
    if (c == '\n') {
      cut = i + 1;
      field_start = true;
    } else if (c == delimiter || c == '\r') {
      field_start = true;
    } else if (c != ' ' && c != '\t') {
      field_start = false;
    }
  }
  return cut;
}

std::vector<sample_column> read_csv_columns(const std::string& path, std::string_view bytes,
                                            const std::vector<std::string>& specs, char delimiter,
                                            text_values values) {
  csv_column_reader reader(path, specs, delimiter, values);
  return reader.feed(bytes, true);
}

}  // namespace ghist::cli
