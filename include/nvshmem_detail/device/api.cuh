/* The device interface, inline (NVSHMEM docs: the CUDA kernel interface of each routine family).
 * Functions declared host+device in host_api.h get their device definition here, in the device pass
 * only; device-only functions (`_warp`, `_block`, waits, put-with-signal, atomics) are defined here.
 * Scope rules: plain names are called by one thread; `_warp` by every thread of a warp with the same
 * arguments; `_block` by every thread of the block with the same arguments. */
#ifndef NVSHMEM_DETAIL_DEVICE_API_CUH
#define NVSHMEM_DETAIL_DEVICE_API_CUH

#include "nvshmem_detail/device/primitives.cuh"
#include "nvshmem_detail/host_api.h"

namespace nvshm_dev {

/* Blocking forms end with a group sync: on return every thread may reuse the source (put) or read
 * the destination (get). The nbi forms skip it; their completion is the next quiet by each thread
 * (or by one thread after a group sync: the fence is cumulative). */
template <Scope S, bool Blocking>
__device__ __forceinline__ void put(void *dest, const void *source, size_t nbytes, int pe) {
  copy_bytes<S>(peer_address(dest, pe), source, nbytes);
  if constexpr (Blocking) Group<S>::sync();
}
template <Scope S, bool Blocking>
__device__ __forceinline__ void get(void *dest, const void *source, size_t nbytes, int pe) {
  copy_bytes<S>(dest, peer_address(source, pe), nbytes);
  if constexpr (Blocking) Group<S>::sync();
}

__device__ __forceinline__ void signal(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  uint64_t *remote = peer_address(sig_addr, pe);
  if (sig_op == NVSHMEM_SIGNAL_ADD)
    add_release(remote, signal);
  else
    store_release(remote, signal);
}

/* Data, then the signal with release semantics: a PE that sees the signal sees the data. */
template <Scope S>
__device__ __forceinline__ void put_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                           uint64_t sig, int sig_op, int pe) {
  copy_bytes<S>(peer_address(dest, pe), source, nbytes);
  Group<S>::sync();
  if (Group<S>::rank() == 0) signal(sig_addr, sig, sig_op, pe);
  Group<S>::sync();
}

/* Barrier over all PEs with per-PE flags in the symmetric heap: each call takes the next epoch of
 * this PE (an atomic counter, so concurrent calls from several blocks get distinct epochs), raises
 * its word on every peer to that epoch (atomic max with release: the words never go back), then
 * waits until every peer's word on this PE reaches the epoch (acquire). Word i is written only by
 * PE i, so back-to-back barriers and barriers from different kernels or streams never mix. */
template <Scope S>
__device__ __forceinline__ void barrier_all(bool quiet_first) {
  const nvshm_device_state &st = state();
  Group<S>::sync();
  if (quiet_first && Group<S>::rank() == 0) fence_sc_sys();
  uint64_t epoch = 0;
  auto next_epoch = [&] {
    return static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(st.barrier_epoch), 1ull)) + 1;
  };
  if constexpr (S == Scope::block) {
    __shared__ uint64_t shared_epoch;
    if (Group<S>::rank() == 0) shared_epoch = next_epoch();
    __syncthreads();
    epoch = shared_epoch;
  } else if constexpr (S == Scope::warp) {
    if (Group<S>::rank() == 0) epoch = next_epoch();
    epoch = __shfl_sync(0xffffffffu, epoch, 0);
  } else {
    epoch = next_epoch();
  }
  for (int pe = Group<S>::rank(); pe < st.n_pes; pe += Group<S>::size())
    if (pe != st.my_pe) max_release(peer_address(st.barrier_flags + st.my_pe, pe), epoch);
  for (int pe = Group<S>::rank(); pe < st.n_pes; pe += Group<S>::size())
    if (pe != st.my_pe) wait_until<uint64_t>(st.barrier_flags + pe, NVSHMEM_CMP_GE, epoch);
  Group<S>::sync();
}

__device__ __forceinline__ int team_my_pe(nvshmem_team_t team) {
  const nvshm_device_state &st = state();
  switch (team) {
    case NVSHMEM_TEAM_WORLD:
      return st.my_pe;
    case NVSHMEM_TEAM_SHARED:
    case NVSHMEMX_TEAM_NODE:
      return st.node_my_pe;
    case NVSHMEMX_TEAM_SAME_MYPE_NODE:
      return st.my_pe / st.node_n_pes;
    default:
      return -1;
  }
}
__device__ __forceinline__ int team_n_pes(nvshmem_team_t team) {
  const nvshm_device_state &st = state();
  switch (team) {
    case NVSHMEM_TEAM_WORLD:
      return st.n_pes;
    case NVSHMEM_TEAM_SHARED:
    case NVSHMEMX_TEAM_NODE:
      return st.node_n_pes;
    case NVSHMEMX_TEAM_SAME_MYPE_NODE:
      return st.n_pes / st.node_n_pes;
    default:
      return -1;
  }
}

}  // namespace nvshm_dev

/* ======================= host+device functions: device definitions ======================= */
#if defined(__CUDA_ARCH__)
#define NVSHM_HD_DEF extern "C" __host__ __device__ inline

NVSHM_HD_DEF int nvshmem_my_pe(void) {
  return nvshm_dev::state().my_pe;
}
NVSHM_HD_DEF int nvshmem_n_pes(void) {
  return nvshm_dev::state().n_pes;
}
NVSHM_HD_DEF int nvshmem_team_my_pe(nvshmem_team_t team) {
  return nvshm_dev::team_my_pe(team);
}
NVSHM_HD_DEF int nvshmem_team_n_pes(nvshmem_team_t team) {
  return nvshm_dev::team_n_pes(team);
}
NVSHM_HD_DEF void nvshmem_info_get_version(int *major, int *minor) {
  *major = NVSHMEM_MAJOR_VERSION;
  *minor = NVSHMEM_MINOR_VERSION;
}
NVSHM_HD_DEF void nvshmem_global_exit(int status) {
  printf("nvshmem_global_exit(%d) called on the device by PE %d: trapping\n", status, nvshm_dev::state().my_pe);
  __trap();
}

NVSHM_HD_DEF void *nvshmem_ptr(const void *dest, int pe) {
  const nvshm_device_state &st = nvshm_dev::state();
  if (!st.initialized || !st.heap_on_device || pe < 0 || pe >= st.n_pes) return nullptr;
  const size_t offset = static_cast<size_t>(static_cast<const char *>(dest) - st.my_heap);
  if (offset >= st.heap_size) return nullptr;
  return st.heap_base + static_cast<size_t>(pe) * st.heap_stride + offset;
}

#define NVSHM_DEFINE_DEVICE_RMA(NAME, T)                                                        \
  NVSHM_HD_DEF void nvshmem_##NAME##_p(T *dest, const T value, int pe) {                        \
    nvshm_dev::store_scalar(nvshm_dev::peer_address(dest, pe), value);                          \
  }                                                                                             \
  NVSHM_HD_DEF T nvshmem_##NAME##_g(const T *source, int pe) {                                  \
    return nvshm_dev::load_scalar(nvshm_dev::peer_address(source, pe));                         \
  }                                                                                             \
  NVSHM_HD_DEF void nvshmem_##NAME##_put(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);       \
  }                                                                                             \
  NVSHM_HD_DEF void nvshmem_##NAME##_get(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);       \
  }                                                                                             \
  NVSHM_HD_DEF void nvshmem_##NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);      \
  }                                                                                             \
  NVSHM_HD_DEF void nvshmem_##NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);      \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_DEVICE_RMA)
#undef NVSHM_DEFINE_DEVICE_RMA

#define NVSHM_DEFINE_DEVICE_SIZED_RMA(BITS, T)                                                       \
  NVSHM_HD_DEF void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    nvshm_dev::put<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);            \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nelems * sizeof(T), pe);            \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);           \
  }                                                                                                  \
  NVSHM_HD_DEF void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nelems * sizeof(T), pe);           \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_DEVICE_SIZED_RMA)
#undef NVSHM_DEFINE_DEVICE_SIZED_RMA

NVSHM_HD_DEF void nvshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::put<nvshm_dev::Scope::thread, true>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::get<nvshm_dev::Scope::thread, true>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::put<nvshm_dev::Scope::thread, false>(dest, source, nbytes, pe);
}
NVSHM_HD_DEF void nvshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  nvshm_dev::get<nvshm_dev::Scope::thread, false>(dest, source, nbytes, pe);
}

NVSHM_HD_DEF void nvshmem_quiet(void) {
  nvshm_dev::fence_sc_sys();
}
NVSHM_HD_DEF void nvshmem_fence(void) {
  nvshm_dev::fence_acq_rel_sys();
}
NVSHM_HD_DEF void nvshmem_barrier_all(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::thread>(true);
}
NVSHM_HD_DEF void nvshmem_sync_all(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::thread>(false);
}

#undef NVSHM_HD_DEF
#endif /* __CUDA_ARCH__ */

/* ============================== device-only functions ============================== */
#define NVSHM_DEV_DEF extern "C" __device__ inline

/* Thread-group RMA: every thread of the warp/block calls with the same arguments. */
#define NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, SUFFIX, SCOPE)                                               \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_put_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_get_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                   \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_put_nbi_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                  \
  }                                                                                                        \
  NVSHM_DEV_DEF void nvshmemx_##NAME##_get_nbi_##SUFFIX(T *dest, const T *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                  \
  }
#define NVSHM_DEFINE_GROUP_RMA(NAME, T)             \
  NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, warp, warp) \
  NVSHM_DEFINE_GROUP_RMA_SCOPE(NAME, T, block, block)
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_GROUP_RMA)
#undef NVSHM_DEFINE_GROUP_RMA

/* Sized group forms are spelled nvshmemx_put<BITS>_warp, not nvshmemx_<BITS>_put_warp. */
#define NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, SUFFIX, SCOPE)                                                  \
  NVSHM_DEV_DEF void nvshmemx_put##BITS##_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {     \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_get##BITS##_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {     \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nelems * sizeof(T), pe);                        \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_put##BITS##_nbi_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                       \
  }                                                                                                             \
  NVSHM_DEV_DEF void nvshmemx_get##BITS##_nbi_##SUFFIX(void *dest, const void *source, size_t nelems, int pe) { \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nelems * sizeof(T), pe);                       \
  }
#define NVSHM_DEFINE_SIZED_GROUP(BITS, T) \
  NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, warp, warp) NVSHM_DEFINE_SIZED_GROUP_SCOPE(BITS, T, block, block)
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DEFINE_SIZED_GROUP)
#undef NVSHM_DEFINE_SIZED_GROUP
#undef NVSHM_DEFINE_SIZED_GROUP_SCOPE
#undef NVSHM_DEFINE_GROUP_RMA_SCOPE

#define NVSHM_DEFINE_MEM_GROUP(SUFFIX, SCOPE)                                                                       \
  NVSHM_DEV_DEF void nvshmemx_putmem_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {              \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, true>(dest, source, nbytes, pe);                                        \
  }                                                                                                                 \
  NVSHM_DEV_DEF void nvshmemx_getmem_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {              \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, true>(dest, source, nbytes, pe);                                        \
  }                                                                                                                 \
  NVSHM_DEV_DEF void nvshmemx_putmem_nbi_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {          \
    nvshm_dev::put<nvshm_dev::Scope::SCOPE, false>(dest, source, nbytes, pe);                                       \
  }                                                                                                                 \
  NVSHM_DEV_DEF void nvshmemx_getmem_nbi_##SUFFIX(void *dest, const void *source, size_t nbytes, int pe) {          \
    nvshm_dev::get<nvshm_dev::Scope::SCOPE, false>(dest, source, nbytes, pe);                                       \
  }                                                                                                                 \
  NVSHM_DEV_DEF void nvshmemx_putmem_signal_##SUFFIX(void *dest, const void *source, size_t nbytes,                 \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
    nvshm_dev::put_signal<nvshm_dev::Scope::SCOPE>(dest, source, nbytes, sig_addr, signal, sig_op, pe);             \
  }                                                                                                                 \
  NVSHM_DEV_DEF void nvshmemx_putmem_signal_nbi_##SUFFIX(void *dest, const void *source, size_t nbytes,             \
                                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) { \
    nvshm_dev::put_signal<nvshm_dev::Scope::SCOPE>(dest, source, nbytes, sig_addr, signal, sig_op, pe);             \
  }
NVSHM_DEFINE_MEM_GROUP(warp, warp)
NVSHM_DEFINE_MEM_GROUP(block, block)
#undef NVSHM_DEFINE_MEM_GROUP

/* Put-with-signal by one thread: data, then the signal (SET or ADD) on `pe`, release-ordered. */
NVSHM_DEV_DEF void nvshmem_putmem_signal(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                         uint64_t signal, int sig_op, int pe) {
  nvshm_dev::put_signal<nvshm_dev::Scope::thread>(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
NVSHM_DEV_DEF void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                             uint64_t signal, int sig_op, int pe) {
  nvshm_dev::put_signal<nvshm_dev::Scope::thread>(dest, source, nbytes, sig_addr, signal, sig_op, pe);
}
/* Update the signal word `sig_addr` on `pe` (NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD). */
NVSHM_DEV_DEF void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  nvshm_dev::signal(sig_addr, signal, sig_op, pe);
}
/* Wait until the local signal word satisfies `cmp` against `cmp_value`; returns the value seen. */
NVSHM_DEV_DEF uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
  return nvshm_dev::wait_until(sig_addr, cmp, cmp_value);
}
NVSHM_DEV_DEF void nvshmem_int_wait_until(int *ivar, int cmp, int cmp_value) {
  nvshm_dev::wait_until(ivar, cmp, cmp_value);
}
NVSHM_DEV_DEF void nvshmem_uint64_wait_until(uint64_t *ivar, int cmp, uint64_t cmp_value) {
  nvshm_dev::wait_until(ivar, cmp, cmp_value);
}

/* Barriers by a whole warp or block. */
NVSHM_DEV_DEF void nvshmemx_barrier_all_block(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::block>(true);
}
NVSHM_DEV_DEF void nvshmemx_barrier_all_warp(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::warp>(true);
}
NVSHM_DEV_DEF void nvshmemx_sync_all_block(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::block>(false);
}
NVSHM_DEV_DEF void nvshmemx_sync_all_warp(void) {
  nvshm_dev::barrier_all<nvshm_dev::Scope::warp>(false);
}

/* Atomics on `pe`'s copy of `dest`, native system-scope atomics over NVLink/PCIe (relaxed). */
#define NVSHM_DEFINE_ATOMICS(NAME, T, U)                                                   \
  NVSHM_DEV_DEF T nvshmem_##NAME##_atomic_fetch_add(T *dest, T value, int pe) {            \
    return (T)atomicAdd_system((U *)nvshm_dev::peer_address(dest, pe), (U)value);          \
  }                                                                                        \
  NVSHM_DEV_DEF void nvshmem_##NAME##_atomic_add(T *dest, T value, int pe) {               \
    (void)atomicAdd_system((U *)nvshm_dev::peer_address(dest, pe), (U)value);              \
  }                                                                                        \
  NVSHM_DEV_DEF T nvshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe) { \
    return (T)atomicCAS_system((U *)nvshm_dev::peer_address(dest, pe), (U)cond, (U)value); \
  }                                                                                        \
  NVSHM_DEV_DEF T nvshmem_##NAME##_atomic_fetch(const T *source, int pe) {                 \
    return nvshm_dev::load_scalar(nvshm_dev::peer_address(source, pe));                    \
  }                                                                                        \
  NVSHM_DEV_DEF void nvshmem_##NAME##_atomic_set(T *dest, T value, int pe) {               \
    (void)atomicExch_system((U *)nvshm_dev::peer_address(dest, pe), (U)value);             \
  }
NVSHM_DEFINE_ATOMICS(int, int, int)
NVSHM_DEFINE_ATOMICS(long, long, unsigned long long)
NVSHM_DEFINE_ATOMICS(uint64, uint64_t, unsigned long long)
#undef NVSHM_DEFINE_ATOMICS
#undef NVSHM_DEV_DEF

#endif /* NVSHMEM_DETAIL_DEVICE_API_CUH */
