// Stream-ordered routines (NVSHMEM docs: the *_on_stream forms). Copies are enqueued with
// cuMemcpyAsync on the caller's stream; barriers are a one-warp kernel running the device barrier.
// Everything here is capturable in a CUDA graph (no host synchronisation).
#include <cuda_runtime.h>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem.h"

using namespace nvshm;

namespace {
__global__ void stream_barrier_kernel(bool quiet_first) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::warp>(quiet_first);
}

Runtime &require_device_heap(const char *call) {
  Runtime &rt = require_init(call);
  if (!rt.on_device())
    fatal(call,
          "the symmetric heap is in host memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM): stream-ordered calls "
          "need the heap in GPU memory");
  return rt;
}

void stream_rma(const char *call, bool is_put, void *dest, const void *source, std::size_t bytes, int pe,
                cudaStream_t stream) {
  Runtime &rt = require_device_heap(call);
  void *remote = require_remote(rt, is_put ? dest : source, bytes, pe, call, is_put ? "dest" : "source");
  if (bytes == 0) return;
  ContextGuard guard(rt.context);
  require_ok(is_put ? rt.transport->copy_on_stream(remote, source, bytes, stream)
                    : rt.transport->copy_on_stream(dest, remote, bytes, stream),
             call);
}

void stream_barrier(const char *call, bool quiet_first, cudaStream_t stream) {
  Runtime &rt = require_device_heap(call);
  ContextGuard guard(rt.context);
  if (quiet_first) require_ok(rt.transport->order_stream(stream), call);
  stream_barrier_kernel<<<1, 32, 0, stream>>>(quiet_first);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) fatal(call, "launching the barrier kernel failed: %s", cudaGetErrorString(err));
}
}  // namespace

extern "C" {

#define NVSHM_STREAM_RMA(NAME, T)                                                                                  \
  void nvshmemx_##NAME##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {     \
    stream_rma("nvshmemx_" #NAME "_put_on_stream", true, dest, source, nelems * sizeof(T), pe, stream);            \
  }                                                                                                                \
  void nvshmemx_##NAME##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {     \
    stream_rma("nvshmemx_" #NAME "_get_on_stream", false, dest, source, nelems * sizeof(T), pe, stream);           \
  }                                                                                                                \
  void nvshmemx_##NAME##_put_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) { \
    stream_rma("nvshmemx_" #NAME "_put_nbi_on_stream", true, dest, source, nelems * sizeof(T), pe, stream);        \
  }                                                                                                                \
  void nvshmemx_##NAME##_get_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) { \
    stream_rma("nvshmemx_" #NAME "_get_nbi_on_stream", false, dest, source, nelems * sizeof(T), pe, stream);       \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_STREAM_RMA)
#undef NVSHM_STREAM_RMA

void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  stream_rma("nvshmemx_putmem_on_stream", true, dest, source, nbytes, pe, stream);
}
void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  stream_rma("nvshmemx_getmem_on_stream", false, dest, source, nbytes, pe, stream);
}
void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  stream_rma("nvshmemx_putmem_nbi_on_stream", true, dest, source, nbytes, pe, stream);
}
void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  stream_rma("nvshmemx_getmem_nbi_on_stream", false, dest, source, nbytes, pe, stream);
}

void nvshmemx_quiet_on_stream(cudaStream_t stream) {
  const char *call = "nvshmemx_quiet_on_stream";
  Runtime &rt = require_device_heap(call);
  ContextGuard guard(rt.context);
  require_ok(rt.transport->order_stream(stream), call);
}

void nvshmemx_barrier_all_on_stream(cudaStream_t stream) {
  stream_barrier("nvshmemx_barrier_all_on_stream", true, stream);
}
void nvshmemx_sync_all_on_stream(cudaStream_t stream) {
  stream_barrier("nvshmemx_sync_all_on_stream", false, stream);
}

}  // extern "C"
