// SPDX-License-Identifier: BSD-3-Clause
// The stream-ordered collectives (include/nvshmem_detail/coll_stream_api.h): block-scope kernels of
// the device collectives (include/nvshmem_detail/device/collectives.cuh) launched on the caller's
// stream, split over several blocks for large sizes. No host synchronisation and no allocation, so
// a CUDA graph can capture them. The reductions are instantiated in four translation units
// (coll_stream_reduce_*.cu) to keep each one's compile time down.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/driver.hpp"
#include "host/coll_host.hpp"
#include "host/runtime.hpp"
#include "host/stream_host.hpp"
#include "nvshmem.h"
#include "nvshmemx.h"

namespace nvshm {

// Checks the call (library initialised; on a GPU heap a team slot and buffers in the symmetric heap, on
// a host heap a team of this PE: the host collective checks the rest where it runs); returns the
// runtime, whose context the caller makes current for the launch.
Runtime &coll_stream_check(const char *call, nvshmem_team_t team, const void *dest, size_t dest_bytes,
                           const void *source, size_t source_bytes);
// Blocks for a collective that moves `bytes` per member: one per NVSHMEM_COLL_BLOCK_BYTES, at least
// 1 and at most NVSHMEM_COLL_MAX_BLOCKS (at most NVSHM_TEAM_PART_ROWS; docs/collectives.md). Up to
// `ll_max` (LL words) one per kCollLLBlockBytes instead: each thread then sends and polls one batch.
constexpr int kCollThreads = 512;
constexpr size_t kCollLLBlockBytes = kCollThreads * nvshm_dev::StreamBatches::ll * 4;
int coll_blocks(const Runtime &rt, size_t bytes, size_t ll_max);
// Enqueues `kernel` with `blocks` x `threads` on `stream`, with programmatic dependent launch where
// rt.coll_pdl (NVSHMEM_COLL_PDL on a GPU of compute capability 9.0 or later): the GPU may then set the
// kernel up while the kernel before it on the stream still runs, and the kernel's coll_kernel_begin
// waits for that one to complete. A launch error ends the job with the call's name.
[[noreturn]] void coll_launch_failed(const char *call, cudaError_t err);
template <typename... Params, typename... Args>
void coll_launch(const Runtime &rt, const char *call, void (*kernel)(Params...), int blocks, int threads,
                 cudaStream_t stream, Args... args) {
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.stream = stream;
  config.attrs = &pdl;
  config.numAttrs = rt.coll_pdl ? 1 : 0;
  const cudaError_t err = cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
  if (err != cudaSuccess) coll_launch_failed(call, err);
}

// The first thing every stream collective kernel does: wait until the kernels before it on the stream
// have completed and their memory is visible (a no-op unless launched with PDL), then let the next
// PDL launch be set up while this one runs. Waiting first keeps at most one kernel set up ahead.
__device__ __forceinline__ void coll_kernel_begin() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <nvshm_dev::ROp Op, typename T>
__global__ void __launch_bounds__(kCollThreads)
    coll_reduce_kernel(nvshmem_team_t team, T *dest, const T *source, size_t count, bool scatter, size_t one_shot_max,
                       size_t ll_max) {
  coll_kernel_begin();
  nvshm_dev::reduce<nvshm_dev::Scope::block, Op, T, nvshm_dev::StreamBatches>(
      team, dest, source, count, scatter, nvshm_dev::Parts{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)},
      one_shot_max, ll_max);
}

// The type whose kernel reduces T with Op: integers of one width give the same bits for the bitwise
// ops, sum and product whatever their signedness (two's complement; unsigned also makes overflow
// defined), and differ only in min and max. So the 87 (op, type) pairs of the API need 52 kernels:
// a smaller library, built faster (docs/build.md).
template <nvshm_dev::ROp Op, typename T, bool = std::is_integral<T>::value>
struct ReduceKernelType {
  using type = T;
};
template <nvshm_dev::ROp Op, typename T>
struct ReduceKernelType<Op, T, true> {
  using bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  using type = std::conditional_t<(Op == nvshm_dev::ROp::min || Op == nvshm_dev::ROp::max) && std::is_signed<T>::value,
                                  std::make_signed_t<bits>, bits>;
};

// `host`: the host collective of the same (op, type) pair (coll_host.hpp), which a host heap runs in
// stream order.
template <nvshm_dev::ROp Op, typename T>
int stream_reduce(const char *call, nvshmem_team_t team, T *dest, const T *source, size_t count, bool scatter,
                  Status (*host)(nvshmem_team_t, T *, const T *, std::size_t, bool, const char *),
                  cudaStream_t stream) {
  using K = typename ReduceKernelType<Op, T>::type;
  static_assert(sizeof(K) == sizeof(T), "a reduction kernel's type has the width of the API's type");
  const size_t bytes = count * sizeof(T);
  const Runtime &rt = coll_stream_check(call, team, dest, bytes, source, bytes);
  if (!rt.on_device()) {
    on_host_in_stream_order(call, stream, [=] { return host(team, dest, source, count, scatter, call); });
    return 0;
  }
  ContextGuard guard(rt.context);
  const size_t one_shot_max = rt.env.reduce_one_shot_max, ll_max = rt.env.reduce_ll_max;
  coll_launch(rt, call, coll_reduce_kernel<Op, K>, coll_blocks(rt, bytes, ll_max), kCollThreads, stream, team,
              reinterpret_cast<K *>(dest), reinterpret_cast<const K *>(source), count, scatter, one_shot_max, ll_max);
  return 0;
}

// The kernel of the (Op, T) pair, for load_kernels (transport/cuda_kernels.hpp).
template <nvshm_dev::ROp Op, typename T>
const void *reduce_kernel_of() {
  return reinterpret_cast<const void *>(coll_reduce_kernel<Op, typename ReduceKernelType<Op, T>::type>);
}
// load_kernels of each reduction translation unit's kernels (coll_stream_reduce_*.cu), for
// load_coll_stream_kernels (stream_host.hpp).
cudaError_t load_stream_reduce_sum_kernels();
cudaError_t load_stream_reduce_prod_kernels();
cudaError_t load_stream_reduce_minmax_kernels();
cudaError_t load_stream_reduce_bitwise_kernels();

}  // namespace nvshm

// One element of the list a load_stream_reduce_*_kernels passes to load_kernels: X of the type lists.
#define NVSHM_STREAM_REDUCE_KERNEL(OP, NAME, T) nvshm::reduce_kernel_of<nvshm_dev::ROp::NVSHM_ROP(OP), T>(),

// The two C entry points of one (op, type) pair.
#define NVSHM_DEFINE_STREAM_REDUCE(OP, NAME, T)                                                                        \
  extern "C" int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source,              \
                                                           size_t nreduce, cudaStream_t stream) {                      \
    return nvshm::stream_reduce<nvshm_dev::ROp::NVSHM_ROP(OP), T>("nvshmemx_" #NAME "_" #OP "_reduce_on_stream", team, \
                                                                  dest, source, nreduce, false,                        \
                                                                  nvshm::host_##NAME##_##OP##_reduce, stream);         \
  }                                                                                                                    \
  extern "C" int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source,       \
                                                                  size_t nreduce, cudaStream_t stream) {               \
    return nvshm::stream_reduce<nvshm_dev::ROp::NVSHM_ROP(OP), T>(                                                     \
        "nvshmemx_" #NAME "_" #OP "_reducescatter_on_stream", team, dest, source, nreduce, true,                       \
        nvshm::host_##NAME##_##OP##_reduce, stream);                                                                   \
  }
