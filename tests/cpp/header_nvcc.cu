// SPDX-License-Identifier: BSD-3-Clause
// Compiled by nvcc (with and without -rdc) as a test: the C++ layer's headers, and every generic
// device template instantiated for every RMA type and scope, plus the device view's members.
#include <nvshmem/nvshmem.hpp>

#if !defined(NVSHM_CPP_HEADERS_ONLY)  // the -rdc build checks the headers alone (instantiation is slow)

template <class S, class T>
__device__ void every_form(T *sym, T *local, size_t n, int pe) {
  nvshmem::device::put<S>(sym, local, n, pe);
  nvshmem::device::get<S>(local, sym, n, pe);
  nvshmem::device::put_nbi<S>(sym, local, n, pe);
  nvshmem::device::get_nbi<S>(local, sym, n, pe);
  nvshmem::device::putmem<S>(sym, local, n * sizeof(T), pe);
  nvshmem::device::put_signal<S>(sym, local, n, nullptr, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmem::device::put_signal_nbi<S>(sym, local, n, nullptr, 1, NVSHMEM_SIGNAL_SET, pe);
  nvshmem::device::getmem_nbi<S>(local, sym, n * sizeof(T), pe);
  const nvshmem::DeviceView<T> view(sym, n);
  view.template put<S>(pe, local, n);
  view.template get_nbi<S>(pe, local, n, 0);
  const nvshmem::DeviceView<uint64_t> signal(nullptr, 2);
  view.template put_signal<S>(pe, local, n, signal, 1, 1, NVSHMEM_SIGNAL_ADD);
  view.template put_signal_nbi<S>(pe, local, n, signal, 0, 1, NVSHMEM_SIGNAL_SET, 1);
}

template <class T>
__device__ void all_scopes(T *sym, T *local, size_t n, int pe) {
  every_form<nvshmem::thread>(sym, local, n, pe);
  every_form<nvshmem::warp>(sym, local, n, pe);
  every_form<nvshmem::block>(sym, local, n, pe);
  nvshmem::device::p(sym, local[0], pe);
  local[1] = nvshmem::device::g(sym, pe);
  nvshmem::device::iput(sym, local, 2, 1, n, pe);
  nvshmem::device::iget(local, sym, 1, 2, n, pe);
  nvshmem::device::quiet();
  nvshmem::device::fence();
  nvshmem::device::barrier_all<nvshmem::block>();
  nvshmem::device::sync_all<nvshmem::warp>();
}

// Every table entry resolves (cheap: a lookup per type). Including the headers already checks that
// every C function an entry calls exists (non-dependent names are bound where the entry is defined).
#define NVSHM_RESOLVES(NAME, T)                                                       \
  static_assert(nvshmem::detail::dev_rma<T>::found, #NAME " has a device RMA entry"); \
  static_assert(nvshmem::detail::is_same<nvshmem::detail::dev_rma<T>::type::type, T>::value, #NAME);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_RESOLVES)
#undef NVSHM_RESOLVES

// Full instantiation (every form, every scope) for a few representative types: compiling the copy
// loops for all 25 types takes minutes.
#define NVSHM_INSTANTIATE(NAME, T)                                        \
  __global__ void all_scopes_##NAME(T *sym, T *local, size_t n, int pe) { \
    all_scopes(sym, local, n, pe);                                        \
  }
NVSHM_INSTANTIATE(int, int)
NVSHM_INSTANTIATE(double, double)
NVSHM_INSTANTIATE(half, half)
NVSHM_INSTANTIATE(uint8, uint8_t)
#undef NVSHM_INSTANTIATE

#define NVSHM_WAITS(NAME, T)                                                          \
  __global__ void waits_##NAME(T *ivar, T v) {                                        \
    nvshmem::device::wait_until(ivar, NVSHMEM_CMP_GE, v);                             \
    *ivar = static_cast<T>(nvshmem::device::test(ivar, NVSHMEM_CMP_EQ, v));           \
    size_t idx[2];                                                                    \
    nvshmem::device::wait_until_all(ivar, 2, nullptr, NVSHMEM_CMP_GE, v);             \
    (void)nvshmem::device::wait_until_any(ivar, 2, nullptr, NVSHMEM_CMP_GE, v);       \
    (void)nvshmem::device::wait_until_some(ivar, 2, idx, nullptr, NVSHMEM_CMP_GE, v); \
    nvshmem::device::wait_until_all_vector(ivar, 2, nullptr, NVSHMEM_CMP_GE, ivar);   \
    (void)nvshmem::device::test_any_vector(ivar, 2, nullptr, NVSHMEM_CMP_GE, ivar);   \
    (void)nvshmem::device::test_some(ivar, 2, idx, nullptr, NVSHMEM_CMP_GE, v);       \
    (void)nvshmem::device::test_all(ivar, 2, nullptr, NVSHMEM_CMP_GE, v);             \
  }
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_WAITS)
#undef NVSHM_WAITS
#define NVSHM_ARITH(NAME, T)                                                                             \
  __global__ void arith_##NAME(T *d, int pe) {                                                           \
    nvshmem::device::atomic_inc(d, pe);                                                                  \
    *d = nvshmem::device::atomic_fetch_inc(d, pe) + nvshmem::atomic_fetch_add(d, static_cast<T>(2), pe); \
    nvshmem::atomic_add(d, static_cast<T>(1), pe);                                                       \
    *d = nvshmem::atomic_compare_swap(d, static_cast<T>(0), static_cast<T>(1), pe);                      \
  }
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_ARITH)
#undef NVSHM_ARITH
#define NVSHM_FETCH(NAME, T)                                                                       \
  __global__ void fetch_##NAME(T *d, int pe) {                                                     \
    nvshmem::atomic_set(d, nvshmem::atomic_swap(d, nvshmem::device::atomic_fetch(d, pe), pe), pe); \
  }
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_FETCH)
#undef NVSHM_FETCH
#define NVSHM_LOGIC(NAME, T)                                                                                        \
  __global__ void logic_##NAME(T *d, int pe) {                                                                      \
    nvshmem::atomic_and(d, static_cast<T>(1), pe);                                                                  \
    nvshmem::atomic_or(d, static_cast<T>(2), pe);                                                                   \
    nvshmem::atomic_xor(d, static_cast<T>(4), pe);                                                                  \
    *d = nvshmem::atomic_fetch_and(d, static_cast<T>(1), pe) | nvshmem::atomic_fetch_or(d, static_cast<T>(1), pe) | \
         nvshmem::device::atomic_fetch_xor(d, static_cast<T>(1), pe);                                               \
  }
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_LOGIC)
#undef NVSHM_LOGIC

// Collectives: every reduction and collective table entry resolves; every scope instantiated for two
// types; the new point-to-point forms by scope.
#define NVSHM_REDUCE_RESOLVES(OP, NAME, T) \
  static_assert(nvshmem::detail::dev_reduce<T, nvshmem::Op::NVSHM_CPP_OP(OP)>::found, #OP " " #NAME);
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_REDUCE_RESOLVES)
#undef NVSHM_REDUCE_RESOLVES
#define NVSHM_COLL_RESOLVES(NAME, T) static_assert(nvshmem::detail::dev_coll<T>::found, #NAME);
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_COLL_RESOLVES)
#undef NVSHM_COLL_RESOLVES

template <class S, class T>
__device__ int collectives_in(nvshmem_team_t team, T *dest, T *source, size_t n, uint64_t *sig, int pe) {
  int rc = nvshmem::device::barrier<S>(team) | nvshmem::device::team_sync<S>(team);
  rc |= nvshmem::device::broadcast<S>(team, dest, source, n, 0);
  rc |= nvshmem::device::fcollect<S>(team, dest, source, n);
  rc |= nvshmem::device::alltoall<S>(team, dest, source, n);
  rc |= nvshmem::device::reduce<nvshmem::Op::sum, S>(team, dest, source, n);
  rc |= nvshmem::device::reducescatter<nvshmem::Op::max, S>(team, dest, source, n);
  nvshmem::device::iput<S>(dest, source, 2, 1, n, pe);
  nvshmem::device::iget<S>(dest, source, 1, 2, n, pe);
  nvshmem::device::putmem_signal<S>(dest, source, n * sizeof(T), sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  nvshmem::device::putmem_signal_nbi<S>(dest, source, n * sizeof(T), sig, 1, NVSHMEM_SIGNAL_SET, pe);
  rc |= nvshmem::device::broadcastmem<S>(team, dest, source, n * sizeof(T), 0);
  rc |= nvshmem::device::fcollectmem<S>(team, dest, source, n * sizeof(T));
  rc |= nvshmem::device::alltoallmem<S>(team, dest, source, n * sizeof(T));
  return rc;
}
#define NVSHM_COLLECTIVES(NAME, T)                                                                        \
  __global__ void collectives_##NAME(nvshmem_team_t team, T *d, T *s, size_t n, uint64_t *sig, int *rc) { \
    *rc = collectives_in<nvshmem::thread>(team, d, s, n, sig, 1) |                                        \
          collectives_in<nvshmem::warp>(team, d, s, n, sig, 1) |                                          \
          collectives_in<nvshmem::block>(team, d, s, n, sig, 1);                                          \
  }
NVSHM_COLLECTIVES(int, int)
NVSHM_COLLECTIVES(float, float)
#undef NVSHM_COLLECTIVES
__global__ void view_signals(nvshmem::DeviceView<uint64_t> v, int pe) {
  v.signal_op(pe, 0, 1, NVSHMEM_SIGNAL_ADD);
  v.atomic_or(pe, 1, 2);
  v[2] = v.signal_wait_until(0, NVSHMEM_CMP_GE, 1) + v.signal_fetch(0) + v.atomic_fetch_xor(pe, 1, 1);
  nvshmem::put64_signal(v.data(), v.data(), 1, v.data(), 1, NVSHMEM_SIGNAL_ADD, pe);
  (void)nvshmem::int_sum_reduce_block(NVSHMEM_TEAM_WORLD, nullptr, nullptr, 0);
}

// A view of a type outside the RMA table: the byte put-with-signal forms.
struct Pair {
  int a;
  float b;
};
__global__ void view_bytes(nvshmem::DeviceView<Pair> v, nvshmem::DeviceView<uint64_t> sig, Pair *local, int pe) {
  v.put_signal<nvshmem::warp>(pe, local, 2, sig, 0, 1, NVSHMEM_SIGNAL_SET);
  v.put_signal_nbi(pe, local, 2, sig, 0, 1, NVSHMEM_SIGNAL_ADD, 1);
}

__global__ void sync_and_atomics(int *i, long *l, uint64_t *u, int pe) {
  nvshmem::device::wait_until(i, NVSHMEM_CMP_GE, 1);
  nvshmem::device::wait_until(u, NVSHMEM_CMP_EQ, uint64_t{2});
  (void)nvshmem::device::signal_wait_until(u, NVSHMEM_CMP_NE, 0);
  nvshmem::device::signal_op(u, 1, NVSHMEM_SIGNAL_ADD, pe);
  *i = nvshmem::device::atomic_fetch_add(i, 1, pe);
  nvshmem::device::atomic_add(l, 2L, pe);
  *u = nvshmem::device::atomic_compare_swap(u, uint64_t{0}, uint64_t{1}, pe);
  *l = nvshmem::device::atomic_fetch(l, pe);
  nvshmem::device::atomic_set(i, 5, pe);
  // Aliases are host+device where the C API is.
  nvshmem::int_p(i, nvshmem::my_pe(), pe);
  nvshmem::int_put_block(i, i, 1, pe);
  nvshmem::barrier_all_block();
}
#endif
