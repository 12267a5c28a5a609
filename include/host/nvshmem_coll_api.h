/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path host/nvshmem_coll_api.h: the host collectives (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_HOST_NVSHMEM_COLL_API_H
#define NVSHM_COMPAT_HOST_NVSHMEM_COLL_API_H

#include "nvshmem_host.h"

#endif /* NVSHM_COMPAT_HOST_NVSHMEM_COLL_API_H */
