/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM: the host interface plus, under nvcc, the inline CUDA kernel interface. No -rdc is
 * needed; -rdc builds work too (then link libnvshmem_device.a, as with NVIDIA's NVSHMEM). */
#ifndef NVSHMEM_H
#define NVSHMEM_H

#include "nvshmem_host.h"

#if defined(__CUDACC__)
#include "nvshmem_detail/device_state.h"
#include "nvshmem_detail/device/api.cuh"
#endif

#endif /* NVSHMEM_H */
