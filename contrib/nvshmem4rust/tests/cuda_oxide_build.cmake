# SPDX-License-Identifier: BSD-3-Clause
# CTest contrib.nvshmem4rust.cuda_oxide: configures this project into BUILD with NVSHMEM_CUDA_OXIDE_ROOT
# set to the stand-in checkout (tests/cuda_oxide_standin), checks that the generated Cargo.toml takes
# cuda-core from it, builds, and runs tests/cuda_oxide.rs (its CTest contrib.nvshmem4rust.cuda_oxide_test).
#   cmake -DSOURCE=... -DBUILD=... -DNVSHMEM_HOME=... -DNVSHMEM_DIR=... -DCUDA_HOME=... -DCARGO=... -DRUSTC=...
#         -P cuda_oxide_build.cmake
set(root ${SOURCE}/tests/cuda_oxide_standin)
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuda_oxide: '${ARGN}' failed (${rc})")
  endif()
endfunction()
step(${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G Ninja -DNVSHMEM_HOME=${NVSHMEM_HOME} -DNVSHMEM_DIR=${NVSHMEM_DIR}
     -DNVSHMEM_CUDA_HOME=${CUDA_HOME} -DCARGO=${CARGO} -DRUSTC=${RUSTC} -DNVSHMEM_CUDA_OXIDE_ROOT=${root})
file(READ ${BUILD}/generated/nvshmem_host_runtime/Cargo.toml manifest)
string(FIND "${manifest}" "cuda-core = { path = \"${root}/crates/cuda-core\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "cuda_oxide: the generated Cargo.toml does not take cuda-core from ${root}:\n${manifest}")
endif()
step(${CMAKE_COMMAND} --build ${BUILD})
step(${CMAKE_CTEST_COMMAND} --test-dir ${BUILD} --output-on-failure -R "^contrib.nvshmem4rust.cuda_oxide_test$")
message(STATUS "cuda_oxide: the crate built with cuda-core from ${root} and registered its module type")
