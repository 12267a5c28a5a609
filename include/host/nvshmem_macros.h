/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path host/nvshmem_macros.h: the attribute macros of the public headers
 * (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_HOST_NVSHMEM_MACROS_H
#define NVSHM_COMPAT_HOST_NVSHMEM_MACROS_H

#include "nvshmem_detail/macros.h"

#endif /* NVSHM_COMPAT_HOST_NVSHMEM_MACROS_H */
