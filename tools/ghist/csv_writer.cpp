#include "csv_writer.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <sys/stat.h>

#include "cli_error.hpp"
#include "input_reader.hpp"
#include "result_text.hpp"

namespace ghist::cli {

template <class Sample>
std::string format_csv(const histogram_report<Sample>& report) {
  const bin_layout<Sample>& layout = report.layout;
  std::string out = "bin,lower,upper";
  for (const std::string& name : report.channel_names) out += "," + name;
  out += '\n';
  out.reserve(out.size() + static_cast<std::size_t>(layout.num_bins) * (24 + 8 * report.channel_names.size()));
  for (std::int64_t b = 0; b < layout.num_bins; ++b) {
    const auto i = static_cast<std::size_t>(b);
    append_integer(out, b);
    out += ',';
    append_edge(out, layout, b);
    out += ',';
    append_edge(out, layout, b + 1);
    for (const histogram_result& result : report.results) {
      out += ',';
      if (report.op == op_kind::count) append_unsigned(out, result.counts[i]);
      else if (report.op == op_kind::sum || result.counts[i] > 0) append_real(out, result.values[i]);
    }
    out += '\n';
  }
  return out;
}

template std::string format_csv(const histogram_report<std::int64_t>&);
template std::string format_csv(const histogram_report<std::uint64_t>&);
template std::string format_csv(const histogram_report<double>&);

void write_output(const std::string& text, const std::optional<std::string>& path) {
  if (!path || *path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw data_error(std::string("cannot write to stdout: ") + std::strerror(errno));
    return;
  }
  std::FILE* f = std::fopen(path->c_str(), "wb");
  if (f == nullptr) throw data_error("cannot create " + display_name(*path) + ": " + std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int saved_errno = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    saved_errno = errno;
  }
  if (!ok) {
    struct stat st {};
    if (::stat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode)) std::remove(path->c_str());  // no partial result
    throw data_error("cannot write " + display_name(*path) + ": " + std::strerror(saved_errno));
  }
}

}  // namespace ghist::cli
