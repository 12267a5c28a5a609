/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM extensions (nvshmemx_*): declared alongside the standard routines; this header exists
 * so that programs written for NVIDIA's NVSHMEM build unchanged. */
#ifndef NVSHMEMX_H
#define NVSHMEMX_H

#include "nvshmem.h"
/* Host part: the stream-ordered collectives. */
#include "nvshmem_detail/coll_stream_api.h"

/* The tile API (nvshmemx:: C++ templates): CUDA C++17 with libcu++'s cuda/std/tuple; left out under
 * NVSHM_NO_EXTRA_INCLUDES (nvshmem.h). */
#if !defined(NVSHM_NO_EXTRA_INCLUDES)
#include "nvshmem_detail/device/tile_api.h"
#endif

#endif /* NVSHMEMX_H */
