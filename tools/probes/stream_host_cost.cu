// SPDX-License-Identifier: BSD-3-Clause
// Host time per call of on-stream operations against a bare kernel launch (2 PEs, nvshmrun).
#include "probe.cuh"

#include <nvshmem.h>
#include <nvshmemx.h>
#include <chrono>
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda.h>
#include <cstdlib>
__global__ void empty_kernel(int) {}
int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe();
  cudaStream_t s;
  PROBE_CHECK(cudaStreamCreate(&s));
  float *buf = static_cast<float *>(nvshmem_malloc(1 << 20));
  if (!buf) {
    printf("nvshmem_malloc failed\n");
    return 1;
  }
  auto bench = [&](const char *name, auto f) {
    for (int i = 0; i < 200; ++i) f();
    PROBE_CHECK(cudaStreamSynchronize(s));
    double best = 1e9, best_total = 1e9;
    for (int r = 0; r < 7; ++r) {
      nvshmem_barrier_all();
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 200; ++i) f();
      auto t1 = std::chrono::steady_clock::now();
      PROBE_CHECK(cudaStreamSynchronize(s));
      auto t2 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count() / 200);
      best_total = std::min(best_total, std::chrono::duration<double>(t2 - t0).count() / 200);
    }
    if (me == 0) printf("%-44s host %7.3f us/call, with sync %7.3f us/call\n", name, best * 1e6, best_total * 1e6);
  };
  CUcontext ctx;
  bench("empty kernel <<<1,32>>>", [&] { empty_kernel<<<1, 32, 0, s>>>(0); });
  bench("empty kernel + cudaGetLastError", [&] {
    empty_kernel<<<1, 32, 0, s>>>(0);
    (void)cudaGetLastError();
  });
  bench("cuCtxGetCurrent", [&] {
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) exit(1);
  });
  bench("nvshmemx_barrier_all_on_stream", [&] { nvshmemx_barrier_all_on_stream(s); });
  bench("nvshmemx_sync_all_on_stream", [&] { nvshmemx_sync_all_on_stream(s); });
  bench("nvshmemx_float_sum_reduce_on_stream 8 B",
        [&] { nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, buf, buf + 4096, 2, s); });
  bench("nvshmemx_float_put_on_stream 8 B", [&] { nvshmemx_float_put_on_stream(buf, buf + 4096, 2, 1 - me, s); });
  nvshmem_free(buf);
  nvshmem_finalize();
  return 0;
}
