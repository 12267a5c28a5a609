// SPDX-License-Identifier: BSD-3-Clause
// Compile-time lookup of the C function family for an element type. Every typed family of the C API
// is generated from an X-macro type table (nvshmem_detail/type_lists.h); the C++ layer turns the same
// table into one "entry" struct per type and looks the first entry with a matching C type up at
// compile time. Tables list some types twice under different names (int and int32_t are both int on
// Linux): the first entry wins, and both C functions move the same bytes.
// No standard headers here: this file is also compiled by NVRTC. Internal (namespace detail).
#pragma once

namespace nvshmem {
namespace detail {

template <class A, class B>
struct is_same {
  static constexpr bool value = false;
};
template <class A>
struct is_same<A, A> {
  static constexpr bool value = true;
};
template <bool C, class A, class B>
struct conditional {
  using type = A;
};
template <class A, class B>
struct conditional<false, A, B> {
  using type = B;
};

/// Result of a failed lookup.
struct no_entry {
  using type = no_entry;
};
/// First element of every generated list (the X-macro expansions start with a comma).
struct list_head {
  using type = list_head;
};
template <class... Entries>
struct entry_list {};

template <class T, class... Entries>
struct find_entry {
  using type = no_entry;
};
template <class T, class E, class... Rest>
struct find_entry<T, E, Rest...> {
  using type =
      typename conditional<is_same<T, typename E::type>::value, E, typename find_entry<T, Rest...>::type>::type;
};
template <class T, class List>
struct lookup;
template <class T, class... Entries>
struct lookup<T, entry_list<Entries...>> {
  using type = typename find_entry<T, Entries...>::type;
  static constexpr bool found = !is_same<type, no_entry>::value;
};

}  // namespace detail

/// Execution scopes of the device generics (nvshmem::device::put<nvshmem::block>(...)): `thread`: the
/// calling thread alone; `warp`: every thread of the warp calls with the same arguments; `block`:
/// every thread of the block calls with the same arguments. Empty tag types, usable in host code.
struct thread {};
struct warp {};
struct block {};

/// The reduction operators of nvshmem::reduce / reducescatter (host and device): bitwise and, or,
/// xor; min, max, sum, prod. Which element types each one takes is NVSHMEM's table
/// (NVSHM_FOR_EACH_REDUCE_OP_TYPE); another pair is a compile error.
enum class Op { and_, or_, xor_, min, max, sum, prod };

namespace detail {
/// Lookup key of a reduction entry: the element type and the operator.
template <class T, Op O>
struct reduce_key {};
}  // namespace detail

}  // namespace nvshmem

// The Op enumerator of a reduction table token (and, or, xor, min, max, sum, prod).
#define NVSHM_CPP_OP(OP) NVSHM_CPP_OP_##OP
#define NVSHM_CPP_OP_and and_
#define NVSHM_CPP_OP_or or_
#define NVSHM_CPP_OP_xor xor_
#define NVSHM_CPP_OP_min min
#define NVSHM_CPP_OP_max max
#define NVSHM_CPP_OP_sum sum
#define NVSHM_CPP_OP_prod prod
