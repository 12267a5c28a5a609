// What the probes share: a check of every CUDA runtime call, and the timing of a bandwidth kernel.
#ifndef NVSHM_PROBE_CUH
#define NVSHM_PROBE_CUH

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define PROBE_CHECK(x)                                                                 \
  do {                                                                                 \
    cudaError_t probe_err = (x);                                                       \
    if (probe_err != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(probe_err)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

// The sizes (bytes per step) that the bandwidth probes sweep, as shmem_p_bw does from 64 KiB.
constexpr size_t kProbeSizes[] = {size_t{64} << 10, size_t{256} << 10, size_t{1} << 20, size_t{4} << 20};

// GB/s of `launch(steps)`, a kernel on the default stream that moves `bytes` per step: one warm-up
// launch of 5 steps, then the best of 7 timed launches of 50 steps (the grid stays resident, so the
// launch overhead is amortised as in the perftests).
template <class Launch>
double best_gbps(Launch launch, size_t bytes) {
  constexpr int kSteps = 50;
  cudaEvent_t a, b;
  PROBE_CHECK(cudaEventCreate(&a));
  PROBE_CHECK(cudaEventCreate(&b));
  launch(5);
  PROBE_CHECK(cudaGetLastError());
  PROBE_CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < 7; ++r) {
    PROBE_CHECK(cudaEventRecord(a));
    launch(kSteps);
    PROBE_CHECK(cudaEventRecord(b));
    PROBE_CHECK(cudaEventSynchronize(b));
    PROBE_CHECK(cudaGetLastError());
    float ms;
    PROBE_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (ms < best) best = ms;
  }
  PROBE_CHECK(cudaEventDestroy(a));
  PROBE_CHECK(cudaEventDestroy(b));
  return static_cast<double>(bytes) * kSteps / (best * 1e-3) / 1e9;
}

#endif
