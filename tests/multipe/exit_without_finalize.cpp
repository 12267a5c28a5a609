// SPDX-License-Identifier: BSD-3-Clause
// Initialises, uses the heap, and returns from main without nvshmem_finalize: the process must
// still exit cleanly (status 0, no hang) on every PE.
#include <nvshmem.h>

#include <cstdio>

int main() {
  nvshmem_init();
  int *x = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  nvshmem_int_p(x, nvshmem_my_pe(), (nvshmem_my_pe() + 1) % nvshmem_n_pes());
  nvshmem_barrier_all();
  printf("PE %d exits without nvshmem_finalize\n", nvshmem_my_pe());
  return 0;
}
