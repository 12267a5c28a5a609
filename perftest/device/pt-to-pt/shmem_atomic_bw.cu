// SPDX-License-Identifier: BSD-3-Clause
/* shmem_atomic_bw: throughput of device atomics from PE 0 on PE 1.
 *
 * PE 0 runs -c blocks of -t threads; over size/8 words (grid-stride) every thread issues
 * nvshmem_uint64_atomic_add(word, 1), -n times, then quiet. GB/s counts 8 bytes per atomic; the
 * table also gives millions of atomics per second. PE 1 checks every word's total. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include <vector>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_atomic_bw";

__global__ void amo_bw_kernel(uint64_t *dest, size_t n, int iters, int peer) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int i = 0; i < iters; ++i)
    for (size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += stride)
      nvshmem_uint64_atomic_add(dest + j, 1, peer);
  nvshmem_quiet();
}
}  // namespace

int main(int argc, char **argv) {
  perftest::Options opt =
      perftest::parse_options(argc, argv, kJob, "device uint64 atomic_add throughput, PE 0 on PE 1", perftest::kGrid);
  perftest::init(kJob);
  perftest::require_pes(2);
  perftest::require_device_heap();
  const int me = perftest::my_pe();
  uint64_t *dest = static_cast<uint64_t *>(nvshmem_malloc(opt.max_size < 8 ? 8 : opt.max_size));
  if (!dest) perftest::fail("nvshmem_malloc of %zu bytes failed", opt.max_size);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  perftest::GpuTimer timer;
  perftest::Report report(kJob, {{"bw", "GB/s"}, {"rate", "Mops/s"}});
  for (size_t size : perftest::sizes(opt)) {
    const size_t n = size / 8 ? size / 8 : 1;
    PERFTEST_CUDA_CHECK(cudaMemset(dest, 0, n * 8));
    PERFTEST_CUDA_CHECK(cudaDeviceSynchronize());
    perftest::barrier_all();
    const double s = perftest::time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      amo_bw_kernel<<<opt.ctas, opt.threads, 0, stream>>>(dest, n, iters, 1);
      PERFTEST_LAUNCH_CHECK();
    });
    bool ok = true;
    if (me == 1 && opt.check) {
      std::vector<uint64_t> h(n);
      PERFTEST_CUDA_CHECK(cudaMemcpy(h.data(), dest, n * 8, cudaMemcpyDeviceToHost));
      const uint64_t want = static_cast<uint64_t>(opt.warmup) + static_cast<uint64_t>(opt.runs) * opt.iters;
      for (uint64_t v : h) ok = ok && v == want;
    }
    const double ops = me == 0 && s > 0 ? static_cast<double>(n) * opt.iters / s : 0;
    report.add(n * 8, {perftest::sum_over_pes(ops * 8 / 1e9), perftest::sum_over_pes(ops / 1e6)}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  return perftest::finalize();
}
