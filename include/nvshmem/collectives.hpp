// SPDX-License-Identifier: BSD-3-Clause
// Team collectives on the host, generic over the element type and the operator:
// nvshmem::broadcast(team, ...), fcollect, alltoall, reduce<Op::sum>(team, ...), reducescatter, barrier,
// team_sync, the byte forms broadcastmem/fcollectmem/alltoallmem(Team, ...) and their _on_stream forms dispatch at
// compile time to nvshmem_<T>_broadcast, nvshmem_<T>_sum_reduce, nvshmemx_<T>_sum_reduce_on_stream, ... Generated from
// the C API's tables (NVSHM_FOR_EACH_COLL_TYPE, NVSHM_FOR_EACH_REDUCE_OP_TYPE); a type (or type and operator pair)
// outside them is a compile error. Host code only (kernels: nvshmem/device.hpp).
//
// Contract of every function (NVSHMEM's, include/nvshmem_detail/coll_host_api.h): collective over
// `team`: every member calls it, one thread per PE, with the same team, counts and root, in the same
// order as its other collectives on the team. `dest` and `source` are symmetric; counts are elements
// of T (per member for fcollect and alltoall, per block for reducescatter); `root` is an index in the
// team. Blocking forms return with this PE's `dest` filled and `source` reusable and work on either
// heap kind; _on_stream forms enqueue on `stream` (heap in GPU memory) and return at once. Errors: a
// nonzero status from the C call (invalid team or root, non-symmetric buffer, a member that did not
// arrive in time; the library prints the cause) throws Error with that status; the stream forms
// report misuse by aborting, as the C API does.
#pragma once

#include <nvshmemx.h>

#include <cstddef>

#include "nvshmem/detail/typed.hpp"
#include "nvshmem/error.hpp"
#include "nvshmem/runtime.hpp"
#include "nvshmem/team.hpp"

namespace nvshmem {
namespace detail {

/// Throw Error(status, call) unless the collective returned 0.
inline void check_collective(int status, const char *call) {
  if (status != 0) throw Error(status, call, "the collective failed on this PE (the library printed the cause)");
}

// One struct per type of the collective table; to cover a new family, add its member here and its
// template below.
#define NVSHM_CPP_HOST_COLL_ENTRY(NAME, T)                                                                      \
  struct host_coll_##NAME {                                                                                     \
    using type = T;                                                                                             \
    static void broadcast(nvshmem_team_t tm, T *d, const T *s, size_t n, int root) {                            \
      check_collective(::nvshmem_##NAME##_broadcast(tm, d, s, n, root), "nvshmem_" #NAME "_broadcast");         \
    }                                                                                                           \
    static void fcollect(nvshmem_team_t tm, T *d, const T *s, size_t n) {                                       \
      check_collective(::nvshmem_##NAME##_fcollect(tm, d, s, n), "nvshmem_" #NAME "_fcollect");                 \
    }                                                                                                           \
    static void alltoall(nvshmem_team_t tm, T *d, const T *s, size_t n) {                                       \
      check_collective(::nvshmem_##NAME##_alltoall(tm, d, s, n), "nvshmem_" #NAME "_alltoall");                 \
    }                                                                                                           \
    static void broadcast_on_stream(nvshmem_team_t tm, T *d, const T *s, size_t n, int root, cudaStream_t st) { \
      check_collective(::nvshmemx_##NAME##_broadcast_on_stream(tm, d, s, n, root, st),                          \
                       "nvshmemx_" #NAME "_broadcast_on_stream");                                               \
    }                                                                                                           \
    static void fcollect_on_stream(nvshmem_team_t tm, T *d, const T *s, size_t n, cudaStream_t st) {            \
      check_collective(::nvshmemx_##NAME##_fcollect_on_stream(tm, d, s, n, st),                                 \
                       "nvshmemx_" #NAME "_fcollect_on_stream");                                                \
    }                                                                                                           \
    static void alltoall_on_stream(nvshmem_team_t tm, T *d, const T *s, size_t n, cudaStream_t st) {            \
      check_collective(::nvshmemx_##NAME##_alltoall_on_stream(tm, d, s, n, st),                                 \
                       "nvshmemx_" #NAME "_alltoall_on_stream");                                                \
    }                                                                                                           \
  };
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_HOST_COLL_ENTRY)
#undef NVSHM_CPP_HOST_COLL_ENTRY
#define NVSHM_CPP_HOST_COLL_LIST(NAME, T) , host_coll_##NAME
using host_coll_entries = entry_list<list_head NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_HOST_COLL_LIST)>;
#undef NVSHM_CPP_HOST_COLL_LIST
template <class T>
using host_coll = lookup<T, host_coll_entries>;

// One struct per (operator, type) pair of the reduction table, keyed by reduce_key<T, Op>.
#define NVSHM_CPP_HOST_REDUCE_ENTRY(OP, NAME, T)                                                           \
  struct host_reduce_##OP##_##NAME {                                                                       \
    using type = reduce_key<T, Op::NVSHM_CPP_OP(OP)>;                                                      \
    static void reduce(nvshmem_team_t tm, T *d, const T *s, size_t n) {                                    \
      check_collective(::nvshmem_##NAME##_##OP##_reduce(tm, d, s, n), "nvshmem_" #NAME "_" #OP "_reduce"); \
    }                                                                                                      \
    static void reducescatter(nvshmem_team_t tm, T *d, const T *s, size_t n) {                             \
      check_collective(::nvshmem_##NAME##_##OP##_reducescatter(tm, d, s, n),                               \
                       "nvshmem_" #NAME "_" #OP "_reducescatter");                                         \
    }                                                                                                      \
    static void reduce_on_stream(nvshmem_team_t tm, T *d, const T *s, size_t n, cudaStream_t st) {         \
      check_collective(::nvshmemx_##NAME##_##OP##_reduce_on_stream(tm, d, s, n, st),                       \
                       "nvshmemx_" #NAME "_" #OP "_reduce_on_stream");                                     \
    }                                                                                                      \
    static void reducescatter_on_stream(nvshmem_team_t tm, T *d, const T *s, size_t n, cudaStream_t st) {  \
      check_collective(::nvshmemx_##NAME##_##OP##_reducescatter_on_stream(tm, d, s, n, st),                \
                       "nvshmemx_" #NAME "_" #OP "_reducescatter_on_stream");                              \
    }                                                                                                      \
  };
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_HOST_REDUCE_ENTRY)
#undef NVSHM_CPP_HOST_REDUCE_ENTRY
#define NVSHM_CPP_HOST_REDUCE_LIST(OP, NAME, T) , host_reduce_##OP##_##NAME
using host_reduce_entries = entry_list<list_head NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_HOST_REDUCE_LIST)>;
#undef NVSHM_CPP_HOST_REDUCE_LIST
template <class T, Op O>
using host_reduce = lookup<reduce_key<T, O>, host_reduce_entries>;

template <class T>
constexpr void require_coll_type() {
  static_assert(host_coll<T>::found,
                "nvshmem: T is not an NVSHMEM collective type (NVSHM_FOR_EACH_COLL_TYPE); use "
                "nvshmem::broadcastmem/fcollectmem/alltoallmem with a byte count");
}
template <class T, Op O>
constexpr void require_reduce_pair() {
  static_assert(host_reduce<T, O>::found,
                "nvshmem::reduce: NVSHMEM has no reduction for this (T, Op) pair (NVSHM_FOR_EACH_REDUCE_OP_TYPE): "
                "Op::and_/or_/xor_ take unsigned char/short/int/long/long long, the fixed-width integers and size_t; "
                "Op::min/max/sum/prod take those and char, signed char, short, int, long, long long, half, "
                "__nv_bfloat16, float and double");
}

}  // namespace detail

/// True when T is an element type of the typed collectives (broadcast, fcollect, alltoall).
template <class T>
inline constexpr bool is_collective_type = detail::host_coll<T>::found;
/// True when NVSHMEM has a reduction with operator O for element type T.
template <class T, Op O>
inline constexpr bool is_reduce_pair = detail::host_reduce<T, O>::found;

/// nvshmem_barrier: quiet, then wait until every member of `team` arrived.
inline void barrier(Team team) {
  detail::check_collective(::nvshmem_barrier(team.handle()), "nvshmem_barrier");
}
/// nvshmem_team_sync: wait until every member of `team` arrived (no quiet).
inline void team_sync(Team team) {
  detail::check_collective(::nvshmem_team_sync(team.handle()), "nvshmem_team_sync");
}
/// nvshmemx_barrier_on_stream: the barrier, enqueued on `stream` (returns at once).
inline void barrier_on_stream(Team team, cudaStream_t stream) {
  detail::check_collective(::nvshmemx_barrier_on_stream(team.handle(), stream), "nvshmemx_barrier_on_stream");
}
/// nvshmemx_team_sync_on_stream: the team_sync, enqueued on `stream`.
inline void team_sync_on_stream(Team team, cudaStream_t stream) {
  detail::check_collective(::nvshmemx_team_sync_on_stream(team.handle(), stream), "nvshmemx_team_sync_on_stream");
}

/// nvshmem_<T>_broadcast: `nelems` elements of member `root`'s `source` into every member's `dest`
/// (dest == source allowed).
template <class T>
void broadcast(Team team, T *dest, const T *source, std::size_t nelems, int root) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::broadcast(team.handle(), dest, source, nelems, root);
}
/// nvshmem_<T>_fcollect: each member's `nelems` elements, concatenated in team order into every
/// member's `dest` (nelems * n_pes elements; no overlap with `source`).
template <class T>
void fcollect(Team team, T *dest, const T *source, std::size_t nelems) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::fcollect(team.handle(), dest, source, nelems);
}
/// nvshmem_<T>_alltoall: block j (`nelems` elements) of member i's `source` lands as block i of member
/// j's `dest` (no overlap).
template <class T>
void alltoall(Team team, T *dest, const T *source, std::size_t nelems) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::alltoall(team.handle(), dest, source, nelems);
}
/// nvshmem_<T>_<op>_reduce: dest[k] = source[k] of every member combined with O, k < nreduce, on
/// every member (dest == source allowed). Usage: nvshmem::reduce<nvshmem::Op::sum>(team, d, s, n).
template <Op O, class T>
void reduce(Team team, T *dest, const T *source, std::size_t nreduce) {
  detail::require_reduce_pair<T, O>();
  detail::host_reduce<T, O>::type::reduce(team.handle(), dest, source, nreduce);
}
/// nvshmem_<T>_<op>_reducescatter: `source` holds n_pes blocks of `nreduce` elements; member i gets
/// block i combined over the members with O in its `dest`.
template <Op O, class T>
void reducescatter(Team team, T *dest, const T *source, std::size_t nreduce) {
  detail::require_reduce_pair<T, O>();
  detail::host_reduce<T, O>::type::reducescatter(team.handle(), dest, source, nreduce);
}

/// The byte forms, for element types outside NVSHM_FOR_EACH_COLL_TYPE: as broadcast, fcollect and
/// alltoall with `nbytes` counting bytes (per member for fcollect and alltoall). Same contract and
/// errors as the typed forms (nvshmem_broadcastmem, nvshmem_fcollectmem, nvshmem_alltoallmem). The
/// aliases nvshmem::broadcastmem(nvshmem_team_t, ...) ... return the C status instead of throwing.
inline void broadcastmem(Team team, void *dest, const void *source, std::size_t nbytes, int root) {
  detail::check_collective(::nvshmem_broadcastmem(team.handle(), dest, source, nbytes, root), "nvshmem_broadcastmem");
}
inline void fcollectmem(Team team, void *dest, const void *source, std::size_t nbytes) {
  detail::check_collective(::nvshmem_fcollectmem(team.handle(), dest, source, nbytes), "nvshmem_fcollectmem");
}
inline void alltoallmem(Team team, void *dest, const void *source, std::size_t nbytes) {
  detail::check_collective(::nvshmem_alltoallmem(team.handle(), dest, source, nbytes), "nvshmem_alltoallmem");
}
/// nvshmemx_broadcastmem_on_stream, nvshmemx_fcollectmem_on_stream, nvshmemx_alltoallmem_on_stream: the
/// byte forms (`nbytes` in bytes), enqueued on `stream`; throwing as the typed stream forms.
inline void broadcastmem_on_stream(Team team, void *dest, const void *source, std::size_t nbytes, int root,
                                   cudaStream_t stream) {
  detail::check_collective(::nvshmemx_broadcastmem_on_stream(team.handle(), dest, source, nbytes, root, stream),
                           "nvshmemx_broadcastmem_on_stream");
}
inline void fcollectmem_on_stream(Team team, void *dest, const void *source, std::size_t nbytes, cudaStream_t stream) {
  detail::check_collective(::nvshmemx_fcollectmem_on_stream(team.handle(), dest, source, nbytes, stream),
                           "nvshmemx_fcollectmem_on_stream");
}
inline void alltoallmem_on_stream(Team team, void *dest, const void *source, std::size_t nbytes, cudaStream_t stream) {
  detail::check_collective(::nvshmemx_alltoallmem_on_stream(team.handle(), dest, source, nbytes, stream),
                           "nvshmemx_alltoallmem_on_stream");
}

/// nvshmemx_<T>_broadcast_on_stream: as broadcast, enqueued on `stream` (units: elements of T).
template <class T>
void broadcast_on_stream(Team team, T *dest, const T *source, std::size_t nelems, int root, cudaStream_t stream) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::broadcast_on_stream(team.handle(), dest, source, nelems, root, stream);
}
/// nvshmemx_<T>_fcollect_on_stream: as fcollect, enqueued on `stream` (units: elements of T).
template <class T>
void fcollect_on_stream(Team team, T *dest, const T *source, std::size_t nelems, cudaStream_t stream) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::fcollect_on_stream(team.handle(), dest, source, nelems, stream);
}
/// nvshmemx_<T>_alltoall_on_stream: as alltoall, enqueued on `stream` (units: elements of T).
template <class T>
void alltoall_on_stream(Team team, T *dest, const T *source, std::size_t nelems, cudaStream_t stream) {
  detail::require_coll_type<T>();
  detail::host_coll<T>::type::alltoall_on_stream(team.handle(), dest, source, nelems, stream);
}
/// nvshmemx_<T>_<op>_reduce_on_stream: as reduce<O>, enqueued on `stream`.
template <Op O, class T>
void reduce_on_stream(Team team, T *dest, const T *source, std::size_t nreduce, cudaStream_t stream) {
  detail::require_reduce_pair<T, O>();
  detail::host_reduce<T, O>::type::reduce_on_stream(team.handle(), dest, source, nreduce, stream);
}
/// nvshmemx_<T>_<op>_reducescatter_on_stream: as reducescatter<O>, enqueued on `stream`.
template <Op O, class T>
void reducescatter_on_stream(Team team, T *dest, const T *source, std::size_t nreduce, cudaStream_t stream) {
  detail::require_reduce_pair<T, O>();
  detail::host_reduce<T, O>::type::reducescatter_on_stream(team.handle(), dest, source, nreduce, stream);
}

inline void Runtime::barrier(Team team) const {
  state();
  nvshmem::barrier(team);
}
inline void Runtime::team_sync(Team team) const {
  state();
  nvshmem::team_sync(team);
}
inline void Runtime::barrier_on_stream(Team team, cudaStream_t stream) const {
  state();
  nvshmem::barrier_on_stream(team, stream);
}
inline void Runtime::team_sync_on_stream(Team team, cudaStream_t stream) const {
  state();
  nvshmem::team_sync_on_stream(team, stream);
}

}  // namespace nvshmem
