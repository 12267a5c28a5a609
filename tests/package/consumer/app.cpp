// SPDX-License-Identifier: BSD-3-Clause
// A small NVSHMEM program built against an installed tree (tests/package/package_test.sh): every PE
// writes its id into the next PE's symmetric int, then checks what it received and that the header
// and library versions agree. Prints "consumer OK" on PE 0.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *slot = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  *slot = -1;
  nvshmem_barrier_all();
  nvshmem_int_p(slot, me, (me + 1) % n);
  nvshmem_barrier_all();
  const int expect = (me + n - 1) % n;
  int major = 0, minor = 0, patch = 0;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  const int library = major * 10000 + minor * 100 + patch;
  int ok = *slot == expect && library == NVSHMEM_VENDOR_VERSION;
  if (!ok)
    std::printf("PE %d: FAILED: got %d (expected %d), library %d.%d.%d, headers %s\n", me, *slot, expect, major, minor,
                patch, NVSHMEM_VENDOR_STRING);
  nvshmem_free(slot);
  nvshmem_finalize();
  if (ok && me == 0) std::printf("consumer OK: %d PEs, %s\n", n, NVSHMEM_VENDOR_STRING);
  return ok ? 0 : 1;
}
