// SPDX-License-Identifier: BSD-3-Clause
// Generic host templates over the element type: nvshmem::put<T>(...) and friends dispatch at compile
// time to the typed C function (nvshmem_<name>_put, ...). Generated from the C API's own type table
// (NVSHM_FOR_EACH_RMA_TYPE); a type outside the table is a compile error that names the untyped
// fallback (putmem/getmem). Host code only (device code: nvshmem/device.hpp).
//
// Contract of every function: that of the C function it calls (units: elements of T; `pe` in
// [0, n_pes); `dest`/`source` symmetric where the C API says so); the runtime must be initialised;
// one-sided: the calling PE alone makes the call (not collective); thread safe as the C API is
// (NVSHMEM_THREAD_MULTIPLE). _on_stream forms enqueue on `stream` and return at once (heap in GPU
// memory; local buffers GPU-accessible and valid until the stream reaches the call). Errors: as the C
// call (message, then abort); nothing here throws.
#pragma once

#include <nvshmem_host.h>

#include <cstddef>

#include "nvshmem/detail/typed.hpp"

namespace nvshmem {
namespace detail {

// One struct per type of the RMA table. To cover a new C family for these types, add its
// member here (one line) and its generic template below.
#define NVSHM_CPP_HOST_RMA_ENTRY(NAME, T)                                                                            \
  struct host_rma_##NAME {                                                                                           \
    using type = T;                                                                                                  \
    static void p(T *d, T v, int pe) { ::nvshmem_##NAME##_p(d, v, pe); }                                             \
    static T g(const T *s, int pe) { return ::nvshmem_##NAME##_g(s, pe); }                                           \
    static void put(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_put(d, s, n, pe); }                     \
    static void get(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_get(d, s, n, pe); }                     \
    static void put_nbi(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_put_nbi(d, s, n, pe); }             \
    static void get_nbi(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_get_nbi(d, s, n, pe); }             \
    static void put_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                                 \
      ::nvshmemx_##NAME##_put_on_stream(d, s, n, pe, st);                                                            \
    }                                                                                                                \
    static void get_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                                 \
      ::nvshmemx_##NAME##_get_on_stream(d, s, n, pe, st);                                                            \
    }                                                                                                                \
    static void put_nbi_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                             \
      ::nvshmemx_##NAME##_put_nbi_on_stream(d, s, n, pe, st);                                                        \
    }                                                                                                                \
    static void get_nbi_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                             \
      ::nvshmemx_##NAME##_get_nbi_on_stream(d, s, n, pe, st);                                                        \
    }                                                                                                                \
    static void iput(T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                               \
      ::nvshmem_##NAME##_iput(d, s, ds, ss, n, pe);                                                                  \
    }                                                                                                                \
    static void iget(T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe) {                               \
      ::nvshmem_##NAME##_iget(d, s, ds, ss, n, pe);                                                                  \
    }                                                                                                                \
    static void p_on_stream(T *d, T v, int pe, cudaStream_t st) { ::nvshmemx_##NAME##_p_on_stream(d, v, pe, st); }   \
    static T g_on_stream(const T *s, int pe, cudaStream_t st) { return ::nvshmemx_##NAME##_g_on_stream(s, pe, st); } \
    static void iput_on_stream(T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {    \
      ::nvshmemx_##NAME##_iput_on_stream(d, s, ds, ss, n, pe, st);                                                   \
    }                                                                                                                \
    static void iget_on_stream(T *d, const T *s, ptrdiff_t ds, ptrdiff_t ss, size_t n, int pe, cudaStream_t st) {    \
      ::nvshmemx_##NAME##_iget_on_stream(d, s, ds, ss, n, pe, st);                                                   \
    }                                                                                                                \
    static void put_signal_on_stream(T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe,          \
                                     cudaStream_t st) {                                                              \
      ::nvshmemx_##NAME##_put_signal_on_stream(d, s, n, sig, v, op, pe, st);                                         \
    }                                                                                                                \
    static void put_signal_nbi_on_stream(T *d, const T *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe,      \
                                         cudaStream_t st) {                                                          \
      ::nvshmemx_##NAME##_put_signal_nbi_on_stream(d, s, n, sig, v, op, pe, st);                                     \
    }                                                                                                                \
  };
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_HOST_RMA_ENTRY)
#undef NVSHM_CPP_HOST_RMA_ENTRY

#define NVSHM_CPP_HOST_RMA_LIST(NAME, T) , host_rma_##NAME
using host_rma_entries = entry_list<list_head NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_HOST_RMA_LIST)>;
#undef NVSHM_CPP_HOST_RMA_LIST

template <class T>
using host_rma = lookup<T, host_rma_entries>;

#define NVSHM_CPP_HOST_WAIT_ENTRY(NAME, T)                                                                       \
  struct host_wait_##NAME {                                                                                      \
    using type = T;                                                                                              \
    static void wait_until_on_stream(T *ivar, int cmp, T v, cudaStream_t st) {                                   \
      ::nvshmemx_##NAME##_wait_until_on_stream(ivar, cmp, v, st);                                                \
    }                                                                                                            \
    static void wait_until_all_on_stream(T *ivars, size_t n, const int *status, int cmp, T v, cudaStream_t st) { \
      ::nvshmemx_##NAME##_wait_until_all_on_stream(ivars, n, status, cmp, v, st);                                \
    }                                                                                                            \
    static void wait_until_all_vector_on_stream(T *ivars, size_t n, const int *status, int cmp, T *v,            \
                                                cudaStream_t st) {                                               \
      ::nvshmemx_##NAME##_wait_until_all_vector_on_stream(ivars, n, status, cmp, v, st);                         \
    }                                                                                                            \
  };
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_CPP_HOST_WAIT_ENTRY)
#undef NVSHM_CPP_HOST_WAIT_ENTRY
#define NVSHM_CPP_HOST_WAIT_LIST(NAME, T) , host_wait_##NAME
using host_wait_entries = entry_list<list_head NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_CPP_HOST_WAIT_LIST)>;
#undef NVSHM_CPP_HOST_WAIT_LIST
template <class T>
using host_wait = lookup<T, host_wait_entries>;

template <class T>
constexpr void require_rma_type() {
  static_assert(host_rma<T>::found,
                "nvshmem: T is not an NVSHMEM RMA type (NVSHM_FOR_EACH_RMA_TYPE); use nvshmem::putmem/getmem "
                "with a byte count");
}

}  // namespace detail

/// True when T is one of the element types of the typed RMA functions.
template <class T>
inline constexpr bool is_rma_type = detail::host_rma<T>::found;

/// nvshmem_<T>_p: store `value` into `pe`'s copy of the symmetric `*dest`.
template <class T>
void p(T *dest, T value, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::p(dest, value, pe);
}
/// nvshmem_<T>_g: read `pe`'s copy of the symmetric `*source`.
template <class T>
[[nodiscard]] T g(const T *source, int pe) {
  detail::require_rma_type<T>();
  return detail::host_rma<T>::type::g(source, pe);
}
/// nvshmem_<T>_put: copy `nelems` elements from local `source` to `pe`'s copy of symmetric `dest`
/// (blocking: `source` reusable on return).
template <class T>
void put(T *dest, const T *source, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put(dest, source, nelems, pe);
}
/// nvshmem_<T>_get: copy `nelems` elements from `pe`'s copy of symmetric `source` to local `dest`
/// (blocking: `dest` filled on return).
template <class T>
void get(T *dest, const T *source, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get(dest, source, nelems, pe);
}
/// nvshmem_<T>_put_nbi: as put, complete at the next quiet.
template <class T>
void put_nbi(T *dest, const T *source, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_nbi(dest, source, nelems, pe);
}
/// nvshmem_<T>_get_nbi: as get, complete at the next quiet.
template <class T>
void get_nbi(T *dest, const T *source, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get_nbi(dest, source, nelems, pe);
}
/// nvshmemx_<T>_put_on_stream: enqueued on `stream` (needs the heap in GPU memory).
template <class T>
void put_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_on_stream(dest, source, nelems, pe, stream);
}
/// nvshmemx_<T>_get_on_stream: as get, enqueued on `stream`.
template <class T>
void get_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get_on_stream(dest, source, nelems, pe, stream);
}
/// nvshmemx_<T>_put_nbi_on_stream: as put_on_stream, complete at the next quiet on the stream.
template <class T>
void put_nbi_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_nbi_on_stream(dest, source, nelems, pe, stream);
}
/// nvshmemx_<T>_get_nbi_on_stream: as get_on_stream, complete at the next quiet on the stream.
template <class T>
void get_nbi_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get_nbi_on_stream(dest, source, nelems, pe, stream);
}

/// nvshmem_<T>_iput: element i moves source[i * sst] to `pe`'s dest[i * dst] (strides in elements,
/// at least 1); blocking.
template <class T>
void iput(T *dest, const T *source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::iput(dest, source, dst, sst, nelems, pe);
}
/// nvshmem_<T>_iget: element i moves `pe`'s source[i * sst] to dest[i * dst]; blocking.
template <class T>
void iget(T *dest, const T *source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::iget(dest, source, dst, sst, nelems, pe);
}
/// nvshmemx_<T>_p_on_stream: `value` is captured at the call.
template <class T>
void p_on_stream(T *dest, T value, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::p_on_stream(dest, value, pe, stream);
}
/// nvshmemx_<T>_g_on_stream: waits for `stream`, returns the value (not capturable).
template <class T>
[[nodiscard]] T g_on_stream(const T *source, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  return detail::host_rma<T>::type::g_on_stream(source, pe, stream);
}
/// nvshmemx_<T>_iput_on_stream: as iput (strides in elements), enqueued on `stream`.
template <class T>
void iput_on_stream(T *dest, const T *source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe,
                    cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::iput_on_stream(dest, source, dst, sst, nelems, pe, stream);
}
/// nvshmemx_<T>_iget_on_stream: as iget (strides in elements), enqueued on `stream`.
template <class T>
void iget_on_stream(T *dest, const T *source, std::ptrdiff_t dst, std::ptrdiff_t sst, std::size_t nelems, int pe,
                    cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::iget_on_stream(dest, source, dst, sst, nelems, pe, stream);
}
/// nvshmemx_<T>_put_signal_on_stream: the data, then `sig_op` (NVSHMEM_SIGNAL_SET/ADD) with `signal` on
/// `pe`'s symmetric `*sig_addr`, in stream order.
template <class T>
void put_signal_on_stream(T *dest, const T *source, std::size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                          int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_signal_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);
}
/// nvshmemx_<T>_put_signal_nbi_on_stream: as put_signal_on_stream, complete at the next quiet on the
/// stream.
template <class T>
void put_signal_nbi_on_stream(T *dest, const T *source, std::size_t nelems, uint64_t *sig_addr, uint64_t signal,
                              int sig_op, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_signal_nbi_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);
}
/// nvshmemx_<T>_wait_until_on_stream: later work on `stream` waits until this PE's `*ivar` compares
/// `cmp` to `value` (NVSHM_FOR_EACH_WAIT_TYPE).
template <class T>
void wait_until_on_stream(T *ivar, int cmp, T value, cudaStream_t stream) {
  static_assert(detail::host_wait<T>::found, "nvshmem::wait_until_on_stream: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::host_wait<T>::type::wait_until_on_stream(ivar, cmp, value, stream);
}
/// nvshmemx_<T>_wait_until_all_on_stream: later work on `stream` waits until each of this PE's `nelems`
/// words `ivars` (skipping those whose `status` entry is nonzero; status may be null) compares `cmp` to
/// `value`. `status` must be readable by the GPU.
template <class T>
void wait_until_all_on_stream(T *ivars, std::size_t nelems, const int *status, int cmp, T value, cudaStream_t stream) {
  static_assert(detail::host_wait<T>::found, "nvshmem::wait_until_all_on_stream: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::host_wait<T>::type::wait_until_all_on_stream(ivars, nelems, status, cmp, value, stream);
}
/// nvshmemx_<T>_wait_until_all_vector_on_stream: as wait_until_all_on_stream with one comparison value
/// per word (`values`, readable by the GPU).
template <class T>
void wait_until_all_vector_on_stream(T *ivars, std::size_t nelems, const int *status, int cmp, T *values,
                                     cudaStream_t stream) {
  static_assert(detail::host_wait<T>::found,
                "nvshmem::wait_until_all_vector_on_stream: T is not in NVSHM_FOR_EACH_WAIT_TYPE");
  detail::host_wait<T>::type::wait_until_all_vector_on_stream(ivars, nelems, status, cmp, values, stream);
}

}  // namespace nvshmem
