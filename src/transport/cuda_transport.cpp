// SPDX-License-Identifier: BSD-3-Clause
// GPU heap engine: copies through CUDA (copy engines over NVLink/PCIe) on one internal
// non-blocking stream, in issue order. Blocking operations wait for the stream; nbi operations
// complete at quiet(); fence is free because the stream executes in order.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "transport/cuda_kernels.hpp"
#include "transport/transport.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "CUDA transport";

class CudaTransport final : public Transport {
 public:
  ~CudaTransport() override {
    free_result_word(result_);
    if (batch_) cudaFreeHost(batch_);
    if (event_) driver().cuEventDestroy(event_);
    if (stream_) driver().cuStreamDestroy(stream_);
  }
  Status init() {
    NVSHM_CU(kWhere, cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
    NVSHM_CU(kWhere, cuEventCreate(&event_, CU_EVENT_DISABLE_TIMING));
    NVSHM_TRY(runtime_check(alloc_result_word(&result_), "allocating the atomic result word"));
    NVSHM_TRY(runtime_check(
        cudaHostAlloc(reinterpret_cast<void **>(&batch_), kBatchJobs * sizeof *batch_, cudaHostAllocMapped),
        "allocating the atomic batch"));
    return runtime_check(load_transport_kernels(), "loading the atomic and strided copy kernels");
  }

  Status put(void *remote, const void *local, std::size_t bytes) override { return blocking(remote, local, bytes); }
  Status get(void *local, const void *remote, std::size_t bytes) override { return blocking(local, remote, bytes); }
  // Between two host buffers (a remote `g`'s reply into the proxy's word, a host source into a bounce buffer):
  // a memcpy, not a copy that waits for the stream's earlier work and its synchronisation.
  Status to_host(void *host, const void *local, std::size_t bytes) override {
    return with_host(host, local, local, bytes);
  }
  Status from_host(void *local, const void *host, std::size_t bytes) override {
    return with_host(local, host, local, bytes);
  }
  Status put_nbi(void *remote, const void *local, std::size_t bytes) override { return async(remote, local, bytes); }
  Status get_nbi(void *local, const void *remote, std::size_t bytes) override { return async(local, remote, bytes); }
  Status quiet() override {
    pending_.store(false);  // before the wait: work issued during it sets the flag again
    NVSHM_CU(kWhere, cuStreamSynchronize(stream_));
    return Status::ok;
  }
  Status fence() override { return Status::ok; }

  // A one-thread kernel on the internal stream: after earlier operations, atomic with respect to
  // device atomics on the same word (cuMemcpy-based read-modify-write would not be).
  Status atomic(void *remote, const AtomicArgs &args, uint64_t *old) override {
    std::lock_guard<std::mutex> lock(atomic_mutex_);
    NVSHM_TRY(runtime_check(launch_atomic(remote, args, old ? result_ : nullptr, runtime_stream(stream_)),
                            "launching the atomic kernel"));
    NVSHM_TRY(quiet());
    if (old) *old = *reinterpret_cast<volatile uint64_t *>(result_);
    return Status::ok;
  }
  // One kernel per kBatchJobs jobs (a lone job: atomic(), whose operands travel as kernel parameters rather
  // than through the mapped batch).
  Status atomics(AtomicJob *jobs, std::size_t n) override {
    if (n == 1) return atomic(jobs->remote, jobs->args, &jobs->old);
    std::lock_guard<std::mutex> lock(atomic_mutex_);
    for (std::size_t done = 0; done < n; done += kBatchJobs) {
      const std::size_t k = std::min(kBatchJobs, n - done);
      memcpy(batch_, jobs + done, k * sizeof *jobs);
      NVSHM_TRY(runtime_check(launch_atomics(batch_, k, runtime_stream(stream_)), "launching the atomic kernel"));
      NVSHM_TRY(quiet());
      for (std::size_t i = 0; i < k; ++i) jobs[done + i].old = reinterpret_cast<volatile uint64_t &>(batch_[i].old);
    }
    return Status::ok;
  }
  // A kernel when both sides are device-accessible (GPU memory, pinned host memory); otherwise (a
  // pageable host buffer on the local side) one copy per element.
  Status strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride, std::size_t elem,
                 std::size_t nelems) override {
    NVSHM_TRY(strided_on(dst, dst_stride, src, src_stride, elem, nelems, stream_));
    return quiet();
  }
  Status strided_on_stream(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                           std::size_t elem, std::size_t nelems, cudaStream_t stream) override {
    return strided_on(dst, dst_stride, src, src_stride, elem, nelems, reinterpret_cast<CUstream>(stream));
  }
  Status atomic_on_stream(void *remote, const AtomicArgs &args, cudaStream_t stream) override {
    return runtime_check(launch_atomic(remote, args, nullptr, stream), "launching the atomic kernel");
  }

  Status copy_on_stream(void *dst, const void *src, std::size_t bytes, cudaStream_t stream) override {
    NVSHM_CU(kWhere, cuMemcpyAsync(addr(dst), addr(src), bytes, reinterpret_cast<CUstream>(stream)));
    return Status::ok;
  }

  Status order_stream(cudaStream_t stream) override {
    if (!pending_.load()) return Status::ok;  // every copy issued so far has completed
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    NVSHM_CU(kWhere, cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &capture));
    if (capture != CU_STREAM_CAPTURE_STATUS_NONE) return Status::ok;  // graphs hold no host-issued work
    std::lock_guard<std::mutex> lock(mutex_);
    NVSHM_CU(kWhere, cuEventRecord(event_, stream_));
    NVSHM_CU(kWhere, cuStreamWaitEvent(reinterpret_cast<CUstream>(stream), event_, 0));
    return Status::ok;
  }

 private:
  static bool device_accessible(const void *p) {
    CUmemorytype type;
    return driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addr(p)) == CUDA_SUCCESS;
  }
  Status strided_on(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride, std::size_t elem,
                    std::size_t nelems, CUstream stream) {
    if (device_accessible(dst) && device_accessible(src))
      return runtime_check(launch_strided(dst, dst_stride, src, src_stride, elem, nelems, runtime_stream(stream)),
                           "launching the strided copy");
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    for (std::size_t i = 0; i < nelems; ++i) {
      const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(i);
      NVSHM_CU(kWhere, cuMemcpyAsync(addr(d + k * dst_stride), addr(s + k * src_stride), elem, stream));
    }
    return Status::ok;
  }
  static cudaStream_t runtime_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
  static Status runtime_check(cudaError_t err, const char *what) {
    if (err == cudaSuccess) return Status::ok;
    log_error(kWhere, "%s failed: %s", what, cudaGetErrorString(err));
    return Status::internal;
  }
  static CUdeviceptr addr(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }
  Status async(void *dst, const void *src, std::size_t bytes) {
    NVSHM_CU(kWhere, cuMemcpyAsync(addr(dst), addr(src), bytes, stream_));
    pending_.store(true);  // after the copy is issued, so that a quiet clearing the flag covers it
    return Status::ok;
  }
  // Host memory: pageable (an address CUDA does not know) or page-locked. Any other answer (another
  // error, e.g. no current context) says no: the caller then copies through CUDA, which handles all.
  static bool host_memory(const void *p) {
    CUmemorytype type;
    const CUresult r = driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addr(p));
    return r == CUDA_ERROR_INVALID_VALUE || (r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST);
  }
  Status blocking(void *dst, const void *src, std::size_t bytes) {
    NVSHM_TRY(async(dst, src, bytes));
    return quiet();
  }
  // A copy whose other side is a host buffer: memcpy where `local` is host memory too.
  Status with_host(void *dst, const void *src, const void *local, std::size_t bytes) {
    if (!host_memory(local)) return blocking(dst, src, bytes);
    memcpy(dst, src, bytes);
    return Status::ok;
  }

  CUstream stream_ = nullptr;
  CUevent event_ = nullptr;
  std::atomic<bool> pending_{false};  // copies issued on stream_ since the last quiet (order_stream)
  std::mutex mutex_;
  std::mutex atomic_mutex_;     // one result word
  uint64_t *result_ = nullptr;  // mapped pinned host memory the atomic kernel writes the old value to
  static constexpr std::size_t kBatchJobs = 128;
  AtomicJob *batch_ = nullptr;  // mapped pinned host memory: the jobs of atomics(), their old values back
};
}  // namespace

Status make_cuda_transport(std::unique_ptr<Transport> *out) {
  auto t = std::make_unique<CudaTransport>();
  NVSHM_TRY(t->init());
  *out = std::move(t);
  return Status::ok;
}

}  // namespace nvshm
