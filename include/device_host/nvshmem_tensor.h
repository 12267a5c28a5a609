/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path device_host/nvshmem_tensor.h: the tensor types of the tile API (nvshmemx::Tensor,
 * Layout, make_shape/stride/layout, ConstInt); CUDA C++17 with libcu++ (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TENSOR_H
#define NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TENSOR_H

#include "nvshmem_detail/device/tile_api.h"

#endif /* NVSHM_COMPAT_DEVICE_HOST_NVSHMEM_TENSOR_H */
