// SPDX-License-Identifier: BSD-3-Clause
/* The program of the nonblocking-put issue-rate tests (shmem_nbi_issue_rate, shmem_region_nbi_rate):
 * PE 0 runs -c blocks of -t threads; every thread issues -n nvshmem_putmem_nbi of `size` bytes to PE 1
 * (thread g writes bytes [(g mod slots) * size, + size) of the destination, slots = max_size / size, so
 * every byte written is the source's byte at the same offset), then calls nvshmem_quiet. A variant
 * wraps each block's puts in an RMA region (nvshmemx_region_start_block / _stop_block, NVSHMEM 3.8) with
 * the given hints. Reported per variant: operations per second over the grid (Mops/s = threads x
 * iterations / kernel time, CUDA events) and the payload rate (GB/s). PE 1 verifies the bytes written.
 * Public API only. */
#ifndef PERFTEST_NBI_RATE_CUH
#define PERFTEST_NBI_RATE_CUH

#include <nvshmem.h>
#include <nvshmemx.h>

#include <string>
#include <vector>

#include "perftest.h"

namespace perftest {

struct NbiVariant {
  const char *name;  // the metric prefix in the report: <name>_rate, <name>_bw
  bool region;       // each block's puts inside a region
  uint32_t hints;    // the region's hints (nvshmemx_region_hint_t bits)
};

__global__ void nbi_rate_kernel(char *dest, const char *source, size_t size, size_t slots, int iters, int peer,
                                bool region, uint32_t hints, int *errors) {
  nvshmemx_region_handle_t handle = 0;
  if (region) {
    nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
    attrs.hints = hints;
    if (nvshmemx_region_start_block(&handle, &attrs) != 0 && threadIdx.x == 0) atomicAdd(errors, 1);
  }
  const size_t g = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t offset = (g % slots) * size;
  for (int i = 0; i < iters; ++i) nvshmem_putmem_nbi(dest + offset, source + offset, size, peer);
  if (region && nvshmemx_region_stop_block(handle) != 0 && threadIdx.x == 0) atomicAdd(errors, 1);
  nvshmem_quiet();
}

inline int run_nbi_rate(int argc, char **argv, const char *job, const char *what,
                        const std::vector<NbiVariant> &variants) {
  const Options opt = parse_options(argc, argv, job, what, kGrid);
  init(job);
  require_pes(2);
  require_device_heap();
  const int me = my_pe(), peer = 1 - me;
  char *source = static_cast<char *>(nvshmem_malloc(opt.max_size));
  char *dest = static_cast<char *>(nvshmem_malloc(opt.max_size));
  if (!source || !dest) fail("nvshmem_malloc of 2 x %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", opt.max_size);
  const Payload payload(opt, source, me == 1 ? 0 : -1);
  int *errors = nullptr;
  PERFTEST_CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  PERFTEST_CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer;
  std::vector<Report::Column> columns;
  for (const NbiVariant &v : variants) {
    columns.push_back({std::string(v.name) + "_rate", "Mops/s"});
    columns.push_back({std::string(v.name) + "_bw", "GB/s"});
  }
  Report report(job, columns);
  const double threads = static_cast<double>(opt.ctas) * opt.threads;
  for (size_t size : sizes(opt)) {
    const size_t slots = opt.max_size / size;
    const size_t covered = (threads < static_cast<double>(slots) ? static_cast<size_t>(threads) : slots) * size;
    std::vector<double> values;
    bool ok = true;
    for (const NbiVariant &v : variants) {
      payload.poison(dest, covered);
      const double seconds = time_runs(opt, me == 0, stream, timer, size, [&](size_t bytes, int iters) {
        nbi_rate_kernel<<<opt.ctas, opt.threads, 0, stream>>>(dest, source, bytes, slots, iters, peer, v.region,
                                                              v.hints, errors);
        PERFTEST_LAUNCH_CHECK();
      });
      ok = (me != 1 || payload.verify(dest, covered)) && ok;
      const double ops = threads * opt.iters;
      const double mine_rate = me == 0 && seconds > 0 ? ops / seconds / 1e6 : 0;
      values.push_back(sum_over_pes(mine_rate));
      values.push_back(sum_over_pes(me == 0 ? gbps(ops * static_cast<double>(size), seconds) : 0));
    }
    int h_errors = 0;
    PERFTEST_CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
    if (h_errors) fprintf(stderr, "%s: PE %d: %d region calls failed\n", job, me, h_errors);
    report.add(size, values, ok && h_errors == 0);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  PERFTEST_CUDA_CHECK(cudaFree(errors));
  nvshmem_free(dest);
  nvshmem_free(source);
  return finalize();
}

}  // namespace perftest

#endif /* PERFTEST_NBI_RATE_CUH */
