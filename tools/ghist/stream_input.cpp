#include "stream_input.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_error.hpp"
#include "image_reader.hpp"
#include "input_formats.hpp"
#include "text_number.hpp"

namespace ghist::cli {


column_stream::column_stream(const std::string& path, const std::optional<dtype>& type,
                             const std::vector<std::string>& csv_columns, char csv_delimiter, text_values text,
                             std::uint64_t chunk_bytes)
    : path_(path), type_(type), csv_columns_(csv_columns), delimiter_(csv_delimiter), text_(text),
      chunk_(static_cast<std::size_t>(std::max<std::uint64_t>(chunk_bytes, 1))) {
  if (path == "-") {
    file_ = stdin;
  } else {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw data_error("cannot open " + display_name(path) + ": " + std::strerror(errno));
    owned_ = true;
    struct stat st {};
    if (fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode)) {
      seekable_ = true;
      total_bytes_ = static_cast<std::uint64_t>(st.st_size);
    }
  }
  if (type_) {
    format_ = "raw";
    element_ = type_->name();
    if (total_bytes_) {
      if (*total_bytes_ % static_cast<std::uint64_t>(type_->bytes) != 0)
        throw data_error(display_name(path) + " has " + std::to_string(*total_bytes_) +
                         " bytes, not a multiple of " + std::to_string(type_->bytes) + " (" + type_->name() +
                         "): truncated record or wrong --dtype?");
      known_count_ = *total_bytes_ / static_cast<std::uint64_t>(type_->bytes);
    }
    return;
  }
  if (!csv_columns_.empty()) {
    format_ = "csv";
    element_ = text == text_values::integer ? "int64" : "float64";
    csv_.emplace(path_, csv_columns_, delimiter_, text_);
    return;
  }
  fill(16);
  if (looks_like_npy(pending_) || has_suffix(path, ".npy")) {
    fill(12);
    header_bytes_ = npy_header_end(path_, pending_);
    fill(header_bytes_);
    npy_ = read_npy_header(path_, pending_);
    format_ = "npy";
    element_ = npy_->type.name();
    type_ = npy_->type;
    if (total_bytes_) check_npy_size(path_, *npy_, *total_bytes_ - header_bytes_);
    known_count_ = npy_->count;
    skip_ = header_bytes_;
    return;
  }
  if (looks_like_pnm(pending_) || looks_like_png(pending_) || has_suffix(path, ".pgm") || has_suffix(path, ".ppm") ||
      has_suffix(path, ".pnm") || has_suffix(path, ".png")) {
    whole_ = true;
    return;
  }
  format_ = "text";
  element_ = "text";
}

column_stream::~column_stream() {
  if (owned_ && file_) std::fclose(file_);
  if (spool_file_) std::fclose(spool_file_);
}

sample_column column_stream::empty_column() const {
  if (type_) {
    if (!type_->is_integer()) return std::vector<double>{};
    if (type_->k == dtype::kind::unsigned_int && type_->bytes == 8) return std::vector<std::uint64_t>{};
    return std::vector<std::int64_t>{};
  }
  if (text_ == text_values::integer) return std::vector<std::int64_t>{};
  return std::vector<double>{};
}

bool column_stream::fill(std::size_t want) {
  bool added = false;
  while (pending_.size() < want && !eof_) {
    const std::size_t old = pending_.size();
    pending_.resize(want);
    const std::size_t got = std::fread(pending_.data() + old, 1, want - old, file_);
    pending_.resize(old + got);
    bytes_read_ += got;
    if (got > 0) added = true;
    if (spooling_ && got > 0) keep(pending_.data() + old, got);
    if (got < want - old) {
      if (std::ferror(file_)) throw data_error("cannot read " + display_name(path_) + ": " + std::strerror(errno));
      eof_ = true;
    }
  }
  return added;
}

bool column_stream::next(std::vector<sample_column>& out) {
  out.clear();
  if (done_) return false;
  if (type_) {
    if (skip_) {
      fill(skip_);
      pending_.erase(0, std::min(skip_, pending_.size()));
      skip_ = 0;
    }
    const std::size_t record = static_cast<std::size_t>(type_->bytes);
    fill(std::max(record, chunk_ / record * record));
    const std::size_t n = pending_.size() / record * record;
    if (n == 0) {
      done_ = true;
      if (npy_) check_npy_size(path_, *npy_, data_bytes_ + pending_.size());
      else if (!pending_.empty())
        throw data_error(display_name(path_) + " has " + std::to_string(bytes_read_) + " bytes, not a multiple of " +
                         std::to_string(type_->bytes) + " (" + type_->name() +
                         "): truncated record or wrong --dtype?");
      return false;
    }
    out.push_back(decode_raw(path_, std::string_view(pending_.data(), n), *type_));
    pending_.erase(0, n);
    data_bytes_ += n;
    return true;
  }
  // Text and CSV: whole lines (records) only; a line longer than a chunk makes the chunk grow.
  std::size_t cut = 0;
  for (;;) {
    fill(pending_.size() + chunk_);
    if (eof_) break;
    if (csv_) {
      cut = csv_complete_prefix(pending_, delimiter_);
    } else {
      const std::size_t nl = pending_.rfind('\n');
      cut = nl == std::string::npos ? 0 : nl + 1;
    }
    if (cut > 0) break;
  }
  const bool last = eof_;
  if (last) {
    cut = pending_.size();
    done_ = true;
  }
  const std::string_view piece(pending_.data(), cut);
  if (csv_) {
    out = csv_->feed(piece, last);
  } else {
    out.push_back(parse_text_piece(path_, piece, text_, text_line_, text_start_));
    text_line_ += static_cast<std::size_t>(std::count(piece.begin(), piece.end(), '\n'));
    text_start_ = false;
  }
  pending_.erase(0, cut);
  return true;
}

// Why a spool, for the range of stdin taken from the data: stdin can be read only once, and the bins need the minimum
// and maximum before the first sample is counted. Keeping the samples in memory would bound the input by host memory;
// the spool bounds it by disk space instead, reads stdin once (taking the min/max on the way) and holds at most one
// chunk in memory. Inputs of at most one chunk stay in memory, so small pipes never touch the disk.
void column_stream::spool() {
  if (spooling_) return;
  spooling_ = true;
  // Nothing has been consumed yet: the bytes read so far (a format's magic, a .npy header) are all in pending_.
  keep(pending_.data(), pending_.size());
}

void column_stream::keep(const char* bytes, std::size_t n) {
  if (!spool_file_ && spool_memory_.size() + n <= chunk_) {
    spool_memory_.append(bytes, n);
    return;
  }
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env && *env ? env : "/tmp";
  auto fail = [&](const char* what) {
    throw data_error(std::string("cannot ") + what + " a temporary copy of " + display_name(path_) + " in " +
                     printable(dir) + ": " + std::strerror(errno) +
                     " (it is needed to read the input twice when the range comes from the data: give --range, "
                     "or set TMPDIR)");
  };
  if (!spool_file_) {
    std::string name = dir + "/ghist-spool-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd < 0) fail("create");
    ::unlink(name.c_str());  // nothing is left behind, even on a crash
    spool_file_ = ::fdopen(fd, "w+b");
    if (!spool_file_) {
      ::close(fd);
      fail("create");
    }
    if (!spool_memory_.empty() &&
        std::fwrite(spool_memory_.data(), 1, spool_memory_.size(), spool_file_) != spool_memory_.size())
      fail("write");
    std::string().swap(spool_memory_);
  }
  if (n && std::fwrite(bytes, 1, n, spool_file_) != n) fail("write");
}

void column_stream::rewind() {
  const bool from_spool = !seekable_ && spooling_;
  if (from_spool) {
    if (spool_file_ && (std::fflush(spool_file_) != 0 || std::fseek(spool_file_, 0, SEEK_SET) != 0))
      throw data_error("cannot read back the temporary copy of " + display_name(path_) + ": " + std::strerror(errno));
  } else if (!seekable_ || std::fseek(file_, 0, SEEK_SET) != 0) {
    throw data_error("cannot read " + display_name(path_) + " twice (not a regular file)");
  }
  std::clearerr(file_);
  pending_.clear();
  eof_ = done_ = false;
  bytes_read_ = data_bytes_ = 0;
  text_line_ = 0;
  text_start_ = true;
  skip_ = header_bytes_;
  if (csv_) csv_.emplace(path_, csv_columns_, delimiter_, text_);
  if (from_spool) {
    spooling_ = false;  // the second read is of the copy; there is no third
    if (spool_file_) {
      if (owned_) std::fclose(file_);  // a named pipe; stdin is left open
      file_ = spool_file_;             // closed by the destructor as spool_file_
      owned_ = false;
    } else {
      pending_ = std::move(spool_memory_);  // all of it, at most one chunk: next() sees the end at once
      bytes_read_ = pending_.size();
      eof_ = true;
    }
  }
}

std::string column_stream::slurp() {
  fill(pending_.size() + chunk_);
  while (fill(pending_.size() + (std::size_t(1) << 20))) {
  }
  done_ = true;
  return std::move(pending_);
}

}  // namespace ghist::cli
