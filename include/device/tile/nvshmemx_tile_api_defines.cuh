// SPDX-License-Identifier: BSD-3-Clause
/* NVIDIA install path device/tile/nvshmemx_tile_api_defines.cuh: the tile API definitions, the same
 * header as device/tile/nvshmemx_tile_api.hpp here (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_DEFINES_CUH
#define NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_DEFINES_CUH

#include "nvshmem_detail/device/tile_api.h"

#endif /* NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_DEFINES_CUH */
