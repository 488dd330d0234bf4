// Reading INPUT (or the weights file) chunk by chunk in bounded memory: raw binary, .npy, text and CSV columns.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "csv_reader.hpp"
#include "input_reader.hpp"
#include "npy_reader.hpp"

namespace ghist::cli {

class column_stream {
 public:
  /// Opens `path` ("-": stdin) and finds its format as read_input does. Throws cli_error.
  column_stream(const std::string& path, const std::optional<dtype>& type, const std::vector<std::string>& csv_columns,
                char csv_delimiter, text_values text, std::uint64_t chunk_bytes);
  ~column_stream();
  column_stream(const column_stream&) = delete;
  column_stream& operator=(const column_stream&) = delete;

  /// An image (read whole, with slurp()) rather than a format that streams.
  bool whole_file_only() const { return whole_; }
  const std::string& format() const { return format_; }
  const std::string& element() const { return element_; }
  /// An empty column of the type next() returns.
  sample_column empty_column() const;
  /// The number of values, when known before reading (raw and .npy regular files).
  std::optional<std::uint64_t> known_count() const { return known_count_; }
  std::optional<std::uint64_t> total_bytes() const { return total_bytes_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  bool seekable() const { return seekable_; }

  /// The next chunk: one column (two for two CSV columns); false at the end. Checks the end (truncated record...).
  bool next(std::vector<sample_column>& out);
  /// Keeps a copy of every byte read, from the start, so that rewind() works where the file cannot be read twice
  /// (stdin, a pipe): in memory while the copy is at most one chunk, then in an unlinked temporary file in $TMPDIR
  /// (else /tmp). Call before the first next(). Throws cli_error when the temporary file cannot be made or written.
  void spool();
  /// Back to the first value: seekable files, or once after spool() (the second read is of the copy).
  void rewind();
  /// Every byte of the file (the bytes already looked at and the rest).
  std::string slurp();

 private:
  bool fill(std::size_t want);  ///< reads until pending_ holds `want` bytes or the end; false when nothing was added
  void keep(const char* bytes, std::size_t n);  ///< appends to the spool
  std::string path_;
  std::optional<dtype> type_;
  std::vector<std::string> csv_columns_;
  char delimiter_;
  text_values text_;
  std::size_t chunk_;
  std::FILE* file_ = nullptr;
  bool owned_ = false, seekable_ = false, eof_ = false, whole_ = false, done_ = false;
  std::string format_, element_;
  std::optional<std::uint64_t> known_count_, total_bytes_;
  std::uint64_t bytes_read_ = 0, data_bytes_ = 0;
  std::size_t header_bytes_ = 0, skip_ = 0, text_line_ = 0;
  bool text_start_ = true;
  std::optional<npy_header> npy_;
  std::optional<csv_column_reader> csv_;
  std::string pending_;
  bool spooling_ = false;
  std::string spool_memory_;          ///< the spool while it is at most one chunk
  std::FILE* spool_file_ = nullptr;   ///< the spool once it is larger (unlinked: the system frees it at exit)
};

}  // namespace ghist::cli
