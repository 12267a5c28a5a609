// SPDX-License-Identifier: BSD-3-Clause
/* NVIDIA install path device/nvshmemx_coll_defines.cuh: the warp and block device collectives,
 * defined inline by nvshmem.h under nvcc (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_NVSHMEMX_COLL_DEFINES_CUH
#define NVSHM_COMPAT_DEVICE_NVSHMEMX_COLL_DEFINES_CUH

#include "nvshmem.h"

#endif /* NVSHM_COMPAT_DEVICE_NVSHMEMX_COLL_DEFINES_CUH */
