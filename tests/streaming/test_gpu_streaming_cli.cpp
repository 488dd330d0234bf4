// The CLI's GPU streaming path on files many chunks long (24 MB with --chunk-bytes 1M): `ghist --backend gpu` must
// print what `--backend cpu` prints, byte for byte, for counts, min and max; sums of doubles may differ in the last
// digits (another order of additions) and are compared with a tolerance. Raw, text and .npy inputs, even bins, the
// range taken from the data, keys, weights in lockstep.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_test_support.hpp"

namespace {

const std::size_t big_bytes = std::size_t(24) << 20;

template <class T>
std::string raw_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string npy_v1(const std::string& descr, std::size_t n, const std::string& data) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\0';
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>((dict.size() >> 8) & 0xFF);
  return out + dict + data;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream s(line);
  for (std::string x; std::getline(s, x, ',');) f.push_back(x);
  return f;
}

/// Runs args with --backend cpu and --backend gpu (and --chunk-bytes 1M); the outputs must match: exactly, or for
/// `sum` with the last column equal within a relative 1e-9.
void expect_gpu_matches_cpu(std::vector<std::string> args, bool sum = false) {
  std::string what = "ghist";
  for (const auto& a : args) what += " " + a;
  SCOPED_TRACE(what);
  args.insert(args.begin(), {"--chunk-bytes", "1M"});
  std::vector<std::string> cpu = args, gpu = args;
  cpu.insert(cpu.begin(), {"--backend", "cpu"});
  gpu.insert(gpu.begin(), {"--backend", "gpu"});
  const run_result c = run_ghist(cpu);
  run_result g = run_ghist(gpu);
  // JSON names the backend; everything else must be the same.
  const std::string gpu_field = "\"backend\": \"gpu\"";
  if (const std::size_t at = g.out.find(gpu_field); at != std::string::npos)
    g.out.replace(at, gpu_field.size(), "\"backend\": \"cpu\"");
  ASSERT_EQ(c.status, 0) << c.err;
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(g.err.rfind("ghist: backend=gpu (", 0), 0u) << g.err;
  ASSERT_FALSE(c.out.empty());
  if (!sum) {
    EXPECT_EQ(g.out, c.out);
    return;
  }
  std::stringstream cs(c.out), gs(g.out);
  std::string cl, gl;
  int line = 0;
  while (std::getline(cs, cl)) {
    ++line;
    ASSERT_TRUE(static_cast<bool>(std::getline(gs, gl))) << "GPU output ends at line " << line;
    const auto cf = csv_fields(cl), gf = csv_fields(gl);
    ASSERT_EQ(cf.size(), gf.size()) << cl << " vs " << gl;
    if (line == 1 || cf.empty()) {
      EXPECT_EQ(gl, cl);
      continue;
    }
    for (std::size_t i = 0; i + 1 < cf.size(); ++i) EXPECT_EQ(gf[i], cf[i]) << "line " << line;
    const double a = std::stod(cf.back()), b = std::stod(gf.back());
    EXPECT_LE(std::fabs(a - b), 1e-9 * std::max(1.0, std::fabs(a))) << "line " << line << ": " << cl << " vs " << gl;
  }
  EXPECT_FALSE(static_cast<bool>(std::getline(gs, gl))) << "GPU output has more lines";
}

class StreamingCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::uint64_t seed = ghist_test_seed();
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.5, 1.0);
    const std::size_t n = big_bytes / sizeof(double);
    std::vector<double> x(n), w(n);
    for (auto& v : x) v = normal(rng);
    for (std::size_t i = 0; i < 1000; ++i) x[rng() % n] = 2.5;  // exactly the upper edge: NumPy's closed last bin
    for (auto& v : w) v = std::uniform_real_distribution<double>(-100, 100)(rng);
    doubles_.emplace(raw_bytes(x));
    weights_.emplace(raw_bytes(w));
    std::vector<std::int32_t> k(big_bytes / sizeof(std::int32_t));
    for (auto& v : k) v = static_cast<std::int32_t>(rng() % 1100) - 50;
    keys_.emplace(raw_bytes(k));
    std::vector<double> kw(k.size());
    for (auto& v : kw) v = std::uniform_real_distribution<double>(-1, 1)(rng);
    key_weights_.emplace(raw_bytes(kw));
    std::vector<float> f(big_bytes / sizeof(float));
    for (auto& v : f) v = static_cast<float>(normal(rng));
    npy_.emplace(npy_v1("<f4", f.size(), raw_bytes(f)));
    for (auto& v : f) v = static_cast<float>(normal(rng));
    float_weights_.emplace(raw_bytes(f));
    std::string text;
    char line[64];
    while (text.size() < big_bytes) {
      std::snprintf(line, sizeof line, "%.6f\n", normal(rng));
      text += line;
    }
    text_.emplace(text);
  }
  static std::uint64_t ghist_test_seed() {
    return (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  std::optional<temp_file> doubles_, weights_, keys_, key_weights_, npy_, float_weights_, text_;
};

TEST_F(StreamingCli, RawDoublesEveryOperation) {
  const std::string in = doubles_->path(), w = weights_->path();
  expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "1000", "--range", "-1.5:2.5", in});
  expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "777", in});  // range from the data: two passes
  expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "1000", "--range", "-1.5:2.5", "--closed", in});
  for (const char* op : {"min", "max"})
    expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "1000", "--range", "-1.5:2.5", "--op", op, "--weights", w,
                            "--weights-dtype", "float64", in});
  expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "1000", "--range", "-1.5:2.5", "--op", "sum", "--weights", w,
                          "--weights-dtype", "float64", in},
                         true);
  expect_gpu_matches_cpu({"--dtype", "float64", "--bins", "64", "--range", "-1.5:2.5", "--format", "json", in});
}

TEST_F(StreamingCli, RawKeysBincount) {
  const std::string in = keys_->path(), w = key_weights_->path();
  expect_gpu_matches_cpu({"--dtype", "int32", "--bincount", "--bins", "1000", in});
  expect_gpu_matches_cpu({"--dtype", "int32", "--bincount", in});  // bins from the largest key
  expect_gpu_matches_cpu({"--dtype", "int32", "--bincount", "--bins", "1000", "--op", "max", "--weights", w,
                          "--weights-dtype", "float64", in});
  expect_gpu_matches_cpu({"--dtype", "int32", "--bincount", "--bins", "1000", "--op", "sum", "--weights", w,
                          "--weights-dtype", "float64", in},
                         true);
}

TEST_F(StreamingCli, TextAndNpy) {
  expect_gpu_matches_cpu({"--bins", "500", "--range", "-2:3", text_->path()});
  expect_gpu_matches_cpu({"--bins", "500", text_->path()});
  expect_gpu_matches_cpu({"--bins", "500", "--range", "-2:3", npy_->path()});
  expect_gpu_matches_cpu({"--bins", "300", npy_->path()});
  expect_gpu_matches_cpu({"--bins", "300", "--range", "-2:3", "--op", "max", "--weights", float_weights_->path(),
                          "--weights-dtype", "float32", npy_->path()});
}

}  // namespace
