// Tests of the `ghist` command-line tool: runs the built executable (GHIST_CLI_PATH) on small inputs written here,
// with --backend cpu and with the default backend (auto: the GPU when there is one), and checks the exact CSV, the
// stderr line and the exit status; every error must be one line on stderr, a non-zero exit and no output.
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
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

#ifndef GHIST_EXAMPLES_DIR
#error "GHIST_EXAMPLES_DIR must name the examples/ directory"
#endif

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Results, run with --backend cpu and with the default backend.

class CliResults : public CliBackendTest {};

INSTANTIATE_TEST_SUITE_P(Backends, CliResults, ::testing::Values("cpu", "auto"));

TEST_P(CliResults, TextWithRangeIsHalfOpen) {
  temp_file in("0.5\n1.5\n1.5\n2.5\n3\n-1\n4\n");
  EXPECT_EQ(ok({"--bins", "4", "--range", "0:4", in.path()}), header + "0,0,1,1\n1,1,2,2\n2,2,3,1\n3,3,4,1\n");
  // --closed: 4 == HI goes to the last bin, as numpy.histogram does.
  EXPECT_EQ(ok({"--bins=4", "--range=0:4", "--closed", in.path()}), header + "0,0,1,1\n1,1,2,2\n2,2,3,1\n3,3,4,2\n");
}

TEST_P(CliResults, TextAutomaticRangeCountsTheMaximum) {
  temp_file in("0\n1\n2\n3\n4\n");
  EXPECT_EQ(ok({"--bins", "4", in.path()}), header + "0,0,1,1\n1,1,2,1\n2,2,3,1\n3,3,4,2\n");
}

TEST_P(CliResults, TextAutomaticRangeOfOneValue) {
  temp_file in("2\n2\n");
  EXPECT_EQ(ok({"--bins", "2", in.path()}), header + "0,1.5,2,0\n1,2,2.5,2\n");
}

TEST_P(CliResults, TextSkipsBlankAndCommentLinesAndTrims) {
  temp_file in("# header\n\n  1 \r\n2\t\n   # indented comment\n3");
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:4", in.path()}), header + "0,0,2,1\n1,2,4,2\n");
}

TEST_P(CliResults, TextIgnoresValuesOutsideTheRangeAndNaN) {
  temp_file in("nan\ninf\n-inf\n0.25\n-0.5\n1\n");
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:1", in.path()}), header + "0,0,0.5,1\n1,0.5,1,0\n");
  // The automatic range leaves NaN and infinities out: [-0.5, 1] holds the three finite values.
  EXPECT_EQ(ok({"--bins", "1", in.path()}), header + "0,-0.5,1,3\n");
}

TEST_P(CliResults, DefaultIsTenBins) {
  temp_file in("0\n9.5\n");
  std::string out = ok({"--range", "0:10", in.path()});
  EXPECT_EQ(count_lines(out), 11);
  EXPECT_NE(out.find("\n0,0,1,1\n"), std::string::npos);
  EXPECT_NE(out.find("\n9,9,10,1\n"), std::string::npos);
}

TEST_P(CliResults, Stdin) {
  EXPECT_EQ(ok({"--bins", "2", "-"}, "1\n2\n3\n"), header + "0,1,2,1\n1,2,3,2\n");
  // Raw binary works on stdin too: [1, 4) over 2 bins splits at 1 + ceil(3 / 2) = 3.
  EXPECT_EQ(ok({"--dtype", "int32", "--bins", "2", "-"}, raw<std::int32_t>({1, 2, 3})),
            header + "0,1,3,2\n1,3,4,1\n");
}

TEST_P(CliResults, EmptyInputWithRangeGivesEmptyBins) {
  temp_file in("# nothing\n");
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:1", in.path()}), header + "0,0,0.5,0\n1,0.5,1,0\n");
}

TEST_P(CliResults, EveryRawSignedIntegerDtype) {
  // Integer data: range [min, max + 1) = [-3, 6), exact integer edges.
  const std::string expected = header + "0,-3,0,2\n1,0,3,2\n2,3,6,1\n";
  struct file_case {
    std::vector<std::string> names;
    std::string bytes;
  };
  std::vector<file_case> cases = {
      {{"int8", "i1", "<i1"}, raw<std::int8_t>({-3, -1, 0, 2, 5})},
      {{"int16", "i2"}, raw<std::int16_t>({-3, -1, 0, 2, 5})},
      {{"int32", "i4", "<i4"}, raw<std::int32_t>({-3, -1, 0, 2, 5})},
      {{"int64", "i8"}, raw<std::int64_t>({-3, -1, 0, 2, 5})},
  };
  for (const file_case& c : cases) {
    temp_file in(c.bytes);
    for (const std::string& name : c.names) {
      SCOPED_TRACE(name);
      EXPECT_EQ(ok({"--dtype", name, "--bins", "3", in.path()}), expected);
    }
  }
}

TEST_P(CliResults, EveryRawUnsignedIntegerDtype) {
  const std::string expected = header + "0,0,3,2\n1,3,6,2\n2,6,9,1\n";
  struct file_case {
    std::vector<std::string> names;
    std::string bytes;
  };
  std::vector<file_case> cases = {
      {{"uint8", "u1"}, raw<std::uint8_t>({0, 2, 3, 5, 8})},
      {{"uint16", "u2"}, raw<std::uint16_t>({0, 2, 3, 5, 8})},
      {{"uint32", "u4"}, raw<std::uint32_t>({0, 2, 3, 5, 8})},
      {{"uint64", "u8"}, raw<std::uint64_t>({0, 2, 3, 5, 8})},
  };
  for (const file_case& c : cases) {
    temp_file in(c.bytes);
    for (const std::string& name : c.names) {
      SCOPED_TRACE(name);
      EXPECT_EQ(ok({"--dtype", name, "--bins", "3", in.path()}), expected);
    }
  }
}

TEST_P(CliResults, EveryRawFloatDtype) {
  const std::string expected = header + "0,-2,-1,1\n1,-1,0,0\n2,0,1,2\n3,1,2,0\n4,2,3,1\n";
  temp_file f32(raw<float>({-1.5f, 0.25f, 0.5f, 2.5f, 3.0f}));
  temp_file f64(raw<double>({-1.5, 0.25, 0.5, 2.5, 3.0}));
  for (const char* name : {"float32", "f4", "float", "single"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ok({"--dtype", name, "--bins", "5", "--range", "-2:3", f32.path()}), expected);
  }
  for (const char* name : {"float64", "f8", "double", "<f8"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(ok({"--dtype", name, "--bins", "5", "--range", "-2:3", f64.path()}), expected);
  }
}

TEST_P(CliResults, BigEndianWithNumPyPrefix) {
  temp_file in(std::string("\x00\x00\x01\x00\xff\xff\xff\xfe", 8));  // 256 and -2 as big-endian int32
  EXPECT_EQ(ok({"--dtype", ">i4", "--bins", "2", "--range", "-256:512", in.path()}),
            header + "0,-256,128,1\n1,128,512,1\n");
}

TEST_P(CliResults, IntegerExtremes) {
  temp_file i8(raw<std::int8_t>({-128, 127}));
  EXPECT_EQ(ok({"--dtype", "int8", "--bins", "1", i8.path()}), header + "0,-128,128,2\n");
  // The int64 maximum is counted: [0, INT64_MAX] with a closed last bin, printed as the integers below 2^63.
  temp_file i64(raw<std::int64_t>({0, std::numeric_limits<std::int64_t>::max()}));
  EXPECT_EQ(ok({"--dtype", "int64", "--bins", "1", i64.path()}), header + "0,0,9223372036854775808,2\n");
  // uint64 values above INT64_MAX stay exact: [5, 2^64 - 1] over 2 bins splits at 5 + ceil((2^64 - 6) / 2).
  temp_file u64(raw<std::uint64_t>({std::uint64_t(1) << 63, ~std::uint64_t(0), 5}));
  EXPECT_EQ(ok({"--dtype", "uint64", "--bins", "2", u64.path()}),
            header + "0,5,9223372036854775810,2\n1,9223372036854775810,18446744073709551616,1\n");
  EXPECT_EQ(ok({"--dtype", "uint64", "--bins", "2", "--range", "9223372036854775808:18446744073709551615",
                u64.path()}),
            header + "0,9223372036854775808,13835058055282163712,1\n"
                     "1,13835058055282163712,18446744073709551615,0\n");
}

TEST_P(CliResults, IntegerRangeWithMoreBinsThanIntegers) {
  temp_file in(raw<std::int32_t>({0, 1, 2}));
  // [0, 3) over 4 bins: edges 0, ceil(0.75) = 1, ceil(1.5) = 2, ceil(2.25) = 3, 3 -> the last bin holds nothing.
  EXPECT_EQ(ok({"--dtype", "int32", "--bins", "4", in.path()}), header + "0,0,1,1\n1,1,2,1\n2,2,3,1\n3,3,3,0\n");
}

TEST_P(CliResults, BincountText) {
  temp_file in("3\n1\n1\n-2\n0\n5\n");
  EXPECT_EQ(ok({"--bincount", in.path()}), header + "0,0,1,1\n1,1,2,2\n2,2,3,0\n3,3,4,1\n4,4,5,0\n5,5,6,1\n");
  EXPECT_EQ(ok({"--bincount", "--bins", "3", in.path()}), header + "0,0,1,1\n1,1,2,2\n2,2,3,0\n");
  temp_file floats_with_integral_values("2.0\n1e0\n+1\n");
  EXPECT_EQ(ok({"--bincount", floats_with_integral_values.path()}), header + "0,0,1,0\n1,1,2,2\n2,2,3,1\n");
}

TEST_P(CliResults, BincountRawKeys) {
  temp_file i32(raw<std::int32_t>({3, 1, 1, -2, 0, 5}));
  EXPECT_EQ(ok({"--bincount", "--dtype", "int32", i32.path()}),
            header + "0,0,1,1\n1,1,2,2\n2,2,3,0\n3,3,4,1\n4,4,5,0\n5,5,6,1\n");
  temp_file u64(raw<std::uint64_t>({2, ~std::uint64_t(0), 0}));
  EXPECT_EQ(ok({"--bincount", "--dtype", "uint64", "--bins", "3", u64.path()}),
            header + "0,0,1,1\n1,1,2,0\n2,2,3,1\n");
}

TEST_P(CliResults, WeightedBincountSumMinMax) {
  temp_file keys("3\n1\n1\n-2\n0\n5\n");
  temp_file weights("1.5\n2\n-1\n7\n0.25\n3\n");
  const std::string sum = header + "0,0,1,0.25\n1,1,2,1\n2,2,3,0\n3,3,4,1.5\n4,4,5,0\n5,5,6,3\n";
  EXPECT_EQ(ok({"--bincount", "--weights", weights.path(), "--op", "sum", keys.path()}), sum);
  EXPECT_EQ(ok({"--bincount", "--weights", weights.path(), keys.path()}), sum);  // --weights alone: sum
  // An empty bin has no minimum or maximum: the field is empty.
  EXPECT_EQ(ok({"--bincount", "--weights", weights.path(), "--op", "min", keys.path()}),
            header + "0,0,1,0.25\n1,1,2,-1\n2,2,3,\n3,3,4,1.5\n4,4,5,\n5,5,6,3\n");
  EXPECT_EQ(ok({"--bincount", "--weights", weights.path(), "--op", "max", keys.path()}),
            header + "0,0,1,0.25\n1,1,2,2\n2,2,3,\n3,3,4,1.5\n4,4,5,\n5,5,6,3\n");
}

TEST_P(CliResults, WeightedEvenBinsSumMinMax) {
  temp_file samples("0\n1\n2\n3\n4\n");
  temp_file weights("1\n2\n3\n4\n5\n");
  // Automatic range [0, 4] over 2 bins: the maximum 4 (weight 5) is in the last bin.
  EXPECT_EQ(ok({"--bins", "2", "--weights", weights.path(), samples.path()}), header + "0,0,2,3\n1,2,4,12\n");
  EXPECT_EQ(ok({"--bins", "2", "--weights", weights.path(), "--op", "min", samples.path()}),
            header + "0,0,2,1\n1,2,4,3\n");
  EXPECT_EQ(ok({"--bins", "2", "--weights", weights.path(), "--op", "max", samples.path()}),
            header + "0,0,2,2\n1,2,4,5\n");
  EXPECT_EQ(ok({"--bins", "3", "--range", "0:6", "--weights", weights.path(), "--op", "max", samples.path()}),
            header + "0,0,2,2\n1,2,4,4\n2,4,6,5\n");
  EXPECT_EQ(ok({"--bins", "3", "--range", "10:16", "--weights", weights.path(), "--op", "min", samples.path()}),
            header + "0,10,12,\n1,12,14,\n2,14,16,\n");
  // Sums print the shortest exact decimal.
  temp_file tenths("0.1\n0.2\n");
  EXPECT_EQ(ok({"--bins", "1", "--range", "0:10", "--weights", tenths.path(), "-"}, "1\n2\n"),
            header + "0,0,10,0.30000000000000004\n");
}

TEST_P(CliResults, RawWeights) {
  temp_file keys(raw<std::int16_t>({1, 0, 1}));
  temp_file f64(raw<double>({0.5, 2, 0.25}));
  temp_file f32(raw<float>({0.5f, 2.0f, 0.25f}));
  temp_file text("0.5\n2\n0.25\n");
  const std::string expected = header + "0,0,1,2\n1,1,2,0.75\n";
  // With --dtype, weights default to raw float64.
  EXPECT_EQ(ok({"--bincount", "--dtype", "int16", "--weights", f64.path(), keys.path()}), expected);
  EXPECT_EQ(ok({"--bincount", "--dtype", "int16", "--weights", f32.path(), "--weights-dtype", "float32",
                keys.path()}),
            expected);
  EXPECT_EQ(ok({"--bincount", "--dtype", "int16", "--weights", text.path(), "--weights-dtype", "text", keys.path()}),
            expected);
}

TEST_P(CliResults, OutputFile) {
  temp_file in("1\n2\n3\n");
  temp_file out_file;
  std::vector<std::string> args = {"--bins", "2", "--output", out_file.path(), in.path()};
  if (std::string(GetParam()) == "cpu") args.insert(args.begin(), {"--backend", "cpu"});
  run_result r = run_ghist(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(count_lines(r.err), 1);
  EXPECT_EQ(read_file(out_file.path()), header + "0,1,2,1\n1,2,3,2\n");
  EXPECT_EQ(ok({"--bins", "2", "-o", out_file.path(), "--op", "count", in.path()}), "");
  EXPECT_EQ(read_file(out_file.path()), header + "0,1,2,1\n1,2,3,2\n");
}

TEST_P(CliResults, ExampleData) {
  const std::string dir = GHIST_EXAMPLES_DIR "/data/";
  std::string out = ok({"--bins", "20", dir + "samples.txt"});
  EXPECT_EQ(count_lines(out), 21);
  std::istringstream lines(out);
  std::string line;
  std::getline(lines, line);
  std::uint64_t total = 0;
  while (std::getline(lines, line)) total += std::stoull(line.substr(line.rfind(',') + 1));
  EXPECT_EQ(total, 5000u);

  out = ok({"--bincount", "--dtype", "int32", dir + "keys.i32"});
  EXPECT_EQ(count_lines(out), 17);
  std::string sums = ok({"--bincount", "--dtype", "int32", "--weights", dir + "weights.f64", dir + "keys.i32"});
  EXPECT_EQ(count_lines(sums), 17);
}

// ---------------------------------------------------------------------------------------------------------------
// Messages and errors.

TEST(CliBasics, HelpAndVersion) {
  run_result help = run_ghist({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("Usage: ghist"), std::string::npos);
  EXPECT_NE(help.out.find("--bincount"), std::string::npos);
  EXPECT_EQ(help.err, "");
  run_result version = run_ghist({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("ghist ", 0), 0u);
}

TEST(CliBasics, AutomaticBackendSaysWhichRan) {
  temp_file in("1\n");
  run_result r = run_ghist({in.path()});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.err == "ghist: backend=cpu (no CUDA device found)\n" || r.err.rfind("ghist: backend=gpu (", 0) == 0)
      << r.err;
  run_result cpu = run_ghist({"--backend", "cpu", in.path()});
  EXPECT_EQ(cpu.err, "ghist: backend=cpu (--backend cpu)\n");
}

TEST(CliErrors, MissingFiles) {
  temp_file in("1\n");
  expect_error({"/nonexistent/ghist_no_such_file.txt"}, 1, {"cannot open", "ghist_no_such_file.txt"});
  expect_error({"--weights", "/nonexistent/w.txt", in.path()}, 1, {"cannot open", "/nonexistent/w.txt"});
  expect_error({"/tmp"}, 1, {"cannot read", "/tmp"});
}

TEST(CliErrors, UnknownDtype) {
  temp_file in("1\n");
  expect_error({"--dtype", "float128", in.path()}, 2, {"unknown --dtype", "float128"});
  expect_error({"--dtype", "int32", "--weights", in.path(), "--weights-dtype", "bogus", in.path()}, 2,
               {"unknown --weights-dtype", "bogus"});
}

TEST(CliErrors, TruncatedRecord) {
  temp_file in(std::string(10, '\0'));
  expect_error({"--dtype", "int32", in.path()}, 1, {"10 bytes", "multiple of 4", "int32"});
  temp_file keys(raw<std::int32_t>({1, 2}));
  temp_file weights(std::string(12, '\0'));
  expect_error({"--dtype", "int32", "--weights", weights.path(), keys.path()}, 1, {"12 bytes", "multiple of 8"});
}

TEST(CliErrors, BadRange) {
  temp_file in("1\n");
  expect_error({"--range", "5:5", in.path()}, 2, {"empty --range", "5:5"});
  expect_error({"--range", "6:-1", in.path()}, 2, {"empty --range"});
  expect_error({"--range", "nan:1", in.path()}, 2, {"finite"});
  expect_error({"--range", "0:inf", in.path()}, 2, {"finite"});
  expect_error({"--range", "1", in.path()}, 2, {"LO:HI"});
  expect_error({"--range", "1:2:3", in.path()}, 2, {"LO:HI"});
  expect_error({"--range", "a:2", in.path()}, 2, {"'a'", "not a number"});
  temp_file ints(raw<std::int32_t>({1}));
  expect_error({"--dtype", "int32", "--range", "0.5:2", ints.path()}, 2, {"integer", "0.5"});
  temp_file u64(raw<std::uint64_t>({1}));
  expect_error({"--dtype", "uint64", "--range", "-1:2", u64.path()}, 2, {"does not fit", "uint64"});
}

TEST(CliErrors, BadBins) {
  temp_file in("1\n");
  expect_error({"--bins", "0", in.path()}, 2, {"--bins", "> 0"});
  expect_error({"--bins", "-3", in.path()}, 2, {"--bins", "> 0"});
  expect_error({"--bins", "ten", in.path()}, 2, {"--bins", "'ten'"});
  expect_error({"--bins", "1.5", in.path()}, 2, {"--bins", "'1.5'"});
  expect_error({"--bins", "", in.path()}, 2, {"--bins"});
  expect_error({"--bins", "99999999999999999999", in.path()}, 2, {"--bins"});
  expect_error({"--bins", "2000000000", in.path()}, 2, {"--bins", "maximum"});
  expect_error({in.path(), "--bins"}, 2, {"--bins", "needs a value"});
}

TEST(CliErrors, WeightsOfAnotherLength) {
  temp_file in("1\n2\n3\n4\n5\n");
  temp_file weights("1\n2\n");
  expect_error({"--weights", weights.path(), in.path()}, 1, {"2 values", "has 5"});
}

TEST(CliErrors, OperatorProblems) {
  temp_file in("1\n");
  expect_error({"--op", "mean", in.path()}, 2, {"unknown --op", "mean"});
  expect_error({"--op", "sum", in.path()}, 2, {"--op sum", "--weights"});
  expect_error({"--op", "min", in.path()}, 2, {"--op min", "--weights"});
  expect_error({"--op", "max", in.path()}, 2, {"--op max", "--weights"});
  expect_error({"--op", "count", "--weights", in.path(), in.path()}, 2, {"--op count"});
}

TEST(CliErrors, BadNumberInText) {
  temp_file in("1\n2\n# comment\n1.2.3\n");
  expect_error({in.path()}, 1, {":4:", "'1.2.3'", "not a number"});
  expect_error({"-"}, 1, {"<stdin>:2:", "abc"}, "5\nabc\n");
  temp_file keys("1\n2.5\n");
  expect_error({"--bincount", keys.path()}, 1, {":2:", "'2.5'", "integer"});
  temp_file binary(std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8));
  expect_error({binary.path()}, 1, {":1:", "--dtype"});
  temp_file weights("1\nx\n");
  expect_error({"--weights", weights.path(), "-"}, 1, {":2:", "'x'"}, "1\n2\n");
}

TEST(CliErrors, EmptyInputWithoutRange) {
  temp_file empty("");
  expect_error({empty.path()}, 1, {"no values", "--range"});
  temp_file comments("# only a comment\n\n");
  expect_error({comments.path()}, 1, {"no values", "--range"});
  temp_file not_finite("nan\ninf\n");
  expect_error({not_finite.path()}, 1, {"no finite values", "--range"});
  expect_error({"--bincount", empty.path()}, 1, {"no keys", "--bins"});
  temp_file negative("-1\n-5\n");
  expect_error({"--bincount", negative.path()}, 1, {"no key >= 0", "--bins"});
  temp_file huge("4000000000\n");
  expect_error({"--bincount", huge.path()}, 1, {"4000000000", "--bins"});
}

TEST(CliErrors, CommandLine) {
  temp_file in("1\n");
  expect_error({}, 2, {"missing INPUT"});
  expect_error({in.path(), in.path()}, 2, {"one INPUT"});
  expect_error({"--frobnicate", in.path()}, 2, {"unknown option", "--frobnicate"});
  expect_error({"--backend", "tpu", in.path()}, 2, {"unknown --backend", "tpu"});
  expect_error({"--bincount", "--range", "0:1", in.path()}, 2, {"--range", "--bincount"});
  expect_error({"--bincount", "--dtype", "float32", in.path()}, 2, {"--bincount", "integer"});
  expect_error({"--weights", "-", "-"}, 2, {"stdin"});
  expect_error({"--closed=yes", in.path()}, 2, {"--closed", "no value"});
}

TEST(CliErrors, GpuRequestedWithoutGpu) {
  if (auto_backend_is_gpu()) GTEST_SKIP() << "a GPU is present";
  temp_file in("1\n");
  expect_error({"--backend", "gpu", in.path()}, 1, {"--backend gpu", "no CUDA device"});
}

TEST(CliErrors, NoPartialOutputFile) {
  temp_file in("1\nbad\n");
  std::string out_path = in.path() + ".csv";
  expect_error({"--output", out_path, in.path()}, 1, {":2:"});
  EXPECT_FALSE(file_exists(out_path));
  expect_error({"--output", "/nonexistent/dir/out.csv", "--range", "0:1", "-"}, 1, {"cannot create", "out.csv"});
}

}  // namespace
