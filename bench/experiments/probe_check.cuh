// CK(call): the standalone probes in this folder stop with the CUDA error's name at the first failing call.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                  \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)
