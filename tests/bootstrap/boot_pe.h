/* SPDX-License-Identifier: BSD-3-Clause */
// Shared body of the bootstrap test PEs: after init, check the PE count and do a put/get round on the
// symmetric heap (the CPU backend's host shared memory without a GPU).
#pragma once
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>

// Returns 0 when every check passes; prints what failed otherwise.
inline int boot_check_pes(int expect_pe, int expect_npes, const char *how) {
  int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  if (n != expect_npes || (expect_pe >= 0 && me != expect_pe)) {
    fprintf(stderr, "%s: PE %d of %d, expected PE %d of %d\n", how, me, n, expect_pe, expect_npes);
    return 1;
  }
  int *slot = static_cast<int *>(nvshmem_malloc(2 * sizeof(int)));
  if (!slot) {
    fprintf(stderr, "%s: nvshmem_malloc failed\n", how);
    return 1;
  }
  int right = (me + 1) % n, left = (me + n - 1) % n;
  nvshmem_int_p(slot, 1000 + me, right);
  nvshmem_barrier_all();
  int bad = 0;
  if (slot[0] != 1000 + left)
    fprintf(stderr, "%s: PE %d got %d from the left, expected %d\n", how, me, slot[0], 1000 + left), bad = 1;
  int got = nvshmem_int_g(slot, right);
  if (got != 1000 + me)
    fprintf(stderr, "%s: PE %d read %d from PE %d, expected %d\n", how, me, got, right, 1000 + me), bad = 1;
  nvshmem_barrier_all();
  nvshmem_free(slot);
  if (!bad) printf("%s: PE %d of %d ok\n", how, me, n);
  return bad;
}
