// SPDX-License-Identifier: BSD-3-Clause
// CPU backend engine: the peers' heaps are host shared memory mapped in this process, so every
// operation is a memcpy; quiet and fence are full memory fences.
#include <cuda_fp16.h>

#include <atomic>
#include <cstring>

#include "common/log.hpp"
#include "transport/transport.hpp"

namespace nvshm {
namespace {
float widen(__half v) {
  return __half2float(v);
}
double widen(float v) {
  return v;
}
double widen(double v) {
  return v;
}
__half narrow(float v, __half) {
  return __float2half_rn(v);
}
float narrow(double v, float) {
  return static_cast<float>(v);
}
double narrow(double v, double) {
  return v;
}
template <typename F>
uint64_t float_sum(uint64_t current_bits, uint64_t value_bits) {
  F current, value;
  memcpy(static_cast<void *>(&current), &current_bits, sizeof(F));
  memcpy(static_cast<void *>(&value), &value_bits, sizeof(F));
  const F sum = narrow(widen(current) + widen(value), F{});
  uint64_t bits = 0;
  memcpy(&bits, static_cast<const void *>(&sum), sizeof(F));
  return bits;
}
}  // namespace

uint64_t float_add_bits(std::size_t width, uint64_t current, uint64_t value) {
  if (width == 2) return float_sum<__half>(current, value);
  if (width == 4) return float_sum<float>(current, value);
  return float_sum<double>(current, value);
}

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
  Status get_words(uint64_t *local, const uint64_t *remote, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) local[i] = __atomic_load_n(remote + i, __ATOMIC_RELAXED);
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
    if (args.op == AtomicOp::float_add)
      previous = float_add(remote, args.width, args.value);
    else if (args.width == 2)
      previous = apply(static_cast<uint16_t *>(remote), args.op, static_cast<uint16_t>(args.value),
                       static_cast<uint16_t>(args.cond));
    else if (args.width == 4)
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
      case AtomicOp::float_add:
        break;  // float_add() below
    }
    return 0;
  }
  // Floating-point add by compare-and-swap on the word's bits (CPUs have no floating-point fetch-add).
  // The sum is computed in a type of at least twice the precision plus two bits (float for half, double
  // for float and double), so rounding it to F is the correctly rounded sum. Returns the previous bits.
  template <typename W>
  static uint64_t float_add_as(void *remote, std::size_t width, uint64_t value_bits) {
    W *p = static_cast<W *>(remote);
    W seen = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;
    do {
      next = static_cast<W>(float_add_bits(width, seen, value_bits));
    } while (!__atomic_compare_exchange_n(p, &seen, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return seen;
  }
  static uint64_t float_add(void *remote, std::size_t width, uint64_t value_bits) {
    if (width == 2) return float_add_as<uint16_t>(remote, width, value_bits);
    if (width == 4) return float_add_as<uint32_t>(remote, width, value_bits);
    return float_add_as<uint64_t>(remote, width, value_bits);
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
