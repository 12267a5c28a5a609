// SPDX-License-Identifier: BSD-3-Clause
// Generic atomic memory operations over the element type, host and device: nvshmem::atomic_fetch_add(dest,
// value, pe) dispatches at compile time to nvshmem_<T>_atomic_fetch_add. Generated from the C API's AMO
// tables (NVSHM_FOR_EACH_AMO_ARITH_TYPE / _FETCH_TYPE / _LOGIC_TYPE): arithmetic ops (inc, fetch_inc,
// add, fetch_add, compare_swap) for the arithmetic types, fetch/set/swap also for float, double and __half,
// bitwise ops (and, or, xor and their fetch forms) for the unsigned/fixed-width types. A type outside
// the operation's table is a compile error. Compiled by any C++17 compiler, nvcc and NVRTC (no
// standard headers).
//
// Contract (NVSHMEM "Atomic Memory Operations"): `dest`/`source` symmetric, `pe` in [0, n_pes);
// one-sided (the calling PE alone, not collective), one thread per call; one element of T on `pe`'s
// copy; atomic with respect to other atomics on the same location (not to puts). Host calls need an
// initialised runtime; errors as the C call (message, abort); nothing throws. Thread safe.
#pragma once

#include <nvshmem.h>

#include "nvshmem/detail/typed.hpp"

#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY
#define NVSHM_CPP_HD __host__ __device__
#else
#define NVSHM_CPP_HD
#endif

namespace nvshmem {
namespace detail {

#define NVSHM_CPP_AMO_ARITH_ENTRY(NAME, T)                                                                       \
  struct amo_arith_##NAME {                                                                                      \
    using type = T;                                                                                              \
    NVSHM_CPP_HD static void inc(T *d, int pe) { ::nvshmem_##NAME##_atomic_inc(d, pe); }                         \
    NVSHM_CPP_HD static T fetch_inc(T *d, int pe) { return ::nvshmem_##NAME##_atomic_fetch_inc(d, pe); }         \
    NVSHM_CPP_HD static void add(T *d, T v, int pe) { ::nvshmem_##NAME##_atomic_add(d, v, pe); }                 \
    NVSHM_CPP_HD static T fetch_add(T *d, T v, int pe) { return ::nvshmem_##NAME##_atomic_fetch_add(d, v, pe); } \
    NVSHM_CPP_HD static T compare_swap(T *d, T c, T v, int pe) {                                                 \
      return ::nvshmem_##NAME##_atomic_compare_swap(d, c, v, pe);                                                \
    }                                                                                                            \
  };
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_CPP_AMO_ARITH_ENTRY)
#undef NVSHM_CPP_AMO_ARITH_ENTRY
#define NVSHM_CPP_AMO_FETCH_ENTRY(NAME, T)                                                             \
  struct amo_fetch_##NAME {                                                                            \
    using type = T;                                                                                    \
    NVSHM_CPP_HD static T fetch(const T *s, int pe) { return ::nvshmem_##NAME##_atomic_fetch(s, pe); } \
    NVSHM_CPP_HD static void set(T *d, T v, int pe) { ::nvshmem_##NAME##_atomic_set(d, v, pe); }       \
    NVSHM_CPP_HD static T swap(T *d, T v, int pe) { return ::nvshmem_##NAME##_atomic_swap(d, v, pe); } \
  };
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_CPP_AMO_FETCH_ENTRY)
#undef NVSHM_CPP_AMO_FETCH_ENTRY
#define NVSHM_CPP_AMO_LOGIC_ENTRY(NAME, T)                                                                       \
  struct amo_logic_##NAME {                                                                                      \
    using type = T;                                                                                              \
    NVSHM_CPP_HD static void and_(T *d, T v, int pe) { ::nvshmem_##NAME##_atomic_and(d, v, pe); }                \
    NVSHM_CPP_HD static T fetch_and(T *d, T v, int pe) { return ::nvshmem_##NAME##_atomic_fetch_and(d, v, pe); } \
    NVSHM_CPP_HD static void or_(T *d, T v, int pe) { ::nvshmem_##NAME##_atomic_or(d, v, pe); }                  \
    NVSHM_CPP_HD static T fetch_or(T *d, T v, int pe) { return ::nvshmem_##NAME##_atomic_fetch_or(d, v, pe); }   \
    NVSHM_CPP_HD static void xor_(T *d, T v, int pe) { ::nvshmem_##NAME##_atomic_xor(d, v, pe); }                \
    NVSHM_CPP_HD static T fetch_xor(T *d, T v, int pe) { return ::nvshmem_##NAME##_atomic_fetch_xor(d, v, pe); } \
  };
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_CPP_AMO_LOGIC_ENTRY)
#undef NVSHM_CPP_AMO_LOGIC_ENTRY

#define NVSHM_CPP_AMO_ARITH_LIST(NAME, T) , amo_arith_##NAME
#define NVSHM_CPP_AMO_FETCH_LIST(NAME, T) , amo_fetch_##NAME
#define NVSHM_CPP_AMO_LOGIC_LIST(NAME, T) , amo_logic_##NAME
using amo_arith_entries = entry_list<list_head NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_CPP_AMO_ARITH_LIST)>;
using amo_fetch_entries = entry_list<list_head NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_CPP_AMO_FETCH_LIST)>;
using amo_logic_entries = entry_list<list_head NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_CPP_AMO_LOGIC_LIST)>;
#undef NVSHM_CPP_AMO_ARITH_LIST
#undef NVSHM_CPP_AMO_FETCH_LIST
#undef NVSHM_CPP_AMO_LOGIC_LIST

template <class T>
using amo_arith = lookup<T, amo_arith_entries>;
template <class T>
using amo_fetch = lookup<T, amo_fetch_entries>;
template <class T>
using amo_logic = lookup<T, amo_logic_entries>;

}  // namespace detail

#define NVSHM_CPP_REQUIRE_AMO(KIND, T)                                                                         \
  static_assert(detail::amo_##KIND<T>::found,                                                                  \
                "nvshmem: T has no nvshmem_<T>_atomic_* function of this operation (NVSHM_FOR_EACH_AMO_" #KIND \
                "_TYPE)")

/// Add 1 to `pe`'s `*dest`.
template <class T>
NVSHM_CPP_HD inline void atomic_inc(T *dest, int pe) {
  NVSHM_CPP_REQUIRE_AMO(arith, T);
  detail::amo_arith<T>::type::inc(dest, pe);
}
/// Add 1 to `pe`'s `*dest`; return the old value.
template <class T>
NVSHM_CPP_HD inline T atomic_fetch_inc(T *dest, int pe) {
  NVSHM_CPP_REQUIRE_AMO(arith, T);
  return detail::amo_arith<T>::type::fetch_inc(dest, pe);
}
/// Add `value` to `pe`'s `*dest`.
template <class T>
NVSHM_CPP_HD inline void atomic_add(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(arith, T);
  detail::amo_arith<T>::type::add(dest, value, pe);
}
/// Add `value`; return the old value.
template <class T>
NVSHM_CPP_HD inline T atomic_fetch_add(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(arith, T);
  return detail::amo_arith<T>::type::fetch_add(dest, value, pe);
}
/// Store `value` if `*dest == cond`; return the old value.
template <class T>
NVSHM_CPP_HD inline T atomic_compare_swap(T *dest, T cond, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(arith, T);
  return detail::amo_arith<T>::type::compare_swap(dest, cond, value, pe);
}
/// Atomic read of `pe`'s `*source`.
template <class T>
NVSHM_CPP_HD inline T atomic_fetch(const T *source, int pe) {
  NVSHM_CPP_REQUIRE_AMO(fetch, T);
  return detail::amo_fetch<T>::type::fetch(source, pe);
}
/// Atomic write of `value` into `pe`'s `*dest`.
template <class T>
NVSHM_CPP_HD inline void atomic_set(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(fetch, T);
  detail::amo_fetch<T>::type::set(dest, value, pe);
}
/// Atomic exchange; returns the old value.
template <class T>
NVSHM_CPP_HD inline T atomic_swap(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(fetch, T);
  return detail::amo_fetch<T>::type::swap(dest, value, pe);
}
/// Bitwise and/or/xor with `value`; the fetch forms return the old value.
template <class T>
NVSHM_CPP_HD inline void atomic_and(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  detail::amo_logic<T>::type::and_(dest, value, pe);
}
template <class T>
NVSHM_CPP_HD inline T atomic_fetch_and(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  return detail::amo_logic<T>::type::fetch_and(dest, value, pe);
}
template <class T>
NVSHM_CPP_HD inline void atomic_or(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  detail::amo_logic<T>::type::or_(dest, value, pe);
}
template <class T>
NVSHM_CPP_HD inline T atomic_fetch_or(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  return detail::amo_logic<T>::type::fetch_or(dest, value, pe);
}
template <class T>
NVSHM_CPP_HD inline void atomic_xor(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  detail::amo_logic<T>::type::xor_(dest, value, pe);
}
template <class T>
NVSHM_CPP_HD inline T atomic_fetch_xor(T *dest, T value, int pe) {
  NVSHM_CPP_REQUIRE_AMO(logic, T);
  return detail::amo_logic<T>::type::fetch_xor(dest, value, pe);
}
#undef NVSHM_CPP_REQUIRE_AMO

}  // namespace nvshmem

#undef NVSHM_CPP_HD
