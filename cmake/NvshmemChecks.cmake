# SPDX-License-Identifier: BSD-3-Clause
# The compiler's checks on our own code, written once (docs/style.md, "Gates"): the warning set, and
# NVSHMEM_WERROR to make every warning an error (on in CI and in CMakePresets.json; off by default, so that
# a newer compiler's new warning does not stop a user's build). CUDA units get the same set for their host
# code (nvcc hands it to the host compiler), and nvcc's own warnings become errors too.
option(NVSHMEM_WERROR "Treat the warnings of our own code as errors (CI, CMakePresets.json)" OFF)
set(nvshm_warnings -Wall -Wextra)
if(NVSHMEM_WERROR)
  list(APPEND nvshm_warnings -Werror)
  add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
list(JOIN nvshm_warnings "," nvshm_host_warnings)
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${nvshm_warnings}>"
                    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${nvshm_host_warnings}>")

# NVSHMEM_SANITIZE: GCC's sanitizers on all host code, e.g. "address,undefined" or "thread" (the presets
# asan and tsan, which build and run the unit and multi-PE tiers on the CPU backend). Every UBSan finding
# is fatal, so a test fails on it.
set(NVSHMEM_SANITIZE "" CACHE STRING "Sanitizers for the host code (-fsanitize=...): address,undefined or thread")
if(NVSHMEM_SANITIZE)
  # One flag per sanitizer: nvcc splits -Xcompiler's value at commas.
  string(REPLACE "," ";" nvshm_sanitizers "${NVSHMEM_SANITIZE}")
  list(TRANSFORM nvshm_sanitizers PREPEND "-fsanitize=" OUTPUT_VARIABLE nvshm_sanitize)
  list(APPEND nvshm_sanitize -fno-omit-frame-pointer)
  if("undefined" IN_LIST nvshm_sanitizers)
    list(APPEND nvshm_sanitize -fno-sanitize-recover=undefined)
  endif()
  # GCC warns that TSan does not model std::atomic_thread_fence. Our fences order stores to the heap in
  # host shared memory for other processes, which TSan (one process) cannot see either way.
  if("thread" IN_LIST nvshm_sanitizers)
    list(APPEND nvshm_sanitize -Wno-tsan)
  endif()
  # The instrumentation makes GCC 12's flow analysis report std::function members inside <regex> as
  # maybe uninitialized (test_launcher.cpp under ASan+UBSan); the normal builds keep the warning.
  list(APPEND nvshm_sanitize -Wno-maybe-uninitialized)
  list(TRANSFORM nvshm_sanitize PREPEND "-Xcompiler=" OUTPUT_VARIABLE nvshm_host_sanitize)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${nvshm_sanitize}>"
                      "$<$<COMPILE_LANGUAGE:CUDA>:${nvshm_host_sanitize}>")
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${nvshm_sanitize}>" "$<$<LINK_LANGUAGE:CUDA>:${nvshm_host_sanitize}>")
endif()
