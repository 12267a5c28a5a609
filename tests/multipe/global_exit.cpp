// SPDX-License-Identifier: BSD-3-Clause
// PE 0 calls nvshmem_global_exit(status) while the other PEs wait in a barrier that PE 0 never
// joins: the launcher must end the whole job with that status at once, also for status 0.
//   nvshmrun -n N global_exit STATUS
#include <nvshmem.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int status = argc > 1 ? atoi(argv[1]) : 3;
  nvshmem_init();
  nvshmem_barrier_all();
  if (nvshmem_my_pe() == 0) nvshmem_global_exit(status);
  nvshmem_barrier_all();  // never completes: PE 0 is gone
  printf("PE %d passed a barrier that PE 0 never joined\n", nvshmem_my_pe());
  return 99;
}
