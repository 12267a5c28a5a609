// SPDX-License-Identifier: BSD-3-Clause
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
#include "nvshmem/collectives.hpp"
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
/// One-sided calls: RMA, atomic, signal and copy members are made by the calling PE alone; `pe` is the
/// target PE (an index in NVSHMEM_TEAM_WORLD); counts, offsets and indices count elements of T, never
/// bytes. The collective members are collective over their team (see their section).
///
/// Thread safety: one thread allocates and frees (one per PE); RMA members may be called from any
/// thread concurrently (as the C API's RMA); the object itself is not synchronised (do not move or
/// reset it while another thread uses it).
///
/// Errors: argument errors detected here (element ranges past size(), PE out of range, size overflow,
/// an empty Runtime handle) throw Error(NVSHMEMX_ERROR_INVALID_VALUE) before any communication; a failed allocation
/// throws Error(NVSHMEMX_ERROR_OUT_OF_MEMORY) on every PE (the C call reports NULL on every PE). Failures inside RMA
/// calls follow the C API (message, abort).
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
  /// True when size() == 0 (also for a zero-count allocation, which still holds the runtime).
  bool empty() const noexcept { return count_ == 0; }
  /// The symmetric address of element 0 (the same on every PE); null for an empty buffer. Usable
  /// with every C call that takes a symmetric address. Dereferenceable on the host only when the heap
  /// is in host memory (CPU backend); with the heap in GPU memory it is a device address.
  T *data() const noexcept { return data_; }
  /// `pe`'s copy as a pointer usable with loads and stores (nvshmem_ptr; as data(), a host address
  /// only with the heap in host memory, else a device address for kernels), or null when that copy
  /// is not reachable so. Local, any thread. Throws Error(NVSHMEMX_ERROR_INVALID_VALUE) for a PE out
  /// of range.
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
  /// As put, enqueued on `stream` (nvshmemx_<T>_put_on_stream, else nvshmemx_putmem_on_stream): returns
  /// at once; `source` (GPU-readable) must stay valid until the stream reaches it. On a host heap it runs
  /// on the host in stream order (docs/remote.md, "Stream calls on a host heap").
  void put_on_stream(int pe, const T *source, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put_on_stream(data_ + offset, source, count, pe, stream);
    else
      ::nvshmemx_putmem_on_stream(data_ + offset, source, count * sizeof(T), pe, stream);
  }
  /// As get, enqueued on `stream`: `dest` (GPU-writable) is filled when the stream reaches it. Heap in
  /// GPU memory.
  void get_on_stream(int pe, T *dest, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get_on_stream(dest, data_ + offset, count, pe, stream);
    else
      ::nvshmemx_getmem_on_stream(dest, data_ + offset, count * sizeof(T), pe, stream);
  }
  /// As put_on_stream, non-blocking: complete at the next quiet on the stream (quiet_on_stream).
  void put_nbi_on_stream(int pe, const T *source, std::size_t count, cudaStream_t stream,
                         std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::put_nbi_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::put_nbi_on_stream(data_ + offset, source, count, pe, stream);
    else
      ::nvshmemx_putmem_nbi_on_stream(data_ + offset, source, count * sizeof(T), pe, stream);
  }
  /// As get_on_stream, non-blocking: `dest` is filled at the next quiet on the stream.
  void get_nbi_on_stream(int pe, T *dest, std::size_t count, cudaStream_t stream, std::size_t offset = 0) const {
    check(pe, count, offset, "SymmetricBuffer::get_nbi_on_stream");
    if (count == 0) return;
    if constexpr (is_rma_type<T>)
      nvshmem::get_nbi_on_stream(dest, data_ + offset, count, pe, stream);
    else
      ::nvshmemx_getmem_nbi_on_stream(dest, data_ + offset, count * sizeof(T), pe, stream);
  }
  /// Store one element into element `index` of `pe`'s copy (a blocking put of 1 element).
  void p(int pe, std::size_t index, const T &value) const { put(pe, &value, 1, index); }
  /// Read element `index` of `pe`'s copy (a blocking get of 1 element).
  [[nodiscard]] T g(int pe, std::size_t index) const {
    T v;
    get(pe, &v, 1, index);
    return v;
  }

  /// Atomics on element `index` of `pe`'s copy (nvshmem_<T>_atomic_*; T must be in the operation's AMO
  /// table, else a compile error): add, set; fetch_add, compare_swap (stores `value` if the element
  /// equals `cond`) and swap return the old value, fetch reads. Any thread; atomic with respect to
  /// other atomics only. Errors as the class comment (PE or index out of range).
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
  /// Bitwise atomics (atomic_and/or/xor and their fetch forms, which return the old value;
  /// NVSHM_FOR_EACH_AMO_LOGIC_TYPE); contract as the atomics above.
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
  /// This PE's signal word `index` (nvshmem_signal_fetch, an atomic load). T = uint64_t only. Local,
  /// any thread; Error(NVSHMEMX_ERROR_INVALID_VALUE) for an index out of range.
  [[nodiscard]] uint64_t signal_fetch(std::size_t index) const {
    static_assert(std::is_same_v<T, uint64_t>, "nvshmem::SymmetricBuffer::signal_fetch: signal words are uint64_t");
    check(::nvshmem_my_pe(), 1, index, "SymmetricBuffer::signal_fetch");
    return ::nvshmem_signal_fetch(data_ + index);
  }

  /// Stream-ordered put-with-signal: `count` elements from `source` (memory the GPU can read) into
  /// `pe`'s copy from element `offset`, then NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD (`sig_op`) of
  /// `value` on element `signal_index` of `pe`'s copy of `signal`, in `stream`'s order: a PE that sees
  /// the signal sees the data (nvshmemx_<T>_put_signal_on_stream; nvshmemx_putmem_signal_on_stream for
  /// non-RMA T). Either heap kind (a host heap runs it on the host in stream order); any thread. The C API has no
  /// blocking host form (put_signal is device-only: DeviceView::put_signal). Throws Error(NVSHMEMX_ERROR_INVALID_VALUE)
  /// for a PE or element range outside either buffer, before anything is enqueued. NVSHMEM:
  /// "Signaling Operations".
  void put_signal_on_stream(int pe, const T *source, std::size_t count, const SymmetricBuffer<uint64_t> &signal,
                            std::size_t signal_index, uint64_t value, int sig_op, cudaStream_t stream,
                            std::size_t offset = 0) const {
    put_signal_impl(pe, source, count, signal, signal_index, value, sig_op, stream, offset, false,
                    "SymmetricBuffer::put_signal_on_stream");
  }
  /// As put_signal_on_stream, non-blocking: complete at the next quiet on the stream
  /// (nvshmemx_<T>_put_signal_nbi_on_stream, nvshmemx_putmem_signal_nbi_on_stream).
  void put_signal_nbi_on_stream(int pe, const T *source, std::size_t count, const SymmetricBuffer<uint64_t> &signal,
                                std::size_t signal_index, uint64_t value, int sig_op, cudaStream_t stream,
                                std::size_t offset = 0) const {
    put_signal_impl(pe, source, count, signal, signal_index, value, sig_op, stream, offset, true,
                    "SymmetricBuffer::put_signal_nbi_on_stream");
  }

  // ---- Team collectives with this buffer as the destination (NVSHMEM "Collective Communication") ----
  // Collective over `team`: every member calls the same member, one thread per PE, with the same
  // team, buffers and root, in the same order as its other collectives on the team. Counts come from
  // the buffers (elements of T; buffers are symmetric, so they agree on every member). They forward to
  // the free generics of nvshmem/collectives.hpp: the typed C function for T in
  // NVSHM_FOR_EACH_COLL_TYPE, else the byte form (broadcastmem, ...); reductions need a (T, Op) pair of
  // NVSHM_FOR_EACH_REDUCE_OP_TYPE (else a compile error). Blocking forms return with this PE's copy
  // filled and `source` reusable (either heap kind); _on_stream forms enqueue on `stream` (heap in GPU
  // memory). An empty `source` makes no call. Errors: on a PE outside `team` (NVSHMEM_TEAM_INVALID),
  // or when the result does not fit this buffer, or source is this buffer where they must not
  // overlap, Error(NVSHMEMX_ERROR_INVALID_VALUE) before any communication; a failing C call throws
  // Error with its status (see collectives.hpp).

  /// Member `root`'s (a team index) `source` into this buffer's first source.size() elements on every
  /// member; source may be this buffer.
  void broadcast(Team team, const SymmetricBuffer &source, int root) const {
    if (!fits_collective(team, source, source.count_, false, "SymmetricBuffer::broadcast")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::broadcast(team, data_, source.data_, source.count_, root);
    else
      nvshmem::broadcastmem(team, data_, source.data_, source.bytes(), root);
  }
  /// In place: member `root`'s whole copy into every member's.
  void broadcast(Team team, int root) const {
    broadcast(team, *this, root);
  }
  /// As broadcast, enqueued on `stream`.
  void broadcast_on_stream(Team team, const SymmetricBuffer &source, int root, cudaStream_t stream) const {
    if (!fits_collective(team, source, source.count_, false, "SymmetricBuffer::broadcast_on_stream")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::broadcast_on_stream(team, data_, source.data_, source.count_, root, stream);
    else
      nvshmem::broadcastmem_on_stream(team, data_, source.data_, source.bytes(), root, stream);
  }
  /// Every member's `source`, concatenated in team order, into this buffer's first
  /// source.size() * team.n_pes() elements; source must be another buffer.
  void fcollect(Team team, const SymmetricBuffer &source) const {
    const std::size_t n = team_size(team, "SymmetricBuffer::fcollect");
    if (!fits_collective(team, source, source.count_ * n, true, "SymmetricBuffer::fcollect")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::fcollect(team, data_, source.data_, source.count_);
    else
      nvshmem::fcollectmem(team, data_, source.data_, source.bytes());
  }
  /// As fcollect, enqueued on `stream`.
  void fcollect_on_stream(Team team, const SymmetricBuffer &source, cudaStream_t stream) const {
    const std::size_t n = team_size(team, "SymmetricBuffer::fcollect_on_stream");
    if (!fits_collective(team, source, source.count_ * n, true, "SymmetricBuffer::fcollect_on_stream")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::fcollect_on_stream(team, data_, source.data_, source.count_, stream);
    else
      nvshmem::fcollectmem_on_stream(team, data_, source.data_, source.bytes(), stream);
  }
  /// `source` holds team.n_pes() blocks of source.size() / n_pes elements (a whole number): block j
  /// of member i lands as block i of member j's copy of this buffer; source must be another buffer.
  void alltoall(Team team, const SymmetricBuffer &source) const {
    const std::size_t block = block_of(team, source, "SymmetricBuffer::alltoall");
    if (!fits_collective(team, source, source.count_, true, "SymmetricBuffer::alltoall")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::alltoall(team, data_, source.data_, block);
    else
      nvshmem::alltoallmem(team, data_, source.data_, block * sizeof(T));
  }
  /// As alltoall, enqueued on `stream`.
  void alltoall_on_stream(Team team, const SymmetricBuffer &source, cudaStream_t stream) const {
    const std::size_t block = block_of(team, source, "SymmetricBuffer::alltoall_on_stream");
    if (!fits_collective(team, source, source.count_, true, "SymmetricBuffer::alltoall_on_stream")) return;
    if constexpr (is_collective_type<T>)
      nvshmem::alltoall_on_stream(team, data_, source.data_, block, stream);
    else
      nvshmem::alltoallmem_on_stream(team, data_, source.data_, block * sizeof(T), stream);
  }
  /// Element k < source.size() of this buffer becomes O over the members' source[k]; source may be
  /// this buffer. Usage: dest.reduce<nvshmem::Op::sum>(team, src).
  template <Op O>
  void reduce(Team team, const SymmetricBuffer &source) const {
    if (!fits_collective(team, source, source.count_, false, "SymmetricBuffer::reduce")) return;
    nvshmem::reduce<O>(team, data_, source.data_, source.count_);
  }
  /// In place: every element becomes O over the members' copies.
  template <Op O>
  void reduce(Team team) const {
    reduce<O>(team, *this);
  }
  /// As reduce, enqueued on `stream`.
  template <Op O>
  void reduce_on_stream(Team team, const SymmetricBuffer &source, cudaStream_t stream) const {
    if (!fits_collective(team, source, source.count_, false, "SymmetricBuffer::reduce_on_stream")) return;
    nvshmem::reduce_on_stream<O>(team, data_, source.data_, source.count_, stream);
  }
  /// `source` holds team.n_pes() blocks of source.size() / n_pes elements (a whole number): member i
  /// gets block i combined with O over the members in this buffer's first block elements.
  template <Op O>
  void reducescatter(Team team, const SymmetricBuffer &source) const {
    const std::size_t block = block_of(team, source, "SymmetricBuffer::reducescatter");
    if (!fits_collective(team, source, block, true, "SymmetricBuffer::reducescatter")) return;
    nvshmem::reducescatter<O>(team, data_, source.data_, block);
  }
  /// As reducescatter, enqueued on `stream`.
  template <Op O>
  void reducescatter_on_stream(Team team, const SymmetricBuffer &source, cudaStream_t stream) const {
    const std::size_t block = block_of(team, source, "SymmetricBuffer::reducescatter_on_stream");
    if (!fits_collective(team, source, block, true, "SymmetricBuffer::reducescatter_on_stream")) return;
    nvshmem::reducescatter_on_stream<O>(team, data_, source.data_, block, stream);
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
  /// This PE's whole copy as a vector (a blocking get from my_pe).
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

  void put_signal_impl(int pe, const T *source, std::size_t count, const SymmetricBuffer<uint64_t> &signal,
                       std::size_t signal_index, uint64_t value, int sig_op, cudaStream_t stream, std::size_t offset,
                       bool nbi, const char *call) const {
    check(pe, count, offset, call);
    signal.check(pe, 1, signal_index, call);
    uint64_t *sig = signal.data() + signal_index;
    if constexpr (is_rma_type<T>) {
      if (nbi)
        nvshmem::put_signal_nbi_on_stream(data_ + offset, source, count, sig, value, sig_op, pe, stream);
      else
        nvshmem::put_signal_on_stream(data_ + offset, source, count, sig, value, sig_op, pe, stream);
    } else if (nbi) {
      ::nvshmemx_putmem_signal_nbi_on_stream(data_ + offset, source, count * sizeof(T), sig, value, sig_op, pe, stream);
    } else {
      ::nvshmemx_putmem_signal_on_stream(data_ + offset, source, count * sizeof(T), sig, value, sig_op, pe, stream);
    }
  }
  // This PE's size of `team`; Error(INVALID_VALUE) naming `call` when this PE is not a member.
  static std::size_t team_size(Team team, const char *call) {
    const int n = team.n_pes();
    if (n < 1)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  "team " + std::to_string(team.handle()) + " is not a team of this PE (NVSHMEM_TEAM_INVALID?)");
    return static_cast<std::size_t>(n);
  }
  // Elements per block of `source` for alltoall/reducescatter: source.size() / n_pes, a whole number.
  static std::size_t block_of(Team team, const SymmetricBuffer &source, const char *call) {
    const std::size_t n = team_size(team, call);
    if (source.count_ % n != 0)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  "source of " + std::to_string(source.count_) + " elements is not " + std::to_string(n) +
                      " blocks (one per team member)");
    return source.count_ / n;
  }
  // Checks of a collective into this buffer of `needed` elements from `source`; false when source is
  // empty (no call). `distinct`: source must not be this buffer.
  bool fits_collective(Team team, const SymmetricBuffer &source, std::size_t needed, bool distinct,
                       const char *call) const {
    (void)team_size(team, call);
    if (distinct && source.data_ && source.data_ == data_)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call, "source and destination are the same buffer");
    if (needed > count_)
      throw Error(NVSHMEMX_ERROR_INVALID_VALUE, call,
                  "the result has " + std::to_string(needed) + " elements, the buffer " + std::to_string(count_));
    return source.count_ != 0;
  }

  template <class U>
  friend class SymmetricBuffer;
  std::shared_ptr<detail::RuntimeState> state_;
  T *data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace nvshmem
