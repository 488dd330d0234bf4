// CK(call): the standalone probes in this folder stop with the CUDA error's name at the first failing call.
// event_median_us: a probe's timing of one launch.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                  \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

/// The median of `reps` event-timed runs of launch() on the default stream, in us, after `warmups` untimed ones;
/// prepare() runs before each, outside the timed span (a reset of the output, say).
template <class Prepare, class Launch>
double event_median_us(Prepare&& prepare, Launch&& launch, int reps = 21, int warmups = 0) {
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  std::vector<float> ms;
  for (int rep = 0; rep < warmups + reps; ++rep) {
    prepare();
    CK(cudaEventRecord(t0));
    launch();
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    float m = 0;
    CK(cudaEventElapsedTime(&m, t0, t1));
    if (rep >= warmups) ms.push_back(m);
  }
  CK(cudaEventDestroy(t0));
  CK(cudaEventDestroy(t1));
  std::sort(ms.begin(), ms.end());
  return 1000.0 * ms[ms.size() / 2];
}
