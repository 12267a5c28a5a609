// SPDX-License-Identifier: BSD-3-Clause
/* shmem_g_bw: device int_g bandwidth, PE 0 reading PE 1, every thread one element at a time (GB/s)
 *
 * PE 0 runs -c blocks of -t threads over size/4 ints (grid-stride), -n times, then quiet.
 * GB/s = size * iters / kernel time (CUDA events). The receiving side verifies the data. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "perftest.h"

namespace {
constexpr const char *kJob = "shmem_g_bw";

__global__ void bw_kernel(int *dest, const int *source, size_t n, int iters, int peer) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t first = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; ++i)
    for (size_t j = first; j < n; j += stride) dest[j] = nvshmem_int_g(source + j, peer);
}
}  // namespace

int main(int argc, char **argv) {
  return perftest::run_one_sided(
      argc, argv,
      {kJob, "device int_g bandwidth, PE 0 reading PE 1, every thread one element at a time (GB/s)", 0, false,
       sizeof(int)},
      [](void *dest, const void *source, size_t bytes, int iters, cudaStream_t stream, const perftest::Options &opt) {
        bw_kernel<<<opt.ctas, opt.threads, 0, stream>>>(static_cast<int *>(dest), static_cast<const int *>(source),
                                                        bytes / sizeof(int), iters, 1);
      });
}
