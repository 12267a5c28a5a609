/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM: the host interface plus, under nvcc, the inline CUDA kernel interface. No -rdc is
 * needed; -rdc builds work too (then link libnvshmem_device.a, as with NVIDIA's NVSHMEM).
 *
 * Like NVIDIA's nvshmem.h it also brings, for kernels that rely on it (docs/compatibility.md,
 * "What nvshmem.h brings"): <assert.h>; under nvcc <cooperative_groups.h>,
 * <cooperative_groups/reduce.h> with the global alias `namespace cg = cooperative_groups;`, and
 * libcu++'s <cuda/atomic> (cuda::atomic_ref, cuda::thread_scope_*, cuda::memory_order_*).
 *
 * NVSHMEM_HOSTLIB_ONLY, defined before the first include, leaves the device interface out (no
 * device definitions, no device state; the routines NVSHMEM declares host+device are declared for
 * the host only, so a device call fails to compile) and the cooperative-groups and libcu++
 * includes with it: a CUDA unit built for any architecture can call the host interface.
 *
 * NVSHM_NO_EXTRA_INCLUDES (this project's own tests, perftests and library units; not for
 * applications) leaves out what NVIDIA's header brings beyond NVSHMEM itself: the cooperative-groups
 * and libcu++ includes here, and the tile API from nvshmemx.h (include
 * device/tile/nvshmemx_tile_api.hpp for it). They cost about 5 s of CPU in every CUDA unit
 * (docs/build.md). */
#ifndef NVSHMEM_H
#define NVSHMEM_H

#include "nvshmem_host.h"

#if !defined(__CUDACC_RTC__)
#include <assert.h>
#endif

#if NVSHM_DEVICE_API
#if !defined(__CUDACC_RTC__) && !defined(NVSHM_NO_EXTRA_INCLUDES)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;
#endif
#include "nvshmem_detail/device_state.h"
#include "nvshmem_detail/device/api.cuh"
#endif

#endif /* NVSHMEM_H */
