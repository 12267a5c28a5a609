// SPDX-License-Identifier: BSD-3-Clause
/* shmem_g_latency: latency of device nvshmem_int_g, PE 0 reading PE 1.
 *
 * One thread of PE 0 reads size/4 ints of PE 1 with nvshmem_int_g, -n times; latency = kernel time
 * / iterations (microseconds). The values read are checked against what PE 1 wrote. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_g_latency";

__global__ void g_kernel(const int *source, size_t n, int iters, int peer, int *bad) {
  int wrong = 0;
  for (int i = 0; i < iters; ++i)
    for (size_t j = 0; j < n; ++j) wrong += nvshmem_int_g(source + j, peer) != static_cast<int>(j) * 3 + 1;
  *bad += wrong;
}
__global__ void fill(int *source, size_t n) {
  for (size_t j = threadIdx.x; j < n; j += blockDim.x) source[j] = static_cast<int>(j) * 3 + 1;
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt = perftest::parse_options(argc, argv, kJob, "device int_g latency, PE 0 from PE 1 (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  int *source = static_cast<int *>(nvshmem_malloc(opt.max_size));
  int *bad = nullptr;
  if (!source) perftest::fail("nvshmem_malloc of %zu bytes failed", opt.max_size);
  PERFTEST_CUDA_CHECK(cudaMalloc(&bad, sizeof(int)));
  PERFTEST_CUDA_CHECK(cudaMemset(bad, 0, sizeof(int)));
  fill<<<1, 256>>>(source, opt.max_size / sizeof(int));
  PERFTEST_LAUNCH_CHECK();
  PERFTEST_CUDA_CHECK(cudaDeviceSynchronize());
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"latency", "us", true}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t n = size / sizeof(int) ? size / sizeof(int) : 1;
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      g_kernel<<<1, 1, 0, stream>>>(source, n, iters, 1, bad);
      PERFTEST_LAUNCH_CHECK();
    });
    int h_bad = 0;
    PERFTEST_CUDA_CHECK(cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost));
    report.add(n * sizeof(int), {perftest::sum_over_pes(s) / opt.iters * 1e6}, h_bad == 0);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  PERFTEST_CUDA_CHECK(cudaFree(bad));
  nvshmem_free(source);
  return perftest::finalize();
}
