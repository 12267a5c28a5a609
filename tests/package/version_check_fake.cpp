// SPDX-License-Identifier: BSD-3-Clause
// Compiled with a faked nvshmem_version.h first on the include path: registers that version.
#include <nvshmem.h>

int nvshm_test_fake_unit_major() {
  return NVSHM_RELEASE_MAJOR;
}
