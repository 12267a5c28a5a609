/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path host/nvshmemx_coll_api.h: the host and stream-ordered collectives
 * (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_HOST_NVSHMEMX_COLL_API_H
#define NVSHM_COMPAT_HOST_NVSHMEMX_COLL_API_H

#include "nvshmem_host.h"
#include "nvshmem_detail/coll_stream_api.h"

#endif /* NVSHM_COMPAT_HOST_NVSHMEMX_COLL_API_H */
