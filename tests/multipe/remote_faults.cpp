// SPDX-License-Identifier: BSD-3-Clause
// Faults on remote PEs (docs/remote.md), 2 PEs; the CTest entries check the messages.
// "killed" (forced remote): PE 1 exits without finalizing after a barrier; PE 0's next put and quiet to
// it must fail with a message naming PE 1 and the operation, well within the timeout (the abort ends
// the job). "link_down" (two fake hosts, tests/multipe/fake_hosts.sh): PE 0 takes its host's link (fh0)
// down, then puts to PE 1: the same kind of message within NVSHMEM_BOOTSTRAP_TIMEOUT. Without an
// argument: a plain init, for the refusals at init (NVSHMEM_REMOTE_TRANSPORT=none, libucp missing).
#include <nvshmem.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
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
  if (argc > 1 && strcmp(argv[1], "link_down") == 0) {
    nvshmem_int_p(word, 41, 1 - me);
    nvshmem_barrier_all();
    if (me == 1) {
      sleep(120);  // ended by nvshmrun when PE 0 fails
      return 1;
    }
    if (system("ip link set fh0 down") != 0) return 77;
    printf("PE 0: link down, writing to PE 1\n");
    fflush(stdout);
    for (int i = 0; i < 1000; ++i) {
      nvshmem_int_p(word, i, 1);
      nvshmem_quiet();
    }
    printf("PE 0: 1000 puts over a link that is down completed\n");
    return 1;
  }
  nvshmem_free(word);
  nvshmem_finalize();
  return 0;
}
