// SPDX-License-Identifier: BSD-3-Clause
/* shmem_atomic_latency: latency of one device atomic from PE 0 on a word of PE 1.
 *
 * One thread of PE 0 runs -n nvshmem_uint64_atomic_fetch_add (fetching: a full round trip) or, with
 * size > 8, as many non-fetching nvshmem_uint64_atomic_add on consecutive words followed by quiet;
 * latency = kernel time / iterations (microseconds). The sum on PE 1 is checked. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_atomic_latency";

__global__ void amo_kernel(uint64_t *dest, size_t n, int iters, int peer, uint64_t *sink) {
  uint64_t acc = 0;
  for (int i = 0; i < iters; ++i) {
    if (n == 1) {
      acc += nvshmem_uint64_atomic_fetch_add(dest, 1, peer);
    } else {
      for (size_t j = 0; j < n; ++j) nvshmem_uint64_atomic_add(dest + j, 1, peer);
      nvshmem_quiet();
    }
  }
  *sink += acc;
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt =
      perftest::parse_options(argc, argv, kJob, "device uint64 atomic latency, PE 0 on PE 1 (us)", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  uint64_t *dest = static_cast<uint64_t *>(nvshmem_malloc(opt.max_size < 8 ? 8 : opt.max_size));
  uint64_t *sink = nullptr;
  if (!dest) perftest::fail("nvshmem_malloc of %zu bytes failed", opt.max_size);
  PERFTEST_CUDA_CHECK(cudaMalloc(&sink, sizeof(uint64_t)));
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"latency", "us", true}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t n = size / 8 ? size / 8 : 1;
    PERFTEST_CUDA_CHECK(cudaMemset(dest, 0, n * 8));
    PERFTEST_CUDA_CHECK(cudaDeviceSynchronize());
    perftest::barrier_all();
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      amo_kernel<<<1, 1, 0, stream>>>(dest, n, iters, 1, sink);
      PERFTEST_LAUNCH_CHECK();
    });
    bool ok = true;
    if (me == 1 && opt.check) {
      uint64_t first = 0;
      PERFTEST_CUDA_CHECK(cudaMemcpy(&first, dest, 8, cudaMemcpyDeviceToHost));
      ok = first == static_cast<uint64_t>(opt.warmup) + static_cast<uint64_t>(opt.runs) * opt.iters;
    }
    report.add(n * 8, {perftest::sum_over_pes(s) / opt.iters * 1e6}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  PERFTEST_CUDA_CHECK(cudaFree(sink));
  nvshmem_free(dest);
  return perftest::finalize();
}
