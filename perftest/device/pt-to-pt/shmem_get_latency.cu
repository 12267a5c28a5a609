// SPDX-License-Identifier: BSD-3-Clause
/* shmem_get_latency: latency of one thread's device getmem (blocking) by PE 0 from PE 1.
 *
 * One thread of PE 0 calls nvshmem_getmem then nvshmem_quiet, -n times; latency = kernel time /
 * iterations (microseconds). The receiving side verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_get_latency";

__global__ void get_kernel(char *dest, const char *source, size_t size, int iters, int peer) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_getmem(dest, source, size, peer);
    nvshmem_quiet();
  }
}
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_one_sided(
      argc, argv, {kJob, "device getmem latency, one thread (us)", 0, true, 1},
      [](void *dest, const void *source, size_t bytes, int iters, cudaStream_t stream, const perftest::Options &) {
        get_kernel<<<1, 1, 0, stream>>>(static_cast<char *>(dest), static_cast<const char *>(source), bytes, iters, 1);
      });
}
