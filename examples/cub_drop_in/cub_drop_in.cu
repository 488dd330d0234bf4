// A small program written against cub::DeviceHistogram, compiled twice: as is, and with -DCUB_DROP_IN_USE_GHIST=1,
// where the one line below selects ghist::cub_compat::DeviceHistogram instead. Nothing else changes. It prints a
// 16-bin histogram of a synthetic 8-bit RGBA image (three active channels) and a Range histogram of float samples;
// the two builds must print the same lines (tests/cub_compat: gpu_cub_drop_in).
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda/std/array>
#include <cuda_runtime_api.h>

#if CUB_DROP_IN_USE_GHIST
#include <ghist/cub_compat.cuh>
using DeviceHistogram = ghist::cub_compat::DeviceHistogram;
#else
#include <cub/device/device_histogram.cuh>
using DeviceHistogram = cub::DeviceHistogram;
#endif

// Variadic: a call with template arguments has commas outside parentheses.
#define CHECK(...)                                                                              \
  do {                                                                                          \
    cudaError_t e_ = (__VA_ARGS__);                                                             \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #__VA_ARGS__, cudaGetErrorString(e_));            \
      return e_ == cudaErrorNoDevice || e_ == cudaErrorInsufficientDriver ? 77 : 1;             \
    }                                                                                           \
  } while (0)

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device\n");
    return 77;
  }
  // A 640x480 RGBA image: smooth gradients in R and G, a checkerboard in B, alpha ignored.
  const int width = 640, height = 480, pixels = width * height;
  std::vector<unsigned char> image(static_cast<std::size_t>(pixels) * 4);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      unsigned char* p = &image[(static_cast<std::size_t>(y) * width + x) * 4];
      p[0] = static_cast<unsigned char>(x * 255 / (width - 1));
      p[1] = static_cast<unsigned char>(y * 255 / (height - 1));
      p[2] = static_cast<unsigned char>(((x / 40 + y / 40) % 2) * 200 + 20);
      p[3] = 255;
    }
  unsigned char* d_image = nullptr;
  CHECK(cudaMalloc(&d_image, image.size()));
  CHECK(cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice));
  int* d_hist[3] = {nullptr, nullptr, nullptr};
  for (int c = 0; c < 3; ++c) CHECK(cudaMalloc(&d_hist[c], 16 * sizeof(int)));

  ::cuda::std::array<int*, 3> hist{d_hist[0], d_hist[1], d_hist[2]};
  ::cuda::std::array<int, 3> num_levels{17, 17, 17};
  ::cuda::std::array<int, 3> lower{0, 0, 0}, upper{256, 256, 256};
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  CHECK(DeviceHistogram::MultiHistogramEven<4, 3>(d_temp, temp_bytes, d_image, hist, num_levels, lower, upper,
                                                  pixels));
  CHECK(cudaMalloc(&d_temp, temp_bytes));
  CHECK(DeviceHistogram::MultiHistogramEven<4, 3>(d_temp, temp_bytes, d_image, hist, num_levels, lower, upper,
                                                  pixels));
  CHECK(cudaDeviceSynchronize());
  const char* names[3] = {"red", "green", "blue"};
  for (int c = 0; c < 3; ++c) {
    int h[16];
    CHECK(cudaMemcpy(h, d_hist[c], sizeof h, cudaMemcpyDeviceToHost));
    std::printf("%s:", names[c]);
    for (int b = 0; b < 16; ++b) std::printf(" %d", h[b]);
    std::printf("\n");
  }
  CHECK(cudaFree(d_temp));

  // Range: float samples, uneven levels, NaN and out-of-range samples dropped.
  std::vector<float> samples;
  for (int i = 0; i < 100000; ++i) samples.push_back(static_cast<float>((i * 37) % 1000) / 100.f - 1.f);
  samples.push_back(0.f / 0.f);
  const float levels[6] = {0.f, 0.5f, 1.f, 2.f, 4.f, 8.f};
  float *d_samples = nullptr, *d_levels = nullptr;
  CHECK(cudaMalloc(&d_samples, samples.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_levels, sizeof levels));
  CHECK(cudaMemcpy(d_samples, samples.data(), samples.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_levels, levels, sizeof levels, cudaMemcpyHostToDevice));
  d_temp = nullptr;
  temp_bytes = 0;
  const int n = static_cast<int>(samples.size());
  CHECK(DeviceHistogram::HistogramRange(d_temp, temp_bytes, d_samples, d_hist[0], 6, d_levels, n));
  CHECK(cudaMalloc(&d_temp, temp_bytes));
  CHECK(DeviceHistogram::HistogramRange(d_temp, temp_bytes, d_samples, d_hist[0], 6, d_levels, n));
  int r[5];
  CHECK(cudaMemcpy(r, d_hist[0], sizeof r, cudaMemcpyDeviceToHost));
  std::printf("range:");
  for (int b = 0; b < 5; ++b) std::printf(" %d", r[b]);
  std::printf("\n");
  CHECK(cudaFree(d_temp));
  CHECK(cudaFree(d_samples));
  CHECK(cudaFree(d_levels));
  for (int c = 0; c < 3; ++c) CHECK(cudaFree(d_hist[c]));
  CHECK(cudaFree(d_image));
  return 0;
}
