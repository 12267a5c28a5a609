/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path device/nvshmem_defines.h: the device interface, which nvshmem.h defines inline
 * under nvcc (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_NVSHMEM_DEFINES_H
#define NVSHM_COMPAT_DEVICE_NVSHMEM_DEFINES_H

#include "nvshmem.h"

#endif /* NVSHM_COMPAT_DEVICE_NVSHMEM_DEFINES_H */
