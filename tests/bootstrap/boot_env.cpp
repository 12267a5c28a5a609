// A PE started by a launcher (mpirun, nvshmrun, ...): nvshmem_init picks the bootstrap from the
// environment (NVSHMEM_BOOTSTRAP, NVSHMEM_BOOTSTRAP_PMI). Usage: boot_env NPES [CYCLES]
#include "boot_pe.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: boot_env NPES [CYCLES]\n");
    return 2;
  }
  int npes = atoi(argv[1]), cycles = argc > 2 ? atoi(argv[2]) : 1;
  const char *how = getenv("NVSHMEM_BOOTSTRAP");
  for (int c = 0; c < cycles; ++c) {
    nvshmem_init();
    int rc = boot_check_pes(-1, npes, how && *how ? how : "default");
    nvshmem_finalize();
    if (rc) return rc;
  }
  return 0;
}
