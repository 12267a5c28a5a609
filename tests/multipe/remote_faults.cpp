// SPDX-License-Identifier: BSD-3-Clause
// Faults on remote PEs (docs/remote.md), 2 PEs; the CTest entries check the messages.
// "killed" (forced remote): PE 1 exits without finalizing after a barrier; PE 0's next put and quiet to
// it must fail with a message naming PE 1 and the operation within 10 s (the abort ends the job).
// "link_down" (two fake hosts, tests/multipe/fake_hosts.sh): PE 0 takes its host's link (fh0) down, then
// puts to PE 1: the same kind of message within NVSHMEM_BOOTSTRAP_TIMEOUT. Without an argument: a plain
// init, for the refusals at init (NVSHMEM_REMOTE_TRANSPORT=none, libucp missing). "wait_timeout": PE 0
// waits on stream (host heap: on the host) for a word nobody writes; "coll_gone": PE 0 reduces on stream
// while PE 1 has exited. Both end with a message naming the call and the cause. "init_time": each PE
// prints how long its nvshmem_init took (the 2-host init goal of issue 26).
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  nvshmem_init();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const int me = nvshmem_my_pe();
  if (argc > 1 && strcmp(argv[1], "init_time") == 0) {  // seconds nvshmem_init took on this PE
    printf("PE %d: nvshmem_init %.3f s\n", me, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    nvshmem_finalize();
    return 0;
  }
  int *word = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  if (argc > 1 && strcmp(argv[1], "killed") == 0) {
    nvshmem_int_p(word, 41, 1 - me);  // both PEs have connected to each other
    nvshmem_barrier_all();
    if (me == 1) _exit(0);  // gone without nvshmem_finalize
    usleep(300000);
    printf("PE 0: writing to the exited PE 1\n");
    fflush(stdout);
    // Until the engine notices (a failed send, or UCX's endpoint timeout, later under a sanitizer):
    // 10 s, half of this test's NVSHMEM_BOOTSTRAP_TIMEOUT.
    timespec now;
    for (int i = 0;; ++i) {
      nvshmem_int_p(word, i, 1);
      nvshmem_quiet();
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (now.tv_sec - t1.tv_sec > 10) break;
    }
    printf("PE 0: puts to an exited PE completed for 10 s\n");
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
  if (argc > 1 && strcmp(argv[1], "wait_timeout") == 0) {
    // A stream wait on a host heap whose word nobody writes: NVSHMEM_BOOTSTRAP_TIMEOUT ends it with a
    // message naming the call, the PE, the element and both values.
    nvshmem_barrier_all();
    if (me == 1) {
      sleep(120);  // ended by nvshmrun when PE 0 fails
      return 1;
    }
    nvshmemx_int_wait_until_on_stream(word, NVSHMEM_CMP_EQ, 7, 0);
    printf("PE 0: the wait for a word nobody writes returned\n");
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "coll_gone") == 0) {
    // A stream collective on a host heap while a member has exited: named with the call and the PE.
    nvshmem_int_p(word, 41, 1 - me);
    nvshmem_barrier_all();
    if (me == 1) _exit(0);  // gone without nvshmem_finalize
    nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, word, word, 1, 0);
    printf("PE 0: a reduction with an exited PE completed\n");
    return 1;
  }
  nvshmem_free(word);
  nvshmem_finalize();
  return 0;
}
