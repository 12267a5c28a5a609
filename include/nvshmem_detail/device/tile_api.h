/* SPDX-License-Identifier: BSD-3-Clause */
/* The tile API (nvshmemx::tile_*, nvshmemx::Tensor and its helpers; NVSHMEM docs: "Tile-based
 * collectives"): device templates for CUDA C++17 translation units with libcu++'s cuda/std/tuple.
 * Elsewhere (host compilers, older C++, NVSHMEM_HOSTLIB_ONLY) this header declares nothing. Included
 * by nvshmemx.h and by NVIDIA's install paths device/tile/ and device_host/nvshmem_tensor.h. */
#ifndef NVSHMEM_DETAIL_DEVICE_TILE_API_H
#define NVSHMEM_DETAIL_DEVICE_TILE_API_H

#include "nvshmem.h"

#if NVSHM_DEVICE_API && defined(__cplusplus) && __cplusplus >= 201703L && defined(__has_include)
#if __has_include(<cuda/std/tuple>)
#include "nvshmem_detail/device/tensor.cuh"
#include "nvshmem_detail/device/tile.cuh"
#endif
#endif

#endif /* NVSHMEM_DETAIL_DEVICE_TILE_API_H */
