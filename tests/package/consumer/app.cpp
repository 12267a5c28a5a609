// SPDX-License-Identifier: BSD-3-Clause
// A small NVSHMEM program built against an installed tree (tests/package/package_test.sh): every PE
// writes its id into the next PE's symmetric int, then checks what it received and the versions: the
// NVSHMEM interface level of the headers and the library agree and is 3.x (code written for NVIDIA's
// NVSHMEM gates on it as below), and so do our releases. Prints "consumer OK" on PE 0.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

// The version gate code in the field uses (issue 28): it must take the NVSHMEM 3 branch.
#if NVSHMEM_VENDOR_MAJOR_VERSION >= 3
static const char *const kGate = "NVSHMEM_VENDOR_MAJOR_VERSION >= 3";
#else
#error "NVSHMEM_VENDOR_MAJOR_VERSION < 3: code written for NVSHMEM 3 takes its pre-3 branch"
#endif
#if NVSHMEM_VENDOR_VERSION < 30800
#error "NVSHMEM_VENDOR_VERSION below 3.8.0"
#endif

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *slot = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  *slot = -1;
  nvshmem_barrier_all();
  nvshmem_int_p(slot, me, (me + 1) % n);
  nvshmem_barrier_all();
  const int expect = (me + n - 1) % n;
  int major = 0, minor = 0, patch = 0, rel_major = -1, rel_minor = -1, rel_patch = -1;
  nvshmemx_vendor_get_version_info(&major, &minor, &patch);
  nvshm_get_release_version(&rel_major, &rel_minor, &rel_patch);
  const int library = major * 10000 + minor * 100 + patch;
  const int release = rel_major * 10000 + rel_minor * 100 + rel_patch;
  int ok = *slot == expect && library == NVSHMEM_VENDOR_VERSION && major >= 3 && release == NVSHM_RELEASE_VERSION;
  if (!ok)
    std::printf(
        "PE %d: FAILED: got %d (expected %d), library API level %d.%d.%d release %d.%d.%d, headers %s "
        "release %s\n",
        me, *slot, expect, major, minor, patch, rel_major, rel_minor, rel_patch, NVSHMEM_VENDOR_STRING,
        NVSHM_RELEASE_STRING);
  nvshmem_free(slot);
  nvshmem_finalize();
  if (ok && me == 0)
    std::printf("consumer OK: %d PEs, %s (release %s), %s\n", n, NVSHMEM_VENDOR_STRING, NVSHM_RELEASE_STRING, kGate);
  return ok ? 0 : 1;
}
