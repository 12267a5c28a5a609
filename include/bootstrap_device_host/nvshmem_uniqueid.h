/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path bootstrap_device_host/nvshmem_uniqueid.h: nvshmemx_uniqueid_t and
 * NVSHMEMX_UNIQUEID_INITIALIZER (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_BOOTSTRAP_DEVICE_HOST_NVSHMEM_UNIQUEID_H
#define NVSHM_COMPAT_BOOTSTRAP_DEVICE_HOST_NVSHMEM_UNIQUEID_H

#include "nvshmem_detail/types.h"

#endif /* NVSHM_COMPAT_BOOTSTRAP_DEVICE_HOST_NVSHMEM_UNIQUEID_H */
