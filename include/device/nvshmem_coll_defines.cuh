// SPDX-License-Identifier: BSD-3-Clause
/* NVIDIA install path device/nvshmem_coll_defines.cuh: the device collectives, defined inline by
 * nvshmem.h under nvcc (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_NVSHMEM_COLL_DEFINES_CUH
#define NVSHM_COMPAT_DEVICE_NVSHMEM_COLL_DEFINES_CUH

#include "nvshmem.h"

#endif /* NVSHM_COMPAT_DEVICE_NVSHMEM_COLL_DEFINES_CUH */
