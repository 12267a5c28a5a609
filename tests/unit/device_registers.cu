// SPDX-License-Identifier: BSD-3-Clause
// Kernels that do nothing but call one device-API routine each: tests/unit/check_registers.sh
// compiles them with ptxas -v and bounds their registers. The routines are inlined into the caller's
// kernel, and a kernel's registers bound its block size (65536 / registers per thread), so what these
// minimal kernels need is what a user's kernel needs at least (docs/collectives.md, "Registers of the
// device API").
#include <nvshmem.h>
#include <nvshmemx.h>

#define NVSHM_REG_KERNEL(NAME, PARAMS, CALL) \
  __global__ void reg_##NAME PARAMS {        \
    CALL;                                    \
  }

// Reductions: every scope, a 4-byte and an 8-byte type, reduce and reducescatter.
NVSHM_REG_KERNEL(float_sum_reduce, (float *d, const float *s, size_t n),
                 nvshmem_float_sum_reduce(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(float_sum_reduce_warp, (float *d, const float *s, size_t n),
                 nvshmemx_float_sum_reduce_warp(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(float_sum_reduce_block, (float *d, const float *s, size_t n),
                 nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(double_max_reduce_block, (double *d, const double *s, size_t n),
                 nvshmemx_double_max_reduce_block(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(int_sum_reducescatter_block, (int *d, const int *s, size_t n),
                 nvshmemx_int_sum_reducescatter_block(NVSHMEM_TEAM_WORLD, d, s, n))
// Data collectives: every scope.
NVSHM_REG_KERNEL(broadcastmem, (void *d, const void *s, size_t n), nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, d, s, n, 0))
NVSHM_REG_KERNEL(broadcastmem_warp, (void *d, const void *s, size_t n),
                 nvshmemx_broadcastmem_warp(NVSHMEM_TEAM_WORLD, d, s, n, 0))
NVSHM_REG_KERNEL(broadcastmem_block, (void *d, const void *s, size_t n),
                 nvshmemx_broadcastmem_block(NVSHMEM_TEAM_WORLD, d, s, n, 0))
NVSHM_REG_KERNEL(fcollectmem, (void *d, const void *s, size_t n), nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(fcollectmem_block, (void *d, const void *s, size_t n),
                 nvshmemx_fcollectmem_block(NVSHMEM_TEAM_WORLD, d, s, n))
NVSHM_REG_KERNEL(alltoallmem_block, (void *d, const void *s, size_t n),
                 nvshmemx_alltoallmem_block(NVSHMEM_TEAM_WORLD, d, s, n))
// Synchronisation and point to point.
NVSHM_REG_KERNEL(barrier_all_block, (int), nvshmemx_barrier_all_block())
NVSHM_REG_KERNEL(team_sync_block, (int), nvshmemx_team_sync_block(NVSHMEM_TEAM_WORLD))
NVSHM_REG_KERNEL(putmem_block, (void *d, const void *s, size_t n, int pe), nvshmemx_putmem_block(d, s, n, pe))
NVSHM_REG_KERNEL(getmem_block, (void *d, const void *s, size_t n, int pe), nvshmemx_getmem_block(d, s, n, pe))
NVSHM_REG_KERNEL(putmem_signal_block, (void *d, const void *s, size_t n, uint64_t *sig, int pe),
                 nvshmemx_putmem_signal_block(d, s, n, sig, 1, NVSHMEM_SIGNAL_SET, pe))
