// SPDX-License-Identifier: BSD-3-Clause
/* shmem_quiet_latency: what one thread's nvshmem_quiet costs with nothing outstanding, on PE 0.
 *
 * With mapped peers only, a system fence. On a PE whose job has remote peers (another node, or
 * NVSHMEM_DISABLE_P2P=1), a quiet marker to the host proxy and its answer: the proxy's own round trip
 * (docs/proxy.md), twice its enqueue-to-issue time and more. nvshmem_quiet -n times in a kernel; latency
 * = kernel time / iterations (microseconds). The first timed launch of each size also puts the message to
 * PE 1 once (after the harness's barrier, so after PE 1 poisoned its buffer; PE 1 verifies it); the median
 * of the runs (-r, at least 3) leaves that launch out. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_quiet_latency";

__global__ void quiet_kernel(char *dest, const char *source, size_t size, int iters, int peer, bool put) {
  if (put) nvshmem_putmem(dest, source, size, peer);
  for (int i = 0; i < iters; ++i) nvshmem_quiet();
}
}  // namespace

int main(int argc, char **argv) {
  size_t size_now = 0;
  int launches = 0;  // of this size: the warm-up (when -w > 0), then the timed runs
  return perftest::run_one_sided(
      argc, argv, {kJob, "device quiet latency with nothing outstanding, one thread (us)", 1, true, 1},
      [&](void *dest, const void *source, size_t bytes, int iters, cudaStream_t stream, const perftest::Options &opt) {
        if (bytes != size_now) size_now = bytes, launches = 0;
        const bool put = launches++ == (opt.warmup > 0 ? 1 : 0);  // the first timed launch
        quiet_kernel<<<1, 1, 0, stream>>>(static_cast<char *>(dest), static_cast<const char *>(source), bytes, iters, 1,
                                          put);
      });
}
