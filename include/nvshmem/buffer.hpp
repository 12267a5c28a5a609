// nvshmem::SymmetricBuffer<T>: an owning, move-only array in the symmetric heap (docs/cpp.md).
// Host code only (its DeviceView goes to kernels).
#pragma once

#include <nvshmem_host.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nvshmem/atomic.hpp"
#include "nvshmem/device_view.hpp"
#include "nvshmem/error.hpp"
#include "nvshmem/generic.hpp"
#include "nvshmem/runtime.hpp"

namespace nvshmem {

/// `size()` elements of T at the same symmetric address on every PE.
///
/// Ownership and lifetime: move-only; owns one allocation of the symmetric heap and a hold on the
/// runtime (the runtime outlives every buffer even when all Runtime handles are gone). A moved-from or
/// default-constructed buffer is empty: size() == 0, data() == nullptr, and it owns nothing.
///
/// Collective calls: allocate, zeroed, reset, move assignment onto a non-empty buffer and the destructor
/// of a non-empty buffer call nvshmem_malloc/calloc/free, which are collective: every PE makes the same
/// calls with the same counts in the same order (NVSHMEM's rule). A buffer destroyed on one PE only, or
/// in a different order, deadlocks or corrupts the heap; destroy buffers in program order on all PEs.
/// If the buffer holds the runtime's last owner, its destruction also finalizes the runtime (collective).
///
/// Thread safety: one thread allocates and frees (one per PE); RMA members may be called from any
/// thread concurrently (as the C API's RMA); the object itself is not synchronised (do not move or
/// reset it while another thread uses it).
///
/// Errors: argument errors detected here (element ranges past size(), PE out of range, size overflow)
/// throw Error(NVSHMEMX_ERROR_INVALID_VALUE) before any communication; a failed allocation throws
/// Error(NVSHMEMX_ERROR_OUT_OF_MEMORY) on every PE (the C call reports NULL on every PE). Failures inside
/// RMA calls follow the C API (message, abort).
template <class T>
class SymmetricBuffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "nvshmem::SymmetricBuffer<T>: T must be trivially copyable (RMA moves its bytes)");

 public:
  using value_type = T;

  /// An empty buffer (owns nothing).
  SymmetricBuffer() noexcept = default;

  /// Collective: allocate `count` elements (uninitialised) on every PE (nvshmem_malloc, or
  /// nvshmem_align when alignof(T) exceeds the heap's default alignment). count 0 gives an empty
  /// buffer that holds the runtime and makes no call. Throws Error (see the class comment).
  [[nodiscard]] static SymmetricBuffer allocate(const Runtime &runtime, std::size_t count) {
    return SymmetricBuffer(runtime, count, false, "SymmetricBuffer::allocate");
  }
  /// Collective: as allocate, zero-filled (nvshmem_calloc).
  [[nodiscard]] static SymmetricBuffer zeroed(const Runtime &runtime, std::size_t count) {
    return SymmetricBuffer(runtime, count, true, "SymmetricBuffer::zeroed");
  }

  SymmetricBuffer(const SymmetricBuffer &) = delete;
  SymmetricBuffer &operator=(const SymmetricBuffer &) = delete;
  /// Takes `other`'s allocation and runtime hold; `other` becomes empty. No communication.
  SymmetricBuffer(SymmetricBuffer &&other) noexcept
      : state_(std::move(other.state_)), data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  /// Frees this buffer's allocation (collective when non-empty), then takes `other`'s.
  SymmetricBuffer &operator=(SymmetricBuffer &&other) noexcept {
    if (this != &other) {
      reset();
      state_ = std::move(other.state_);
      data_ = other.data_;
      count_ = other.count_;
      other.data_ = nullptr;
      other.count_ = 0;
    }
    return *this;
  }
  /// Collective when non-empty: nvshmem_free, then release the runtime hold (see the class comment).
  ~SymmetricBuffer() { reset(); }

  /// Collective when non-empty: free now; the buffer becomes empty. No-op on an empty buffer.
  void reset() noexcept {
    if (data_) ::nvshmem_free(data_);
    data_ = nullptr;
    count_ = 0;
    state_.reset();
  }

  /// Number of elements.
  std::size_t size() const noexcept { return count_; }
  /// Number of bytes (size() * sizeof(T)).
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  bool empty() const noexcept { return count_ == 0; }
  /// The symmetric address of element 0 (the same on every PE); null for an empty buffer. Usable
  /// with every C call that takes a symmetric address. Dereferenceable on the host only when the heap
  /// is in host memory (CPU backend); with the heap in GPU memory it is a device address.
  T *data() const noexcept { return data_; }
  /// `pe`'s copy as a pointer usable with loads and stores from the host (nvshmem_ptr), or null when
  /// that copy is not reachable so. Throws Error(NVSHMEMX_ERROR_INVALID_VALUE) for a PE out of range.
  T *peer(int pe) const {
    check_pe(pe, "SymmetricBuffer::peer");
    return data_ ? static_cast<T *>(::nvshmem_ptr(data_, pe)) : nullptr;
  }
  /// A trivially copyable view for kernels (valid while this buffer is alive).
  DeviceView<T> view() const noexcept { return DeviceView<T>(data_, count_); }
  /// A handle on the runtime this buffer holds (empty handle for an empty buffer).
  Runtime runtime() const { return Runtime(state_); }

  /// Blocking put: `count` elements from local `source` to `pe`'s copy, starting at element `offset`.
  void put(int pe, const T *source, std::size_t count, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put(data_ + offset, source, count, pe);
    else
      ::nvshmem_putmem(data_ + offset, source, count * sizeof(T), pe);
  }
  /// Blocking get: `count` elements of `pe`'s copy, from element `offset`, into local `dest`.
  void get(int pe, T *dest, std::size_t count, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get(dest, data_ + offset, count, pe);
    else
      ::nvshmem_getmem(dest, data_ + offset, count * sizeof(T), pe);
  }
  /// As put; completes at the next quiet (source not reusable before).
  void put_nbi(int pe, const T *source, std::size_t count, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put_nbi");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put_nbi(data_ + offset, source, count, pe);
    else
      ::nvshmem_putmem_nbi(data_ + offset, source, count * sizeof(T), pe);
  }
  /// As get; completes at the next quiet (dest not readable before).
  void get_nbi(int pe, T *dest, std::size_t count, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get_nbi");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get_nbi(dest, data_ + offset, count, pe);
    else
      ::nvshmem_getmem_nbi(dest, data_ + offset, count * sizeof(T), pe);
  }
  /// Stream-ordered put (nvshmemx_*_put_on_stream); needs the heap in GPU memory.
  void put_on_stream(int pe, const T *source, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put_on_stream(data_ + offset, source, count, pe, stream);
    else
      ::nvshmemx_putmem_on_stream(data_ + offset, source, count * sizeof(T), pe, stream);
  }
  /// Stream-ordered get; needs the heap in GPU memory.
  void get_on_stream(int pe, T *dest, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get_on_stream(dest, data_ + offset, count, pe, stream);
    else
      ::nvshmemx_getmem_on_stream(dest, data_ + offset, count * sizeof(T), pe, stream);
  }
  /// Stream-ordered non-blocking put; complete at the next quiet on the stream.
  void put_nbi_on_stream(int pe, const T *source, std::size_t count, cudaStream_t stream,
                         std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put_nbi_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put_nbi_on_stream(data_ + offset, source, count, pe, stream);
    else
      ::nvshmemx_putmem_nbi_on_stream(data_ + offset, source, count * sizeof(T), pe, stream);
  }
  /// Stream-ordered non-blocking get.
  void get_nbi_on_stream(int pe, T *dest, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get_nbi_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get_nbi_on_stream(dest, data_ + offset, count, pe, stream);
    else
      ::nvshmemx_getmem_nbi_on_stream(dest, data_ + offset, count * sizeof(T), pe, stream);
  }
  /// Store one element into element `index` of `pe`'s copy.
  void p(int pe, std::size_t index, const T &value) const { put(pe, &value, 1, index); }
  /// Read element `index` of `pe`'s copy.
  [[nodiscard]] T g(int pe, std::size_t index) const {
    T v;
    get(pe, &v, 1, index);
    return v;
  }

  /// Atomics on element `index` of `pe`'s copy (nvshmem_<T>_atomic_*; T must be in the operation's AMO
  /// table, else a compile error). One thread per call; atomic with respect to other atomics only.
  void atomic_add(int pe, std::size_t index, T value) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_add");
    nvshmem::atomic_add(data_ + index, value, pe);
  }
  [[nodiscard]] T atomic_fetch_add(int pe, std::size_t index, T value) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_fetch_add");
    return nvshmem::atomic_fetch_add(data_ + index, value, pe);
  }
  [[nodiscard]] T atomic_compare_swap(int pe, std::size_t index, T cond, T value) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_compare_swap");
    return nvshmem::atomic_compare_swap(data_ + index, cond, value, pe);
  }
  [[nodiscard]] T atomic_fetch(int pe, std::size_t index) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_fetch");
    return nvshmem::atomic_fetch(static_cast<const T *>(data_ + index), pe);
  }
  void atomic_set(int pe, std::size_t index, T value) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_set");
    nvshmem::atomic_set(data_ + index, value, pe);
  }
  [[nodiscard]] T atomic_swap(int pe, std::size_t index, T value) const {
    check(pe, 1, index, "SymmetricBuffer::atomic_swap");
    return nvshmem::atomic_swap(data_ + index, value, pe);
  }
  /// Bitwise atomics (atomic_and/or/xor and their fetch forms; NVSHM_FOR_EACH_AMO_LOGIC_TYPE).
#define NVSHM_CPP_BUFFER_LOGIC(OP)                                              \
  void atomic_##OP(int pe, std::size_t index, T value) const {                  \
    check(pe, 1, index, "SymmetricBuffer::atomic_" #OP);                        \
    nvshmem::atomic_##OP(data_ + index, value, pe);                             \
  }                                                                             \
  [[nodiscard]] T atomic_fetch_##OP(int pe, std::size_t index, T value) const { \
    check(pe, 1, index, "SymmetricBuffer::atomic_fetch_" #OP);                  \
    return nvshmem::atomic_fetch_##OP(data_ + index, value, pe);                \
  }
  NVSHM_CPP_BUFFER_LOGIC(and)
  NVSHM_CPP_BUFFER_LOGIC(or)
  NVSHM_CPP_BUFFER_LOGIC(xor)
#undef NVSHM_CPP_BUFFER_LOGIC

  /// Signal words (T = uint64_t only): NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD (`sig_op`) of `value` on
  /// element `index` of `pe`'s copy (nvshmemx_signal_op), atomic and ordered after this PE's earlier
  /// blocking RMA. Any thread.
  void signal_op(int pe, std::size_t index, uint64_t value, int sig_op) const {
    static_assert(std::is_same_v<T, uint64_t>, "nvshmem::SymmetricBuffer::signal_op: signal words are uint64_t");
    check(pe, 1, index, "SymmetricBuffer::signal_op");
    ::nvshmemx_signal_op(data_ + index, value, sig_op, pe);
  }
  /// This PE's signal word `index` (nvshmem_signal_fetch, an atomic load). T = uint64_t only.
  [[nodiscard]] uint64_t signal_fetch(std::size_t index) const {
    static_assert(std::is_same_v<T, uint64_t>, "nvshmem::SymmetricBuffer::signal_fetch: signal words are uint64_t");
    check(::nvshmem_my_pe(), 1, index, "SymmetricBuffer::signal_fetch");
    return ::nvshmem_signal_fetch(data_ + index);
  }

  /// Write host elements [first, first+count) into this PE's own copy from element `offset` (a put to
  /// my_pe: works on either heap kind). Blocking.
  void copy_from_host(const T *first, std::size_t count, std::size_t offset = 0) const {
    put(::nvshmem_my_pe(), first, count, offset);
  }
  /// Write a contiguous host range (std::vector, std::array, ...) into this PE's copy from `offset`.
  template <class Range, class = decltype(std::data(std::declval<const Range &>()))>
  void copy_from_host(const Range &range, std::size_t offset = 0) const {
    copy_from_host(std::data(range), std::size(range), offset);
  }
  /// Read `count` elements of this PE's copy from element `offset` into host memory at `out`. Blocking.
  void copy_to_host(T *out, std::size_t count, std::size_t offset = 0) const {
    get(::nvshmem_my_pe(), out, count, offset);
  }
  /// This PE's whole copy as a vector.
  [[nodiscard]] std::vector<T> to_vector() const {
    std::vector<T> v(count_);
    copy_to_host(v.data(), count_);
    return v;
  }

 private:
  SymmetricBuffer(const Runtime &runtime, std::size_t count, bool zero, const char *call) : state_(runtime.state_) {
    if (!state_) throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call, "empty (moved-from) Runtime handle");
    if (count > SIZE_MAX / sizeof(T))
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  std::to_string(count) + " elements of " + std::to_string(sizeof(T)) + " bytes overflow size_t");
    if (count == 0) return;
    const std::size_t nbytes = count * sizeof(T);
    void *p = nullptr;
    if (zero)
      p = alignof(T) > kHeapAlign ? aligned_zeroed(nbytes) : ::nvshmem_calloc(count, sizeof(T));
    else
      p = alignof(T) > kHeapAlign ? ::nvshmem_align(alignof(T), nbytes) : ::nvshmem_malloc(nbytes);
    if (!p)
      throw Error(NVSHMEMX_ERROR_OUT_OF_MEMORY, zero ? "nvshmem_calloc" : "nvshmem_malloc",
                  "could not allocate " + std::to_string(nbytes) + " bytes of symmetric heap");
    data_ = static_cast<T *>(p);
    count_ = count;
  }
  // Every heap allocation is aligned to at least this many bytes (NVSHMEM guarantees 16 and more).
  static constexpr std::size_t kHeapAlign = 16;
  static void *aligned_zeroed(std::size_t nbytes) {
    void *p = ::nvshmem_align(alignof(T), nbytes);
    if (p) {
      std::vector<unsigned char> zeros(nbytes, 0);
      ::nvshmem_putmem(p, zeros.data(), nbytes, ::nvshmem_my_pe());
      ::nvshmem_barrier_all();
    }
    return p;
  }
  void check_pe(int pe, const char *call) const {
    const int n = ::nvshmem_n_pes();
    if (pe < 0 || pe >= n)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  "PE " + std::to_string(pe) + " out of range [0, " + std::to_string(n) + ")");
  }
  void check(int pe, std::size_t count, std::size_t offset, const char *call) const {
    check_pe(pe, call);
    if (offset > count_ || count > count_ - offset)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  "elements [" + std::to_string(offset) + ", " + std::to_string(offset) + "+" + std::to_string(count) +
                      ") outside the buffer's " + std::to_string(count_));
  }

  std::shared_ptr<detail::RuntimeState> state_;
  T *data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace nvshmem
