// SPDX-License-Identifier: BSD-3-Clause
// CPU backend engine: the peers' heaps are host shared memory mapped in this process, so every
// operation is a memcpy; quiet and fence are full memory fences.
#include <atomic>
#include <cstring>

#include "common/log.hpp"
#include "transport/transport.hpp"

namespace nvshm {
namespace {

class HostTransport final : public Transport {
 public:
  Status put(void *remote, const void *local, std::size_t bytes) override {
    memcpy(remote, local, bytes);
    return Status::ok;
  }
  Status get(void *local, const void *remote, std::size_t bytes) override {
    memcpy(local, remote, bytes);
    return Status::ok;
  }
  Status put_nbi(void *remote, const void *local, std::size_t bytes) override { return put(remote, local, bytes); }
  Status get_nbi(void *local, const void *remote, std::size_t bytes) override { return get(local, remote, bytes); }
  Status quiet() override {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return Status::ok;
  }
  Status fence() override { return quiet(); }
  Status atomic(void *remote, const AtomicArgs &args, uint64_t *old) override {
    uint64_t previous = 0;
    if (args.width == 4)
      previous = apply(static_cast<uint32_t *>(remote), args.op, static_cast<uint32_t>(args.value),
                       static_cast<uint32_t>(args.cond));
    else
      previous = apply(static_cast<uint64_t *>(remote), args.op, args.value, args.cond);
    if (old) *old = previous;
    return Status::ok;
  }
  Status strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride, std::size_t elem,
                 std::size_t nelems) override {
    char *d = static_cast<char *>(dst);
    const char *s = static_cast<const char *>(src);
    for (std::size_t i = 0; i < nelems; ++i)
      memcpy(d + static_cast<std::ptrdiff_t>(i) * dst_stride, s + static_cast<std::ptrdiff_t>(i) * src_stride, elem);
    return Status::ok;
  }
  Status strided_on_stream(void *, std::ptrdiff_t, const void *, std::ptrdiff_t, std::size_t, std::size_t,
                           cudaStream_t) override {
    return unsupported();
  }
  Status atomic_on_stream(void *, const AtomicArgs &, cudaStream_t) override { return unsupported(); }
  Status copy_on_stream(void *, const void *, std::size_t, cudaStream_t) override { return unsupported(); }
  Status order_stream(cudaStream_t) override { return unsupported(); }

 private:
  // The peers' heaps are shared memory mapped here: the CPU's atomics on the mapped address are
  // atomic across processes. Sequentially consistent, so they also order this PE's earlier stores.
  template <typename W>
  static W apply(W *p, AtomicOp op, W value, W cond) {
    switch (op) {
      case AtomicOp::fetch:
        return __atomic_load_n(p, __ATOMIC_SEQ_CST);
      case AtomicOp::set:
      case AtomicOp::swap:
        return __atomic_exchange_n(p, value, __ATOMIC_SEQ_CST);
      case AtomicOp::compare_swap:
        __atomic_compare_exchange_n(p, &cond, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return cond;  // the value seen: equal to the old cond when the swap happened
      case AtomicOp::add:
        return __atomic_fetch_add(p, value, __ATOMIC_SEQ_CST);
      case AtomicOp::and_:
        return __atomic_fetch_and(p, value, __ATOMIC_SEQ_CST);
      case AtomicOp::or_:
        return __atomic_fetch_or(p, value, __ATOMIC_SEQ_CST);
      case AtomicOp::xor_:
        return __atomic_fetch_xor(p, value, __ATOMIC_SEQ_CST);
    }
    return 0;
  }
  static Status unsupported() {
    log_error("stream interface",
              "the symmetric heap is in host memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM): stream-ordered and "
              "device calls need the heap in GPU memory");
    return Status::not_supported;
  }
};
}  // namespace

std::unique_ptr<Transport> make_host_transport() {
  return std::make_unique<HostTransport>();
}

}  // namespace nvshm
