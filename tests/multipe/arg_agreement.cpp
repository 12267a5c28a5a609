// SPDX-License-Identifier: BSD-3-Clause
// Issue 33: collective arguments that differ between PEs are reported on every PE, naming both
// values, and the job goes on: nvshmem_malloc(0) on PE 0 against a size elsewhere, a split with a
// different size, a reduction with a different nreduce. Then (with "exit") PE 1 exits without
// finalizing and PE 0's next synchronisation names it as exited, well before the timeout. With "relay",
// PE 1 alone sets NVSHMEM_HOST_COLL_RELAY_MIN, which must agree (it chooses a collective's rounds): a
// broadcast, an fcollect and a reduction fail on every PE, naming it. Run with 2 PEs; the CTest entries
// check the messages. Exit status 0 when every call returned what it should.
#include <nvshmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <chrono>

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "PE %d: check failed: %s\n", nvshmem_my_pe(), #cond); \
      status = 1;                                                           \
    }                                                                       \
  } while (0)

int main(int argc, char **argv) {
  const bool relay = argc > 1 && strcmp(argv[1], "relay") == 0;
  const char *rank = getenv("NVSHMRUN_RANK");
  if (relay && rank && strcmp(rank, "1") == 0) setenv("NVSHMEM_HOST_COLL_RELAY_MIN", "1m", 1);
  nvshmem_init();
  const int me = nvshmem_my_pe();
  int status = 0;

  if (relay) {
    char *from = static_cast<char *>(nvshmem_malloc(1024)), *to = static_cast<char *>(nvshmem_malloc(2048));
    CHECK(from != nullptr && to != nullptr);
    CHECK(nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, to, from, 1024, 0) != 0);
    CHECK(nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, to, from, 1024) != 0);
    CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, reinterpret_cast<int *>(to), reinterpret_cast<int *>(from), 8) !=
          0);
    CHECK(nvshmem_alltoallmem(NVSHMEM_TEAM_WORLD, to, from, 512) == 0);  // not through leaders: no such argument
    printf("PE %d: relay threshold checks done, status %d\n", me, status);
    nvshmem_free(to);
    nvshmem_free(from);
    nvshmem_finalize();
    return status;
  }

  // nvshmem_malloc(0) here, a size there: NULL everywhere, and the heap stays in step.
  CHECK(nvshmem_malloc(me == 0 ? 0 : 64) == nullptr);
  int *buf = static_cast<int *>(nvshmem_malloc(64 * sizeof(int)));
  CHECK(buf != nullptr);

  // A split with a different size on one PE: no team anywhere.
  nvshmem_team_t team = 12345;
  CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, me == 0 ? 2 : 1, nullptr, 0, &team) != 0);
  CHECK(team == NVSHMEM_TEAM_INVALID);

  // A reduction with a different nreduce: an error everywhere; the next one with equal counts works.
  for (int i = 0; i < 64; ++i) buf[i] = me + 1;
  int *out = static_cast<int *>(nvshmem_malloc(64 * sizeof(int)));
  CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, out, buf, me == 0 ? 16 : 8) != 0);
  CHECK(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, out, buf, 16) == 0);
  CHECK(out[15] == 3);
  printf("PE %d: argument checks done, status %d\n", me, status);
  fflush(stdout);

  if (argc > 1 && strcmp(argv[1], "exit") == 0) {
    nvshmem_barrier_all();
    if (me == 1) _exit(status);  // gone without nvshmem_finalize
    usleep(200000);
    const auto start = std::chrono::steady_clock::now();
    CHECK(nvshmem_team_sync(NVSHMEM_TEAM_WORLD) != 0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("PE 0: the sync with an exited PE failed after %.2f s\n", s);
    CHECK(s < 5);
    fflush(stdout);
    _exit(status);
  }
  nvshmem_free(out);
  nvshmem_free(buf);
  nvshmem_finalize();
  return status;
}
