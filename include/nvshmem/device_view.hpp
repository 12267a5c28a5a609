// SPDX-License-Identifier: BSD-3-Clause
// nvshmem::DeviceView<T>: a trivially copyable, non-owning view of a symmetric array, passed to
// kernels by value (SymmetricBuffer<T>::view()). Host and device code; compiles with any C++17
// compiler (accessors only) and with nvcc or NVRTC (plus the device RMA members).
#pragma once

#include "nvshmem/detail/typed.hpp"
#include "nvshmem_detail/macros.h"  // NVSHM_DEVICE_API

#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY
#include "nvshmem/device.hpp"
#define NVSHM_CPP_HD __host__ __device__
#else
#include <cstddef>
#define NVSHM_CPP_HD
#endif

namespace nvshmem {

/// A view of `size()` elements of T at the symmetric address `data()`. Owns nothing: valid while the
/// SymmetricBuffer it came from is alive (and, in a kernel, until that kernel ends). Copying is free
/// and thread safe. The device members follow the scope contract of nvshmem/device.hpp; they are
/// one-sided (the calling PE's threads alone); `pe` is in [0, n_pes); offsets, counts and indices are
/// elements of T and are not checked on the device. Nothing throws: failures follow the C device API.
template <class T>
class DeviceView {
  static_assert(__is_trivially_copyable(T),
                "nvshmem::DeviceView<T>: T must be trivially copyable (views are passed to kernels by value and "
                "elements are moved as bytes)");

 public:
  /// An empty view (null, 0 elements).
  DeviceView() = default;
  /// A view of `size` elements at the symmetric address `data` (not checked; usually made by
  /// SymmetricBuffer::view()).
  NVSHM_CPP_HD DeviceView(T *data, size_t size) : data_(data), size_(size) {}

  /// The symmetric address of element 0 (this PE's copy).
  NVSHM_CPP_HD T *data() const { return data_; }
  /// Number of elements.
  NVSHM_CPP_HD size_t size() const { return size_; }
  /// Number of bytes.
  NVSHM_CPP_HD size_t bytes() const { return size_ * sizeof(T); }
  /// True when size() == 0.
  NVSHM_CPP_HD bool empty() const { return size_ == 0; }
  /// This PE's element `i` (dereferences local symmetric memory: device code with the heap in GPU
  /// memory, host code with the heap in host memory).
  NVSHM_CPP_HD T &operator[](size_t i) const { return data_[i]; }

#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY
  /// `pe`'s copy of element 0 as a plain pointer (nvshmem_ptr), or null when not reachable by loads.
  /// Local; any thread.
  __device__ T *peer(int pe) const {
    return static_cast<T *>(::nvshmem_ptr(data_, pe));
  }
  /// Store `value` into element `i` of `pe`'s copy (one thread).
  __device__ void p(int pe, size_t i, T value) const {
    if constexpr (detail::dev_rma<T>::found)
      device::p(data_ + i, value, pe);
    else
      device::putmem(data_ + i, &value, sizeof(T), pe);
  }
  /// Load element `i` of `pe`'s copy (one thread).
  __device__ T g(int pe, size_t i) const {
    if constexpr (detail::dev_rma<T>::found) {
      return device::g(data_ + i, pe);
    } else {
      T v;
      device::getmem(&v, data_ + i, sizeof(T), pe);
      return v;
    }
  }
  /// Blocking put of `count` elements from local `source` into `pe`'s copy at element `offset`, by scope S.
  template <class S = thread>
  __device__ void put(int pe, const T *source, size_t count, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::put<S>(data_ + offset, source, count, pe);
    else
      device::putmem<S>(data_ + offset, source, count * sizeof(T), pe);
  }
  /// Blocking get of `count` elements of `pe`'s copy from element `offset` into local `dest`, by scope S.
  template <class S = thread>
  __device__ void get(int pe, T *dest, size_t count, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::get<S>(dest, data_ + offset, count, pe);
    else
      device::getmem<S>(dest, data_ + offset, count * sizeof(T), pe);
  }
  /// As put; complete at the next device::quiet().
  template <class S = thread>
  __device__ void put_nbi(int pe, const T *source, size_t count, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::put_nbi<S>(data_ + offset, source, count, pe);
    else
      device::putmem_nbi<S>(data_ + offset, source, count * sizeof(T), pe);
  }
  /// As get; complete at the next device::quiet().
  template <class S = thread>
  __device__ void get_nbi(int pe, T *dest, size_t count, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::get_nbi<S>(dest, data_ + offset, count, pe);
    else
      device::getmem_nbi<S>(dest, data_ + offset, count * sizeof(T), pe);
  }
  /// Put-with-signal by scope S: `count` elements from local `source` into `pe`'s copy at element
  /// `offset`, then NVSHMEM_SIGNAL_SET/ADD (`sig_op`) of `value` on element `signal_index` of `pe`'s
  /// copy of `signal`, with release semantics (a PE that sees the signal sees the data)
  /// (device::put_signal<S>; device::putmem_signal<S> for non-RMA T). NVSHMEM: "Signaling Operations".
  template <class S = thread>
  __device__ void put_signal(int pe, const T *source, size_t count, DeviceView<uint64_t> signal, size_t signal_index,
                             uint64_t value, int sig_op, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::put_signal<S>(data_ + offset, source, count, signal.data() + signal_index, value, sig_op, pe);
    else
      device::putmem_signal<S>(data_ + offset, source, count * sizeof(T), signal.data() + signal_index, value, sig_op,
                               pe);
  }
  /// As put_signal; complete at the next device::quiet().
  template <class S = thread>
  __device__ void put_signal_nbi(int pe, const T *source, size_t count, DeviceView<uint64_t> signal,
                                 size_t signal_index, uint64_t value, int sig_op, size_t offset = 0) const {
    if constexpr (detail::dev_rma<T>::found)
      device::put_signal_nbi<S>(data_ + offset, source, count, signal.data() + signal_index, value, sig_op, pe);
    else
      device::putmem_signal_nbi<S>(data_ + offset, source, count * sizeof(T), signal.data() + signal_index, value,
                                   sig_op, pe);
  }
  /// Atomics on element `i` of `pe`'s copy (nvshmem_<T>_atomic_*; one thread per call; T in the
  /// operation's AMO table): add, set; fetch_add and compare_swap (stores `value` if the element equals
  /// `cond`) return the old value, fetch reads.
  __device__ void atomic_add(int pe, size_t i, T value) const {
    nvshmem::atomic_add(data_ + i, value, pe);
  }
  __device__ T atomic_fetch_add(int pe, size_t i, T value) const {
    return nvshmem::atomic_fetch_add(data_ + i, value, pe);
  }
  __device__ T atomic_compare_swap(int pe, size_t i, T cond, T value) const {
    return nvshmem::atomic_compare_swap(data_ + i, cond, value, pe);
  }
  __device__ T atomic_fetch(int pe, size_t i) const {
    return nvshmem::atomic_fetch(static_cast<const T *>(data_ + i), pe);
  }
  __device__ void atomic_set(int pe, size_t i, T value) const {
    nvshmem::atomic_set(data_ + i, value, pe);
  }
  /// Bitwise atomics on element `i` of `pe`'s copy (NVSHM_FOR_EACH_AMO_LOGIC_TYPE; one thread); the
  /// fetch forms return the old value.
#define NVSHM_CPP_VIEW_LOGIC(OP)                                    \
  __device__ void atomic_##OP(int pe, size_t i, T value) const {    \
    nvshmem::atomic_##OP(data_ + i, value, pe);                     \
  }                                                                 \
  __device__ T atomic_fetch_##OP(int pe, size_t i, T value) const { \
    return nvshmem::atomic_fetch_##OP(data_ + i, value, pe);        \
  }
  NVSHM_CPP_VIEW_LOGIC(and)
  NVSHM_CPP_VIEW_LOGIC(or)
  NVSHM_CPP_VIEW_LOGIC(xor)
#undef NVSHM_CPP_VIEW_LOGIC
  /// Signal words (T = uint64_t): NVSHMEM_SIGNAL_SET/ADD of `value` on element `i` of `pe`'s copy
  /// (nvshmemx_signal_op, release; one thread).
  __device__ void signal_op(int pe, size_t i, uint64_t value, int sig_op) const {
    static_assert(detail::is_same<T, uint64_t>::value, "nvshmem::DeviceView::signal_op: signal words are uint64_t");
    device::signal_op(data_ + i, value, sig_op, pe);
  }
  /// This PE's signal word `i` (nvshmem_signal_fetch, an atomic load; one thread).
  __device__ uint64_t signal_fetch(size_t i) const {
    static_assert(detail::is_same<T, uint64_t>::value, "nvshmem::DeviceView::signal_fetch: signal words are uint64_t");
    return device::signal_fetch(data_ + i);
  }
  /// Wait until this PE's signal word `i` compares `cmp` to `value` (nvshmem_signal_wait_until, acquire);
  /// returns the value seen. One thread.
  __device__ uint64_t signal_wait_until(size_t i, int cmp, uint64_t value) const {
    static_assert(detail::is_same<T, uint64_t>::value,
                  "nvshmem::DeviceView::signal_wait_until: signal words are uint64_t");
    return device::signal_wait_until(data_ + i, cmp, value);
  }
#endif

 private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace nvshmem

#undef NVSHM_CPP_HD
