// Compiled by nvcc (with and without -rdc) as a test: the C++ layer's headers, and every generic
// device template instantiated for every RMA type and scope, plus the device view's members.
#include <nvshmem/nvshmem.hpp>

template <class S, class T>
__device__ void every_form(T *sym, T *local, size_t n, int pe) {
  nvshmem::device::put<S>(sym, local, n, pe);
  nvshmem::device::get<S>(local, sym, n, pe);
  nvshmem::device::put_nbi<S>(sym, local, n, pe);
  nvshmem::device::get_nbi<S>(local, sym, n, pe);
  nvshmem::device::putmem<S>(sym, local, n * sizeof(T), pe);
  nvshmem::device::getmem_nbi<S>(local, sym, n * sizeof(T), pe);
  const nvshmem::DeviceView<T> view(sym, n);
  view.template put<S>(pe, local, n);
  view.template get_nbi<S>(pe, local, n, 0);
}

template <class T>
__global__ void all_scopes(T *sym, T *local, size_t n, int pe) {
  every_form<nvshmem::thread>(sym, local, n, pe);
  every_form<nvshmem::warp>(sym, local, n, pe);
  every_form<nvshmem::block>(sym, local, n, pe);
  nvshmem::device::p(sym, local[0], pe);
  local[1] = nvshmem::device::g(sym, pe);
  nvshmem::device::quiet();
  nvshmem::device::fence();
  nvshmem::device::barrier_all<nvshmem::block>();
  nvshmem::device::sync_all<nvshmem::warp>();
}

#define NVSHM_INSTANTIATE(NAME, T) template __global__ void all_scopes<T>(T *, T *, size_t, int);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_INSTANTIATE)
#undef NVSHM_INSTANTIATE

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
