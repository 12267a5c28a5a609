// SPDX-License-Identifier: BSD-3-Clause
// A split where one PE never arrives fails after NVSHMEM_BOOTSTRAP_TIMEOUT with a message naming
// that PE, and returns NVSHMEM_TEAM_INVALID; the job then ends normally. Run with 2 PEs.
#include <nvshmem.h>
#include <stdio.h>
#include <unistd.h>

int main() {
  nvshmem_init();
  int status = 0;
  if (nvshmem_my_pe() == 0) {
    nvshmem_team_t team = 12345;
    const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), NULL, 0, &team);
    status = rc != 0 && team == NVSHMEM_TEAM_INVALID ? 0 : 1;
    printf("split without PE 1: rc %d, team %d\n", rc, team);
  } else {
    sleep(4);  // past PE 0's 3 s timeout, within its finalize barrier's
  }
  nvshmem_finalize();
  return status;
}
