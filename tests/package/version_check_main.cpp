// SPDX-License-Identifier: BSD-3-Clause
// Header-version check (docs/versioning.md). This unit uses the real headers; version_check_fake.cpp
// is compiled against a faked nvshmem_version.h (NVSHM_TEST_FAKE_* below). Exit 0 when init did
// what the faked version calls for:
//   NVSHM_TEST_EXPECT_FAIL=1  nvshmemx_init_attr fails (the error names both versions);
//   NVSHM_TEST_EXPECT_FAIL=0  init succeeds.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

int nvshm_test_fake_unit_major();

int main() {
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  const int status = nvshmemx_init_attr(0, &attr);
  std::printf("faked header release major %d: nvshmemx_init_attr returned %d\n", nvshm_test_fake_unit_major(), status);
  if (status == 0) nvshmem_finalize();
  const bool failed = status != 0;
  if (failed != (NVSHM_TEST_EXPECT_FAIL != 0)) {
    std::printf("FAIL: init %s, expected it to %s\n", failed ? "failed" : "succeeded",
                NVSHM_TEST_EXPECT_FAIL ? "fail" : "succeed");
    return 1;
  }
  std::printf("OK: init %s as expected\n", failed ? "refused" : "accepted");
  return 0;
}
