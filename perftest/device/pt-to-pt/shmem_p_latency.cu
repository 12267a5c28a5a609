// SPDX-License-Identifier: BSD-3-Clause
/* shmem_p_latency: latency of device nvshmem_int_p from PE 0 to PE 1.
 *
 * One thread of PE 0 writes size/4 ints to PE 1 with nvshmem_int_p, then nvshmem_quiet, -n times;
 * latency = kernel time / iterations (microseconds). PE 1 verifies the last values. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_p_latency";

__global__ void p_kernel(int *dest, size_t n, int iters, int peer) {
  for (int i = 0; i < iters; ++i) {
    for (size_t j = 0; j < n; ++j) nvshmem_int_p(dest + j, static_cast<int>(j) + 1, peer);
    nvshmem_quiet();
  }
}
__global__ void check_kernel(const int *dest, size_t n, int *bad) {
  for (size_t j = 0; j < n; ++j) *bad += dest[j] != static_cast<int>(j) + 1;
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(argc, argv, kJob, "device int_p latency, PE 0 to PE 1 (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  int *dest = static_cast<int *>(nvshmem_malloc(opt.max_size));
  int *bad = nullptr;
  if (!dest) perftest::fail("nvshmem_malloc of %zu bytes failed", opt.max_size);
  PERFTEST_CUDA_CHECK(cudaMalloc(&bad, sizeof(int)));
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"latency", "us", true}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t n = size / sizeof(int) ? size / sizeof(int) : 1;
    PERFTEST_CUDA_CHECK(cudaMemset(dest, 0, n * sizeof(int)));
    PERFTEST_CUDA_CHECK(cudaDeviceSynchronize());
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      p_kernel<<<1, 1, 0, stream>>>(dest, n, iters, 1);
      PERFTEST_LAUNCH_CHECK();
    });
    int h_bad = 0;
    if (me == 1 && opt.check) {
      PERFTEST_CUDA_CHECK(cudaMemset(bad, 0, sizeof(int)));
      check_kernel<<<1, 1>>>(dest, n, bad);
      PERFTEST_LAUNCH_CHECK();
      PERFTEST_CUDA_CHECK(cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost));
    }
    report.add(n * sizeof(int), {perftest::sum_over_pes(s) / opt.iters * 1e6}, h_bad == 0);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  PERFTEST_CUDA_CHECK(cudaFree(bad));
  nvshmem_free(dest);
  return perftest::finalize();
}
