/* TEMP until the teams branch lands (it owns this header): host declarations of the thread-scope
 * collectives, so that device code calling them compiles in the host pass. */
#ifndef NVSHMEM_DETAIL_COLL_HOST_API_H
#define NVSHMEM_DETAIL_COLL_HOST_API_H

#include "nvshmem_detail/macros.h"
#include "nvshmem_detail/type_lists.h"
#include "nvshmem_detail/types.h"

NVSHM_EXTERN_C_BEGIN
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_barrier(nvshmem_team_t team);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_team_sync(nvshmem_team_t team);
#define NVSHM_TEMP_DECLARE_COLL(NAME, T)                                                                   \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T *dest, const T *source, \
                                                            size_t nelems, int PE_root);                   \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T *dest, const T *source,  \
                                                           size_t nelems);                                 \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T *dest, const T *source,  \
                                                           size_t nelems);
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_TEMP_DECLARE_COLL)
#undef NVSHM_TEMP_DECLARE_COLL
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                                    int PE_root);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
#define NVSHM_TEMP_DECLARE_REDUCE(OP, NAME, T)                                                                        \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source,        \
                                                                size_t nreduce);                                      \
  NVSHM_HOSTDEVICE NVSHM_API int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                                                       size_t nreduce);
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_TEMP_DECLARE_REDUCE)
#undef NVSHM_TEMP_DECLARE_REDUCE
NVSHM_EXTERN_C_END

#endif /* NVSHMEM_DETAIL_COLL_HOST_API_H */
