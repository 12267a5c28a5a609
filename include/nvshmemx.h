/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM extensions (nvshmemx_*): declared alongside the standard routines; this header exists
 * so that programs written for NVIDIA's NVSHMEM build unchanged. */
#ifndef NVSHMEMX_H
#define NVSHMEMX_H

#include "nvshmem.h"
/* Host part: the stream-ordered collectives. */
#include "nvshmem_detail/coll_stream_api.h"

/* The tile API (nvshmemx:: C++ templates): CUDA C++17 with libcu++'s cuda/std/tuple. */
#if defined(__CUDACC__) && defined(__cplusplus) && __cplusplus >= 201703L && defined(__has_include)
#if __has_include(<cuda/std/tuple>)
#include "nvshmem_detail/device/tensor.cuh"
#include "nvshmem_detail/device/tile.cuh"
#endif
#endif

#endif /* NVSHMEMX_H */
