// SPDX-License-Identifier: BSD-3-Clause
/* shmem_put_latency: latency of one thread's device putmem (blocking) from PE 0 to PE 1.
 *
 * One thread of PE 0 calls nvshmem_putmem then nvshmem_quiet, -n times; latency = kernel time /
 * iterations (microseconds). The receiving side verifies the data. With --no_quiet (ours) the loop is the
 * blocking puts alone and one quiet follows it (metric latency_no_quiet): what a put costs before its
 * source may be reused, which to a remote PE is local completion, not the round trip of put + quiet. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_put_latency";

template <bool QuietEach>
__global__ void put_kernel(char *dest, const char *source, size_t size, int iters, int peer) {
  for (int i = 0; i < iters; ++i) {
    nvshmem_putmem(dest, source, size, peer);
    if constexpr (QuietEach) nvshmem_quiet();
  }
  if constexpr (!QuietEach) nvshmem_quiet();
}
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_one_sided(
      argc, argv, {kJob, "device putmem latency, one thread (us)", 1, true, 1, perftest::kNoQuiet},
      [](void *dest, const void *source, size_t bytes, int iters, cudaStream_t stream, const perftest::Options &opt) {
        auto *kernel = opt.quiet ? put_kernel<true> : put_kernel<false>;
        kernel<<<1, 1, 0, stream>>>(static_cast<char *>(dest), static_cast<const char *>(source), bytes, iters, 1);
      });
}
