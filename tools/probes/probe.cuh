// SPDX-License-Identifier: BSD-3-Clause
// What the probes share: a check of every CUDA runtime call, and the timing of a bandwidth kernel.
#ifndef NVSHM_PROBE_CUH
#define NVSHM_PROBE_CUH

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define PROBE_CHECK(x)                                                                 \
  do {                                                                                 \
    cudaError_t probe_err = (x);                                                       \
    if (probe_err != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(probe_err)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// The same for a CUDA driver call (probes that use it link -lcuda).
#define PROBE_CU(x)                                                                  \
  do {                                                                               \
    CUresult probe_res = (x);                                                        \
    if (probe_res != CUDA_SUCCESS) {                                                 \
      const char *probe_msg = nullptr;                                               \
      cuGetErrorString(probe_res, &probe_msg);                                       \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, probe_msg ? probe_msg : "?"); \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

// The sizes (bytes per step) that the bandwidth probes sweep, as shmem_p_bw does from 64 KiB.
constexpr size_t kProbeSizes[] = {size_t{64} << 10, size_t{256} << 10, size_t{1} << 20, size_t{4} << 20};

// GB/s of `launch(steps)`, a kernel on the default stream that moves `bytes` per step: one warm-up
// launch of `warmup` steps, then 7 timed launches of `steps` steps (default 5 and 50: the grid stays
// resident, so the launch overhead is amortised as in the perftests); the best and the median of the 7.
struct Rates {
  double best, median;
};
template <class Launch>
Rates gbps_runs(Launch launch, size_t bytes, int steps = 50, int warmup = 5) {
  constexpr int kRuns = 7;
  cudaEvent_t a, b;
  PROBE_CHECK(cudaEventCreate(&a));
  PROBE_CHECK(cudaEventCreate(&b));
  launch(warmup);
  PROBE_CHECK(cudaGetLastError());
  PROBE_CHECK(cudaDeviceSynchronize());
  double rates[kRuns];
  for (int r = 0; r < kRuns; ++r) {
    PROBE_CHECK(cudaEventRecord(a));
    launch(steps);
    PROBE_CHECK(cudaEventRecord(b));
    PROBE_CHECK(cudaEventSynchronize(b));
    PROBE_CHECK(cudaGetLastError());
    float ms;
    PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
    rates[r] = static_cast<double>(bytes) * steps / (ms * 1e-3) / 1e9;
  }
  PROBE_CHECK(cudaEventDestroy(a));
  PROBE_CHECK(cudaEventDestroy(b));
  std::sort(rates, rates + kRuns);
  return Rates{rates[kRuns - 1], rates[kRuns / 2]};
}
template <class Launch>
double best_gbps(Launch launch, size_t bytes) {
  return gbps_runs(launch, bytes).best;
}

#endif
