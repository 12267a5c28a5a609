// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered routines (NVSHMEM docs: the *_on_stream forms). On a GPU heap copies are enqueued with
// cuMemcpyAsync on the caller's stream (barrier_all/sync_all_on_stream are the WORLD case of the team
// forms in coll_stream.cu), capturable in a CUDA graph (no host synchronisation); to a remote PE the put,
// get, p, signal and put-with-signal forms are the device API in a one-thread kernel on the stream, which
// this PE's host proxy executes, and quiet waits for the proxy too (docs/proxy.md). On a host heap the RMA,
// signal and quiet forms run on the host in stream order, to mapped and remote PEs alike (docs/remote.md).
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "host/stream_host.hpp"
#include "nvshmem.h"
#include "transport/cuda_kernels.hpp"

using namespace nvshm;

namespace {
void check_launch(const char *call, const char *what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) fatal(call, "launching %s failed: %s", what, cudaGetErrorString(err));
}

Runtime &require_device_heap(Runtime &rt, const char *call) {
  if (!rt.on_device())
    fatal(call,
          "the symmetric heap is in host memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM): this stream-ordered call "
          "needs the heap in GPU memory");
  return rt;
}

bool have_cuda_device() {
  static const bool have = [] {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  }();
  return have;
}

}  // namespace

namespace nvshm {
void on_host_in_stream_order(const char *call, cudaStream_t stream, std::function<Status()> op) {
  if (!stream && !have_cuda_device()) return require_ok(op(), call);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
    fatal(call, "the symmetric heap is in host memory, where stream calls run as host functions: not capturable");
  struct Work {
    const char *call;
    std::function<Status()> op;
  };
  auto work = std::make_unique<Work>(Work{call, std::move(op)});
  const cudaError_t err = cudaLaunchHostFunc(
      stream,
      [](void *p) {
        const std::unique_ptr<Work> w(static_cast<Work *>(p));
        require_ok(w->op(), w->call);
      },
      work.get());
  if (err != cudaSuccess) fatal(call, "enqueuing on the stream failed: %s", cudaGetErrorString(err));
  work.release();  // the host function frees it
}

}  // namespace nvshm

namespace {
// Waits for `stream` (nothing to wait for without a CUDA device: see on_host_in_stream_order).
void wait_stream(const char *call, cudaStream_t stream) {
  if (!stream && !have_cuda_device()) return;
  const cudaError_t err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) fatal(call, "waiting for the stream failed: %s", cudaGetErrorString(err));
}

// GPU heap, remote PE: the device API on the stream, one request to this PE's proxy per call.
__global__ void remote_rma_kernel(bool is_put, void *dest, const void *source, size_t bytes, int pe) {
  if (is_put)
    nvshmem_putmem(dest, source, bytes, pe);
  else
    nvshmem_getmem(dest, source, bytes, pe);
}
// The value's bytes are the low `bytes` bytes of `bits` (little-endian), carried in the request (an inline put).
__global__ void remote_p_kernel(void *dest, uint64_t bits, size_t bytes, int pe) {
  nvshmem_putmem(dest, &bits, bytes, pe);
}
__global__ void remote_signal_kernel(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}
__global__ void remote_put_signal_kernel(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe) {
  nvshmem_putmem_signal(dest, source, bytes, sig_addr, signal, sig_op, pe);  // the signal after the data
}
// g: the value comes back in the request's completion record (a private destination), then to `out`
// (mapped pinned host memory).
__global__ void remote_g_kernel(uint64_t *out, const void *source, size_t bytes, int pe) {
  uint64_t value = 0;
  nvshmem_getmem(&value, source, bytes, pe);
  *out = value;
}
// iput/iget of elements of `elem` bytes (strides in elements, as the API's): one strided request.
template <typename W>
__device__ void remote_strided(bool is_put, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                               int pe) {
  if (is_put)
    nvshm_dev::iput<nvshm_dev::Scope::thread>(static_cast<W *>(dest), static_cast<const W *>(source), dst, sst, nelems,
                                              pe);
  else
    nvshm_dev::iget<nvshm_dev::Scope::thread>(static_cast<W *>(dest), static_cast<const W *>(source), dst, sst, nelems,
                                              pe);
}
__global__ void remote_strided_kernel(bool is_put, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                      size_t elem, size_t nelems, int pe) {
  switch (elem) {
    case 1:
      return remote_strided<uint8_t>(is_put, dest, source, dst, sst, nelems, pe);
    case 2:
      return remote_strided<uint16_t>(is_put, dest, source, dst, sst, nelems, pe);
    case 4:
      return remote_strided<uint32_t>(is_put, dest, source, dst, sst, nelems, pe);
    case 8:
      return remote_strided<uint64_t>(is_put, dest, source, dst, sst, nelems, pe);
    default:
      return remote_strided<int4>(is_put, dest, source, dst, sst, nelems, pe);
  }
}
__global__ void proxy_quiet_kernel() {
  nvshmem_quiet();  // the proxy's remote completion of every channel's requests
}

// 0 bytes: nothing is enqueued and nothing but init is checked, on either heap kind (as api_rma.cpp).
void stream_rma(const char *call, bool is_put, void *dest, const void *source, std::size_t bytes, int pe,
                cudaStream_t stream) {
  Runtime &rt = require_init(call);
  if (bytes == 0) return;
  if (!rt.on_device()) {  // blocking forms: the data has arrived (put) or landed (get) when later work starts
    const Target t = require_target(rt, is_put ? dest : source, bytes, pe, call, is_put ? "dest" : "source");
    require_local(is_put ? source : dest, bytes, call, is_put ? "source" : "dest");
    Peers &peers = *rt.peers;
    return on_host_in_stream_order(call, stream, [&peers, t, is_put, dest, source, bytes] {
      return is_put ? peers.put(t, source, bytes) : peers.get(dest, t, bytes);
    });
  }
  require_device_heap(rt, call);
  const Target t = require_target(rt, is_put ? dest : source, bytes, pe, call, is_put ? "dest" : "source");
  require_local(is_put ? source : dest, bytes, call, is_put ? "source" : "dest");
  ContextGuard guard(rt.context);
  if (!t.mapped) {
    remote_rma_kernel<<<1, 1, 0, stream>>>(is_put, dest, source, bytes, pe);
    return check_launch(call, "the remote RMA kernel");
  }
  require_ok(is_put ? rt.transport->copy_on_stream(t.mapped, source, bytes, stream)
                    : rt.transport->copy_on_stream(dest, t.mapped, bytes, stream),
             call);
}

__global__ void p_kernel_1(uint8_t *remote, uint8_t v) {
  *remote = v;
}
__global__ void p_kernel_2(uint16_t *remote, uint16_t v) {
  *remote = v;
}
__global__ void p_kernel_4(uint32_t *remote, uint32_t v) {
  nvshm_dev::store_relaxed(remote, v);
}
__global__ void p_kernel_8(uint64_t *remote, uint64_t v) {
  nvshm_dev::store_relaxed(remote, v);
}

template <typename T>
void stream_p(const char *call, T *dest, T value, int pe, cudaStream_t stream) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "a p value travels in 64 bits");
  Runtime &rt = require_init(call);
  if (!rt.on_device()) {
    const Target t = require_target(rt, dest, sizeof(T), pe, call, "dest");
    Peers &peers = *rt.peers;
    return on_host_in_stream_order(call, stream, [&peers, t, value] { return peers.put(t, &value, sizeof(T)); });
  }
  require_device_heap(rt, call);
  const Target t = require_target(rt, dest, sizeof(T), pe, call, "dest");
  void *remote = t.mapped;
  ContextGuard guard(rt.context);
  uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));
  if (!remote) {
    remote_p_kernel<<<1, 1, 0, stream>>>(dest, bits, sizeof(T), pe);
    return check_launch(call, "the remote p kernel");
  }
  switch (sizeof(T)) {
    case 1:
      p_kernel_1<<<1, 1, 0, stream>>>(static_cast<uint8_t *>(remote), static_cast<uint8_t>(bits));
      break;
    case 2:
      p_kernel_2<<<1, 1, 0, stream>>>(static_cast<uint16_t *>(remote), static_cast<uint16_t>(bits));
      break;
    case 4:
      p_kernel_4<<<1, 1, 0, stream>>>(static_cast<uint32_t *>(remote), static_cast<uint32_t>(bits));
      break;
    default:
      p_kernel_8<<<1, 1, 0, stream>>>(static_cast<uint64_t *>(remote), bits);
      break;
  }
  check_launch(call, "the p kernel");
}

// GPU heap, remote PE: a kernel on the stream gets the value through the proxy into the runtime's result
// word (allocated with the proxy); waits for the stream.
uint64_t stream_remote_g(const char *call, Runtime &rt, const void *source, std::size_t bytes, int pe,
                         cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(rt.remote_g_mutex);
  remote_g_kernel<<<1, 1, 0, stream>>>(rt.remote_g_word, source, bytes, pe);
  check_launch(call, "the remote g kernel");
  wait_stream(call, stream);
  return *rt.remote_g_word;
}

template <typename T>
T stream_g(const char *call, const T *source, int pe, cudaStream_t stream) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "a g value travels in 64 bits");
  Runtime &rt = require_init(call);
  T value;
  if (!rt.on_device()) {
    const Target t = require_target(rt, source, sizeof(T), pe, call, "source");
    Peers &peers = *rt.peers;
    on_host_in_stream_order(call, stream, [&peers, t, &value] { return peers.get(&value, t, sizeof(T)); });
  } else {
    require_device_heap(rt, call);
    const Target t = require_target(rt, source, sizeof(T), pe, call, "source");
    ContextGuard guard(rt.context);
    if (!t.mapped) {
      const uint64_t bits = stream_remote_g(call, rt, source, sizeof(T), pe, stream);
      memcpy(static_cast<void *>(&value), &bits, sizeof(T));
      return value;
    }
    require_ok(rt.transport->copy_on_stream(&value, t.mapped, sizeof(T), stream), call);
  }
  wait_stream(call, stream);
  return value;
}

void stream_strided(const char *call, bool is_put, void *dest, const void *source, std::ptrdiff_t dst,
                    std::ptrdiff_t sst, std::size_t elem, std::size_t nelems, int pe, cudaStream_t stream) {
  Runtime &rt = require_init(call);
  if (dst < 1 || sst < 1) fatal(call, "strides must be at least 1 (dst %td, sst %td)", dst, sst);
  if (nelems == 0) return;
  const std::size_t span = (nelems - 1) * static_cast<std::size_t>(is_put ? dst : sst) * elem + elem;
  const std::ptrdiff_t e = static_cast<std::ptrdiff_t>(elem);
  if (!rt.on_device()) {
    const Target t = require_target(rt, is_put ? dest : source, span, pe, call, is_put ? "dest" : "source");
    require_local(is_put ? source : dest, nelems * elem, call, is_put ? "source" : "dest");
    Peers &peers = *rt.peers;
    void *local = is_put ? const_cast<void *>(source) : dest;
    const std::ptrdiff_t remote_stride = (is_put ? dst : sst) * e, local_stride = (is_put ? sst : dst) * e;
    return on_host_in_stream_order(call, stream, [=, &peers] {
      return peers.strided(is_put, t, remote_stride, local, local_stride, elem, nelems);
    });
  }
  require_device_heap(rt, call);
  void *remote = require_target(rt, is_put ? dest : source, span, pe, call, is_put ? "dest" : "source").mapped;
  require_local(is_put ? source : dest, nelems * elem, call, is_put ? "source" : "dest");
  ContextGuard guard(rt.context);
  if (!remote) {
    remote_strided_kernel<<<1, 1, 0, stream>>>(is_put, dest, source, dst, sst, elem, nelems, pe);
    return check_launch(call, "the remote strided kernel");
  }
  require_ok(is_put ? rt.transport->strided_on_stream(remote, dst * e, source, sst * e, elem, nelems, stream)
                    : rt.transport->strided_on_stream(dest, dst * e, remote, sst * e, elem, nelems, stream),
             call);
}

AtomicArgs signal_args(const char *call, uint64_t signal, int sig_op) {
  if (sig_op != NVSHMEM_SIGNAL_SET && sig_op != NVSHMEM_SIGNAL_ADD)
    fatal(call, "sig_op %d is neither NVSHMEM_SIGNAL_SET nor NVSHMEM_SIGNAL_ADD", sig_op);
  return AtomicArgs{sig_op == NVSHMEM_SIGNAL_SET ? AtomicOp::set : AtomicOp::add, sizeof(uint64_t), signal, 0};
}

void stream_signal(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  const AtomicArgs args = signal_args(call, signal, sig_op);
  Runtime &rt = require_init(call);
  if (!rt.on_device()) {
    const Target t = require_target(rt, sig_addr, sizeof(uint64_t), pe, call, "sig_addr");
    Peers &peers = *rt.peers;
    return on_host_in_stream_order(call, stream, [&peers, t, args] { return peers.atomic(t, args, nullptr); });
  }
  require_device_heap(rt, call);
  const Target t = require_target(rt, sig_addr, sizeof(uint64_t), pe, call, "sig_addr");
  ContextGuard guard(rt.context);
  if (!t.mapped) {
    remote_signal_kernel<<<1, 1, 0, stream>>>(sig_addr, signal, sig_op, pe);
    return check_launch(call, "the remote signal kernel");
  }
  require_ok(rt.transport->atomic_on_stream(t.mapped, args, stream), call);
}

// The data (a copy on the stream), then the signal: a kernel that starts after the copy completed
// and updates the signal word with a system fence before it (host heap: a blocking put, then the
// signal's atomic, in stream order; GPU heap, remote PE: one put-with-signal request to the proxy, which
// orders the signal after the data). With 0 bytes only the signal is sent.
void stream_put_signal(const char *call, void *dest, const void *source, std::size_t bytes, uint64_t *sig_addr,
                       uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  (void)signal_args(call, signal, sig_op);
  Runtime &rt = require_init(call);
  if (bytes > 0 && rt.on_device() && rt.proxy) {  // a GPU heap with remote PEs
    const Target t = require_target(rt, dest, bytes, pe, call, "dest");
    (void)require_target(rt, sig_addr, sizeof(uint64_t), pe, call, "sig_addr");
    require_local(source, bytes, call, "source");
    if (!t.mapped) {
      ContextGuard guard(rt.context);
      remote_put_signal_kernel<<<1, 1, 0, stream>>>(dest, source, bytes, sig_addr, signal, sig_op, pe);
      return check_launch(call, "the remote put-with-signal kernel");
    }
  }
  stream_rma(call, true, dest, source, bytes, pe, stream);
  stream_signal(call, sig_addr, signal, sig_op, pe, stream);
}

template <typename T>
__global__ void wait_kernel(T *ivars, size_t n, const int *status, int cmp, T value, const T *values) {
  if (values)
    nvshm_dev::wait_all(ivars, n, status, cmp, nvshm_dev::EachTarget<T>{values});
  else
    nvshm_dev::wait_all(ivars, n, status, cmp, nvshm_dev::OneTarget<T>{value});
}

const char *cmp_name(int cmp) {
  switch (cmp) {
    case NVSHMEM_CMP_EQ:
      return "==";
    case NVSHMEM_CMP_NE:
      return "!=";
    case NVSHMEM_CMP_GT:
      return ">";
    case NVSHMEM_CMP_LE:
      return "<=";
    case NVSHMEM_CMP_LT:
      return "<";
    default:
      return ">=";
  }
}

// Host heap: waits on the host until every active ivars[i] (status NULL or status[i] == 0) compares
// `cmp` with its target (values[i], or value), reading each with an acquire load, as the device's wait
// does. Peers' writes land without this thread's help (the remote engine's progress thread receives
// them). Bounded by NVSHMEM_BOOTSTRAP_TIMEOUT: then a message naming the call (and PE), the element and
// both values, and timeout.
template <typename T>
Status host_wait_all(const char *call, const T *ivars, size_t n, const int *status, int cmp, T value, const T *values,
                     int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (size_t i = 0; i < n; ++i) {
    if (status && status[i] != 0) continue;
    const T target = values ? values[i] : value;
    for (unsigned polls = 0;; ++polls) {
      T seen;
      __atomic_load(ivars + i, &seen, __ATOMIC_ACQUIRE);
      if (nvshm_dev::compare(seen, cmp, target)) break;
      if ((polls & 63) != 63) continue;
      if (std::chrono::steady_clock::now() > deadline) {
        const char *why =
            "on a host heap the wait runs on the host in stream order: the word must be written by another PE or by "
            "this process's host code, not by later work on its streams";
        if constexpr (std::is_signed<T>::value)
          log_error(call, "ivars[%zu] is %lld, still not %s %lld after %d s (NVSHMEM_BOOTSTRAP_TIMEOUT; %s)", i,
                    static_cast<long long>(seen), cmp_name(cmp), static_cast<long long>(target), timeout_s, why);
        else
          log_error(call, "ivars[%zu] is %llu, still not %s %llu after %d s (NVSHMEM_BOOTSTRAP_TIMEOUT; %s)", i,
                    static_cast<unsigned long long>(seen), cmp_name(cmp), static_cast<unsigned long long>(target),
                    timeout_s, why);
        return Status::timeout;
      }
      std::this_thread::yield();
    }
  }
  return Status::ok;
}

template <typename T>
void stream_wait(const char *call, T *ivars, size_t n, const int *status, int cmp, T value, const T *values,
                 cudaStream_t stream) {
  Runtime &rt = require_init(call);
  if (cmp < NVSHMEM_CMP_EQ || cmp > NVSHMEM_CMP_GE) fatal(call, "cmp %d is not one of NVSHMEM_CMP_*", cmp);
  if (n == 0) return;
  if (!rt.on_device()) {  // the words are this PE's own, in host memory
    if (!rt.heap->contains(ivars, n * sizeof(T)))
      fatal(call, "ivars=%p (%zu bytes) is not inside the symmetric heap", static_cast<void *>(ivars), n * sizeof(T));
    const int timeout_s = static_cast<int>(rt.env.bootstrap_timeout);
    return on_host_in_stream_order(
        call, stream, [=] { return host_wait_all<T>(call, ivars, n, status, cmp, value, values, timeout_s); });
  }
  require_device_heap(rt, call);
  (void)require_mapped(rt, ivars, n * sizeof(T), rt.boot->rank(), call, "ivars");
  ContextGuard guard(rt.context);
  wait_kernel<T><<<1, 1, 0, stream>>>(ivars, n, status, cmp, value, values);
  check_launch(call, "the wait kernel");
}

}  // namespace

#define NVSHM_WAIT_KERNEL(NAME, T) reinterpret_cast<const void *>(wait_kernel<T>),
cudaError_t nvshm::load_stream_kernels() {
  return load_kernels(
      {reinterpret_cast<const void *>(remote_rma_kernel), reinterpret_cast<const void *>(remote_p_kernel),
       reinterpret_cast<const void *>(remote_g_kernel), reinterpret_cast<const void *>(remote_strided_kernel),
       reinterpret_cast<const void *>(remote_signal_kernel), reinterpret_cast<const void *>(remote_put_signal_kernel),
       reinterpret_cast<const void *>(proxy_quiet_kernel), reinterpret_cast<const void *>(p_kernel_1),
       reinterpret_cast<const void *>(p_kernel_2), reinterpret_cast<const void *>(p_kernel_4),
       reinterpret_cast<const void *>(p_kernel_8), NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_WAIT_KERNEL)});
}
#undef NVSHM_WAIT_KERNEL

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

#define NVSHM_STREAM_RMA_MORE(NAME, T)                                                                                 \
  void nvshmemx_##NAME##_p_on_stream(T *dest, const T value, int pe, cudaStream_t stream) {                            \
    stream_p<T>("nvshmemx_" #NAME "_p_on_stream", dest, value, pe, stream);                                            \
  }                                                                                                                    \
  T nvshmemx_##NAME##_g_on_stream(const T *source, int pe, cudaStream_t stream) {                                      \
    return stream_g<T>("nvshmemx_" #NAME "_g_on_stream", source, pe, stream);                                          \
  }                                                                                                                    \
  void nvshmemx_##NAME##_iput_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
                                        cudaStream_t stream) {                                                         \
    stream_strided("nvshmemx_" #NAME "_iput_on_stream", true, dest, source, dst, sst, sizeof(T), nelems, pe, stream);  \
  }                                                                                                                    \
  void nvshmemx_##NAME##_iget_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
                                        cudaStream_t stream) {                                                         \
    stream_strided("nvshmemx_" #NAME "_iget_on_stream", false, dest, source, dst, sst, sizeof(T), nelems, pe, stream); \
  }                                                                                                                    \
  void nvshmemx_##NAME##_put_signal_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,             \
                                              uint64_t signal, int sig_op, int pe, cudaStream_t stream) {              \
    stream_put_signal("nvshmemx_" #NAME "_put_signal_on_stream", dest, source, nelems * sizeof(T), sig_addr, signal,   \
                      sig_op, pe, stream);                                                                             \
  }                                                                                                                    \
  void nvshmemx_##NAME##_put_signal_nbi_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,         \
                                                  uint64_t signal, int sig_op, int pe, cudaStream_t stream) {          \
    stream_put_signal("nvshmemx_" #NAME "_put_signal_nbi_on_stream", dest, source, nelems * sizeof(T), sig_addr,       \
                      signal, sig_op, pe, stream);                                                                     \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_STREAM_RMA_MORE)
#undef NVSHM_STREAM_RMA_MORE

#define NVSHM_STREAM_SIZED(BITS, T)                                                                                   \
  void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {   \
    stream_rma("nvshmemx_put" #BITS "_on_stream", true, dest, source, nelems * sizeof(T), pe, stream);                \
  }                                                                                                                   \
  void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {   \
    stream_rma("nvshmemx_get" #BITS "_on_stream", false, dest, source, nelems * sizeof(T), pe, stream);               \
  }                                                                                                                   \
  void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,                      \
                                          cudaStream_t stream) {                                                      \
    stream_rma("nvshmemx_put" #BITS "_nbi_on_stream", true, dest, source, nelems * sizeof(T), pe, stream);            \
  }                                                                                                                   \
  void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,                      \
                                          cudaStream_t stream) {                                                      \
    stream_rma("nvshmemx_get" #BITS "_nbi_on_stream", false, dest, source, nelems * sizeof(T), pe, stream);           \
  }                                                                                                                   \
  void nvshmemx_iput##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                                       int pe, cudaStream_t stream) {                                                 \
    stream_strided("nvshmemx_iput" #BITS "_on_stream", true, dest, source, dst, sst, sizeof(T), nelems, pe, stream);  \
  }                                                                                                                   \
  void nvshmemx_iget##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                                       int pe, cudaStream_t stream) {                                                 \
    stream_strided("nvshmemx_iget" #BITS "_on_stream", false, dest, source, dst, sst, sizeof(T), nelems, pe, stream); \
  }                                                                                                                   \
  void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,       \
                                             uint64_t signal, int sig_op, int pe, cudaStream_t stream) {              \
    stream_put_signal("nvshmemx_put" #BITS "_signal_on_stream", dest, source, nelems * sizeof(T), sig_addr, signal,   \
                      sig_op, pe, stream);                                                                            \
  }                                                                                                                   \
  void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,   \
                                                 uint64_t signal, int sig_op, int pe, cudaStream_t stream) {          \
    stream_put_signal("nvshmemx_put" #BITS "_signal_nbi_on_stream", dest, source, nelems * sizeof(T), sig_addr,       \
                      signal, sig_op, pe, stream);                                                                    \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_STREAM_SIZED)
#undef NVSHM_STREAM_SIZED

void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                      uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  stream_put_signal("nvshmemx_putmem_signal_on_stream", dest, source, nbytes, sig_addr, signal, sig_op, pe, stream);
}
void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                          uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  stream_put_signal("nvshmemx_putmem_signal_nbi_on_stream", dest, source, nbytes, sig_addr, signal, sig_op, pe, stream);
}
void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  stream_signal("nvshmemx_signal_op_on_stream", sig_addr, signal, sig_op, pe, stream);
}
void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream) {
  stream_wait<uint64_t>("nvshmemx_signal_wait_until_on_stream", sig_addr, 1, nullptr, cmp, cmp_value, nullptr, stream);
}

#define NVSHM_STREAM_WAIT(NAME, T)                                                                                  \
  void nvshmemx_##NAME##_wait_until_on_stream(T *ivar, int cmp, T cmp_value, cudaStream_t stream) {                 \
    stream_wait<T>("nvshmemx_" #NAME "_wait_until_on_stream", ivar, 1, nullptr, cmp, cmp_value, nullptr, stream);   \
  }                                                                                                                 \
  void nvshmemx_##NAME##_wait_until_all_on_stream(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value, \
                                                  cudaStream_t stream) {                                            \
    stream_wait<T>("nvshmemx_" #NAME "_wait_until_all_on_stream", ivars, nelems, status, cmp, cmp_value, nullptr,   \
                   stream);                                                                                         \
  }                                                                                                                 \
  void nvshmemx_##NAME##_wait_until_all_vector_on_stream(T *ivars, size_t nelems, const int *status, int cmp,       \
                                                         T *cmp_values, cudaStream_t stream) {                      \
    stream_wait<T>("nvshmemx_" #NAME "_wait_until_all_vector_on_stream", ivars, nelems, status, cmp,                \
                   static_cast<T>(0), cmp_values, stream);                                                          \
  }
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_STREAM_WAIT)
#undef NVSHM_STREAM_WAIT

namespace {
// Later work on `stream` starts after this PE's earlier RMA completed (quiet_on_stream, and flush_on_stream,
// whose weaker promise, reusable sources, this meets).
void order_stream(const char *call, cudaStream_t stream) {
  Runtime &rt = require_init(call);
  if (!rt.on_device()) {
    Peers &peers = *rt.peers;
    return on_host_in_stream_order(call, stream, [&peers] { return peers.quiet(); });
  }
  require_device_heap(rt, call);
  ContextGuard guard(rt.context);
  require_ok(rt.transport->order_stream(stream), call);
  if (rt.proxy) {  // remote PEs: the requests that kernels left with this PE's proxy, completed remotely
    proxy_quiet_kernel<<<1, 1, 0, stream>>>();
    check_launch(call, "the proxy's quiet kernel");
  }
}
}  // namespace

void nvshmemx_quiet_on_stream(cudaStream_t stream) {
  order_stream("nvshmemx_quiet_on_stream", stream);
}

void nvshmemx_flush_on_stream(cudaStream_t stream) {
  order_stream("nvshmemx_flush_on_stream", stream);
}

}  // extern "C"
