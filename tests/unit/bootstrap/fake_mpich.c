// SPDX-License-Identifier: BSD-3-Clause
/* A stand-in for an MPICH-ABI MPI library (int handles), one process: enough for the MPI bootstrap's ABI
 * detection, handle checks and calls to be exercised without MPICH installed. Not an MPI.
 * FAKE_MPICH_SIZE=<n> (default 1) makes the one process rank 0 of n, every other rank a copy of it: an
 * allgather puts the caller's block in every slot. It counts the bytes the process contributed
 * (fake_mpich_contributed), so that a test can run a whole nvshmem_init of 1024 PEs in one process. */
#include <stdlib.h>
#include <string.h>

int MPIR_Process; /* what the bootstrap looks for to recognise the MPICH ABI */

#define WORLD 0x44000000
#define DUP ((int)0x84000001) /* MPICH handles are ints: this one is negative */
static int initialized, finalized, dup_alive;
static unsigned long long contributed;

static int valid(int comm) {
  return comm == WORLD || (comm == DUP && dup_alive);
}

int MPI_Initialized(int *flag) {
  *flag = initialized;
  return 0;
}
int MPI_Finalized(int *flag) {
  *flag = finalized;
  return 0;
}
int MPI_Init(int *argc, char ***argv) {
  (void)argc, (void)argv;
  initialized = 1;
  return 0;
}
int MPI_Finalize(void) {
  finalized = 1;
  return 0;
}
int MPI_Comm_rank(int comm, int *rank) {
  *rank = 0;
  return valid(comm) ? 0 : 5;
}
static int world_size(void) {
  const char *v = getenv("FAKE_MPICH_SIZE");
  return v && atoi(v) > 0 ? atoi(v) : 1;
}
int MPI_Comm_size(int comm, int *size) {
  *size = world_size();
  return valid(comm) ? 0 : 5;
}
int MPI_Comm_dup(int comm, int *out) {
  if (!valid(comm)) return 5;
  dup_alive = 1;
  *out = DUP;
  return 0;
}
int MPI_Comm_idup(int comm, int *out, int *req) {
  *req = 0x2c000001;
  return MPI_Comm_dup(comm, out);
}
int MPI_Comm_free(int *comm) {
  if (*comm == DUP) dup_alive = 0;
  *comm = 0x04000000;
  return 0;
}
int MPI_Comm_set_errhandler(int comm, int eh) {
  (void)comm, (void)eh;
  return 0;
}
int MPI_Comm_get_errhandler(int comm, int *eh) {
  (void)comm;
  *eh = 0x54000000;
  return 0;
}
int MPI_Errhandler_free(int *eh) {
  *eh = 0x14000000;
  return 0;
}
int MPI_Iallgather(const void *in, int n, int dt, void *out, int m, int dt2, int comm, int *req) {
  if (dt != 0x4c00010d || dt2 != dt || n != m || !valid(comm)) return 3;
  contributed += (unsigned long long)n;
  for (int rank = world_size() - 1; rank >= 0; --rank) memmove((char *)out + (size_t)rank * (size_t)n, in, (size_t)n);
  *req = 0x2c000002;
  return 0;
}
int MPI_Test(int *req, int *done, void *status) {
  (void)status;
  *req = 0x2c000000;
  *done = 1;
  return 0;
}
int MPI_Error_string(int code, char *text, int *len) {
  strcpy(text, code == 5 ? "MPI_ERR_COMM: invalid communicator" : "some MPI error");
  *len = (int)strlen(text);
  return 0;
}
int MPI_Get_library_version(char *text, int *len) {
  strcpy(text, "fake MPICH");
  *len = 10;
  return 0;
}

/* For the test: the bytes this process gave to allgathers since the last call (then zero). */
unsigned long long fake_mpich_take_contributed(void) {
  const unsigned long long bytes = contributed;
  contributed = 0;
  return bytes;
}

/* For the test: start over as an application that has called MPI_Init. */
void fake_mpich_reset_initialized(void) {
  initialized = 1, finalized = 0, dup_alive = 0;
}
