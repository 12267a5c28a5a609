/* SPDX-License-Identifier: BSD-3-Clause */
/* Host declarations of the team synchronisation and collective routines (NVSHMEM docs:
 * "Collective Communication", "Team-based collectives"). Host+device names: the host definitions
 * are in libnvshmem_host.so, the device ones (thread scope) inline in the device headers.
 *
 * Every routine is collective over `team`: each member calls it (one thread per PE), all members
 * with the same team, counts and root, and in the same order as their other collectives on the
 * team. `dest` and `source` are symmetric objects of this PE; counts are elements of the named type
 * (bytes for the *mem forms). They return 0, or nonzero after a message naming the call, the PE and
 * the cause (an invalid team or root, a non-symmetric buffer, a member that did not arrive within
 * NVSHMEM_BOOTSTRAP_TIMEOUT). On return this PE's `dest` holds the result and its `source` may be
 * reused. The host forms work on both heap kinds (docs/collectives.md, "Host path"). */
#ifndef NVSHMEM_DETAIL_COLL_HOST_API_H
#define NVSHMEM_DETAIL_COLL_HOST_API_H

#include "nvshmem_detail/macros.h"
#include "nvshmem_detail/type_lists.h"
#include "nvshmem_detail/types.h"

NVSHM_EXTERN_C_BEGIN

/* Complete this PE's RMA (quiet), then wait until every member of `team` has entered the barrier. */
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_barrier(nvshmem_team_t team);
/* Wait until every member of `team` has entered (no quiet: orders only memory already visible). */
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_team_sync(nvshmem_team_t team);
#define nvshmem_sync nvshmem_team_sync

/* broadcast: `nelems` elements of member PE_root's `source` (PE_root is a team index) into `dest` of
 * every member, the root's included (dest == source is allowed). fcollect: each member's `nelems`
 * elements, concatenated in team order into every member's `dest` (nelems * n_pes elements).
 * alltoall: block j (nelems elements) of member i's `source` lands as block i of member j's `dest`.
 * `dest` and `source` must not overlap in fcollect and alltoall. */
#define NVSHM_DECLARE_HOST_COLL(NAME, T)                                                                   \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T *dest, const T *source, \
                                                            size_t nelems, int PE_root);                   \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T *dest, const T *source,  \
                                                           size_t nelems);                                 \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T *dest, const T *source,  \
                                                           size_t nelems);
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_DECLARE_HOST_COLL)
#undef NVSHM_DECLARE_HOST_COLL
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                                    int PE_root);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);

/* reduce: dest[k] = source[k] of member 0 OP ... OP source[k] of member n-1, k < nreduce, on every
 * member (dest == source is allowed). reducescatter: `source` holds n_pes blocks of nreduce
 * elements; member i receives the reduction of block i into its `dest` (nreduce elements).
 * Integers wrap (two's complement); half and bfloat16 are computed in float and rounded once; every
 * member gets the same bits (the members' contributions are combined in team order). */
#define NVSHM_DECLARE_HOST_REDUCE(OP, NAME, T)                                                                        \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source,        \
                                                                size_t nreduce);                                      \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                                                       size_t nreduce);
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_DECLARE_HOST_REDUCE)
#undef NVSHM_DECLARE_HOST_REDUCE

NVSHM_EXTERN_C_END

#endif /* NVSHMEM_DETAIL_COLL_HOST_API_H */
