// SPDX-License-Identifier: BSD-3-Clause
/* NVIDIA install path device_host/nvshmem_common.cuh: what host and device code share, which here is
 * the whole interface: nvshmemx.h (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_COMMON_CUH
#define NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_COMMON_CUH

#include "nvshmemx.h"

#endif /* NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_COMMON_CUH */
