/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path device/nvshmemx_defines.h: the nvshmemx_* device interface (thread, warp and block
 * forms), defined inline by nvshmem.h under nvcc (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_NVSHMEMX_DEFINES_H
#define NVSHM_COMPAT_DEVICE_NVSHMEMX_DEFINES_H

#include "nvshmem.h"

#endif /* NVSHM_COMPAT_DEVICE_NVSHMEMX_DEFINES_H */
