// SPDX-License-Identifier: BSD-3-Clause
// Generic device templates over the scope and the element type: nvshmem::device::put<nvshmem::block>(...)
// dispatches at compile time to nvshmem_<T>_put, nvshmemx_<T>_put_warp or nvshmemx_<T>_put_block.
// Generated from the C API's type tables. Compiled by nvcc and by NVRTC (no standard headers; see
// nvshmem/rtc.hpp for the NVRTC setup). Device code only; nothing here throws.
//
// Scope contract (NVSHMEM's): nvshmem::thread: one thread calls; nvshmem::warp: every thread of the
// warp calls with the same arguments; nvshmem::block: every thread of the block calls with the same
// arguments. Units: elements of T (bytes for the *mem forms). Completion: blocking forms return with
// the source reusable (put) or the destination filled (get); _nbi forms complete at quiet().
// Who calls: RMA, atomics, signals, waits, quiet and fence are one-sided (the calling PE alone);
// barriers and collectives are collective (their section says over whom). Lifetime: kernels run
// between the runtime's init and finalize, and a module loaded with the driver API (or NVRTC) must be
// registered first (Runtime::register_module). Errors: collectives return the C status; the rest
// return nothing: misuse the library detects traps after a message, unchecked RMA arguments fault.
#pragma once

#include <nvshmem.h>

#include "nvshmem/atomic.hpp"
#include "nvshmem/detail/typed.hpp"

#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY

namespace nvshmem {
namespace detail {

#define NVSHM_CPP_PUT_SIGNAL_ARGS(T) \
  T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe
// iput/iget of one scope: PFX is nvshmem_ (thread) or nvshmemx_, SFX empty or _warp/_block.
#define NVSHM_CPP_DEV_STRIDED(NAME, T, S, PFX, SFX)                                                \
  __device__ static void iput(S, T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) { \
    ::PFX##NAME##_iput##SFX(d, s, ds, ss, n, pe);                                                  \
  }                                                                                                \
  __device__ static void iget(S, T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) { \
    ::PFX##NAME##_iget##SFX(d, s, ds, ss, n, pe);                                                  \
  }
#define NVSHM_CPP_DEV_RMA_ENTRY(NAME, T)                                                                            \
  struct dev_rma_##NAME {                                                                                           \
    using type = T;                                                                                                 \
    __device__ static void p(T *d, T v, int pe) { ::nvshmem_##NAME##_p(d, v, pe); }                                 \
    __device__ static T g(const T *s, int pe) { return ::nvshmem_##NAME##_g(s, pe); }                               \
    __device__ static void put(thread, T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_put(d, s, n, pe); } \
    __device__ static void put(warp, T *d, const T *s, size_t n, int pe) {                                          \
      ::nvshmemx_##NAME##_put_warp(d, s, n, pe);                                                                    \
    }                                                                                                               \
    __device__ static void put(block, T *d, const T *s, size_t n, int pe) {                                         \
      ::nvshmemx_##NAME##_put_block(d, s, n, pe);                                                                   \
    }                                                                                                               \
    __device__ static void get(thread, T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_get(d, s, n, pe); } \
    __device__ static void get(warp, T *d, const T *s, size_t n, int pe) {                                          \
      ::nvshmemx_##NAME##_get_warp(d, s, n, pe);                                                                    \
    }                                                                                                               \
    __device__ static void get(block, T *d, const T *s, size_t n, int pe) {                                         \
      ::nvshmemx_##NAME##_get_block(d, s, n, pe);                                                                   \
    }                                                                                                               \
    __device__ static void put_nbi(thread, T *d, const T *s, size_t n, int pe) {                                    \
      ::nvshmem_##NAME##_put_nbi(d, s, n, pe);                                                                      \
    }                                                                                                               \
    __device__ static void put_nbi(warp, T *d, const T *s, size_t n, int pe) {                                      \
      ::nvshmemx_##NAME##_put_nbi_warp(d, s, n, pe);                                                                \
    }                                                                                                               \
    __device__ static void put_nbi(block, T *d, const T *s, size_t n, int pe) {                                     \
      ::nvshmemx_##NAME##_put_nbi_block(d, s, n, pe);                                                               \
    }                                                                                                               \
    __device__ static void get_nbi(thread, T *d, const T *s, size_t n, int pe) {                                    \
      ::nvshmem_##NAME##_get_nbi(d, s, n, pe);                                                                      \
    }                                                                                                               \
    __device__ static void get_nbi(warp, T *d, const T *s, size_t n, int pe) {                                      \
      ::nvshmemx_##NAME##_get_nbi_warp(d, s, n, pe);                                                                \
    }                                                                                                               \
    __device__ static void get_nbi(block, T *d, const T *s, size_t n, int pe) {                                     \
      ::nvshmemx_##NAME##_get_nbi_block(d, s, n, pe);                                                               \
    }                                                                                                               \
    __device__ static void put_signal(thread, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                       \
      ::nvshmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                            \
    }                                                                                                               \
    __device__ static void put_signal(warp, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                         \
      ::nvshmemx_##NAME##_put_signal_warp(dest, source, nelems, sig_addr, signal, sig_op, pe);                      \
    }                                                                                                               \
    __device__ static void put_signal(block, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                        \
      ::nvshmemx_##NAME##_put_signal_block(dest, source, nelems, sig_addr, signal, sig_op, pe);                     \
    }                                                                                                               \
    __device__ static void put_signal_nbi(thread, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                   \
      ::nvshmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                        \
    }                                                                                                               \
    __device__ static void put_signal_nbi(warp, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                     \
      ::nvshmemx_##NAME##_put_signal_nbi_warp(dest, source, nelems, sig_addr, signal, sig_op, pe);                  \
    }                                                                                                               \
    __device__ static void put_signal_nbi(block, NVSHM_CPP_PUT_SIGNAL_ARGS(T)) {                                    \
      ::nvshmemx_##NAME##_put_signal_nbi_block(dest, source, nelems, sig_addr, signal, sig_op, pe);                 \
    }                                                                                                               \
    NVSHM_CPP_DEV_STRIDED(NAME, T, thread, nvshmem_, )                                                              \
    NVSHM_CPP_DEV_STRIDED(NAME, T, warp, nvshmemx_, _warp)                                                          \
    NVSHM_CPP_DEV_STRIDED(NAME, T, block, nvshmemx_, _block)                                                        \
  };
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_DEV_RMA_ENTRY)
#undef NVSHM_CPP_DEV_RMA_ENTRY
#undef NVSHM_CPP_DEV_STRIDED
#undef NVSHM_CPP_PUT_SIGNAL_ARGS
#define NVSHM_CPP_DEV_RMA_LIST(NAME, T) , dev_rma_##NAME
using dev_rma_entries = entry_list<list_head NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_DEV_RMA_LIST)>;
#undef NVSHM_CPP_DEV_RMA_LIST

// Point-to-point synchronisation: the C API's wait table.
#define NVSHM_CPP_DEV_WAIT_ENTRY(NAME, T)                                                                          \
  struct dev_wait_##NAME {                                                                                         \
    using type = T;                                                                                                \
    __device__ static void wait_until(T *ivar, int cmp, T v) { ::nvshmem_##NAME##_wait_until(ivar, cmp, v); }      \
    __device__ static int test(T *ivar, int cmp, T v) { return ::nvshmem_##NAME##_test(ivar, cmp, v); }            \
    __device__ static void wait_until_all(T *ivars, size_t n, const int *status, int cmp, T v) {                   \
      ::nvshmem_##NAME##_wait_until_all(ivars, n, status, cmp, v);                                                 \
    }                                                                                                              \
    __device__ static size_t wait_until_any(T *ivars, size_t n, const int *status, int cmp, T v) {                 \
      return ::nvshmem_##NAME##_wait_until_any(ivars, n, status, cmp, v);                                          \
    }                                                                                                              \
    __device__ static size_t wait_until_some(T *ivars, size_t n, size_t *idx, const int *status, int cmp, T v) {   \
      return ::nvshmem_##NAME##_wait_until_some(ivars, n, idx, status, cmp, v);                                    \
    }                                                                                                              \
    __device__ static void wait_until_all_vector(T *ivars, size_t n, const int *status, int cmp, T *v) {           \
      ::nvshmem_##NAME##_wait_until_all_vector(ivars, n, status, cmp, v);                                          \
    }                                                                                                              \
    __device__ static size_t wait_until_any_vector(T *ivars, size_t n, const int *status, int cmp, T *v) {         \
      return ::nvshmem_##NAME##_wait_until_any_vector(ivars, n, status, cmp, v);                                   \
    }                                                                                                              \
    __device__ static size_t wait_until_some_vector(T *ivars, size_t n, size_t *idx, const int *status, int cmp,   \
                                                    T *v) {                                                        \
      return ::nvshmem_##NAME##_wait_until_some_vector(ivars, n, idx, status, cmp, v);                             \
    }                                                                                                              \
    __device__ static int test_all(T *ivars, size_t n, const int *status, int cmp, T v) {                          \
      return ::nvshmem_##NAME##_test_all(ivars, n, status, cmp, v);                                                \
    }                                                                                                              \
    __device__ static size_t test_any(T *ivars, size_t n, const int *status, int cmp, T v) {                       \
      return ::nvshmem_##NAME##_test_any(ivars, n, status, cmp, v);                                                \
    }                                                                                                              \
    __device__ static size_t test_some(T *ivars, size_t n, size_t *idx, const int *status, int cmp, T v) {         \
      return ::nvshmem_##NAME##_test_some(ivars, n, idx, status, cmp, v);                                          \
    }                                                                                                              \
    __device__ static int test_all_vector(T *ivars, size_t n, const int *status, int cmp, T *v) {                  \
      return ::nvshmem_##NAME##_test_all_vector(ivars, n, status, cmp, v);                                         \
    }                                                                                                              \
    __device__ static size_t test_any_vector(T *ivars, size_t n, const int *status, int cmp, T *v) {               \
      return ::nvshmem_##NAME##_test_any_vector(ivars, n, status, cmp, v);                                         \
    }                                                                                                              \
    __device__ static size_t test_some_vector(T *ivars, size_t n, size_t *idx, const int *status, int cmp, T *v) { \
      return ::nvshmem_##NAME##_test_some_vector(ivars, n, idx, status, cmp, v);                                   \
    }                                                                                                              \
  };
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_CPP_DEV_WAIT_ENTRY)
#undef NVSHM_CPP_DEV_WAIT_ENTRY
#define NVSHM_CPP_DEV_WAIT_LIST(NAME, T) , dev_wait_##NAME
using dev_wait_entries = entry_list<list_head NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_CPP_DEV_WAIT_LIST)>;
#undef NVSHM_CPP_DEV_WAIT_LIST

template <class T>
using dev_rma = lookup<T, dev_rma_entries>;
template <class T>
using dev_wait = lookup<T, dev_wait_entries>;

// Collectives: the C API's collective and reduction tables, one overload per scope (PFX is nvshmem_
// for thread scope, nvshmemx_ otherwise; SFX empty or _warp/_block).
#define NVSHM_CPP_DEV_COLL_IN(NAME, T, S, PFX, SFX)                                             \
  __device__ static int broadcast(S, nvshmem_team_t tm, T *d, const T *s, size_t n, int root) { \
    return ::PFX##NAME##_broadcast##SFX(tm, d, s, n, root);                                     \
  }                                                                                             \
  __device__ static int fcollect(S, nvshmem_team_t tm, T *d, const T *s, size_t n) {            \
    return ::PFX##NAME##_fcollect##SFX(tm, d, s, n);                                            \
  }                                                                                             \
  __device__ static int alltoall(S, nvshmem_team_t tm, T *d, const T *s, size_t n) {            \
    return ::PFX##NAME##_alltoall##SFX(tm, d, s, n);                                            \
  }
#define NVSHM_CPP_DEV_COLL_ENTRY(NAME, T)                    \
  struct dev_coll_##NAME {                                   \
    using type = T;                                          \
    NVSHM_CPP_DEV_COLL_IN(NAME, T, thread, nvshmem_, )       \
    NVSHM_CPP_DEV_COLL_IN(NAME, T, warp, nvshmemx_, _warp)   \
    NVSHM_CPP_DEV_COLL_IN(NAME, T, block, nvshmemx_, _block) \
  };
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_DEV_COLL_ENTRY)
#undef NVSHM_CPP_DEV_COLL_ENTRY
#undef NVSHM_CPP_DEV_COLL_IN
#define NVSHM_CPP_DEV_COLL_LIST(NAME, T) , dev_coll_##NAME
using dev_coll_entries = entry_list<list_head NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_DEV_COLL_LIST)>;
#undef NVSHM_CPP_DEV_COLL_LIST
#define NVSHM_CPP_DEV_REDUCE_IN(OP, NAME, T, S, PFX, SFX)                                 \
  __device__ static int reduce(S, nvshmem_team_t tm, T *d, const T *s, size_t n) {        \
    return ::PFX##NAME##_##OP##_reduce##SFX(tm, d, s, n);                                 \
  }                                                                                       \
  __device__ static int reducescatter(S, nvshmem_team_t tm, T *d, const T *s, size_t n) { \
    return ::PFX##NAME##_##OP##_reducescatter##SFX(tm, d, s, n);                          \
  }
#define NVSHM_CPP_DEV_REDUCE_ENTRY(OP, NAME, T)                    \
  struct dev_reduce_##OP##_##NAME {                                \
    using type = reduce_key<T, Op::NVSHM_CPP_OP(OP)>;              \
    NVSHM_CPP_DEV_REDUCE_IN(OP, NAME, T, thread, nvshmem_, )       \
    NVSHM_CPP_DEV_REDUCE_IN(OP, NAME, T, warp, nvshmemx_, _warp)   \
    NVSHM_CPP_DEV_REDUCE_IN(OP, NAME, T, block, nvshmemx_, _block) \
  };
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_DEV_REDUCE_ENTRY)
#undef NVSHM_CPP_DEV_REDUCE_ENTRY
#undef NVSHM_CPP_DEV_REDUCE_IN
#define NVSHM_CPP_DEV_REDUCE_LIST(OP, NAME, T) , dev_reduce_##OP##_##NAME
using dev_reduce_entries = entry_list<list_head NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_DEV_REDUCE_LIST)>;
#undef NVSHM_CPP_DEV_REDUCE_LIST
template <class T>
using dev_coll = lookup<T, dev_coll_entries>;
template <class T, Op O>
using dev_reduce = lookup<reduce_key<T, O>, dev_reduce_entries>;

template <class S>
struct is_scope {
  static constexpr bool value = is_same<S, thread>::value || is_same<S, warp>::value || is_same<S, block>::value;
};

}  // namespace detail

namespace device {

#define NVSHM_CPP_REQUIRE_RMA(T, S)                                                                          \
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block"); \
  static_assert(detail::dev_rma<T>::found,                                                                   \
                "nvshmem::device: T is not an NVSHMEM RMA type (NVSHM_FOR_EACH_RMA_TYPE); use putmem/getmem")

/// Blocking put of `nelems` elements to `pe`'s copy of the symmetric `dest`, by scope S.
template <class S = thread, class T>
__device__ inline void put(T *dest, const T *source, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::put(S{}, dest, source, nelems, pe);
}
/// Blocking get of `nelems` elements from `pe`'s copy of the symmetric `source`, by scope S.
template <class S = thread, class T>
__device__ inline void get(T *dest, const T *source, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::get(S{}, dest, source, nelems, pe);
}
/// Non-blocking put: complete at the next quiet() of each calling thread.
template <class S = thread, class T>
__device__ inline void put_nbi(T *dest, const T *source, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::put_nbi(S{}, dest, source, nelems, pe);
}
/// Non-blocking get: complete at the next quiet().
template <class S = thread, class T>
__device__ inline void get_nbi(T *dest, const T *source, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::get_nbi(S{}, dest, source, nelems, pe);
}
/// Store one element into `pe`'s copy of `*dest` (one thread).
template <class T>
__device__ inline void p(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, thread);
  detail::dev_rma<T>::type::p(dest, value, pe);
}
/// Load one element from `pe`'s copy of `*source` (one thread).
template <class T>
__device__ inline T g(const T *source, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, thread);
  return detail::dev_rma<T>::type::g(source, pe);
}
/// Put-with-signal by scope S: the data, then NVSHMEM_SIGNAL_SET/ADD of `signal` on `pe`'s `*sig_addr`
/// with release semantics (a PE that sees the signal sees the data).
template <class S = thread, class T>
__device__ inline void put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                  int sig_op, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::put_signal(S{}, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
/// As put_signal; complete at the next quiet().
template <class S = thread, class T>
__device__ inline void put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::put_signal_nbi(S{}, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
/// Strided put/get by scope S (nvshmem_<T>_iput, nvshmemx_<T>_iput_warp/_block, ...): element i moves
/// source[i * sst] to dest[i * dst]; strides in elements, at least 1; blocking.
template <class S = thread, class T>
__device__ inline void iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::iput(S{}, dest, source, dst, sst, nelems, pe);
}
template <class S = thread, class T>
__device__ inline void iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {
  NVSHM_CPP_REQUIRE_RMA(T, S);
  detail::dev_rma<T>::type::iget(S{}, dest, source, dst, sst, nelems, pe);
}
#undef NVSHM_CPP_REQUIRE_RMA

/// Byte forms (nvshmem_putmem, nvshmemx_putmem_warp, ...): putmem, getmem and their _nbi forms (complete
/// at quiet()), `nbytes` bytes, by scope S, for element types outside the RMA table.
template <class S = thread>
__device__ inline void putmem(void *dest, const void *source, size_t nbytes, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_putmem(dest, source, nbytes, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_putmem_warp(dest, source, nbytes, pe);
  else
    ::nvshmemx_putmem_block(dest, source, nbytes, pe);
}
template <class S = thread>
__device__ inline void getmem(void *dest, const void *source, size_t nbytes, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_getmem(dest, source, nbytes, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_getmem_warp(dest, source, nbytes, pe);
  else
    ::nvshmemx_getmem_block(dest, source, nbytes, pe);
}
template <class S = thread>
__device__ inline void putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_putmem_nbi(dest, source, nbytes, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_putmem_nbi_warp(dest, source, nbytes, pe);
  else
    ::nvshmemx_putmem_nbi_block(dest, source, nbytes, pe);
}
template <class S = thread>
__device__ inline void getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_getmem_nbi(dest, source, nbytes, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_getmem_nbi_warp(dest, source, nbytes, pe);
  else
    ::nvshmemx_getmem_nbi_block(dest, source, nbytes, pe);
}
/// Byte put-with-signal by scope S (nvshmem_putmem_signal[_nbi], nvshmemx_putmem_signal[_nbi]_warp/_block):
/// `nbytes` bytes, then NVSHMEM_SIGNAL_SET/ADD of `signal` on `pe`'s `*sig_addr` (release).
template <class S = thread>
__device__ inline void putmem_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                     int sig_op, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_putmem_signal(dest, source, nbytes, sig_addr, signal, sig_op, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_putmem_signal_warp(dest, source, nbytes, sig_addr, signal, sig_op, pe);
  else
    ::nvshmemx_putmem_signal_block(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
/// As putmem_signal; complete at the next quiet().
template <class S = thread>
__device__ inline void putmem_signal_nbi(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_putmem_signal_nbi(dest, source, nbytes, sig_addr, signal, sig_op, pe);
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_putmem_signal_nbi_warp(dest, source, nbytes, sig_addr, signal, sig_op, pe);
  else
    ::nvshmemx_putmem_signal_nbi_block(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}

/// Complete the calling thread's RMA (nvshmem_quiet).
__device__ inline void quiet() {
  ::nvshmem_quiet();
}
/// Order the calling thread's puts per target PE (nvshmem_fence).
__device__ inline void fence() {
  ::nvshmem_fence();
}
/// Barrier over all PEs by scope S (nvshmem_barrier_all / nvshmemx_barrier_all_warp / _block);
/// quiet first. Every PE's kernel must reach it.
template <class S = thread>
__device__ inline void barrier_all() {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_barrier_all();
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_barrier_all_warp();
  else
    ::nvshmemx_barrier_all_block();
}
/// As barrier_all without the quiet (nvshmem_sync_all and its group forms).
template <class S = thread>
__device__ inline void sync_all() {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    ::nvshmem_sync_all();
  else if constexpr (detail::is_same<S, warp>::value)
    ::nvshmemx_sync_all_warp();
  else
    ::nvshmemx_sync_all_block();
}

/// Spin until the local symmetric `*ivar` compares `cmp` (NVSHMEM_CMP_EQ, ...) to `value`, then acquire
/// (nvshmem_<T>_wait_until). One thread.
template <class T>
__device__ inline void wait_until(T *ivar, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::wait_until: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::dev_wait<T>::type::wait_until(ivar, cmp, value);
}
/// The set forms of wait/test (nvshmem_<T>_wait_until_all, ..._any, ..._some, their _vector forms with one
/// comparison value per element, and the test_* forms): `nelems` local symmetric words, `status` (NULL: all
/// active; non-zero entries are skipped), `indices` receives the satisfied indices (_some). One thread.
template <class T>
__device__ inline void wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::wait_until_all: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::dev_wait<T>::type::wait_until_all(ivars, nelems, status, cmp, value);
}
template <class T>
__device__ inline size_t wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::wait_until_any: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::wait_until_any(ivars, nelems, status, cmp, value);
}
template <class T>
__device__ inline size_t wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                         T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::wait_until_some: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::wait_until_some(ivars, nelems, indices, status, cmp, value);
}
template <class T>
__device__ inline void wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *values) {
  static_assert(detail::dev_wait<T>::found,
                "nvshmem::device::wait_until_all_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::dev_wait<T>::type::wait_until_all_vector(ivars, nelems, status, cmp, values);
}
template <class T>
__device__ inline size_t wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *values) {
  static_assert(detail::dev_wait<T>::found,
                "nvshmem::device::wait_until_any_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::wait_until_any_vector(ivars, nelems, status, cmp, values);
}
template <class T>
__device__ inline size_t wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                                T *values) {
  static_assert(detail::dev_wait<T>::found,
                "nvshmem::device::wait_until_some_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::wait_until_some_vector(ivars, nelems, indices, status, cmp, values);
}
template <class T>
__device__ inline int test_all(T *ivars, size_t nelems, const int *status, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_all: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_all(ivars, nelems, status, cmp, value);
}
template <class T>
__device__ inline size_t test_any(T *ivars, size_t nelems, const int *status, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_any: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_any(ivars, nelems, status, cmp, value);
}
template <class T>
__device__ inline size_t test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_some: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_some(ivars, nelems, indices, status, cmp, value);
}
template <class T>
__device__ inline int test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *values) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_all_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_all_vector(ivars, nelems, status, cmp, values);
}
template <class T>
__device__ inline size_t test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *values) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_any_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_any_vector(ivars, nelems, status, cmp, values);
}
template <class T>
__device__ inline size_t test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,
                                          T *values) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test_some_vector: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test_some_vector(ivars, nelems, indices, status, cmp, values);
}
/// nvshmem_signal_wait_until: spin until this PE's `*sig_addr` compares `cmp` to `value`, then acquire;
/// returns the value that satisfied the comparison. One thread.
__device__ inline uint64_t signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t value) {
  return ::nvshmem_signal_wait_until(sig_addr, cmp, value);
}
/// nvshmem_signal_fetch: this PE's signal word (atomic load). One thread.
__device__ inline uint64_t signal_fetch(uint64_t *sig_addr) {
  return ::nvshmem_signal_fetch(sig_addr);
}
/// nvshmemx_signal_op: NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD (`sig_op`) of `signal` on `pe`'s signal
/// word, atomic. One thread.
__device__ inline void signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  ::nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}

/// Test once whether the local `*ivar` compares `cmp` to `value` (nvshmem_<T>_test): 1 or 0.
template <class T>
__device__ inline int test(T *ivar, int cmp, T value) {
  static_assert(detail::dev_wait<T>::found, "nvshmem::device::test: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  return detail::dev_wait<T>::type::test(ivar, cmp, value);
}

// ---- Collectives by scope (NVSHMEM "Collective Communication"): every member PE of `team` calls,
// and within it every thread of the scope S with the same arguments (thread: one thread); same
// order of collectives on the team everywhere. `team` is the C handle (Team::handle() on the host).
// Return 0, or nonzero after the library's message; misuse this library detects (an invalid team
// handle, a heap not in GPU memory) traps after a message. Units as the host forms
// (nvshmem/collectives.hpp).

/// Barrier over `team` by scope S (nvshmem_barrier, nvshmemx_barrier_warp/_block): quiet, then sync.
template <class S = thread>
__device__ inline int barrier(nvshmem_team_t team) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    return ::nvshmem_barrier(team);
  else if constexpr (detail::is_same<S, warp>::value)
    return ::nvshmemx_barrier_warp(team);
  else
    return ::nvshmemx_barrier_block(team);
}
/// As barrier without the quiet (nvshmem_team_sync and its group forms).
template <class S = thread>
__device__ inline int team_sync(nvshmem_team_t team) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    return ::nvshmem_team_sync(team);
  else if constexpr (detail::is_same<S, warp>::value)
    return ::nvshmemx_team_sync_warp(team);
  else
    return ::nvshmemx_team_sync_block(team);
}

#define NVSHM_CPP_REQUIRE_COLL(T, S)                                                                         \
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block"); \
  static_assert(detail::dev_coll<T>::found,                                                                  \
                "nvshmem::device: T is not an NVSHMEM collective type (NVSHM_FOR_EACH_COLL_TYPE); use the "  \
                "byte forms (nvshmem_broadcastmem, ...)")
/// nvshmem_<T>_broadcast[_warp/_block]: `nelems` elements of member `root`'s `source` into every `dest`.
template <class S = thread, class T>
__device__ inline int broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int root) {
  NVSHM_CPP_REQUIRE_COLL(T, S);
  return detail::dev_coll<T>::type::broadcast(S{}, team, dest, source, nelems, root);
}
/// nvshmem_<T>_fcollect[_warp/_block]: every member's `nelems` elements, in team order, into `dest`.
template <class S = thread, class T>
__device__ inline int fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {
  NVSHM_CPP_REQUIRE_COLL(T, S);
  return detail::dev_coll<T>::type::fcollect(S{}, team, dest, source, nelems);
}
/// nvshmem_<T>_alltoall[_warp/_block]: block j of member i's `source` to block i of member j's `dest`.
template <class S = thread, class T>
__device__ inline int alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {
  NVSHM_CPP_REQUIRE_COLL(T, S);
  return detail::dev_coll<T>::type::alltoall(S{}, team, dest, source, nelems);
}
#undef NVSHM_CPP_REQUIRE_COLL

/// Byte forms of the collectives by scope S (nvshmem_broadcastmem, nvshmemx_broadcastmem_warp/_block,
/// fcollectmem, alltoallmem): as broadcast/fcollect/alltoall with `nbytes` counting bytes (per member
/// for fcollect and alltoall), for element types outside the collective table.
template <class S = thread>
__device__ inline int broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nbytes, int root) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    return ::nvshmem_broadcastmem(team, dest, source, nbytes, root);
  else if constexpr (detail::is_same<S, warp>::value)
    return ::nvshmemx_broadcastmem_warp(team, dest, source, nbytes, root);
  else
    return ::nvshmemx_broadcastmem_block(team, dest, source, nbytes, root);
}
template <class S = thread>
__device__ inline int fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nbytes) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    return ::nvshmem_fcollectmem(team, dest, source, nbytes);
  else if constexpr (detail::is_same<S, warp>::value)
    return ::nvshmemx_fcollectmem_warp(team, dest, source, nbytes);
  else
    return ::nvshmemx_fcollectmem_block(team, dest, source, nbytes);
}
template <class S = thread>
__device__ inline int alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nbytes) {
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block");
  if constexpr (detail::is_same<S, thread>::value)
    return ::nvshmem_alltoallmem(team, dest, source, nbytes);
  else if constexpr (detail::is_same<S, warp>::value)
    return ::nvshmemx_alltoallmem_warp(team, dest, source, nbytes);
  else
    return ::nvshmemx_alltoallmem_block(team, dest, source, nbytes);
}

#define NVSHM_CPP_REQUIRE_REDUCE(T, O, S)                                                                    \
  static_assert(detail::is_scope<S>::value, "nvshmem::device: the scope is nvshmem::thread, warp or block"); \
  static_assert(detail::dev_reduce<T, O>::found,                                                             \
                "nvshmem::device::reduce: NVSHMEM has no reduction for this (T, Op) pair "                   \
                "(NVSHM_FOR_EACH_REDUCE_OP_TYPE; bitwise ops take unsigned and fixed-width integers only)")
/// nvshmem_<T>_<op>_reduce[_warp/_block]: dest[k] = O over the members' source[k], k < nreduce (elements),
/// on every member. Usage: device::reduce<nvshmem::Op::sum, nvshmem::block>(team, d, s, n).
template <Op O, class S = thread, class T>
__device__ inline int reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {
  NVSHM_CPP_REQUIRE_REDUCE(T, O, S);
  return detail::dev_reduce<T, O>::type::reduce(S{}, team, dest, source, nreduce);
}
/// nvshmem_<T>_<op>_reducescatter[_warp/_block]: `source` holds n_pes blocks of `nreduce` elements; member
/// i gets block i combined over the members with O in its `dest`.
template <Op O, class S = thread, class T>
__device__ inline int reducescatter(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {
  NVSHM_CPP_REQUIRE_REDUCE(T, O, S);
  return detail::dev_reduce<T, O>::type::reducescatter(S{}, team, dest, source, nreduce);
}
#undef NVSHM_CPP_REQUIRE_REDUCE

// The generic atomics (nvshmem/atomic.hpp) are host+device; they are also reachable here.
using nvshmem::atomic_add;
using nvshmem::atomic_and;
using nvshmem::atomic_compare_swap;
using nvshmem::atomic_fetch;
using nvshmem::atomic_fetch_add;
using nvshmem::atomic_fetch_and;
using nvshmem::atomic_fetch_inc;
using nvshmem::atomic_fetch_or;
using nvshmem::atomic_fetch_xor;
using nvshmem::atomic_inc;
using nvshmem::atomic_or;
using nvshmem::atomic_set;
using nvshmem::atomic_swap;
using nvshmem::atomic_xor;

}  // namespace device
}  // namespace nvshmem

#endif /* __CUDACC__ */
