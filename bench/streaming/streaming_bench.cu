// Streaming benchmark (issue 6, item 1): in one run, the host-to-device copy rates that bound a streaming histogram
// (cudaMemcpyAsync from pinned and from pageable memory, memcpy into pinned memory with 1..N threads, the cost of
// cudaHostRegister) and ghist::streaming_histogram over the same bytes of float (even bins) and uint32 (keys) in
// pageable, pinned and registered host memory; the ratio to the pinned copy rate is the target (>= 0.9).
// With --file-gb G --dir PATH it also writes a G GB file, measures the rate at which it can be read (page cache
// dropped for the file where the kernel allows), and times the library reading it straight into pinned staging.
// Every result is checked against the CPU backend before it is timed. Times are wall-clock medians (the streaming
// histogram's cost includes the host's waits, which is what a caller sees).
//
// --staging-sweep adds pageable rows for several chunk sizes, buffer counts and copy-thread counts, and memcpy rows
// into a small pinned ring (does a ring that fits the host's cache copy faster than one as large as the input?).
//
//   ghist_streaming_bench [--quick] [--gb G] [--reps R] [--csv FILE] [--json FILE] [--file-gb G --dir PATH]
//                         [--staging-sweep]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "../report.hpp"
#include "../timing.cuh"
#include "ghist/cpu.hpp"
#include "ghist/detail/streaming/chunk_plan.hpp"
#include "ghist/detail/streaming/copy_pool.hpp"
#include "ghist/streaming.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct row {
  std::string what, type, memory;
  double bytes = 0, ms = NAN;
  int reps = 0;
  double ratio = NAN;  ///< to the pinned cudaMemcpyAsync rate of the same run
  std::string status = "ok";
  double gbps() const { return bytes / (ms * 1e6); }
};

struct args {
  bool quick = false;
  double gb = 4.0;
  int reps = 5;
  std::string csv, json, dir;
  double file_gb = 0;
  bool staging_sweep = false;
};

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

/// Median wall time of run() over reps runs (after one warm-up).
double median_ms(int reps, const std::function<void()>& run) {
  run();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = clock_type::now();
    run();
    t.push_back(ms_since(t0));
  }
  std::sort(t.begin(), t.end());
  return t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

/// Runs body(part) on `threads` threads (the caller's is one).
void parallel(int threads, const std::function<void(int)>& body) {
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back(body, i);
  body(0);
  for (auto& t : pool) t.join();
}

void parallel_copy(void* dst, const void* src, std::size_t bytes, int threads) {
  parallel(threads, [&](int i) {
    const auto r = ghist::detail::copy_part(bytes, threads, i);
    std::memcpy(static_cast<char*>(dst) + r.begin, static_cast<const char*>(src) + r.begin, r.end - r.begin);
  });
}

int host_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

/// Fills the float samples (normal-ish in [0, 1)) or uint32 keys (skewed over [0, 1100)) with several threads.
template <class T>
void fill(T* p, std::size_t n) {
  const int t = host_threads();
  parallel(t, [&](int i) {
    const std::size_t lo = n / t * i, hi = i + 1 == t ? n : n / t * (i + 1);
    std::uint64_t s = 0x9e3779b97f4a7c15ull * (i + 1);
    for (std::size_t k = lo; k < hi; ++k) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const double u = double(s >> 11) * 0x1.0p-53;
      if constexpr (std::is_same_v<T, float>) p[k] = float((u + double((s >> 3) & 0xff) / 256.0) * 0.5);
      else p[k] = static_cast<T>(u * u * 1100.0);
    }
  });
}

constexpr std::int64_t float_bins = 1000;
constexpr std::int64_t key_bins = 1024;

template <class T>
std::vector<std::uint64_t> cpu_counts(const T* x, std::int64_t n) {
  std::vector<std::uint64_t> h(std::is_same_v<T, float> ? float_bins : key_bins);
  if constexpr (std::is_same_v<T, float>) ghist::cpu::histogram_even(x, n, h.data(), float_bins, 0.0f, 1.0f);
  else ghist::cpu::bincount(x, n, h.data(), key_bins);
  return h;
}

template <class T>
ghist::streaming_histogram<T> make_histogram(const ghist::streaming_options& o) {
  auto bins = std::is_same_v<T, float> ? ghist::stream_bins<T>::even(float_bins, T(0), T(1))
                                       : ghist::stream_bins<T>::keys(key_bins);
  return ghist::streaming_histogram<T>(bins, true, ghist::stream_values::none, o);
}

template <class T>
row time_streaming(const char* memory, const T* x, std::int64_t n, const std::vector<std::uint64_t>& want,
                   const args& a, const ghist::streaming_options& o) {
  row r{"ghist streaming", std::is_same_v<T, float> ? "float" : "uint32", memory, double(n) * sizeof(T)};
  auto h = make_histogram<T>(o);
  auto run = [&] {
    h.reset();
    h.push(x, n);
    return h.finish().counts;
  };
  if (run() != want) {
    r.status = "MISMATCH with the CPU backend";
    return r;
  }
  r.reps = a.reps;
  r.ms = median_ms(a.reps, [&] { run(); });
  return r;
}

void print_rows(const std::vector<row>& rows) {
  std::printf("\n%-34s %-7s %-22s %9s %10s %8s %6s  %s\n", "measurement", "type", "memory", "GB", "GB/s", "ratio",
              "reps", "status");
  for (const row& r : rows)
    std::printf("%-34s %-7s %-22s %9.3f %10.2f %8s %6d  %s\n", r.what.c_str(), r.type.c_str(), r.memory.c_str(),
                r.bytes / 1e9, r.gbps(), std::isfinite(r.ratio) ? bench::detail::fmt("%.3f", r.ratio).c_str() : "-",
                r.reps, r.status.c_str());
}

void write_csv(const std::string& path, const std::vector<row>& rows) {
  std::ofstream out(path);
  out << "measurement,type,memory,bytes,median_ms,gbps,ratio_to_pinned_h2d,reps,status\n";
  for (const row& r : rows)
    out << bench::detail::csv_quote(r.what) << ',' << r.type << ',' << bench::detail::csv_quote(r.memory) << ','
        << std::uint64_t(r.bytes) << ',' << r.ms << ',' << r.gbps() << ',' << r.ratio << ',' << r.reps << ','
        << bench::detail::csv_quote(r.status) << '\n';
}

void write_json(const std::string& path, const std::vector<row>& rows, const std::string& device) {
  std::ofstream out(path);
  out << "{\"device\": " << bench::detail::json_string(device) << ", \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    out << "  {\"measurement\": " << bench::detail::json_string(r.what) << ", \"type\": "
        << bench::detail::json_string(r.type) << ", \"memory\": " << bench::detail::json_string(r.memory)
        << ", \"bytes\": " << std::uint64_t(r.bytes) << ", \"median_ms\": " << bench::detail::json_number(r.ms)
        << ", \"gbps\": " << bench::detail::json_number(r.gbps()) << ", \"ratio_to_pinned_h2d\": "
        << bench::detail::json_number(r.ratio) << ", \"reps\": " << r.reps << ", \"status\": "
        << bench::detail::json_string(r.status) << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "]}\n";
}

/// Drops the file's pages from the page cache (clean pages only; allowed without privileges).
void drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

std::size_t read_fully(int fd, void* p, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t r = ::read(fd, static_cast<char*>(p) + done, bytes - done);
    if (r <= 0) break;
    done += static_cast<std::size_t>(r);
  }
  return done;
}

void file_rows(const args& a, const float* data, std::size_t data_n, std::vector<row>& rows) {
  const std::string path = a.dir + "/ghist_streaming_bench.f32";
  const auto bytes = static_cast<std::size_t>(a.file_gb * double(1ull << 30)) / sizeof(float) * sizeof(float);
  {
    const auto t0 = clock_type::now();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
      rows.push_back({"file write", "float", path, double(bytes), NAN, 0, NAN, "cannot create the file"});
      return;
    }
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t take = std::min(bytes - done, data_n * sizeof(float));
      std::fwrite(data, 1, take, f);
      done += take;
    }
    std::fclose(f);
    drop_cache(path);
    rows.push_back({"file write (+fdatasync)", "float", path, double(bytes), ms_since(t0), 1});
  }
  // The read rate alone: read() into one 64 MiB buffer, nothing else.
  std::vector<char> buf(std::size_t(64) << 20);
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    const auto t0 = clock_type::now();
    std::size_t total = 0;
    for (std::size_t got; (got = read_fully(fd, buf.data(), buf.size())) > 0;) total += got;
    rows.push_back({"file read() only (cache dropped)", "float", path, double(total), ms_since(t0), 1});
    ::close(fd);
    drop_cache(path);
  }
  // The library reading the file straight into its pinned staging buffers (acquire/commit).
  ghist::streaming_options o;
  auto h = make_histogram<float>(o);
  {
    const int fd = ::open(path.c_str(), O_RDONLY);
    const auto t0 = clock_type::now();
    std::size_t total = 0;
    for (;;) {
      auto s = h.acquire();
      const std::size_t got = read_fully(fd, s.samples, s.capacity * sizeof(float));
      h.commit(got / sizeof(float));
      total += got;
      if (got == 0) break;
    }
    const auto counts = h.finish().counts;
    row r{"file -> acquire/commit (dropped)", "float", path, double(total), ms_since(t0), 1};
    // The file repeats `data`: compare with the CPU over the same values.
    std::vector<std::uint64_t> ref(float_bins, 0);
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t take = std::min(bytes - done, data_n * sizeof(float));
      const auto part = cpu_counts(data, std::int64_t(take / sizeof(float)));
      for (std::size_t b = 0; b < ref.size(); ++b) ref[b] += part[b];
      done += take;
    }
    if (counts != ref) r.status = "MISMATCH with the CPU backend";
    rows.push_back(r);
    ::close(fd);
  }
  std::remove(path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ghist_streaming_bench: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (s == "--quick") a.quick = true;
    else if (s == "--gb") a.gb = std::atof(next().c_str());
    else if (s == "--reps") a.reps = std::atoi(next().c_str());
    else if (s == "--csv") a.csv = next();
    else if (s == "--json") a.json = next();
    else if (s == "--file-gb") a.file_gb = std::atof(next().c_str());
    else if (s == "--dir") a.dir = next();
    else if (s == "--staging-sweep") a.staging_sweep = true;
    else {
      std::fprintf(stderr, "usage: ghist_streaming_bench [--quick] [--gb G] [--reps R] [--csv FILE] [--json FILE] "
                           "[--file-gb G --dir PATH] [--staging-sweep]\n");
      return 2;
    }
  }
  if (a.quick) {
    a.gb = std::min(a.gb, 1.0);
    a.reps = std::min(a.reps, 3);
  }
  if (a.file_gb > 0 && a.dir.empty()) {
    std::fprintf(stderr, "ghist_streaming_bench: --file-gb needs --dir PATH\n");
    return 2;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device: nothing to measure\n");
    return 77;
  }
  cudaDeviceProp prop{};
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t bytes = static_cast<std::size_t>(a.gb * double(1ull << 30)) / 64 * 64;
  std::printf("ghist_streaming_bench on %s: %.2f GiB per measurement, %d reps, %d host threads\n", prop.name,
              a.gb, a.reps, host_threads());

  std::vector<row> rows;
  auto t_setup = clock_type::now();
  std::vector<char> pageable(bytes);
  void* pinned = nullptr;
  BENCH_CHECK(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  void* device = nullptr;
  BENCH_CHECK(cudaMalloc(&device, bytes));
  std::printf("setup (allocations): %.0f ms\n", ms_since(t_setup));
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // (a) The copy rates: one cudaMemcpyAsync of all the bytes, from pinned and from pageable memory.
  fill(reinterpret_cast<float*>(pageable.data()), bytes / sizeof(float));
  std::memcpy(pinned, pageable.data(), bytes);
  row h2d_pinned{"cudaMemcpyAsync H2D", "bytes", "pinned", double(bytes)};
  h2d_pinned.reps = a.reps;
  h2d_pinned.ms = median_ms(a.reps, [&] {
    BENCH_CHECK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, stream));
    BENCH_CHECK(cudaStreamSynchronize(stream));
  });
  const double pinned_gbps = h2d_pinned.gbps();
  h2d_pinned.ratio = 1.0;
  rows.push_back(h2d_pinned);
  row h2d_pageable{"cudaMemcpyAsync H2D", "bytes", "pageable", double(bytes)};
  h2d_pageable.reps = a.reps;
  h2d_pageable.ms = median_ms(a.reps, [&] {
    BENCH_CHECK(cudaMemcpyAsync(device, pageable.data(), bytes, cudaMemcpyHostToDevice, stream));
    BENCH_CHECK(cudaStreamSynchronize(stream));
  });
  h2d_pageable.ratio = h2d_pageable.gbps() / pinned_gbps;
  rows.push_back(h2d_pageable);

  // The host-side bound of staging pageable input: memcpy into pinned memory with 1..N threads (one part each);
  // then the library's kept threads copying the default 32 MiB pieces into two alternating pinned buffers, as the
  // staging does (without the DMA reading them at the same time).
  for (int t = 1; t <= std::min(host_threads(), 32); t *= 2) {
    row r{"memcpy pageable -> pinned", "bytes", std::to_string(t) + " thread" + (t > 1 ? "s" : ""), double(bytes)};
    r.reps = a.reps;
    r.ms = median_ms(a.reps, [&] { parallel_copy(pinned, pageable.data(), bytes, t); });
    r.ratio = r.gbps() / pinned_gbps;
    rows.push_back(r);
  }
  {
    const std::size_t piece = ghist::streaming_options{}.chunk_bytes;
    const int threads = ghist::detail::copy_threads_for(piece, 0);
    row r{"copy_pool pageable -> pinned", "bytes",
          "2 x " + std::to_string(piece >> 20) + " MiB, " + std::to_string(threads) + " thr", double(bytes)};
    r.reps = a.reps;
    ghist::detail::copy_pool pool;
    r.ms = median_ms(a.reps, [&] {
      int b = 0;
      for (std::size_t done = 0; done < bytes; done += piece, b ^= 1)
        pool.copy(static_cast<char*>(pinned) + b * piece, pageable.data() + done, std::min(piece, bytes - done),
                  threads);
    });
    r.ratio = r.gbps() / pinned_gbps;
    rows.push_back(r);
  }
  if (a.staging_sweep)
    for (std::size_t mib : {4, 16, 64}) {
      const std::size_t ring = mib << 20;
      row r{"memcpy pageable -> pinned ring", "bytes", std::to_string(mib) + " MiB ring, 16 thr", double(bytes)};
      r.reps = a.reps;
      ghist::detail::copy_pool pool;  // the library's kept threads: starting 16 per piece would dominate
      r.ms = median_ms(a.reps, [&] {
        for (std::size_t done = 0; done < bytes; done += ring)
          pool.copy(pinned, pageable.data() + done, std::min(ring, bytes - done), 16);
      });
      r.ratio = r.gbps() / pinned_gbps;
      rows.push_back(r);
    }
  // cudaHostRegister: pinning the caller's pages instead of copying them.
  {
    row r{"cudaHostRegister + unregister", "bytes", "pageable", double(bytes)};
    r.reps = a.reps;
    r.ms = median_ms(a.reps, [&] {
      BENCH_CHECK(cudaHostRegister(pageable.data(), bytes, cudaHostRegisterDefault));
      BENCH_CHECK(cudaHostUnregister(pageable.data()));
    });
    r.ratio = r.gbps() / pinned_gbps;
    rows.push_back(r);
  }

  // (b) ghist's streaming histogram of data already in host memory: float (even bins) and uint32 (keys).
  auto stream_rows = [&](auto tag) {
    using T = decltype(tag);
    const auto n = static_cast<std::int64_t>(bytes / sizeof(T));
    T* x = reinterpret_cast<T*>(pageable.data());
    fill(x, std::size_t(n));
    std::memcpy(pinned, x, std::size_t(n) * sizeof(T));
    const auto want = cpu_counts(x, n);
    ghist::streaming_options o;
    rows.push_back(time_streaming("pageable (auto threads)", x, n, want, a, o));
    if (a.staging_sweep) {
      // Staging shapes for pageable input: smaller chunks may stay in the host's last-level cache between the
      // memcpy that writes them and the DMA that reads them; more threads or buffers overlap more.
      for (std::size_t mib : {8, 16, 32, 64})
        for (int buffers : {2, 3, 4})
          for (int threads : {0, 8, 12}) {
            ghist::streaming_options os = o;
            os.chunk_bytes = mib << 20;
            os.buffers = buffers;
            os.copy_threads = threads;
            const std::string what = "pageable, " + std::to_string(mib) + " MiB x" + std::to_string(buffers) +
                                     (threads ? ", " + std::to_string(threads) + " thr" : ", auto thr");
            rows.push_back(time_streaming(what.c_str(), x, n, want, a, os));
          }
    }
    for (int buffers : {3, 4}) {
      ghist::streaming_options ob = o;
      ob.buffers = buffers;
      rows.push_back(time_streaming(("pageable, " + std::to_string(buffers) + " buffers").c_str(), x, n, want, a, ob));
    }
    ghist::streaming_options oreg = o;
    oreg.register_bytes = 1;  // every push pinned in place (its cost is inside the timing)
    rows.push_back(time_streaming("pageable, register_bytes", x, n, want, a, oreg));
    rows.push_back(time_streaming("pinned", static_cast<const T*>(pinned), n, want, a, o));
    BENCH_CHECK(cudaHostRegister(x, std::size_t(n) * sizeof(T), cudaHostRegisterDefault));
    rows.push_back(time_streaming("registered (pinned path)", x, n, want, a, o));
    BENCH_CHECK(cudaHostUnregister(x));
    // The one-shot form including its allocations (what a single call costs).
    row r{"histogram_even/bincount_from_host", std::is_same_v<T, float> ? "float" : "uint32", "pageable, one-shot",
          double(bytes)};
    auto one_shot = [&] {
      if constexpr (std::is_same_v<T, float>) return ghist::histogram_even_from_host(x, n, float_bins, 0.0f, 1.0f);
      else return ghist::bincount_from_host(x, n, key_bins);
    };
    if (one_shot() != want) {
      r.status = "MISMATCH with the CPU backend";
    } else {
      r.reps = a.reps;
      r.ms = median_ms(a.reps, [&] { one_shot(); });
    }
    rows.push_back(r);
  };
  stream_rows(float{});
  stream_rows(std::uint32_t{});
  for (row& r : rows)
    if (!std::isfinite(r.ratio)) r.ratio = r.gbps() / pinned_gbps;

  if (a.file_gb > 0) {
    fill(reinterpret_cast<float*>(pageable.data()), bytes / sizeof(float));
    file_rows(a, reinterpret_cast<const float*>(pageable.data()), bytes / sizeof(float), rows);
    for (row& r : rows)
      if (!std::isfinite(r.ratio)) r.ratio = r.gbps() / pinned_gbps;
  }

  BENCH_CHECK(cudaStreamDestroy(stream));
  BENCH_CHECK(cudaFree(device));
  BENCH_CHECK(cudaFreeHost(pinned));
  if (!a.csv.empty()) write_csv(a.csv, rows);
  if (!a.json.empty()) write_json(a.json, rows, prop.name);

  print_rows(rows);
  bool all_ok = true;
  double best_pageable = 0, best_pinned = 0;
  for (const row& r : rows) {
    all_ok = all_ok && r.status == "ok";
    if (r.what != "ghist streaming") continue;
    if (r.memory.rfind("pageable", 0) == 0) best_pageable = std::max(best_pageable, r.ratio);
    else best_pinned = std::max(best_pinned, r.ratio);
  }
  std::printf("\nsummary: pinned H2D %.2f GB/s; streaming/pinned-H2D ratio: pinned or registered input %.3f, "
              "pageable input %.3f (target >= 0.9)%s\n",
              pinned_gbps, best_pinned, best_pageable, all_ok ? "" : "; SOME RESULTS DIFFER FROM THE CPU");
  double file_read = NAN, file_ghist = NAN;
  for (const row& r : rows) {
    if (r.what.rfind("file read()", 0) == 0) file_read = r.gbps();
    if (r.what.rfind("file -> acquire", 0) == 0) file_ghist = r.gbps();
  }
  if (std::isfinite(file_ghist))
    std::printf("file: %.2f GB/s through ghist; read() alone %.2f GB/s; pinned H2D %.2f GB/s: bound by %s\n",
                file_ghist, file_read, pinned_gbps, file_read < pinned_gbps ? "the file read rate" : "the H2D copy");
  return all_ok ? 0 : 1;
}
