// Portability macros shared by every ghist header.
#pragma once

// Functions that must be callable from host and device code (bin functions, operators, binning).
#if defined(__CUDACC__)
#define GHIST_HD __host__ __device__
#else
#define GHIST_HD
#endif
