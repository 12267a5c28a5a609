/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective kernel launch (NVSHMEM docs: "Collective Kernel Launch"). Defined inline so that the
 * launch runs in the application's own CUDA runtime, where its kernels are registered; nothing
 * to link. */
#ifndef NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H
#define NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H

/* Host code only: NVRTC (device code, no CUDA runtime) sees nothing of this header. */
#if !defined(__CUDACC_RTC__)
#include <cuda_runtime_api.h>

#include "nvshmem_detail/types.h"

/* Largest grid of `kernel` with `block` threads and `shmem` dynamic shared bytes whose blocks can
 * all be resident at once (one PE's GPU). Returns 0, or NVSHMEMX_ERROR_INTERNAL if CUDA fails. */
static inline int nvshmemx_collective_launch_query_gridsize(const void *kernel, dim3 block, void **args, size_t shmem,
                                                            int *gridsize) {
  (void)args;
  int device = 0, sms = 0, per_sm = 0;
  const int threads = (int)(block.x * block.y * block.z);
  if (!gridsize || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shmem) != cudaSuccess)
    return NVSHMEMX_ERROR_INTERNAL;
  *gridsize = per_sm * sms;
  return NVSHMEMX_SUCCESS;
}

/* Launch `kernel` cooperatively on every PE's `stream` (each PE calls it), so that its blocks are
 * co-resident and may synchronise through NVSHMEM. A grid larger than the query above allows fails
 * with NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED. */
static inline int nvshmemx_collective_launch(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                                             cudaStream_t stream) {
  int max_grid = 0;
  if (nvshmemx_collective_launch_query_gridsize(kernel, block, args, shmem, &max_grid) != NVSHMEMX_SUCCESS)
    return NVSHMEMX_ERROR_INTERNAL;
  if ((long long)grid.x * grid.y * grid.z > (long long)max_grid) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  return cudaLaunchCooperativeKernel(kernel, grid, block, args, shmem, stream) == cudaSuccess
             ? NVSHMEMX_SUCCESS
             : NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}

#endif /* !__CUDACC_RTC__ */
#endif /* NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H */
