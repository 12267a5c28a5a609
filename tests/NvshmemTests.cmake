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

# nvshm_add_remote_pe_test(NAME NPES command...): as nvshm_add_pe_test, forced remote (docs/remote.md):
# NVSHMEM_DISABLE_P2P=1 maps no peer, so every other PE is reached through UCX, over TCP on loopback
# (UCX_NET_DEVICES=lo keeps it off the machine's network; no privileges needed). Label `remote`. A PE
# reported unreachable fails the test (a clean job, finalize included, reports none). Left out of a
# build without UCX's headers (NVSHMEM_HAVE_UCX, src/remote/CMakeLists.txt).
function(nvshm_add_remote_pe_test name npes)
  if(NOT NVSHMEM_HAVE_UCX)
    return()
  endif()
  nvshm_add_pe_test(${name} ${npes} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS remote FAIL_REGULAR_EXPRESSION "is unreachable"
                       ENVIRONMENT "NVSHMEM_SYMMETRIC_SIZE=64m;NVSHMEM_BOOTSTRAP_TIMEOUT=60;NVSHMEM_DISABLE_P2P=1;NVSHMEM_HEAP_KIND=SYSMEM;UCX_TLS=tcp;UCX_NET_DEVICES=lo;NVSHMEM_REMOTE_PROGRESS=event")
endfunction()

# nvshm_add_fake_hosts_test(NAME HOSTS PPN command...): `command` as HOSTS x PPN PEs on fake hosts made of
# network namespaces (tests/multipe/fake_hosts.sh: mapped inside a host, UCX over TCP between hosts);
# skipped where namespaces cannot be made. Label `remote`; a PE reported unreachable fails the test.
# Left out of a build without UCX's headers.
function(nvshm_add_fake_hosts_test name hosts ppn)
  if(NOT NVSHMEM_HAVE_UCX)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${PROJECT_SOURCE_DIR}/tests/multipe/fake_hosts.sh ${hosts} ${ppn}
                                $<TARGET_FILE:nvshmrun> --timeout 240 ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE ${NVSHMEM_TEST_SKIP_CODE} LABELS remote
                       FAIL_REGULAR_EXPRESSION "is unreachable"
                       ENVIRONMENT "NVSHMEM_SYMMETRIC_SIZE=64m;NVSHMEM_BOOTSTRAP_TIMEOUT=60;NVSHMEM_HEAP_KIND=SYSMEM")
endfunction()

# nvshm_add_cliques_test(NAME NODES PPN command...): `command` as NODES x PPN PEs on this one host split into
# NODES nodes by NVSHMEM_NUM_CLIQUES (mapped inside a node, UCX over TCP loopback between nodes): what
# fake hosts test, without namespaces or privileges, so also where those cannot be made (the GPU machine).
# Label `remote`; a PE reported unreachable fails the test. Left out of a build without UCX's headers.
function(nvshm_add_cliques_test name nodes ppn)
  if(NOT NVSHMEM_HAVE_UCX)
    return()
  endif()
  math(EXPR npes "${nodes} * ${ppn}")
  nvshm_add_pe_test(${name} ${npes} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS remote FAIL_REGULAR_EXPRESSION "is unreachable"
                       ENVIRONMENT "NVSHMEM_SYMMETRIC_SIZE=64m;NVSHMEM_BOOTSTRAP_TIMEOUT=60;NVSHMEM_NUM_CLIQUES=${nodes};PE_TEST_PES_PER_HOST=${ppn};NVSHMEM_HEAP_KIND=SYSMEM;UCX_TLS=tcp;UCX_NET_DEVICES=lo;NVSHMEM_REMOTE_PROGRESS=event")
endfunction()
