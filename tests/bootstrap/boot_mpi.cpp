// SPDX-License-Identifier: BSD-3-Clause
// nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM) under mpirun. Usage: boot_mpi MODE
//   world   MPI_COMM_WORLD
//   split   a communicator split from MPI_COMM_WORLD without the last rank and in reverse order
//   null    a freed communicator (MPI_COMM_NULL): init must fail with NVSHMEMX_ERROR_INVALID_VALUE
//   straggler  the last rank calls init 4 s late: with NVSHMEM_BOOTSTRAP_TIMEOUT=1 the others' init fails
//           with a timeout instead of hanging, and so does the straggler's (nobody is left to meet it)
//   env     plain nvshmem_init in an MPI program (PMIx under mpirun, sharing libpmix with MPI), twice
#include <mpi.h>

#include <unistd.h>

#include <cstring>

#include "boot_pe.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank, wsize, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const char *mode = argc > 1 ? argv[1] : "world";
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (!strcmp(mode, "world")) {
    MPI_Comm comm = MPI_COMM_WORLD;
    nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
    rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
    if (rc == 0) rc = boot_check_pes(wrank, wsize, "mpi world"), nvshmem_finalize();
  } else if (!strcmp(mode, "split")) {
    MPI_Comm comm;
    bool in = wrank < wsize - 1;
    MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, -wrank, &comm);
    if (in) {
      nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
      rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
      if (rc == 0) rc = boot_check_pes(wsize - 2 - wrank, wsize - 1, "mpi split"), nvshmem_finalize();
      MPI_Comm_free(&comm);
    }
  } else if (!strcmp(mode, "straggler")) {
    MPI_Comm comm = MPI_COMM_WORLD;
    nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
    if (wrank == wsize - 1) sleep(4);
    int got = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
    rc = got != 0 ? 0 : 1;
    printf("mpi straggler: PE %d: nvshmemx_init_attr returned %d\n", wrank, got);
  } else if (!strcmp(mode, "env")) {
    for (int cycle = 0; cycle < 2 && rc == 0; ++cycle) {
      nvshmem_init();
      rc = boot_check_pes(-1, wsize, "mpi program, nvshmem_init");
      nvshmem_finalize();
    }
  } else if (!strcmp(mode, "null")) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_free(&comm);  // comm is now MPI_COMM_NULL
    nvshmemx_set_attr_mpi_comm_args(&comm, &attr);
    int got = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
    rc = got == NVSHMEMX_ERROR_INVALID_VALUE ? 0 : 1;
    printf("mpi null: PE %d: nvshmemx_init_attr returned %d\n", wrank, got);
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    rc = 2;
  }
  int all = 0;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return all;
}
