/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path host/nvshmem_api.h: the host interface (docs/compatibility.md, "Installed header paths"). */
#ifndef NVSHM_COMPAT_HOST_NVSHMEM_API_H
#define NVSHM_COMPAT_HOST_NVSHMEM_API_H

#include "nvshmem_host.h"

#endif /* NVSHM_COMPAT_HOST_NVSHMEM_API_H */
