// SPDX-License-Identifier: BSD-3-Clause
/* The collective routines of the device interface ("Collective Communication"), generated from the
 * type tables over the templates of collectives.cuh. Thread-scope names are host+device (their host
 * declarations and definitions are the host library's); the `_warp`/`_block` names are device-only.
 * Every member of the team calls a collective with the same arguments, in the same order as its
 * other collectives on that team; `_warp`/`_block` forms are called by every thread of the group.
 * nvshmemx_broadcastmem_warp/_block take PE_root (NVIDIA's headers declare them without it). */
#ifndef NVSHMEM_DETAIL_DEVICE_COLLECTIVES_API_CUH
#define NVSHMEM_DETAIL_DEVICE_COLLECTIVES_API_CUH

#include "nvshmem_detail/device/collectives.cuh"
#include "nvshmem_detail/type_lists.h"

/* One collective family in one scope: DEF is the linkage, NAME the full C name. */
#define NVSHM_COLL_BARRIER_DEF(DEF, NAME, SCOPE, QUIET)                   \
  DEF int NAME(nvshmem_team_t team) {                                     \
    return nvshm_dev::team_barrier<nvshm_dev::Scope::SCOPE>(team, QUIET); \
  }
/* barrier_all and sync_all: the NVSHMEM_TEAM_WORLD case of barrier and team_sync. */
#define NVSHM_COLL_BARRIER_ALL_DEF(DEF, NAME, SCOPE, QUIET)                            \
  DEF void NAME(void) {                                                                \
    (void)nvshm_dev::team_barrier<nvshm_dev::Scope::SCOPE>(NVSHMEM_TEAM_WORLD, QUIET); \
  }
#define NVSHM_COLL_BROADCAST_DEF(DEF, NAME, SCOPE, T, ELEM)                                             \
  DEF int NAME(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) {             \
    return nvshm_dev::broadcast<nvshm_dev::Scope::SCOPE>(team, dest, source, nelems * (ELEM), PE_root); \
  }
#define NVSHM_COLL_FCOLLECT_DEF(DEF, NAME, SCOPE, T, ELEM)                                    \
  DEF int NAME(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {                \
    return nvshm_dev::fcollect<nvshm_dev::Scope::SCOPE>(team, dest, source, nelems * (ELEM)); \
  }
#define NVSHM_COLL_ALLTOALL_DEF(DEF, NAME, SCOPE, T, ELEM)                                    \
  DEF int NAME(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {                \
    return nvshm_dev::alltoall<nvshm_dev::Scope::SCOPE>(team, dest, source, nelems * (ELEM)); \
  }
#define NVSHM_COLL_REDUCE_DEF(DEF, NAME, SCOPE, OP, T, SCATTER)                                                      \
  DEF int NAME(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {                                      \
    return nvshm_dev::reduce<nvshm_dev::Scope::SCOPE, nvshm_dev::ROp::NVSHM_ROP(OP), T>(team, dest, source, nreduce, \
                                                                                        SCATTER);                    \
  }

/* Every data family of one scope: PREFIX is nvshmem_ (thread) or nvshmemx_, SUFFIX empty or _warp/_block. */
#define NVSHM_COLL_TYPED(DEF, PREFIX, SUFFIX, SCOPE, NAME, T)                          \
  NVSHM_COLL_BROADCAST_DEF(DEF, PREFIX##NAME##_broadcast##SUFFIX, SCOPE, T, sizeof(T)) \
  NVSHM_COLL_FCOLLECT_DEF(DEF, PREFIX##NAME##_fcollect##SUFFIX, SCOPE, T, sizeof(T))   \
  NVSHM_COLL_ALLTOALL_DEF(DEF, PREFIX##NAME##_alltoall##SUFFIX, SCOPE, T, sizeof(T))
#define NVSHM_COLL_MEM(DEF, PREFIX, SUFFIX, SCOPE)                            \
  NVSHM_COLL_BROADCAST_DEF(DEF, PREFIX##broadcastmem##SUFFIX, SCOPE, void, 1) \
  NVSHM_COLL_FCOLLECT_DEF(DEF, PREFIX##fcollectmem##SUFFIX, SCOPE, void, 1)   \
  NVSHM_COLL_ALLTOALL_DEF(DEF, PREFIX##alltoallmem##SUFFIX, SCOPE, void, 1)
#define NVSHM_COLL_REDUCE(DEF, PREFIX, SUFFIX, SCOPE, OP, NAME, T)                      \
  NVSHM_COLL_REDUCE_DEF(DEF, PREFIX##NAME##_##OP##_reduce##SUFFIX, SCOPE, OP, T, false) \
  NVSHM_COLL_REDUCE_DEF(DEF, PREFIX##NAME##_##OP##_reducescatter##SUFFIX, SCOPE, OP, T, true)

/* ---- thread scope: host+device names, device definitions ---- */
#if defined(__CUDA_ARCH__)
#define NVSHM_COLL_HD extern "C" __host__ __device__ inline
NVSHM_COLL_BARRIER_DEF(NVSHM_COLL_HD, nvshmem_barrier, thread, true)
NVSHM_COLL_BARRIER_DEF(NVSHM_COLL_HD, nvshmem_team_sync, thread, false)
NVSHM_COLL_BARRIER_ALL_DEF(NVSHM_COLL_HD, nvshmem_barrier_all, thread, true)
NVSHM_COLL_BARRIER_ALL_DEF(NVSHM_COLL_HD, nvshmem_sync_all, thread, false)
#define NVSHM_COLL_THREAD_TYPED(NAME, T) NVSHM_COLL_TYPED(NVSHM_COLL_HD, nvshmem_, , thread, NAME, T)
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_COLL_THREAD_TYPED)
#undef NVSHM_COLL_THREAD_TYPED
NVSHM_COLL_MEM(NVSHM_COLL_HD, nvshmem_, , thread)
#define NVSHM_COLL_THREAD_REDUCE(OP, NAME, T) NVSHM_COLL_REDUCE(NVSHM_COLL_HD, nvshmem_, , thread, OP, NAME, T)
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_COLL_THREAD_REDUCE)
#undef NVSHM_COLL_THREAD_REDUCE
#undef NVSHM_COLL_HD
#endif /* __CUDA_ARCH__ */

/* ---- warp and block scope: device-only names ---- */
#define NVSHM_COLL_DEV extern "C" __device__ inline
#define NVSHM_COLL_GROUP(SCOPE)                                                         \
  NVSHM_COLL_BARRIER_DEF(NVSHM_COLL_DEV, nvshmemx_barrier_##SCOPE, SCOPE, true)         \
  NVSHM_COLL_BARRIER_DEF(NVSHM_COLL_DEV, nvshmemx_team_sync_##SCOPE, SCOPE, false)      \
  NVSHM_COLL_BARRIER_ALL_DEF(NVSHM_COLL_DEV, nvshmemx_barrier_all_##SCOPE, SCOPE, true) \
  NVSHM_COLL_BARRIER_ALL_DEF(NVSHM_COLL_DEV, nvshmemx_sync_all_##SCOPE, SCOPE, false)   \
  NVSHM_COLL_MEM(NVSHM_COLL_DEV, nvshmemx_, _##SCOPE, SCOPE)
NVSHM_COLL_GROUP(warp)
NVSHM_COLL_GROUP(block)
#define NVSHM_COLL_GROUP_TYPED(NAME, T)                             \
  NVSHM_COLL_TYPED(NVSHM_COLL_DEV, nvshmemx_, _warp, warp, NAME, T) \
  NVSHM_COLL_TYPED(NVSHM_COLL_DEV, nvshmemx_, _block, block, NAME, T)
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_COLL_GROUP_TYPED)
#define NVSHM_COLL_GROUP_REDUCE(OP, NAME, T)                             \
  NVSHM_COLL_REDUCE(NVSHM_COLL_DEV, nvshmemx_, _warp, warp, OP, NAME, T) \
  NVSHM_COLL_REDUCE(NVSHM_COLL_DEV, nvshmemx_, _block, block, OP, NAME, T)
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_COLL_GROUP_REDUCE)
#undef NVSHM_COLL_GROUP_REDUCE
/* Warpgroup barrier: the 128 threads of warpgroup k (block ranks [128k, 128k + 128), block size a
 * multiple of 128) call it; they sync on named barrier 8 + k (primitives.cuh, Group<warpgroup>). */
NVSHM_COLL_BARRIER_DEF(NVSHM_COLL_DEV, nvshmemx_barrier_warpgroup, warpgroup, true)
/* maxloc, block scope only (as NVSHMEM): dest[k].x is the largest source[k].x over the members and
 * dest[k].y its location (.y); of equal values the smallest location wins. */
NVSHM_COLL_REDUCE_DEF(NVSHM_COLL_DEV, nvshmemx_double2_maxloc_reduce_block, block, maxloc, double2, false)
#undef NVSHM_COLL_GROUP_TYPED
#undef NVSHM_COLL_GROUP
#undef NVSHM_COLL_DEV

#undef NVSHM_COLL_REDUCE
#undef NVSHM_COLL_MEM
#undef NVSHM_COLL_TYPED
#undef NVSHM_COLL_REDUCE_DEF
#undef NVSHM_COLL_ALLTOALL_DEF
#undef NVSHM_COLL_FCOLLECT_DEF
#undef NVSHM_COLL_BROADCAST_DEF
#undef NVSHM_COLL_BARRIER_ALL_DEF
#undef NVSHM_COLL_BARRIER_DEF

#endif /* NVSHMEM_DETAIL_DEVICE_COLLECTIVES_API_CUH */
