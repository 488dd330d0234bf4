// Tests of ghist's bounded-memory paths that once read the whole input: 2-D histograms of two CSV columns, and
// stdin whose range comes from the data (a first pass of min/max over stdin, then a second over a spooled copy).
// Each is checked against the whole-input answer with many small chunks, for its errors (one line, no output), and
// for its peak memory: the largest resident set of a run must not grow with the input.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace {

/// The same arguments with --chunk-bytes 1G (one chunk) and with small chunks: the same output, byte for byte.
/// `stdin_text`: given on stdin (INPUT is then "-").
void expect_same_for_chunks(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::vector<std::string> whole = args;
  whole.insert(whole.begin(), {"--backend", "cpu", "--chunk-bytes", "1G"});
  run_result ref = run_ghist(whole, stdin_text);
  ASSERT_EQ(ref.status, 0) << ref.err;
  ASSERT_FALSE(ref.out.empty());
  for (const char* chunk : {"5", "64", "999"}) {
    std::vector<std::string> a = args;
    a.insert(a.begin(), {"--backend", "cpu", "--chunk-bytes", chunk});
    run_result r = run_ghist(a, stdin_text);
    SCOPED_TRACE(std::string("--chunk-bytes ") + chunk);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, ref.out);
    EXPECT_EQ(r.err, "ghist: backend=cpu (--backend cpu)\n");
  }
}

/// CSV "x,y" rows (with a quoted field over two lines in each tenth row) and one weight a line.
struct pairs {
  std::string csv = "label,x,y\n", weights;
  std::vector<double> x, y, w;
};

pairs make_pairs(int n) {
  pairs p;
  for (int i = 0; i < n; ++i) {
    const double x = (i * 37 % 83) * 0.1 - 0.5, y = (i * 11 % 31) * 0.1, w = (i % 9) * 0.25 - 1;
    p.x.push_back(x);
    p.y.push_back(y);
    p.w.push_back(w);
    p.csv += (i % 10 == 0 ? "\"a\nb\"" : "r" + std::to_string(i)) + "," + std::to_string(x) + "," +
             std::to_string(y) + "\n";
    p.weights += std::to_string(w) + "\n";
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------------------
// 2-D histograms stream.

TEST(CliBounded, TwoDimensionalCountsMatchAReferenceWithSmallChunks) {
  // x in [-0.5, 7.7], y in [0, 3]: even bins over x 0:8 (4 bins) and y 0:3 (3 bins), counted here.
  const int n = 700;
  pairs p = make_pairs(n);
  temp_file csv(p.csv);
  std::vector<std::uint64_t> cells(12, 0);
  for (int i = 0; i < n; ++i) {
    const double x = std::stod(std::to_string(p.x[i])), y = std::stod(std::to_string(p.y[i]));
    if (x < 0 || x >= 8 || y < 0 || y >= 3) continue;
    ++cells[static_cast<std::size_t>(static_cast<int>(x / 2) * 3 + static_cast<int>(y))];
  }
  std::string expected = "bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value\n";
  for (int bx = 0; bx < 4; ++bx)
    for (int by = 0; by < 3; ++by)
      expected += std::to_string(bx) + "," + std::to_string(by) + "," + std::to_string(2 * bx) + "," +
                  std::to_string(2 * bx + 2) + "," + std::to_string(by) + "," + std::to_string(by + 1) + "," +
                  std::to_string(cells[static_cast<std::size_t>(bx * 3 + by)]) + "\n";
  for (const char* chunk : {"1G", "7", "100"}) {
    SCOPED_TRACE(chunk);
    run_result r = run_ghist({"--backend", "cpu", "--chunk-bytes", chunk, "--csv-column", "x", "--csv-column2", "y",
                              "--bins", "4", "--range", "0:8", "--bins2", "3", "--range2", "0:3", csv.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, expected);
  }
}

TEST(CliBounded, TwoDimensionalEveryOpRangeAndFormatWithSmallChunks) {
  pairs p = make_pairs(500);
  temp_file csv(p.csv), w(p.weights);
  for (const char* op : {"count", "sum", "min", "max"}) {
    SCOPED_TRACE(op);
    std::vector<std::string> base = {"--csv-column", "x", "--csv-column2", "2", "--op", op};
    if (std::string(op) != "count") base.insert(base.end(), {"--weights", w.path()});
    for (const std::vector<std::string>& ranges :
         {std::vector<std::string>{"--bins", "5", "--bins2", "4"},                       // both from the data
          std::vector<std::string>{"--range", "0:5", "--bins2", "3"},                   // y from the data
          std::vector<std::string>{"--bins", "3", "--range2", "1:2", "--closed"},       // x from the data
          std::vector<std::string>{"--range", "1:6", "--range2", "0:2.5", "--bins", "6"}}) {  // none
      for (const char* format : {"csv", "json"}) {
        std::vector<std::string> a = base;
        a.insert(a.end(), ranges.begin(), ranges.end());
        a.insert(a.end(), {"--format", format, csv.path()});
        expect_same_for_chunks(a);
      }
    }
  }
}

TEST(CliBounded, TwoDimensionalJsonCountsEverySample) {
  // 3 rows, one outside the x range: samples 3, ignored 1, wherever the chunks cut.
  temp_file csv("x,y\n1,1\n9,1\n2,2\n");
  for (const char* chunk : {"1G", "4"}) {
    run_result r = run_ghist({"--backend", "cpu", "--chunk-bytes", chunk, "--csv-column", "x", "--csv-column2", "y",
                              "--range", "0:4", "--bins", "2", "--bins2", "1", "--format", "json", csv.path()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("\"samples\": 3,\n  \"ignored\": 1,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"y_edges\": [1, 2]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"values\": [\n    [1],\n    [1]\n  ]"), std::string::npos) << r.out;
  }
}

TEST(CliBounded, TwoDimensionalErrorsInLaterChunks) {
  pairs p = make_pairs(300);
  std::string bad = p.csv;
  const std::size_t cut = bad.size() * 3 / 4;
  const std::size_t line_start = bad.rfind("\nr", cut) + 1;
  const int line = 1 + static_cast<int>(std::count(bad.begin(), bad.begin() + line_start, '\n'));
  bad.replace(bad.find(',', bad.find(',', line_start) + 1) + 1, 1, "z");  // y of that row: "z..." is no number
  temp_file csv(bad);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y", csv.path()}, 1,
               {":" + std::to_string(line) + ":", "column 'y'", "not a number"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y", "--range",
                "0:1", "--range2", "0:1", csv.path()},
               1, {":" + std::to_string(line) + ":", "column 'y'"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y", "-"}, 1,
               {"<stdin>:" + std::to_string(line) + ":", "column 'y'"}, bad);
  // A quoted field left open at the end of the file (a truncated record).
  temp_file open_quote(p.csv + "\"r,1,2\n");
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y",
                open_quote.path()},
               1, {"unterminated quoted field"});
  // Weights of another length, found in the last chunks.
  temp_file short_weights(p.weights.substr(0, p.weights.rfind('\n', p.weights.size() - 2) + 1));
  temp_file good(p.csv);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y", "--weights",
                short_weights.path(), good.path()},
               1, {"299 values", "has 300"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--csv-column", "x", "--csv-column2", "y", "--weights",
                short_weights.path(), "-"},
               1, {"299 values", "has 300"}, p.csv);
}

// With the default backend too (the GPU when there is one: scripts/gpu_check.sh runs these on it): many chunks of
// 2-D keys and of spooled stdin accumulate into the CPU's one-chunk answer.
class CliBoundedBackends : public CliBackendTest {};

INSTANTIATE_TEST_SUITE_P(Backends, CliBoundedBackends, ::testing::Values("cpu", "auto"));

TEST_P(CliBoundedBackends, ManyChunksEqualTheCpuInOneChunk) {
  pairs p = make_pairs(2000);
  temp_file csv(p.csv), w(p.weights);
  for (const char* op : {"count", "sum", "min", "max"}) {
    SCOPED_TRACE(op);
    std::vector<std::string> args = {"--csv-column", "x", "--csv-column2", "y", "--bins", "6", "--bins2", "5",
                                     "--op", op};
    if (std::string(op) != "count") args.insert(args.end(), {"--weights", w.path()});
    std::vector<std::string> ref_args = args;
    ref_args.insert(ref_args.begin(), {"--backend", "cpu", "--chunk-bytes", "1G"});
    ref_args.push_back(csv.path());
    run_result ref = run_ghist(ref_args);
    ASSERT_EQ(ref.status, 0) << ref.err;
    args.insert(args.begin(), {"--chunk-bytes", "1K"});
    std::vector<std::string> from_file = args, from_stdin = args;
    from_file.push_back(csv.path());
    from_stdin.push_back("-");
    EXPECT_EQ(ok(from_file), ref.out);
    EXPECT_EQ(ok(from_stdin, p.csv), ref.out);
  }
  run_result ref = run_ghist({"--backend", "cpu", "--bins", "9", w.path()});
  ASSERT_EQ(ref.status, 0) << ref.err;
  EXPECT_EQ(ok({"--chunk-bytes", "1K", "--bins", "9", "-"}, p.weights), ref.out);
}

// ---------------------------------------------------------------------------------------------------------------
// stdin with the range from the data: one read of stdin, the second pass over a copy.

TEST(CliBounded, StdinWithoutRangeMatchesTheFile) {
  std::string text = "# comment\n";
  for (int i = 0; i < 900; ++i) text += std::to_string((i * 53 % 97) * 0.75 - 3) + "\n";
  temp_file w(text);
  std::string keys, raw;
  for (int i = 0; i < 700; ++i) {
    keys += std::to_string(i * 7 % 23) + "\n";
    const std::int32_t v = i * 131 % 1009 - 500;
    raw.append(reinterpret_cast<const char*>(&v), 4);
  }
  pairs p = make_pairs(400);
  struct stdin_case {
    std::vector<std::string> args;
    std::string input;
  };
  const std::vector<stdin_case> cases = {
      {{"--bins", "7"}, text},
      {{"--op", "max", "--weights", w.path(), "--bins", "5"}, text},
      {{"--bincount"}, keys},
      {{"--dtype", "int32", "--bins", "9"}, raw},
      {{"--csv-column", "x", "--csv-column2", "y", "--bins", "3", "--bins2", "2"}, p.csv},
      {{"--csv-column", "x", "--csv-column2", "y", "--range", "0:5", "--format", "json"}, p.csv},
      {{"--csv-column", "y", "--bins", "4", "--format", "json"}, p.csv},
  };
  for (const stdin_case& c : cases) {
    std::string what;
    for (const std::string& a : c.args) what += a + " ";
    SCOPED_TRACE(what);
    temp_file file(c.input);
    std::vector<std::string> from_file = c.args, from_stdin = c.args;
    from_file.insert(from_file.begin(), {"--backend", "cpu"});
    from_file.push_back(file.path());
    from_stdin.push_back("-");
    run_result ref = run_ghist(from_file);
    ASSERT_EQ(ref.status, 0) << ref.err;
    const std::size_t named = ref.out.find("\"" + file.path() + "\"");  // JSON's "input"
    if (named != std::string::npos) ref.out.replace(named, file.path().size() + 2, "\"<stdin>\"");
    // 5, 64 and 999 bytes: many chunks, spooled to a temporary file; 1G: one chunk, kept in memory.
    expect_same_for_chunks(from_stdin, c.input);
    from_stdin.insert(from_stdin.begin(), {"--backend", "cpu", "--chunk-bytes", "64"});
    run_result piped = run_ghist(from_stdin, c.input);
    EXPECT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(piped.out, ref.out);
  }
}

TEST(CliBounded, StdinNpyWithoutRange) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (300,), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(dict.size());
  npy += '\0';
  npy += dict;
  for (int i = 0; i < 300; ++i) {
    const double v = (i * 17 % 41) * 0.5;
    npy.append(reinterpret_cast<const char*>(&v), 8);
  }
  temp_file file(npy);
  run_result ref = run_ghist({"--backend", "cpu", "--bins", "6", file.path()});
  ASSERT_EQ(ref.status, 0) << ref.err;
  for (const char* chunk : {"8", "100", "1G"}) {
    run_result r = run_ghist({"--backend", "cpu", "--chunk-bytes", chunk, "--bins", "6", "-"}, npy);
    SCOPED_TRACE(chunk);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, ref.out);
  }
}

TEST(CliBounded, StdinWithoutRangeErrors) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += std::to_string(i % 50) + "\n";
  const std::string bad = text + "1e\n" + text;
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "-"}, 1, {"<stdin>:401:", "1e"}, bad);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--bincount", "-"}, 1, {"<stdin>:401:"}, bad);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--dtype", "int32", "-"}, 1, {"1001 bytes", "truncated"},
               std::string(1001, '\x01'));
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--dtype", "float64", "--bins", "3", "-"}, 1,
               {"no values", "--range"}, "");
}

/// Runs `ghist args` with stdin from `stdin_path` through a pipe, `env` before it.
std::string piped_command(const std::string& env, const std::string& stdin_path, const std::vector<std::string>& args) {
  std::string cmd = "cat " + shell_quote(stdin_path) + " | " + env + " " + shell_quote(GHIST_CLI_PATH);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  return cmd;
}

TEST(CliBounded, SpoolInATemporaryDirectory) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += std::to_string(i % 50) + "\n";
  temp_file in(text), out, err;
  const std::string redirect = " >" + shell_quote(out.path()) + " 2>" + shell_quote(err.path());
  // Larger than a chunk: the copy goes to $TMPDIR; one that cannot be made is a one-line error.
  int status = std::system(
      (piped_command("TMPDIR=/nonexistent/ghist", in.path(), {"--backend", "cpu", "--chunk-bytes", "64", "-"}) +
       redirect)
          .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(read_file(out.path()), "");
  const std::string message = read_file(err.path());
  EXPECT_EQ(count_lines(message), 1) << message;
  EXPECT_EQ(message.rfind("ghist: error: cannot create a temporary copy of <stdin> in /nonexistent/ghist", 0), 0u)
      << message;
  EXPECT_NE(message.find("--range"), std::string::npos) << message;
  // At most one chunk stays in memory: no temporary file is needed.
  status = std::system(
      (piped_command("TMPDIR=/nonexistent/ghist", in.path(), {"--backend", "cpu", "--chunk-bytes", "1M", "-"}) +
       redirect)
          .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(err.path());
  run_result ref = run_ghist({"--backend", "cpu", in.path()});
  EXPECT_EQ(read_file(out.path()), ref.out);
  // With --range nothing is copied.
  status = std::system((piped_command("TMPDIR=/nonexistent/ghist", in.path(),
                                      {"--backend", "cpu", "--chunk-bytes", "64", "--range", "0:50", "-"}) +
                        redirect)
                           .c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << read_file(err.path());
}

// ---------------------------------------------------------------------------------------------------------------
// Peak memory: the largest resident set of a run (wait4's ru_maxrss: of the shell, cat and ghist, and of this test
// process at the fork) on an input 12 times larger must stay within a few MiB of the run on the smaller one. Reading
// the input whole would add at least the difference of the inputs (22 MiB of text) and as much again of values.

long max_rss_kib(const std::string& command) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_maxrss;
}

/// Writes about `bytes` of numbers (one a line, or "x,y" pairs) to `path` piece by piece: this process must stay
/// small, since a child's ru_maxrss starts from the size of the process it was forked from.
void write_big_text(const std::string& path, std::size_t bytes, bool two_columns) {
  std::ofstream out(path, std::ios::binary);
  std::string piece = two_columns ? "x,y\n" : "";
  std::size_t written = 0;
  for (std::uint64_t i = 0; written < bytes; ++i) {
    piece += std::to_string(i * 2654435761u % 1000003);
    if (two_columns) piece += "," + std::to_string(i % 977);
    piece += '\n';
    if (piece.size() >= 4096) {
      out << piece;
      written += piece.size();
      piece.clear();
    }
  }
  out << piece;
}

TEST(CliBounded, PeakMemoryDoesNotGrowWithTheInput) {
  struct run_case {
    const char* name;
    bool two_columns;
    std::vector<std::string> args;
  };
  const std::vector<run_case> cases = {
      {"stdin, range from the data", false, {"--bins", "50", "-"}},
      {"2-D from a file, ranges from the data", true, {"--csv-column", "x", "--csv-column2", "y", "--bins2", "5", "FILE"}},
      {"2-D from stdin, ranges from the data", true, {"--csv-column", "x", "--csv-column2", "y", "-"}},
  };
  for (const run_case& c : cases) {
    SCOPED_TRACE(c.name);
    long rss[2] = {0, 0};
    const std::size_t sizes[2] = {std::size_t(2) << 20, std::size_t(24) << 20};
    for (int k = 0; k < 2; ++k) {
      temp_file in;
      write_big_text(in.path(), sizes[k], c.two_columns);
      std::vector<std::string> args = {"--backend", "cpu", "--chunk-bytes", "256K"};
      for (const std::string& a : c.args) args.push_back(a == "FILE" ? in.path() : a);
      rss[k] = max_rss_kib(piped_command("", in.path(), args) + " >/dev/null 2>&1");
      ASSERT_GT(rss[k], 0) << "the run failed";
    }
    EXPECT_LT(rss[1], rss[0] + 8 * 1024) << "KiB: " << rss[0] << " for 2 MiB of input, " << rss[1] << " for 24 MiB";
  }
}

}  // namespace
