/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path device/nvshmemx_collective_launch_apis.h: nvshmemx_collective_launch and
 * nvshmemx_collective_launch_query_gridsize, host functions (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_NVSHMEMX_COLLECTIVE_LAUNCH_APIS_H
#define NVSHM_COMPAT_DEVICE_NVSHMEMX_COLLECTIVE_LAUNCH_APIS_H

#include "nvshmem_detail/collective_launch.h"

#endif /* NVSHM_COMPAT_DEVICE_NVSHMEMX_COLLECTIVE_LAUNCH_APIS_H */
