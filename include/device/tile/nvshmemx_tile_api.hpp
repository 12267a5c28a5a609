// SPDX-License-Identifier: BSD-3-Clause
/* NVIDIA install path device/tile/nvshmemx_tile_api.hpp: the tile API (nvshmemx::tile_*), CUDA C++17
 * with libcu++ (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_HPP
#define NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_HPP

#include "nvshmem_detail/device/tile_api.h"

#endif /* NVSHM_COMPAT_DEVICE_TILE_NVSHMEMX_TILE_API_HPP */
