// Tests of ghist's input formats (half/bfloat16 raw, byte order, CSV, .npy, PGM/PPM, PNG), outputs (JSON, bar
// chart, SVG and PNG plots) and 2-D histograms, with their errors: one line on stderr, a non-zero exit, no output.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#ifdef GHIST_TEST_HAVE_PNG
#include <png.h>
#endif

#include "cli_test_support.hpp"

namespace {

class CliFormats : public CliBackendTest {};

INSTANTIATE_TEST_SUITE_P(Backends, CliFormats, ::testing::Values("cpu", "auto"));

std::string shortest(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

std::string u16le(std::initializer_list<unsigned> values) {
  std::string s;
  for (unsigned v : values) s += static_cast<char>(v & 0xFF), s += static_cast<char>(v >> 8);
  return s;
}
std::string u16be(std::initializer_list<unsigned> values) {
  std::string s;
  for (unsigned v : values) s += static_cast<char>(v >> 8), s += static_cast<char>(v & 0xFF);
  return s;
}
std::string reversed_each(const std::string& bytes, std::size_t size) {
  std::string out = bytes;
  for (std::size_t i = 0; i + size <= out.size(); i += size) std::reverse(out.begin() + i, out.begin() + i + size);
  return out;
}

/// Runs ghist with environment assignments before it (e.g. COLUMNS=40).
run_result run_with_env(const std::string& env, const std::vector<std::string>& args) {
  temp_file out, err;
  std::string cmd = env + " " + shell_quote(GHIST_CLI_PATH);
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  cmd += " </dev/null >" + shell_quote(out.path()) + " 2>" + shell_quote(err.path());
  int raw_status = std::system(cmd.c_str());
  run_result r;
  r.status = (raw_status != -1 && WIFEXITED(raw_status)) ? WEXITSTATUS(raw_status) : -1;
  r.out = read_file(out.path());
  r.err = read_file(err.path());
  return r;
}

/// A .npy file: version 1, 2 or 3 header with `descr`, `shape` and fortran order, then `data`.
std::string npy(int version, const std::string& descr, const std::string& shape, const std::string& data,
                bool fortran = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': " + shape + ", }";
  const std::size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  std::size_t n = dict.size();
  out += static_cast<char>(n & 0xFF);
  out += static_cast<char>((n >> 8) & 0xFF);
  if (version > 1) out += std::string(2, '\0');
  return out + dict + data;
}

// ---------------------------------------------------------------------------------------------------------------
// Raw binary: half, bfloat16, byte order.

TEST_P(CliFormats, HalfAndBfloat16AreExact) {
  // Keys 0..5 put each weight in its own bin; --op max prints it exactly.
  temp_file keys("0\n1\n2\n3\n4\n5\n");
  temp_file half(u16le({0x3C00, 0x3E00, 0xC000, 0x7BFF, 0x0001, 0x7C00}));
  const std::string expected_half = header + "0,0,1,1\n1,1,2,1.5\n2,2,3,-2\n3,3,4,65504\n4,4,5," +
                                    shortest(std::ldexp(1.0, -24)) + "\n5,5,6,inf\n";
  EXPECT_EQ(ok({"--bincount", "--weights", half.path(), "--weights-dtype", "float16", "--op", "max", keys.path()}),
            expected_half);
  EXPECT_EQ(ok({"--bincount", "--weights", half.path(), "--weights-dtype", "half", "--op", "max", keys.path()}),
            expected_half);
  temp_file brain(u16le({0x3F80, 0x4049, 0xC2F7, 0x0001, 0x7F7F, 0xFF80}));
  EXPECT_EQ(ok({"--bincount", "--weights", brain.path(), "--weights-dtype", "bfloat16", "--op", "max", keys.path()}),
            header + "0,0,1,1\n1,1,2,3.140625\n2,2,3,-123.5\n3,3,4," + shortest(std::ldexp(1.0, -133)) + "\n4,4,5," +
                shortest(std::ldexp(255.0, 127 - 7)) + "\n5,5,6,-inf\n");
  // As the input: NaN and infinities are left out.
  temp_file h(u16le({0x3C00, 0x4000, 0x4000, 0x7E00, 0xFC00}));
  EXPECT_EQ(ok({"--dtype", "f2", "--bins", "2", h.path()}), header + "0,1,1.5,1\n1,1.5,2,2\n");
}

TEST_P(CliFormats, BigEndianForEveryDtype) {
  temp_file keys_le(raw<std::int32_t>({1, 2, 2, 70000}));
  temp_file keys_be(reversed_each(raw<std::int32_t>({1, 2, 2, 70000}), 4));
  EXPECT_EQ(ok({"--dtype", "int32", "--endian", "big", "--bins", "2", "--range", "0:4", keys_be.path()}),
            ok({"--dtype", "int32", "--bins", "2", "--range", "0:4", keys_le.path()}));
  EXPECT_EQ(ok({"--dtype", ">i4", "--bins", "2", "--range", "0:4", keys_be.path()}),
            header + "0,0,2,1\n1,2,4,2\n");
  temp_file f64(reversed_each(raw<double>({0.25, 0.75, 0.75}), 8));
  EXPECT_EQ(ok({"--dtype", "float64", "--endian=big", "--bins", "2", "--range", "0:1", f64.path()}),
            header + "0,0,0.5,1\n1,0.5,1,2\n");
  temp_file h(u16be({0x3C00, 0x4000}));
  EXPECT_EQ(ok({"--dtype", ">float16", "--bins", "1", "--range", "0:4", h.path()}), header + "0,0,4,2\n");
  EXPECT_EQ(ok({"--dtype", "bfloat16", "--endian", "big", "--bins", "1", "--range", "1:4", h.path()}),
            header + "0,1,4,1\n");  // 0x3C00 as bfloat16 is 2^-7, 0x4000 is 2
  // Big-endian weights follow --endian too.
  temp_file w(reversed_each(raw<double>({1.5, 2.5, 3, 4}), 8));
  EXPECT_EQ(ok({"--dtype", "int32", "--endian", "big", "--bincount", "--bins", "3", "--weights", w.path(),
                keys_be.path()}),
            header + "0,0,1,0\n1,1,2,1.5\n2,2,3,5.5\n");
  // uint8 has no byte order.
  temp_file u8(std::string("\x01\x02", 2));
  EXPECT_EQ(ok({"--dtype", "uint8", "--endian", "big", "--bincount", u8.path()}), header + "0,0,1,0\n1,1,2,1\n2,2,3,1\n");
}

// ---------------------------------------------------------------------------------------------------------------
// CSV.

TEST_P(CliFormats, CsvColumnByNameAndIndex) {
  temp_file csv("id,\"size, mm\",label\n1,0.5,\"a \"\"b\"\"\"\n2,1.5,c\n\n3, 1.75 ,d\n");
  const std::string expected = header + "0,0,1,1\n1,1,2,2\n";
  EXPECT_EQ(ok({"--csv-column", "size, mm", "--range", "0:2", "--bins", "2", csv.path()}), expected);
  EXPECT_EQ(ok({"--csv-column", "1", "--range", "0:2", "--bins", "2", csv.path()}), expected);
  // No header: the first row's field is a number, so it is data.
  temp_file plain("0.5;7\r\n1.5;8\r\n1.25;9\r\n");
  EXPECT_EQ(ok({"--csv-column", "0", "--csv-delimiter", ";", "--range", "0:2", "--bins", "2", plain.path()}),
            expected);
  temp_file tabs("a\tb\n1\t2\n3\t4\n");
  EXPECT_EQ(ok({"--csv-column", "b", "--csv-delimiter", "tab", "--bincount", "--bins", "5", tabs.path()}),
            header + "0,0,1,0\n1,1,2,0\n2,2,3,1\n3,3,4,0\n4,4,5,1\n");
  // Quoted numbers and a quoted field over two lines.
  temp_file quoted("k,note\n\"2\",\"two\nlines\"\n1,x\n");
  EXPECT_EQ(ok({"--csv-column", "k", "--bincount", quoted.path()}), header + "0,0,1,0\n1,1,2,1\n2,2,3,1\n");
  // From stdin, with weights from a text file.
  temp_file weights("10\n20\n");
  EXPECT_EQ(ok({"--csv-column", "k", "--bincount", "--weights", weights.path(), "-"}, "k\n1\n1\n"),
            header + "0,0,1,0\n1,1,2,30\n");
}

TEST(CliFormatErrors, CsvErrors) {
  temp_file csv("a,b\n1,2\n3,x\n");
  expect_error({"--csv-column", "b", csv.path()}, 1, {":3:", "column 'b'", "'x' is not a number"});
  expect_error({"--csv-column", "c", csv.path()}, 1, {"unknown CSV column 'c'", "header: a, b"});
  expect_error({"--csv-column", "5", csv.path()}, 1, {":1:", "index 5", "only 2 fields"});
  temp_file empty_field("a,b\n1,\n");
  expect_error({"--csv-column", "b", empty_field.path()}, 1, {":2:", "empty field"});
  temp_file open_quote("a\n\"1\n2\n");
  expect_error({"--csv-column", "a", open_quote.path()}, 1, {":2:", "unterminated quoted field"});
  temp_file after_quote("a\n\"1\"x\n");
  expect_error({"--csv-column", "a", after_quote.path()}, 1, {":2:", "after a closing quote"});
  temp_file keys("k\n1.5\n");
  expect_error({"--csv-column", "k", "--bincount", keys.path()}, 1, {":2:", "not an integer key"});
  expect_error({"--csv-column", "a", "--csv-delimiter", "ab", csv.path()}, 2, {"--csv-delimiter"});
  expect_error({"--csv-column", "a", "--dtype", "int8", csv.path()}, 2, {"--dtype", "--csv-column"});
  expect_error({"--csv-column", "a", "--csv-column", "b", csv.path()}, 2, {"twice"});
}

// ---------------------------------------------------------------------------------------------------------------
// .npy

TEST_P(CliFormats, NpyFiles) {
  // Version 1, little-endian int16, 2-D (flattened).
  temp_file v1(npy(1, "<i2", "(2, 3)", raw<std::int16_t>({0, 1, 1, 2, 2, 2})));
  EXPECT_EQ(ok({"--bincount", v1.path()}), header + "0,0,1,1\n1,1,2,2\n2,2,3,3\n");
  // Version 2, big-endian float64, Fortran order.
  temp_file v2(npy(2, ">f8", "(2, 2)", reversed_each(raw<double>({0.25, 0.5, 0.75, 0.75}), 8), true));
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:1", v2.path()}), header + "0,0,0.5,1\n1,0.5,1,3\n");
  // Version 3, float16 and uint8, bool, a 0-d array; found by content without the extension.
  temp_file v3(npy(3, "<f2", "(3,)", u16le({0x3C00, 0x3E00, 0x4000})));
  EXPECT_EQ(ok({"--bins", "1", "--range", "0:4", v3.path()}), header + "0,0,4,3\n");
  temp_file u1(npy(1, "|u1", "(4,)", std::string("\x00\x01\x01\xff", 4)));
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:256", u1.path()}), header + "0,0,128,3\n1,128,256,1\n");
  temp_file b1(npy(1, "|b1", "(3,)", std::string("\x01\x00\x01", 3)));
  EXPECT_EQ(ok({"--bincount", b1.path()}), header + "0,0,1,1\n1,1,2,2\n");
  temp_file scalar(npy(1, "<u8", "()", raw<std::uint64_t>({7})));
  std::string out = ok({"--bincount", "--bins", "8", scalar.path()});
  EXPECT_EQ(count_lines(out), 9);
  EXPECT_EQ(out.substr(out.size() - 8), "7,7,8,1\n");
  // .npy weights.
  temp_file keys(npy(1, "<i4", "(2,)", raw<std::int32_t>({1, 1})));
  temp_file w(npy(1, "<f4", "(2,)", raw<float>({0.5f, 2.0f})));
  EXPECT_EQ(ok({"--bincount", "--weights", w.path(), keys.path()}), header + "0,0,1,0\n1,1,2,2.5\n");
}

TEST(CliFormatErrors, NpyErrors) {
  temp_file truncated(npy(1, "<i4", "(3,)", raw<std::int32_t>({1, 2})));
  expect_error({truncated.path()}, 1, {"truncated .npy array", "8 data bytes", "12 expected"});
  temp_file structured(npy(1, "[('a', '<i4')]", "(1,)", raw<std::int32_t>({1})));
  // (the descr above is not quoted as NumPy writes a list; the reader sees a quote, then an unknown dtype)
  expect_error({structured.path()}, 1, {"not a readable .npy file"});
  std::string list_header = npy(1, "X", "(1,)", raw<std::int32_t>({1}));
  list_header.replace(list_header.find("'X'"), 3, "[('a', '<i4')]");
  temp_file structured2(list_header);
  expect_error({structured2.path()}, 1, {"structured dtypes are not supported"});
  temp_file object(npy(1, "|O", "(1,)", raw<std::int64_t>({0})));
  expect_error({object.path()}, 1, {"dtype '|O' is not supported"});
  temp_file complex(npy(1, "<c16", "(1,)", std::string(16, '\0')));
  expect_error({complex.path()}, 1, {"'<c16' is not supported"});
  char name[] = "/tmp/ghist_cli_test_XXXXXX.npy";
  int fd = ::mkstemps(name, 4);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "1\n2\n", 4), 4);
  ::close(fd);
  expect_error({name}, 1, {"not a readable .npy file", "magic"});
  std::remove(name);
  temp_file short_header(npy(1, "<i4", "(1,)", "").substr(0, 20));
  expect_error({short_header.path()}, 1, {"truncated header"});
}

// ---------------------------------------------------------------------------------------------------------------
// Images: PGM/PPM, PNG.

TEST_P(CliFormats, PgmAndPpm) {
  // Gray, ASCII with a comment: 256 bins over [0, 256) by default for 8-bit images.
  temp_file p2("P2\n# a comment\n2 2\n255\n0 10\n255 255\n");
  std::string out = ok({p2.path()});
  EXPECT_EQ(count_lines(out), 257);
  EXPECT_NE(out.find("\n0,0,1,1\n"), std::string::npos);
  EXPECT_NE(out.find("\n10,10,11,1\n"), std::string::npos);
  EXPECT_NE(out.find("\n255,255,256,2\n"), std::string::npos);
  EXPECT_EQ(ok({"--bins", "4", p2.path()}), header + "0,0,64,2\n1,64,128,0\n2,128,192,0\n3,192,256,2\n");
  temp_file p5(std::string("P5 2 2 255\n\x00\x0a\xff\xff", 15));
  EXPECT_EQ(ok({"--bins", "4", p5.path()}), ok({"--bins", "4", p2.path()}));
  // 16-bit binary: big-endian samples; bins over [0, maxval + 1).
  temp_file p5_16("P5\n3 1\n1023\n" + u16be({0, 512, 1023}));
  EXPECT_EQ(ok({"--bins", "2", p5_16.path()}), header + "0,0,512,1\n1,512,1024,2\n");
  // Colour: per-channel columns r,g,b.
  const std::string rgb_header = "bin,lower,upper,r,g,b\n";
  temp_file p6(std::string("P6\n1 2\n255\n\x01\x02\x03\x04\x05\x06", 17));
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:8", p6.path()}), rgb_header + "0,0,4,1,1,1\n1,4,8,1,1,1\n");
  temp_file p3("P3 2 1 7 0 1 2 7 7 7\n");
  EXPECT_EQ(ok({"--bins", "2", p3.path()}), rgb_header + "0,0,4,1,1,1\n1,4,8,1,1,1\n");
  EXPECT_EQ(ok({"--bincount", "--bins", "2", p3.path()}), rgb_header + "0,0,1,1,0,0\n1,1,2,0,1,0\n");
}

TEST(CliFormatErrors, ImageErrors) {
  temp_file truncated(std::string("P5\n2 2\n255\n\x01\x02\x03", 14));
  expect_error({truncated.path()}, 1, {"unreadable image", "truncated", "3 bytes", "4 expected"});
  temp_file truncated16("P5\n2 1\n65535\n" + std::string(3, '\0'));
  expect_error({truncated16.path()}, 1, {"unreadable image", "truncated"});
  temp_file ascii_short("P2\n2 2\n255\n1 2 3\n");
  expect_error({ascii_short.path()}, 1, {"unreadable image", "truncated"});
  temp_file above("P2\n1 1\n15\n16\n");
  expect_error({above.path()}, 1, {"above maxval 15"});
  temp_file bad_max("P2\n1 1\n70000\n1\n");
  expect_error({bad_max.path()}, 1, {"maxval 70000"});
  temp_file bad_header("P6\n1 x\n255\n");
  expect_error({bad_header.path()}, 1, {"bad height"});
  temp_file image("P2 1 1 255 1\n");
  temp_file weights("1\n");
  expect_error({"--weights", image.path(), weights.path()}, 1, {"weights", "is an image"});
  temp_file rgb("P3 1 1 255 1 2 3\n");
  expect_error({"--weights", weights.path(), rgb.path()}, 2, {"--weights", "several channels"});
  temp_file not_png("not a png at all\n");
  std::string png_path = not_png.path() + ".png";
  ASSERT_EQ(std::rename(not_png.path().c_str(), png_path.c_str()), 0);
  expect_error({png_path}, 1, {"unreadable image"});
  std::rename(png_path.c_str(), not_png.path().c_str());
  temp_file broken_png(std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16));
  expect_error({broken_png.path()}, 1, {"unreadable image"});
}

#ifdef GHIST_TEST_HAVE_PNG
std::string write_png(int width, int height, png_uint_32 format, const std::vector<unsigned char>& pixels,
                      const unsigned char* colormap = nullptr, int colormap_entries = 0) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = format;
  image.colormap_entries = static_cast<png_uint_32>(colormap_entries);
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, colormap));
  std::string out(size, '\0');
  EXPECT_TRUE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, colormap));
  out.resize(size);
  return out;
}

TEST_P(CliFormats, PngImages) {
  const std::string rgb_header = "bin,lower,upper,r,g,b\n";
  temp_file gray(write_png(2, 2, PNG_FORMAT_GRAY, {0, 10, 255, 255}));
  EXPECT_EQ(ok({"--bins", "4", gray.path()}), header + "0,0,64,2\n1,64,128,0\n2,128,192,0\n3,192,256,2\n");
  temp_file gray_alpha(write_png(2, 1, PNG_FORMAT_GA, {1, 0, 200, 255}));
  EXPECT_EQ(ok({"--bins", "2", gray_alpha.path()}), header + "0,0,128,1\n1,128,256,1\n");
  temp_file rgba(write_png(1, 2, PNG_FORMAT_RGBA, {1, 2, 3, 0, 4, 5, 6, 9}));
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:8", rgba.path()}), rgb_header + "0,0,4,1,1,1\n1,4,8,1,1,1\n");
  temp_file rgb(write_png(1, 2, PNG_FORMAT_RGB, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(ok({"--bins", "2", "--range", "0:8", rgb.path()}), rgb_header + "0,0,4,1,1,1\n1,4,8,1,1,1\n");
  // 16-bit gray (linear: values written as given): bins over [0, 65536).
  std::vector<unsigned char> wide(4);
  const std::uint16_t w16[2] = {1000, 60000};
  std::memcpy(wide.data(), w16, 4);
  temp_file gray16(write_png(2, 1, PNG_FORMAT_LINEAR_Y, wide));
  EXPECT_EQ(ok({"--bins", "2", gray16.path()}), header + "0,0,32768,1\n1,32768,65536,1\n");
  // A palette image becomes RGB.
  const unsigned char palette[6] = {10, 20, 30, 200, 210, 220};
  temp_file indexed(write_png(3, 1, PNG_FORMAT_RGB_COLORMAP, {0, 1, 1}, palette, 2));
  EXPECT_EQ(ok({"--bins", "2", indexed.path()}), rgb_header + "0,0,128,1,1,1\n1,128,256,2,2,2\n");
}
#endif

// ---------------------------------------------------------------------------------------------------------------
// Outputs: JSON, bars, plots.

TEST_P(CliFormats, Json) {
  temp_file in("0.5\n1.5\n1.5\n9\nnan\n");
  EXPECT_EQ(ok({"--format", "json", "--bins", "2", "--range", "0:2", in.path()}),
            "{\n  \"backend\": \"" + std::string(ok({"--format", "json", "--range", "0:2", in.path()})
                                                     .find("\"gpu\"") != std::string::npos ? "gpu" : "cpu") +
                "\",\n  \"input\": \"" + in.path() +
                "\",\n  \"format\": \"text\",\n  \"dtype\": \"text\",\n  \"op\": \"count\",\n  \"bins\": 2,\n"
                "  \"range\": [0, 2],\n  \"closed_last\": false,\n  \"bincount\": false,\n  \"samples\": 5,\n"
                "  \"ignored\": 2,\n  \"channels\": [\"value\"],\n  \"edges\": [0, 1, 2],\n  \"values\": [1, 2]\n}\n");
  temp_file keys("0\n2\n");
  temp_file w("1.5\n2\n");
  std::string j = ok({"--format=json", "--bincount", "--bins", "3", "--weights", w.path(), "--op", "min", keys.path()});
  EXPECT_NE(j.find("\"range\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"values\": [1.5, null, 2]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"op\": \"min\""), std::string::npos) << j;
  temp_file p3("P3 1 1 255 1 2 3\n");
  j = ok({"--format", "json", "--bins", "1", p3.path()});
  EXPECT_NE(j.find("\"channels\": [\"r\", \"g\", \"b\"]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"values\": [\n    [1],\n    [1],\n    [1]\n  ]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"format\": \"ppm\""), std::string::npos) << j;
}

TEST(CliOutputs, Bars) {
  temp_file in("1\n2\n2\n3\n3\n3\n3\n");
  run_result r = run_with_env("COLUMNS=40 LANG=C LC_ALL= LC_CTYPE=", {"--backend", "cpu", "--bars", "--bins", "3",
                                                                        "--range", "1:4", in.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  // "[1, 2) 1 " is 9 columns; the largest bar fills the other 31.
  EXPECT_EQ(r.out, "[1, 2) 1 ########\n[2, 3) 2 ################\n[3, 4) 4 " + std::string(31, '#') + "\n");
  r = run_with_env("COLUMNS=40 LC_ALL=C.UTF-8", {"--backend", "cpu", "--format", "bars", "--bins", "3", "--range",
                                                  "1:4", in.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[3, 4) 4 \u2588\u2588"), std::string::npos) << r.out;
  EXPECT_EQ(count_lines(r.out), 3);
  temp_file p3("P3 1 1 255 1 2 3\n");
  // LC_ALL too: it outranks LANG, and the GPU machine sets it to a UTF-8 locale.
  r = run_with_env("LC_ALL=C LC_CTYPE=C LANG=C", {"--backend", "cpu", "--bars", "--bins", "2", p3.path()});
  EXPECT_EQ(r.out.rfind("r:\n[  0, 128) 1 #", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\ng:\n"), std::string::npos);
  EXPECT_NE(r.out.find("\nb:\n"), std::string::npos);
}

/// Whether the tags of an XML document nest properly (a simple check: no attributes with '>' in them).
bool tags_balanced(const std::string& xml, std::string* problem) {
  std::vector<std::string> open;
  for (std::size_t i = xml.find('<'); i != std::string::npos; i = xml.find('<', i + 1)) {
    std::size_t end = xml.find('>', i);
    if (end == std::string::npos) return *problem = "unclosed tag", false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      if (open.empty() || open.back() != name) return *problem = "unexpected </" + name + ">", false;
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  if (!open.empty()) return *problem = "<" + open.back() + "> not closed", false;
  return true;
}

TEST(CliOutputs, SvgPlot) {
  temp_file in("1\n2\n2\n3\n3\n3\n");
  std::string svg_path = in.path() + ".svg";
  run_result r = run_ghist({"--backend", "cpu", "--bins", "3", "--range", "1:4", "--plot", svg_path, in.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, header + "0,1,2,1\n1,2,3,2\n2,3,4,3\n");  // the CSV still goes to stdout
  std::string svg = read_file(svg_path);
  std::remove(svg_path.c_str());
  EXPECT_EQ(svg.rfind("<?xml version=\"1.0\"", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  std::string problem;
  EXPECT_TRUE(tags_balanced(svg, &problem)) << problem;
  EXPECT_NE(svg.find(">Histogram of " + in.path() + "</text>"), std::string::npos);
  EXPECT_NE(svg.find(">value</text>"), std::string::npos);   // x label
  EXPECT_NE(svg.find(">count</text>"), std::string::npos);   // y label
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);       // ticks
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);
  std::size_t bars_at = svg.find("<g class=\"bars\"");
  ASSERT_NE(bars_at, std::string::npos);
  std::string bars = svg.substr(bars_at, svg.find("</g>", bars_at) - bars_at);
  int rects = 0;
  for (std::size_t i = bars.find("<rect"); i != std::string::npos; i = bars.find("<rect", i + 1)) ++rects;
  EXPECT_EQ(rects, 3);
  // Names with XML characters are escaped.
  temp_file csv("a<&>\n1\n");
  r = run_ghist({"--backend", "cpu", "--csv-column", "a<&>", "--plot", svg_path, csv.path()});
  EXPECT_EQ(r.status, 0) << r.err;
  svg = read_file(svg_path);
  std::remove(svg_path.c_str());
  EXPECT_TRUE(tags_balanced(svg, &problem)) << problem;
}

TEST(CliOutputs, PngPlot) {
  temp_file in("1\n2\n2\n3\n");
  std::string png_path = in.path() + ".png";
  run_result r = run_ghist({"--backend", "cpu", "--plot", png_path, in.path()});
  if (r.status != 0 && r.err.find("without libpng") != std::string::npos) GTEST_SKIP() << "built without libpng";
  EXPECT_EQ(r.status, 0) << r.err;
  std::string png = read_file(png_path);
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(png[at])) << 24) | (std::uint32_t(std::uint8_t(png[at + 1])) << 16) |
           (std::uint32_t(std::uint8_t(png[at + 2])) << 8) | std::uint32_t(std::uint8_t(png[at + 3]));
  };
  EXPECT_EQ(be32(16), 800u);
  EXPECT_EQ(be32(20), 450u);
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  // Read back as an image by ghist itself: 800 * 450 pixels in each channel.
  r = run_ghist({"--backend", "cpu", "--format", "json", "--bins", "1", png_path});
  std::remove(png_path.c_str());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[360000],\n    [360000],\n    [360000]"), std::string::npos) << r.out;
}

/// Runs `shell_command` with its stderr on a new pseudo-terminal (stdin and stdout as given in the command);
/// returns what the terminal received.
std::string stderr_on_terminal(const std::string& shell_command) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return "(no pseudo-terminal)";
  const std::string slave = ::ptsname(master);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    const int fd = ::open(slave.c_str(), O_RDWR);
    if (fd < 0) ::_exit(127);
    ::dup2(fd, 2);
    ::close(master);
    ::execl("/bin/sh", "sh", "-c", shell_command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string seen;
  char buf[512];
  for (;;) {  // until the child's end closes the terminal (EIO on Linux)
    const ssize_t got = ::read(master, buf, sizeof buf);
    if (got <= 0) break;
    seen.append(buf, static_cast<std::size_t>(got));
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  return seen;
}

TEST(CliOutputs, ProgressBarOnlyOnATerminalAfterASecond) {
  // stdin gives 18 bytes (ghist looks at the first 16 to tell the format), then waits 1.5 s before the last 2: the
  // bar appears with the chunk read after the wait, then its line is cleared at the end.
  temp_file out;
  const std::string slow = "(printf '1\\n1\\n1\\n1\\n1\\n1\\n1\\n1\\n1\\n'; sleep 1.5; echo 2) | " +
                           shell_quote(GHIST_CLI_PATH) +
                           " --backend cpu --chunk-bytes 2 --range 0:3 --bins 3 ";
  std::string seen = stderr_on_terminal(slow + "- >" + shell_quote(out.path()));
  if (seen == "(no pseudo-terminal)") GTEST_SKIP() << seen;
  EXPECT_NE(seen.find("\rghist: read 20 B, "), std::string::npos) << seen;
  EXPECT_NE(seen.find("\r\033[K"), std::string::npos) << seen;
  EXPECT_NE(seen.find("ghist: backend=cpu (--backend cpu)"), std::string::npos) << seen;
  EXPECT_EQ(read_file(out.path()), header + "0,0,1,0\n1,1,2,9\n2,2,3,1\n");
  // --no-progress; and a fast input draws nothing.
  seen = stderr_on_terminal(slow + "--no-progress - >" + shell_quote(out.path()));
  EXPECT_EQ(seen.find("ghist: read"), std::string::npos) << seen;
  temp_file in("1\n2\n");
  seen = stderr_on_terminal(shell_quote(GHIST_CLI_PATH) + " --backend cpu " + shell_quote(in.path()) + " >/dev/null");
  EXPECT_EQ(seen.find("ghist: read"), std::string::npos) << seen;
}

// The commands of README.md's "The command line" on examples/data (all but the one on a file of the reader's).
TEST_P(CliFormats, ReadmeCommandsOnTheExampleData) {
  const std::string dir = GHIST_EXAMPLES_DIR "/data/";
  auto column_sum = [](const std::string& csv) {
    std::uint64_t total = 0;
    std::size_t at = csv.find('\n') + 1;  // after the header
    while (at < csv.size()) {
      const std::size_t end = csv.find('\n', at);
      total += std::stoull(csv.substr(csv.rfind(',', end) + 1, end - csv.rfind(',', end) - 1));
      at = end + 1;
    }
    return total;
  };
  std::string out = ok({"--bins", "50", "--range", "-5:5", dir + "samples.txt"});
  EXPECT_EQ(out.rfind(header, 0), 0u);
  EXPECT_EQ(count_lines(out), 51);
  out = ok({"--dtype", "int32", "--bincount", "--weights", dir + "weights.f64", "--op", "max", dir + "keys.i32"});
  EXPECT_EQ(count_lines(out), 17);
  out = ok({"--csv-column", "height_cm", dir + "people.csv"});
  EXPECT_EQ(column_sum(out), 200u);  // 200 people
  out = ok({"--csv-column", "height_cm", "--bars", dir + "people.csv"});
  EXPECT_EQ(count_lines(out), 10);
  out = ok({"--csv-column", "height_cm", "--csv-column2", "weight_kg", "--bins", "4", "--bins2", "3",
            dir + "people.csv"});  // the 2-D example of --help
  EXPECT_EQ(count_lines(out), 13);
  EXPECT_EQ(column_sum(out), 200u);
  temp_file plot;
  const std::string svg = plot.path() + ".svg";
  out = ok({"--bins", "8", "--plot", svg, dir + "gradient.ppm"});
  EXPECT_EQ(out.rfind("bin,lower,upper,r,g,b\n", 0), 0u) << out;
  EXPECT_EQ(count_lines(out), 9);
  EXPECT_NE(read_file(svg).find("<svg"), std::string::npos);
  std::remove(svg.c_str());
}

TEST(CliFormatErrors, OutputOptions) {
  temp_file in("1\n");
  expect_error({"--format", "xml", in.path()}, 2, {"unknown --format 'xml'"});
  expect_error({"--plot", "out.pdf", in.path()}, 2, {"--plot", ".svg or .png"});
  expect_error({"--plot", "/nonexistent/dir/p.svg", in.path()}, 1, {"cannot create", "p.svg"});
  expect_error({"--endian", "middle", "--dtype", "int32", in.path()}, 2, {"--endian"});
  expect_error({"--endian", "big", in.path()}, 2, {"--endian needs --dtype"});
}

// ---------------------------------------------------------------------------------------------------------------
// 2-D histograms of two CSV columns.

TEST_P(CliFormats, TwoDimensional) {
  temp_file csv("x;y\n0;0\n1;1\n1;0.2\n2;2\n5;0\n");
  EXPECT_EQ(ok({"--csv-delimiter", ";", "--csv-column", "x", "--csv-column2", "y", "--bins", "2", "--range", "0:2",
                "--closed", "--bins2", "2", "--range2", "0:2", csv.path()}),
            "bin_x,bin_y,x_lower,x_upper,y_lower,y_upper,value\n0,0,0,1,0,1,1\n0,1,0,1,1,2,0\n1,0,1,2,0,1,1\n"
            "1,1,1,2,1,2,2\n");
  // Automatic ranges (NumPy's: the maximum in the last bin), weights, JSON.
  temp_file w("1\n2\n3\n4\n5\n");
  std::string j = ok({"--csv-delimiter", ";", "--csv-column", "0", "--csv-column2", "1", "--bins", "1", "--bins2",
                      "2", "--weights", w.path(), "--format", "json", csv.path()});
  EXPECT_NE(j.find("\"x_edges\": [0, 5]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"y_edges\": [0, 1, 2]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"values\": [\n    [9, 6]\n  ]"), std::string::npos) << j;
  EXPECT_NE(j.find("\"op\": \"sum\""), std::string::npos) << j;
}

TEST(CliFormatErrors, TwoDimensionalErrors) {
  temp_file csv("x,y\n1,2\n");
  expect_error({"--csv-column2", "y", csv.path()}, 2, {"--csv-column2 needs --csv-column"});
  expect_error({"--bins2", "3", csv.path()}, 2, {"--bins2", "--csv-column2"});
  expect_error({"--csv-column", "x", "--csv-column2", "z", csv.path()}, 1, {"unknown CSV column 'z'"});
  expect_error({"--csv-column", "x", "--csv-column2", "y", "--bars", csv.path()}, 2, {"1-D histograms only"});
  expect_error({"--csv-column", "x", "--csv-column2", "y", "--bincount", csv.path()}, 2, {"--bincount", "2-D"});
}

}  // namespace

// Streaming input (--chunk-bytes): small chunks give the same bytes as one huge chunk.
namespace {

void expect_same_for_chunks(std::vector<std::string> args) {
  // --op count takes no weights.
  for (std::size_t i = 0; i + 3 < args.size(); ++i)
    if (args[i] == "--op" && args[i + 1] == "count" && args[i + 2] == "--weights") {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i + 2), args.begin() + static_cast<std::ptrdiff_t>(i + 4));
      for (std::size_t j = 0; j + 1 < args.size(); ++j)
        if (args[j] == "--weights-dtype") args.erase(args.begin() + static_cast<std::ptrdiff_t>(j), args.begin() + static_cast<std::ptrdiff_t>(j + 2));
      break;
    }
  std::vector<std::string> whole = args;
  whole.insert(whole.begin(), {"--backend", "cpu", "--chunk-bytes", "1G"});
  run_result ref = run_ghist(whole);
  ASSERT_EQ(ref.status, 0) << ref.err;
  for (const char* chunk : {"7", "64", "1000"}) {
    std::vector<std::string> a = args;
    a.insert(a.begin(), {"--backend", "cpu", "--chunk-bytes", chunk});
    run_result r = run_ghist(a);
    SCOPED_TRACE(chunk);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, ref.out);
    EXPECT_EQ(r.err, "ghist: backend=cpu (--backend cpu)\n");  // no progress bar: stderr is not a terminal
  }
}

std::string text_lines(int n, double scale) {
  std::string s = "# header comment\n";
  for (int i = 0; i < n; ++i) s += std::to_string((i * 37 % 101) * scale) + "\n";
  return s;
}

}  // namespace

TEST(CliStreaming, TextEveryOpSmallChunks) {
  temp_file in(text_lines(300, 0.25)), w(text_lines(300, 0.5));
  for (const char* op : {"count", "sum", "min", "max"}) {
    SCOPED_TRACE(op);
    expect_same_for_chunks({"--op", op, "--weights", w.path(), "--range", "0:30", "--bins", "7", in.path()});
    expect_same_for_chunks({"--op", op, "--weights", w.path(), "--bins", "7", in.path()});  // automatic range
  }
}

TEST(CliStreaming, RawAndNpyEveryOpSmallChunks) {
  std::vector<std::int32_t> keys;
  std::string k, wt;
  for (int i = 0; i < 500; ++i) {
    std::int32_t v = i * 13 % 29 - 3;
    double x = (i % 7) * 0.5;
    k.append(reinterpret_cast<const char*>(&v), 4);
    wt.append(reinterpret_cast<const char*>(&x), 8);
  }
  temp_file in(k), w(wt);
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (500,), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size() & 0xff);
  npy += static_cast<char>(header.size() >> 8);
  temp_file npy_in(npy + header + k);
  for (const char* op : {"count", "sum", "min", "max"}) {
    SCOPED_TRACE(op);
    expect_same_for_chunks({"--dtype", "int32", "--op", op, "--weights", w.path(), "--bincount", in.path()});
    expect_same_for_chunks({"--dtype", "int32", "--op", op, "--weights", w.path(), "--bins", "5", in.path()});
    expect_same_for_chunks({"--dtype", "int32", "--op", op, "--weights", w.path(), "--range", "0:20", in.path()});
    expect_same_for_chunks({"--op", op, "--weights", w.path(), "--weights-dtype", "float64", "--bins", "6",
                            npy_in.path()});
  }
}

TEST(CliStreaming, CsvEveryOpSmallChunks) {
  std::string csv = "name,x,\"quoted, header\"\n";
  for (int i = 0; i < 200; ++i)
    csv += "\"row\n" + std::to_string(i) + "\"," + std::to_string(i % 17 * 1.5) + "," + std::to_string(i) + "\n";
  temp_file in(csv), w(text_lines(200, 0.5));
  for (const char* op : {"count", "sum", "min", "max"}) {
    SCOPED_TRACE(op);
    expect_same_for_chunks({"--csv-column", "x", "--op", op, "--weights", w.path(), "--bins", "4", in.path()});
  }
}

TEST(CliStreaming, StdinStillWorks) {
  std::string text = text_lines(200, 1.0);
  temp_file in(text);
  run_result file = run_ghist({"--backend", "cpu", "--chunk-bytes", "16", in.path()});
  run_result piped = run_ghist({"--backend", "cpu", "--chunk-bytes", "16", "-"}, text);
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.out, file.out);
  run_result ranged = run_ghist({"--backend", "cpu", "--chunk-bytes", "16", "--range", "0:200", "-"}, text);
  run_result ranged_file = run_ghist({"--backend", "cpu", "--range", "0:200", in.path()});
  EXPECT_EQ(ranged.status, 0) << ranged.err;
  EXPECT_EQ(ranged.out, ranged_file.out);
}

TEST(CliStreaming, ErrorsMidStreamPrintNothing) {
  std::string text = text_lines(300, 1.0) + "oops\n" + text_lines(10, 1.0);
  temp_file in(text);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--range", "0:200", in.path()}, 1, {":302:", "oops"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", in.path()}, 1, {":302:", "oops"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--range", "0:200", "-"}, 1, {"<stdin>:302:", "oops"},
               text);
  std::string r(1001, '\0');
  temp_file raw_in(r);
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--dtype", "int32", "--range", "0:2", raw_in.path()}, 1,
               {"1001 bytes", "truncated"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--dtype", "int32", "--range", "0:2", "-"}, 1,
               {"1001 bytes", "truncated"}, r);
  temp_file w(text_lines(299, 1.0));
  temp_file in2(text_lines(300, 1.0));
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--weights", w.path(), in2.path()}, 1,
               {"299 values", "has 300"});
  expect_error({"--backend", "cpu", "--chunk-bytes", "64", "--chunk-bytes", "0", in2.path()}, 2, {"--chunk-bytes"});
}
