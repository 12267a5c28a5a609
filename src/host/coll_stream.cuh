// The stream-ordered collectives (include/nvshmem_detail/coll_stream_api.h): block-scope kernels of
// the device collectives (include/nvshmem_detail/device/collectives.cuh) launched on the caller's
// stream, split over several blocks for large sizes. No host synchronisation and no allocation, so
// a CUDA graph can capture them. The reductions are instantiated in four translation units
// (coll_stream_reduce_*.cu) to keep each one's compile time down.
#pragma once
#include <cuda_runtime.h>

#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem.h"
#include "nvshmemx.h"

namespace nvshm {

// Checks the call (library initialised, heap in GPU memory, a team slot, buffers in the symmetric
// heap); returns the runtime, whose context the caller makes current for the launch.
Runtime &coll_stream_check(const char *call, nvshmem_team_t team, const void *dest, size_t dest_bytes,
                           const void *source, size_t source_bytes);
// Blocks for a collective that moves `bytes` per member: one per NVSHMEM_COLL_BLOCK_BYTES, at least
// 1 and at most NVSHMEM_COLL_MAX_BLOCKS (at most NVSHM_TEAM_PART_ROWS; docs/collectives.md). Up to
// `ll_max` (LL words) one per kCollLLBlockBytes instead: each thread then sends and polls one batch.
constexpr int kCollThreads = 512;
constexpr size_t kCollLLBlockBytes = kCollThreads * nvshm_dev::kLLBatchWords<nvshm_dev::Scope::block> * 4;
int coll_blocks(const Runtime &rt, size_t bytes, size_t ll_max);
// After a launch: a launch error ends the job with the call's name.
void coll_check_launch(const char *call);

template <nvshm_dev::ROp Op, typename T>
__global__ void __launch_bounds__(kCollThreads)
    coll_reduce_kernel(nvshmem_team_t team, T *dest, const T *source, size_t count, bool scatter, size_t one_shot_max,
                       size_t ll_max) {
  nvshm_dev::reduce<nvshm_dev::Scope::block, Op, T>(
      team, dest, source, count, scatter, nvshm_dev::Parts{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)},
      one_shot_max, ll_max);
}

template <nvshm_dev::ROp Op, typename T>
int stream_reduce(const char *call, nvshmem_team_t team, T *dest, const T *source, size_t count, bool scatter,
                  cudaStream_t stream) {
  const size_t bytes = count * sizeof(T);
  const Runtime &rt = coll_stream_check(call, team, dest, bytes, source, bytes);
  ContextGuard guard(rt.context);
  const size_t one_shot_max = rt.env.reduce_one_shot_max, ll_max = rt.env.reduce_ll_max;
  coll_reduce_kernel<Op, T><<<coll_blocks(rt, bytes, ll_max), kCollThreads, 0, stream>>>(team, dest, source, count,
                                                                                         scatter, one_shot_max, ll_max);
  coll_check_launch(call);
  return 0;
}

}  // namespace nvshm

// The two C entry points of one (op, type) pair.
#define NVSHM_DEFINE_STREAM_REDUCE(OP, NAME, T)                                                                        \
  extern "C" int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source,              \
                                                           size_t nreduce, cudaStream_t stream) {                      \
    return nvshm::stream_reduce<nvshm_dev::ROp::NVSHM_ROP(OP), T>("nvshmemx_" #NAME "_" #OP "_reduce_on_stream", team, \
                                                                  dest, source, nreduce, false, stream);               \
  }                                                                                                                    \
  extern "C" int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source,       \
                                                                  size_t nreduce, cudaStream_t stream) {               \
    return nvshm::stream_reduce<nvshm_dev::ROp::NVSHM_ROP(OP), T>(                                                     \
        "nvshmemx_" #NAME "_" #OP "_reducescatter_on_stream", team, dest, source, nreduce, true, stream);              \
  }
