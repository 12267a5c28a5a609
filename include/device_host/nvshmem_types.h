/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path device_host/nvshmem_types.h: the public types and constants (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TYPES_H
#define NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TYPES_H

#include "nvshmem_detail/types.h"

#endif /* NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TYPES_H */
