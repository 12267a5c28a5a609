// Generic host templates over the element type: nvshmem::put<T>(...) and friends dispatch at compile
// time to the typed C function (nvshmem_<name>_put, ...). Generated from the C API's own type table
// (NVSHM_FOR_EACH_RMA_TYPE); a type outside the table is a compile error that names the untyped
// fallback (putmem/getmem). Host code only (device code: nvshmem/device.hpp).
//
// Contract of every function: that of the C function it calls (units: elements of T; `pe` in
// [0, n_pes); `dest`/`source` symmetric where the C API says so); the runtime must be initialised;
// thread safe as the C API is (NVSHMEM_THREAD_MULTIPLE). Errors: as the C call (message, then abort).
#pragma once

#include <nvshmem_host.h>

#include <cstddef>

#include "nvshmem/detail/typed.hpp"

namespace nvshmem {
namespace detail {

// One struct per type of the RMA table. To cover a new C family for these types, add its
// member here (one line) and its generic template below.
#define NVSHM_CPP_HOST_RMA_ENTRY(NAME, T)                                                                \
  struct host_rma_##NAME {                                                                               \
    using type = T;                                                                                      \
    static void p(T *d, T v, int pe) { ::nvshmem_##NAME##_p(d, v, pe); }                                 \
    static T g(const T *s, int pe) { return ::nvshmem_##NAME##_g(s, pe); }                               \
    static void put(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_put(d, s, n, pe); }         \
    static void get(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_get(d, s, n, pe); }         \
    static void put_nbi(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_put_nbi(d, s, n, pe); } \
    static void get_nbi(T *d, const T *s, size_t n, int pe) { ::nvshmem_##NAME##_get_nbi(d, s, n, pe); } \
    static void put_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                     \
      ::nvshmemx_##NAME##_put_on_stream(d, s, n, pe, st);                                                \
    }                                                                                                    \
    static void get_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                     \
      ::nvshmemx_##NAME##_get_on_stream(d, s, n, pe, st);                                                \
    }                                                                                                    \
    static void put_nbi_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                 \
      ::nvshmemx_##NAME##_put_nbi_on_stream(d, s, n, pe, st);                                            \
    }                                                                                                    \
    static void get_nbi_on_stream(T *d, const T *s, size_t n, int pe, cudaStream_t st) {                 \
      ::nvshmemx_##NAME##_get_nbi_on_stream(d, s, n, pe, st);                                            \
    }                                                                                                    \
  };
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_HOST_RMA_ENTRY)
#undef NVSHM_CPP_HOST_RMA_ENTRY

#define NVSHM_CPP_HOST_RMA_LIST(NAME, T) , host_rma_##NAME
using host_rma_entries = entry_list<list_head NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_HOST_RMA_LIST)>;
#undef NVSHM_CPP_HOST_RMA_LIST

template <class T>
using host_rma = lookup<T, host_rma_entries>;

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
/// nvshmem_<T>_get: copy `nelems` elements from `pe`'s copy of symmetric `source` to local `dest`.
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
/// nvshmemx_<T>_get_on_stream.
template <class T>
void get_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get_on_stream(dest, source, nelems, pe, stream);
}
/// nvshmemx_<T>_put_nbi_on_stream.
template <class T>
void put_nbi_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::put_nbi_on_stream(dest, source, nelems, pe, stream);
}
/// nvshmemx_<T>_get_nbi_on_stream.
template <class T>
void get_nbi_on_stream(T *dest, const T *source, std::size_t nelems, int pe, cudaStream_t stream) {
  detail::require_rma_type<T>();
  detail::host_rma<T>::type::get_nbi_on_stream(dest, source, nelems, pe, stream);
}

}  // namespace nvshmem
