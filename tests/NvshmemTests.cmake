# SPDX-License-Identifier: BSD-3-Clause
# Helpers shared by the test folders.
set(NVSHMEM_TEST_SKIP_CODE 77)

# nvshm_add_pe_test(NAME NPES command...): run `command` as NPES PEs under nvshmrun, with a
# launcher timeout so that a hang fails with a message instead of blocking CI. Exit code 77 (no
# GPU) marks the test skipped.
function(nvshm_add_pe_test name npes)
  add_test(NAME ${name} COMMAND $<TARGET_FILE:nvshmrun> -n ${npes} --timeout 240 ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE ${NVSHMEM_TEST_SKIP_CODE}
                       ENVIRONMENT "NVSHMEM_SYMMETRIC_SIZE=256m;NVSHMEM_BOOTSTRAP_TIMEOUT=60")
endfunction()
