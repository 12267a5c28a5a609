// SPDX-License-Identifier: BSD-3-Clause
// How bytes move between this PE and the mapped heaps of its peers (docs/architecture.md, decision 5).
// Addresses given to a transport are already translated: `remote` points into the peer's heap
// as mapped in this process. Engines: host memcpy (CPU backend), CUDA copies (GPU heap).
// May use: heap/ (for HeapKind), cuda/, common/. See src/transport/README.md.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/status.hpp"
#include "heap/backing.hpp"

namespace nvshm {

// One atomic on a 4- or 8-byte word (every NVSHMEM AMO type is one of the two, but __half; signed
// types use the unsigned word of the same width, two's complement makes add/and/or/xor/compare-swap
// agree). float_add: a floating-point add whose type the width names (2: __half, 4: float, 8: double).
// fetch, set and swap also on a 2-byte word (nvshmem_half_atomic_{fetch,set,swap}).
enum class AtomicOp { fetch, set, swap, compare_swap, add, and_, or_, xor_, float_add };
struct AtomicArgs {
  AtomicOp op;
  std::size_t width;  // 4 or 8; float_add, fetch, set and swap: 2 too
  uint64_t value;     // operand (low `width` bytes)
  uint64_t cond;      // compare_swap only
};
// The bits of current + value for float_add's type (width 2: __half, 4: float, 8: double), summed in
// the wider type and rounded once, as every transport's float_add does it.
uint64_t float_add_bits(std::size_t width, uint64_t current, uint64_t value);
// One atomic of a batch (Transport::atomics): the word, the operation, and after the call its previous value.
struct AtomicJob {
  void *remote;
  AtomicArgs args;
  uint64_t old;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Blocking: on return `local` may be reused (put) or holds the data (get).
  virtual Status put(void *remote, const void *local, std::size_t bytes) = 0;
  virtual Status get(void *local, const void *remote, std::size_t bytes) = 0;
  // Blocking copies between local memory of any kind and a host buffer of the caller's (the staged remote
  // path's bounce and receive buffers), as get and put; the CUDA transport copies with memcpy where `local` is
  // host memory too, so that only these copies, not every put and get, ask what kind of memory it is.
  virtual Status to_host(void *host, const void *local, std::size_t bytes) { return get(host, local, bytes); }
  virtual Status from_host(void *local, const void *host, std::size_t bytes) { return put(local, host, bytes); }
  // A get of `n` 8-byte words that other PEs or threads update with atomics meanwhile (synchronisation
  // words being polled): each word read whole, as an atomic load where the heap is host memory.
  virtual Status get_words(uint64_t *local, const uint64_t *remote, std::size_t n) {
    return get(local, remote, n * sizeof(uint64_t));
  }
  // Non-blocking: complete at the next quiet().
  virtual Status put_nbi(void *remote, const void *local, std::size_t bytes) = 0;
  virtual Status get_nbi(void *local, const void *remote, std::size_t bytes) = 0;
  // Complete every operation issued through this transport.
  virtual Status quiet() = 0;
  // Order earlier puts before later ones, per target.
  virtual Status fence() = 0;
  // Atomic read-modify-write on `remote` with respect to every other NVSHMEM atomic on it (host or
  // device, any PE), ordered after this PE's earlier operations through this transport; blocking.
  // `*old` (if not null) receives the previous value, zero-extended.
  virtual Status atomic(void *remote, const AtomicArgs &args, uint64_t *old) = 0;
  // `n` atomics executed in order, each as atomic(), each previous value into its job's `old`; blocking. A
  // failure fails the rest. For the staged remote path's target, which executes the atomics that arrived
  // together at once (the CUDA transport: one kernel for the batch). The default: atomic() for each.
  virtual Status atomics(AtomicJob *jobs, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) NVSHM_TRY(atomic(jobs[i].remote, jobs[i].args, &jobs[i].old));
    return Status::ok;
  }
  // Blocking strided copy: element i (elem_bytes wide) from src + i * src_stride to
  // dst + i * dst_stride (strides in bytes).
  virtual Status strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                         std::size_t elem_bytes, std::size_t nelems) = 0;
  // Stream-ordered copies (Status::not_supported where the heap is in host memory).
  virtual Status copy_on_stream(void *dst, const void *src, std::size_t bytes, cudaStream_t stream) = 0;
  virtual Status strided_on_stream(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                                   std::size_t elem_bytes, std::size_t nelems, cudaStream_t stream) = 0;
  // Non-fetching atomic enqueued on `stream` (signal updates); capturable.
  virtual Status atomic_on_stream(void *remote, const AtomicArgs &args, cudaStream_t stream) = 0;
  // Make later work on `stream` wait for operations issued through this transport.
  virtual Status order_stream(cudaStream_t stream) = 0;
};

std::unique_ptr<Transport> make_host_transport();
Status make_cuda_transport(std::unique_ptr<Transport> *out);

}  // namespace nvshm
