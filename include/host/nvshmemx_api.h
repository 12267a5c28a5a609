/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path host/nvshmemx_api.h: the host interface, nvshmemx_* included (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_HOST_NVSHMEMX_API_H
#define NVSHM_COMPAT_HOST_NVSHMEMX_API_H

#include "nvshmem_host.h"

#endif /* NVSHM_COMPAT_HOST_NVSHMEMX_API_H */
