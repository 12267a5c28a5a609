// SPDX-License-Identifier: BSD-3-Clause
/* The queue-pair (QP) routines of the device interface (NVSHMEM 3.5, "Queue Pair (QP) Specific APIs"): the
 * RMA, put-with-signal, signal, quiet and fence routines with a trailing QP handle. Every PE of this
 * version is reached by peer loads and stores, where NVIDIA documents that only the default QP exists
 * (nvshmemx_qp_create fills NVSHMEMX_QP_DEFAULT), so each name forwards to its plain form and the handle
 * selects nothing; the quiet and fence forms complete or order every operation of the caller, which
 * covers the listed QPs and PEs (NVSHMEMX_QP_ALL, NVSHMEMX_PE_ALL included). Scopes, units and ordering
 * are the plain forms'; `_warp`/`_block` are called by every thread of the group with the same
 * arguments. Device only, generated from the RMA type table (25 types x 20 names, + 7). */
#ifndef NVSHMEM_DETAIL_DEVICE_QP_API_CUH
#define NVSHMEM_DETAIL_DEVICE_QP_API_CUH

#include "nvshmem_detail/type_lists.h"

#define NVSHM_QP_DEF extern "C" __device__ inline

#define NVSHM_DEFINE_QP_RMA_SCOPE(NAME, T, SUFFIX, PLAIN)                                                            \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_put##SUFFIX(T *dest, const T *source, size_t nelems, int pe,                \
                                                     nvshmemx_qp_handle_t) {                                         \
    PLAIN##_put##SUFFIX(dest, source, nelems, pe);                                                                   \
  }                                                                                                                  \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_get##SUFFIX(T *dest, const T *source, size_t nelems, int pe,                \
                                                     nvshmemx_qp_handle_t) {                                         \
    PLAIN##_get##SUFFIX(dest, source, nelems, pe);                                                                   \
  }                                                                                                                  \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_put_nbi##SUFFIX(T *dest, const T *source, size_t nelems, int pe,            \
                                                         nvshmemx_qp_handle_t) {                                     \
    PLAIN##_put_nbi##SUFFIX(dest, source, nelems, pe);                                                               \
  }                                                                                                                  \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_get_nbi##SUFFIX(T *dest, const T *source, size_t nelems, int pe,            \
                                                         nvshmemx_qp_handle_t) {                                     \
    PLAIN##_get_nbi##SUFFIX(dest, source, nelems, pe);                                                               \
  }                                                                                                                  \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_put_signal##SUFFIX(T *dest, const T *source, size_t nelems,                 \
                                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, \
                                                            nvshmemx_qp_handle_t) {                                  \
    PLAIN##_put_signal##SUFFIX(dest, source, nelems, sig_addr, signal, sig_op, pe);                                  \
  }                                                                                                                  \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_put_signal_nbi##SUFFIX(T *dest, const T *source, size_t nelems,             \
                                                                uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                                                int pe, nvshmemx_qp_handle_t) {                      \
    PLAIN##_put_signal_nbi##SUFFIX(dest, source, nelems, sig_addr, signal, sig_op, pe);                              \
  }
#define NVSHM_DEFINE_QP_RMA(NAME, T)                                                               \
  NVSHM_QP_DEF void nvshmemx_qp_##NAME##_p(T *dest, const T value, int pe, nvshmemx_qp_handle_t) { \
    nvshmem_##NAME##_p(dest, value, pe);                                                           \
  }                                                                                                \
  NVSHM_QP_DEF T nvshmemx_qp_##NAME##_g(const T *source, int pe, nvshmemx_qp_handle_t) {           \
    return nvshmem_##NAME##_g(source, pe);                                                         \
  }                                                                                                \
  NVSHM_DEFINE_QP_RMA_SCOPE(NAME, T, , nvshmem_##NAME)                                             \
  NVSHM_DEFINE_QP_RMA_SCOPE(NAME, T, _warp, nvshmemx_##NAME)                                       \
  NVSHM_DEFINE_QP_RMA_SCOPE(NAME, T, _block, nvshmemx_##NAME)
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DEFINE_QP_RMA)
#undef NVSHM_DEFINE_QP_RMA
#undef NVSHM_DEFINE_QP_RMA_SCOPE

NVSHM_QP_DEF void nvshmemx_qp_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, nvshmemx_qp_handle_t) {
  nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}

/* Complete (quiet) or order (fence) the caller's operations; the group forms synchronise the group after
 * every thread's own system fence, so the group's operations are covered when any thread returns, and
 * where this PE runs a proxy one thread issues the group's quiet or fence marker (docs/proxy.md). */
NVSHM_QP_DEF void nvshmemx_qp_quiet(int, nvshmemx_qp_handle_t *, int) {
  nvshmem_quiet();
}
NVSHM_QP_DEF void nvshmemx_qp_quiet_warp(int, nvshmemx_qp_handle_t *, int) {
  nvshm_dev::fence_sc_sys();
  nvshm_dev::proxy_group_quiet<nvshm_dev::Scope::warp>();
}
NVSHM_QP_DEF void nvshmemx_qp_quiet_block(int, nvshmemx_qp_handle_t *, int) {
  nvshm_dev::fence_sc_sys();
  nvshm_dev::proxy_group_quiet<nvshm_dev::Scope::block>();
}
NVSHM_QP_DEF void nvshmemx_qp_fence(int, nvshmemx_qp_handle_t *, int) {
  nvshmem_fence();
}
NVSHM_QP_DEF void nvshmemx_qp_fence_warp(int, nvshmemx_qp_handle_t *, int) {
  nvshm_dev::fence_acq_rel_sys();
  nvshm_dev::proxy_group_fence<nvshm_dev::Scope::warp>();
}
NVSHM_QP_DEF void nvshmemx_qp_fence_block(int, nvshmemx_qp_handle_t *, int) {
  nvshm_dev::fence_acq_rel_sys();
  nvshm_dev::proxy_group_fence<nvshm_dev::Scope::block>();
}

#undef NVSHM_QP_DEF

#endif /* NVSHMEM_DETAIL_DEVICE_QP_API_CUH */
