// SPDX-License-Identifier: BSD-3-Clause
// Faults on remote PEs (docs/remote.md), run forced remote with 2 PEs; the CTest entries check the
// messages. "killed": PE 1 exits without finalizing after a barrier; PE 0's next put and quiet to it
// must fail with a message naming PE 1 and the operation, well within the timeout (the abort ends the
// job). Without an argument: a plain init, for the NVSHMEM_REMOTE_TRANSPORT=none refusal.
#include <nvshmem.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  nvshmem_init();
  const int me = nvshmem_my_pe();
  int *word = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  if (argc > 1 && strcmp(argv[1], "killed") == 0) {
    nvshmem_int_p(word, 41, 1 - me);  // both PEs have connected to each other
    nvshmem_barrier_all();
    if (me == 1) _exit(0);  // gone without nvshmem_finalize
    usleep(300000);
    printf("PE 0: writing to the exited PE 1\n");
    fflush(stdout);
    for (int i = 0; i < 1000; ++i) {
      nvshmem_int_p(word, i, 1);
      nvshmem_quiet();
    }
    printf("PE 0: 1000 puts to an exited PE completed\n");
    return 1;
  }
  nvshmem_free(word);
  nvshmem_finalize();
  return 0;
}
