// SPDX-License-Identifier: BSD-3-Clause
// nvshmem_global_exit called in a kernel on a PE with remote peers (its host proxy ends the job): PE 0's
// kernel calls it while the other PEs wait in a barrier that PE 0 never joins; nvshmrun must end the job
// with that status (docs/proxy.md). Skipped (77) without a GPU or libucp.
//   NVSHMEM_DISABLE_P2P=1 nvshmrun -n N device_global_exit STATUS
#include <nvshmem.h>

#include <cstdio>
#include <cstdlib>

#include "gpu_test.hpp"

__global__ void exit_kernel(int status) {
  nvshmem_global_exit(status);
}

int main(int argc, char **argv) {
  if (const int skip = gpu_test::skip_code()) return skip;
  const int status = argc > 1 ? atoi(argv[1]) : 3;
  nvshmem_init();
  nvshmem_barrier_all();
  if (nvshmem_my_pe() == 0) {
    exit_kernel<<<1, 1>>>(status);
    const cudaError_t launched = cudaGetLastError(), ran = cudaDeviceSynchronize();
    printf("PE 0: the kernel returned (launch: %s, run: %s): the job did not end\n", cudaGetErrorString(launched),
           cudaGetErrorString(ran));
    return 98;
  }
  nvshmem_barrier_all();  // never completes: PE 0 is gone
  printf("PE %d passed a barrier that PE 0 never joined\n", nvshmem_my_pe());
  return 99;
}
