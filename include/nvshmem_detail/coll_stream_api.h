/* SPDX-License-Identifier: BSD-3-Clause */
/* Stream-ordered collectives (NVSHMEM docs: the *_on_stream forms of "Collective Communication"):
 * each call enqueues the collective on `stream` and returns 0 at once; misuse or a failed launch
 * prints a message naming the call and the PE, then aborts. Every member of the
 * team enqueues the same collectives on the team in the same order. The calls allocate nothing and
 * never wait for the host, so they can be captured in a CUDA graph. Source and destination are
 * symmetric; the destination of fcollect and alltoall holds nelems per member of the team. */
#ifndef NVSHMEM_DETAIL_COLL_STREAM_API_H
#define NVSHMEM_DETAIL_COLL_STREAM_API_H

#include <cuda_runtime_api.h>

#include "nvshmem_detail/macros.h"
#include "nvshmem_detail/type_lists.h"
#include "nvshmem_detail/types.h"

NVSHM_EXTERN_C_BEGIN

/* barrier: quiet (this PE's earlier stream work) then synchronise the team; team_sync: synchronise only. */
NVSHM_API int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream);
NVSHM_API int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream);

#define NVSHM_DECLARE_STREAM_COLL(NAME, T)                                                                          \
  NVSHM_API int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, \
                                                      int PE_root, cudaStream_t stream);                            \
  NVSHM_API int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,  \
                                                     cudaStream_t stream);                                          \
  NVSHM_API int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,  \
                                                     cudaStream_t stream);
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_DECLARE_STREAM_COLL)
#undef NVSHM_DECLARE_STREAM_COLL
/* Byte forms: nelems counts bytes. */
NVSHM_API int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                              int PE_root, cudaStream_t stream);
NVSHM_API int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                             cudaStream_t stream);
NVSHM_API int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                             cudaStream_t stream);

/* reduce: dest[k] = op over the members of source[k], k < nreduce, on every member (dest may be
 * source). reducescatter: member i receives op over the members of source[i * nreduce + k]. */
#define NVSHM_DECLARE_STREAM_REDUCE(OP, NAME, T)                                                                \
  NVSHM_API int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source,        \
                                                          size_t nreduce, cudaStream_t stream);                 \
  NVSHM_API int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source, \
                                                                 size_t nreduce, cudaStream_t stream);
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_DECLARE_STREAM_REDUCE)
#undef NVSHM_DECLARE_STREAM_REDUCE

NVSHM_EXTERN_C_END

#endif /* NVSHMEM_DETAIL_COLL_STREAM_API_H */
