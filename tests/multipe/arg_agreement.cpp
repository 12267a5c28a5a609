// SPDX-License-Identifier: BSD-3-Clause
// Issue 33: collective arguments that differ between PEs are reported on every PE, naming both
// values, and the job goes on: nvshmem_malloc(0) on PE 0 against a size elsewhere, a split with a
// different size, a reduction with a different nreduce. Then (with "exit") PE 1 exits without
// finalizing and PE 0's next synchronisation names it as exited, well before the timeout. Run with
// 2 PEs; the CTest entry checks the messages. Exit status 0 when every call returned what it should.
#include <nvshmem.h>
#include <stdio.h>
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
  nvshmem_init();
  const int me = nvshmem_my_pe();
  int status = 0;

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
