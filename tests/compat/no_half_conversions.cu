// SPDX-License-Identifier: BSD-3-Clause
// compat.no_half_conversions: nvshmem.h and nvshmemx.h compile with CUDA's implicit half and bfloat16
// conversions switched off (NVSHMEM 3.7.1 fixed its half atomics for this), and the routines that take
// those types are instantiated: the half atomics and a half and a bfloat16 reduction.
#define __CUDA_NO_HALF_CONVERSIONS__
#define __CUDA_NO_BFLOAT16_CONVERSIONS__
#include <nvshmem.h>
#include <nvshmemx.h>

__global__ void uses_half(half *h, __nv_bfloat16 *b, half *out) {
  nvshmemx_half_atomic_add(h, out[0], 1);
  out[1] = nvshmemx_half_atomic_fetch_add(h, out[0], 1);
  nvshmem_half_atomic_set(h + 1, out[2], 1);
  out[3] = nvshmem_half_atomic_swap(h + 1, out[2], 1);
  out[4] = nvshmem_half_atomic_fetch(h + 1, 1);
  nvshmemx_half_sum_reduce_block(NVSHMEM_TEAM_WORLD, h + 2, h + 4, 2);
  nvshmem_bfloat16_max_reduce(NVSHMEM_TEAM_WORLD, b, b + 2, 2);
}
