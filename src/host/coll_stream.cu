// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered barrier, team_sync, broadcast, fcollect and alltoall, and the checks and grid choice
// every stream collective shares (coll_stream.cuh). On a host heap each runs the host collective
// (coll_host.hpp) on the host in stream order (stream_host.hpp, docs/remote.md).
#include "host/coll_stream.cuh"
#include "transport/cuda_kernels.hpp"

#include "common/log.hpp"

namespace nvshm {

Runtime &coll_stream_check(const char *call, nvshmem_team_t team, const void *dest, size_t dest_bytes,
                           const void *source, size_t source_bytes) {
  Runtime &rt = require_init(call);
  if (!rt.on_device()) {  // the host collective checks the buffers against the team's size when it runs
    (void)require_team(rt, team, call);
    return rt;
  }
  const nvshm_device_state &st = rt.device_state;
  if (team < 0 || team >= st.max_teams || st.teams == nullptr)
    fatal(call, "team %d is not a valid team handle (NVSHMEM_MAX_TEAMS is %d)", static_cast<int>(team), st.max_teams);
  if (dest && !rt.heap->contains(dest, dest_bytes ? dest_bytes : 1))
    fatal(call, "dest=%p (%zu bytes) is not inside the symmetric heap", dest, dest_bytes);
  if (source && !rt.heap->contains(source, source_bytes ? source_bytes : 1))
    fatal(call, "source=%p (%zu bytes) is not inside the symmetric heap", source, source_bytes);
  return rt;
}

int coll_blocks(const Runtime &rt, size_t bytes, size_t ll_max) {
  const size_t blocks = bytes > 0 && bytes <= ll_max ? (bytes + kCollLLBlockBytes - 1) / kCollLLBlockBytes
                                                     : bytes / rt.env.coll_block_bytes;
  const size_t most = static_cast<size_t>(rt.env.coll_max_blocks);
  return blocks < 1 ? 1 : static_cast<int>(blocks > most ? most : blocks);
}

void coll_launch_failed(const char *call, cudaError_t err) {
  fatal(call, "launching the collective kernel failed: %s", cudaGetErrorString(err));
}

namespace {
using nvshm_dev::Parts;
using nvshm_dev::Scope;

__device__ __forceinline__ Parts grid_parts() {
  return Parts{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
}

// One sync round and no fence: the kernels before it on the stream have completed, and with them
// their stores and nbi operations to mapped PEs; host-issued copies are ordered by order_stream
// (docs/memory-model.md). The fence of the device barrier would cost 0.7 us here (measured). Where this PE
// runs a proxy (remote peers), a barrier's kernel quiets first (`quiet`): requests the kernels before it left
// to the proxy (a put_nbi to another node) are not complete when those kernels are.
__global__ void barrier_kernel(nvshmem_team_t team, bool quiet) {
  coll_kernel_begin();
  nvshm_dev::team_barrier<Scope::warp>(team, quiet);
}
__global__ void __launch_bounds__(kCollThreads)
    broadcast_kernel(nvshmem_team_t team, void *dest, const void *source, size_t nbytes, int root, size_t ll_max) {
  coll_kernel_begin();
  nvshm_dev::broadcast<Scope::block, nvshm_dev::StreamBatches>(team, dest, source, nbytes, root, grid_parts(), ll_max);
}
__global__ void __launch_bounds__(kCollThreads)
    fcollect_kernel(nvshmem_team_t team, void *dest, const void *source, size_t nbytes, size_t ll_max) {
  coll_kernel_begin();
  nvshm_dev::fcollect<Scope::block, nvshm_dev::StreamBatches>(team, dest, source, nbytes, grid_parts(), ll_max);
}
__global__ void __launch_bounds__(kCollThreads)
    alltoall_kernel(nvshmem_team_t team, void *dest, const void *source, size_t nbytes, size_t ll_max) {
  coll_kernel_begin();
  nvshm_dev::alltoall<Scope::block, nvshm_dev::StreamBatches>(team, dest, source, nbytes, grid_parts(), ll_max);
}

int stream_barrier(const char *call, nvshmem_team_t team, bool quiet_first, cudaStream_t stream) {
  Runtime &rt = coll_stream_check(call, team, nullptr, 0, nullptr, 0);
  if (!rt.on_device()) {
    on_host_in_stream_order(call, stream, [&rt, call, team, quiet_first] {
      if (quiet_first) NVSHM_TRY(quiet_pe(rt, call));
      return rt.teams->sync(team, call);
    });
    return 0;
  }
  ContextGuard guard(rt.context);
  if (quiet_first) require_ok(rt.transport->order_stream(stream), call);
  coll_launch(rt, call, barrier_kernel, 1, 32, stream, team, quiet_first && rt.device_state.proxy_channels != nullptr);
  return 0;
}

int stream_broadcast(const char *call, nvshmem_team_t team, void *dest, const void *source, size_t nbytes, int root,
                     cudaStream_t stream) {
  const Runtime &rt = coll_stream_check(call, team, dest, nbytes, source, nbytes);
  if (!rt.on_device()) {
    on_host_in_stream_order(call, stream, [=] { return host_broadcast(team, dest, source, nbytes, root, call); });
    return 0;
  }
  ContextGuard guard(rt.context);
  coll_launch(rt, call, broadcast_kernel, coll_blocks(rt, nbytes, rt.env.coll_ll_max), kCollThreads, stream, team, dest,
              source, nbytes, root, rt.env.coll_ll_max);
  return 0;
}

// fcollect and alltoall: each member sends `nbytes` to every member; `host` is the host collective that
// does the same on a host heap.
template <class Kernel>
int stream_exchange(const char *call, Kernel kernel,
                    Status (*host)(nvshmem_team_t, void *, const void *, std::size_t, const char *),
                    nvshmem_team_t team, void *dest, const void *source, size_t nbytes, cudaStream_t stream) {
  const Runtime &rt = coll_stream_check(call, team, dest, nbytes, source, nbytes);
  if (!rt.on_device()) {
    on_host_in_stream_order(call, stream, [=] { return host(team, dest, source, nbytes, call); });
    return 0;
  }
  ContextGuard guard(rt.context);
  coll_launch(rt, call, kernel, coll_blocks(rt, nbytes, rt.env.coll_ll_max), kCollThreads, stream, team, dest, source,
              nbytes, rt.env.coll_ll_max);
  return 0;
}
}  // namespace

cudaError_t load_coll_stream_kernels() {
  cudaError_t err =
      load_kernels({reinterpret_cast<const void *>(barrier_kernel), reinterpret_cast<const void *>(broadcast_kernel),
                    reinterpret_cast<const void *>(fcollect_kernel), reinterpret_cast<const void *>(alltoall_kernel)});
  for (cudaError_t (*load)() : {load_stream_reduce_sum_kernels, load_stream_reduce_prod_kernels,
                                load_stream_reduce_minmax_kernels, load_stream_reduce_bitwise_kernels})
    if (err == cudaSuccess) err = load();
  return err;
}
}  // namespace nvshm

using namespace nvshm;

extern "C" {

int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return stream_barrier("nvshmemx_barrier_on_stream", team, true, stream);
}
int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return stream_barrier("nvshmemx_team_sync_on_stream", team, false, stream);
}
void nvshmemx_barrier_all_on_stream(cudaStream_t stream) {
  stream_barrier("nvshmemx_barrier_all_on_stream", NVSHMEM_TEAM_WORLD, true, stream);
}
void nvshmemx_sync_all_on_stream(cudaStream_t stream) {
  stream_barrier("nvshmemx_sync_all_on_stream", NVSHMEM_TEAM_WORLD, false, stream);
}

#define NVSHM_STREAM_COLL_AS(NAME, T, ELEM)                                                                        \
  int nvshmemx_##NAME##_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root,       \
                                  cudaStream_t stream) {                                                           \
    return stream_broadcast("nvshmemx_" #NAME "_on_stream", team, dest, source, nelems * (ELEM), PE_root, stream); \
  }
#define NVSHM_STREAM_EXCHANGE_AS(NAME, KERNEL, HOST, T, ELEM)                                                          \
  int nvshmemx_##NAME##_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, cudaStream_t stream) { \
    return stream_exchange("nvshmemx_" #NAME "_on_stream", KERNEL, HOST, team, dest, source, nelems * (ELEM), stream); \
  }
#define NVSHM_STREAM_COLL(NAME, T)                                                        \
  NVSHM_STREAM_COLL_AS(NAME##_broadcast, T, sizeof(T))                                    \
  NVSHM_STREAM_EXCHANGE_AS(NAME##_fcollect, fcollect_kernel, host_fcollect, T, sizeof(T)) \
  NVSHM_STREAM_EXCHANGE_AS(NAME##_alltoall, alltoall_kernel, host_alltoall, T, sizeof(T))
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_STREAM_COLL)
NVSHM_STREAM_COLL_AS(broadcastmem, void, 1)
NVSHM_STREAM_EXCHANGE_AS(fcollectmem, fcollect_kernel, host_fcollect, void, 1)
NVSHM_STREAM_EXCHANGE_AS(alltoallmem, alltoall_kernel, host_alltoall, void, 1)
#undef NVSHM_STREAM_COLL
#undef NVSHM_STREAM_EXCHANGE_AS
#undef NVSHM_STREAM_COLL_AS

}  // extern "C"
