// Helpers of the `ghist` command-line tests (test_cli.cpp, test_cli_formats.cpp): temporary files, running the built
// executable (GHIST_CLI_PATH) with captured output, and checks of one-line errors.
#pragma once

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef GHIST_CLI_PATH
#error "GHIST_CLI_PATH must name the built ghist executable"
#endif

namespace {

const std::string header = "bin,lower,upper,value\n";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

/// A file in /tmp that is removed when the object goes out of scope.
class temp_file {
 public:
  explicit temp_file(const std::string& contents = "") {
    char name[] = "/tmp/ghist_cli_test_XXXXXX";
    int fd = ::mkstemp(name);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    path_ = name;
    std::size_t done = 0;
    while (done < contents.size()) {
      ssize_t w = ::write(fd, contents.data() + done, contents.size() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    ::close(fd);
  }
  ~temp_file() { std::remove(path_.c_str()); }
  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The bytes of `values` as a raw little-endian file (the test hosts are little-endian).
template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string bytes;
  for (T v : values) bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return bytes;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct run_result {
  int status = -1;  ///< exit status, or -1 when the process did not exit normally (a crash)
  std::string out, err;
};

/// Runs ghist with `args`, stdin from `stdin_text` (empty when not given), stdout and stderr captured.
run_result run_ghist(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  temp_file in(stdin_text), out, err;
  std::string cmd = shell_quote(GHIST_CLI_PATH);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  cmd += " <" + shell_quote(in.path()) + " >" + shell_quote(out.path()) + " 2>" + shell_quote(err.path());
  int raw_status = std::system(cmd.c_str());
  run_result r;
  r.status = (raw_status != -1 && WIFEXITED(raw_status)) ? WEXITSTATUS(raw_status) : -1;
  r.out = read_file(out.path());
  r.err = read_file(err.path());
  return r;
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// Runs a command that must fail: the given exit status, nothing on stdout, exactly one line on stderr that starts
/// "ghist: error: " and holds every keyword.
void expect_error(const std::vector<std::string>& args, int status, std::initializer_list<std::string> keywords,
                  const std::string& stdin_text = "") {
  run_result r = run_ghist(args, stdin_text);
  std::string what = "ghist";
  for (const std::string& a : args) what += " " + a;
  SCOPED_TRACE(what);
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("ghist: error: ", 0), 0u) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.back(), '\n');
  for (const std::string& k : keywords) EXPECT_NE(r.err.find(k), std::string::npos) << "'" << k << "' in " << r.err;
}

bool auto_backend_is_gpu() {
  temp_file in("1\n");
  run_result r = run_ghist({in.path()});
  return r.err.rfind("ghist: backend=gpu (", 0) == 0;
}

// Results, run with --backend cpu and with the default backend (instantiated by each test file for its suite).
class CliBackendTest : public ::testing::TestWithParam<const char*> {
 protected:
  /// Runs ghist with the backend under test; expects success and the stderr line; returns stdout.
  std::string ok(std::vector<std::string> args, const std::string& stdin_text = "") {
    if (std::string(GetParam()) == "cpu") args.insert(args.begin(), {"--backend", "cpu"});
    run_result r = run_ghist(args, stdin_text);
    EXPECT_EQ(r.status, 0) << r.err;
    if (std::string(GetParam()) == "cpu") {
      EXPECT_EQ(r.err, "ghist: backend=cpu (--backend cpu)\n");
    } else if (r.err.rfind("ghist: backend=gpu (", 0) == 0) {
      EXPECT_EQ(count_lines(r.err), 1) << r.err;
    } else {
      EXPECT_EQ(r.err, "ghist: backend=cpu (no CUDA device found)\n");
    }
    return r.out;
  }
};

}  // namespace
