// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM_HOSTLIB_ONLY before `#include <nvshmem.h>` leaves the device interface out
// (docs/compatibility.md): the host interface, C++ layer included, compiles in a CUDA unit
// (NVSHM_CASE_ok), and a kernel that calls a device-only routine (NVSHM_CASE_device_only) or a
// routine NVSHMEM declares host+device (NVSHM_CASE_host_device) does not compile.
// tests/compat/CMakeLists.txt runs each case.
#define NVSHMEM_HOSTLIB_ONLY
#include <nvshmem.h>
#include <nvshmem/nvshmem.hpp>  // the C++ layer keeps its host part only
#include <nvshmemx.h>

#if defined(NVSHM_CASE_ok)
// The host interface and the host macros are all there; no device state, no device templates.
#if defined(NVSHMEM_DETAIL_DEVICE_STATE_H) || defined(NVSHMEM_DETAIL_DEVICE_API_CUH)
#error "the device interface was included under NVSHMEM_HOSTLIB_ONLY"
#endif
__global__ void plain_kernel(int *out) {
  out[threadIdx.x] = 1;
}
int host_side(void *sym) {
  nvshmem_putmem(sym, sym, 0, nvshmem_my_pe());
  int grid = 0;
  return nvshmemx_collective_launch_query_gridsize((const void *)plain_kernel, dim3(32), nullptr, 0, &grid);
}
#elif defined(NVSHM_CASE_device_only)
__global__ void calls_device_only(void *dest, const void *src) {
  nvshmemx_putmem_block(dest, src, 16, 0);
}
#elif defined(NVSHM_CASE_host_device)
__global__ void calls_host_device(int *dest) {
  nvshmem_int_p(dest, 1, 0);
}
#endif
