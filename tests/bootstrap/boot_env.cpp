// SPDX-License-Identifier: BSD-3-Clause
// A PE started by a launcher (mpirun, nvshmrun, ...): nvshmem_init picks the bootstrap from the
// environment (NVSHMEM_BOOTSTRAP, NVSHMEM_BOOTSTRAP_PMI). Usage: boot_env NPES [CYCLES]
#include <unistd.h>

#include <cstring>

#include "boot_pe.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: boot_env NPES [CYCLES]\n");
    return 2;
  }
  int npes = atoi(argv[1]), cycles = argc > 2 ? atoi(argv[2]) : 1;
  const char *how = getenv("NVSHMEM_BOOTSTRAP");
  // BOOT_TEST_LATE=R:S: the PE whose launcher rank (OMPI_COMM_WORLD_RANK or PMI_RANK) is R starts S s late.
  if (const char *late = getenv("BOOT_TEST_LATE")) {
    const char *mine = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK") : getenv("PMI_RANK");
    if (mine && atoi(mine) == atoi(late) && strchr(late, ':'))
      sleep(static_cast<unsigned>(atoi(strchr(late, ':') + 1)));
  }
  for (int c = 0; c < cycles; ++c) {
    nvshmem_init();
    int rc = boot_check_pes(-1, npes, how && *how ? how : "default");
    nvshmem_finalize();
    if (rc) return rc;
  }
  return 0;
}
