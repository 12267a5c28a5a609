// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated remote memory access (NVSHMEM docs: "Remote Memory Access Routines"), every typed
// form generated from the type table. The transport does the copy; this layer checks arguments.
#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {
enum class Op { put, get, put_nbi, get_nbi };

// A transfer of 0 bytes returns after the init check, whatever its pointers and PE (OpenSHMEM 1.5,
// Annex C; docs/compatibility.md).
void rma(const char *call, Op op, void *dest, const void *source, std::size_t bytes, int pe) {
  Runtime &rt = require_init(call);
  if (bytes == 0) return;
  const bool is_put = op == Op::put || op == Op::put_nbi;
  const Target remote = require_target(rt, is_put ? dest : source, bytes, pe, call, is_put ? "dest" : "source");
  require_local(is_put ? source : dest, bytes, call, is_put ? "source" : "dest");
  ContextGuard guard(rt.context);
  Peers &p = *rt.peers;
  Status st = Status::ok;
  switch (op) {
    case Op::put:
      st = p.put(remote, source, bytes);
      break;
    case Op::get:
      st = p.get(dest, remote, bytes);
      break;
    case Op::put_nbi:
      st = p.put_nbi(remote, source, bytes);
      break;
    case Op::get_nbi:
      st = p.get_nbi(dest, remote, bytes);
      break;
  }
  require_ok(st, call);
}

// Strided: strides in elements (at least 1); every element lies inside the heap on `pe`.
void strided(const char *call, bool is_put, void *dest, const void *source, std::ptrdiff_t dst, std::ptrdiff_t sst,
             std::size_t elem, std::size_t nelems, int pe) {
  Runtime &rt = require_init(call);
  if (dst < 1 || sst < 1) fatal(call, "strides must be at least 1 (dst %td, sst %td)", dst, sst);
  if (nelems == 0) return;
  const std::ptrdiff_t sym_stride = is_put ? dst : sst;
  const std::size_t span = (nelems - 1) * static_cast<std::size_t>(sym_stride) * elem + elem;
  const Target remote = require_target(rt, is_put ? dest : source, span, pe, call, is_put ? "dest" : "source");
  require_local(is_put ? source : dest, nelems * elem, call, is_put ? "source" : "dest");
  ContextGuard guard(rt.context);
  const std::ptrdiff_t e = static_cast<std::ptrdiff_t>(elem);
  // The local side of a put is only read.
  require_ok(is_put ? rt.peers->strided(true, remote, dst * e, const_cast<void *>(source), sst * e, elem, nelems)
                    : rt.peers->strided(false, remote, sst * e, dest, dst * e, elem, nelems),
             call);
}
}  // namespace

extern "C" {

#define NVSHM_HOST_STRIDED(NAME, T)                                                                           \
  void nvshmem_##NAME##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    strided("nvshmem_" #NAME "_iput", true, dest, source, dst, sst, sizeof(T), nelems, pe);                   \
  }                                                                                                           \
  void nvshmem_##NAME##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    strided("nvshmem_" #NAME "_iget", false, dest, source, dst, sst, sizeof(T), nelems, pe);                  \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_HOST_STRIDED)
#undef NVSHM_HOST_STRIDED
#define NVSHM_HOST_SIZED_STRIDED(BITS, T)                                                                        \
  void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    strided("nvshmem_iput" #BITS, true, dest, source, dst, sst, sizeof(T), nelems, pe);                          \
  }                                                                                                              \
  void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { \
    strided("nvshmem_iget" #BITS, false, dest, source, dst, sst, sizeof(T), nelems, pe);                         \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_HOST_SIZED_STRIDED)
#undef NVSHM_HOST_SIZED_STRIDED

#define NVSHM_HOST_RMA(NAME, T)                                                          \
  void nvshmem_##NAME##_p(T *dest, const T value, int pe) {                              \
    rma("nvshmem_" #NAME "_p", Op::put, dest, &value, sizeof(T), pe);                    \
  }                                                                                      \
  T nvshmem_##NAME##_g(const T *source, int pe) {                                        \
    T value;                                                                             \
    rma("nvshmem_" #NAME "_g", Op::get, &value, source, sizeof(T), pe);                  \
    return value;                                                                        \
  }                                                                                      \
  void nvshmem_##NAME##_put(T *dest, const T *source, size_t nelems, int pe) {           \
    rma("nvshmem_" #NAME "_put", Op::put, dest, source, nelems * sizeof(T), pe);         \
  }                                                                                      \
  void nvshmem_##NAME##_get(T *dest, const T *source, size_t nelems, int pe) {           \
    rma("nvshmem_" #NAME "_get", Op::get, dest, source, nelems * sizeof(T), pe);         \
  }                                                                                      \
  void nvshmem_##NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {       \
    rma("nvshmem_" #NAME "_put_nbi", Op::put_nbi, dest, source, nelems * sizeof(T), pe); \
  }                                                                                      \
  void nvshmem_##NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {       \
    rma("nvshmem_" #NAME "_get_nbi", Op::get_nbi, dest, source, nelems * sizeof(T), pe); \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_HOST_RMA)
#undef NVSHM_HOST_RMA

#define NVSHM_HOST_SIZED_RMA(BITS, T)                                                   \
  void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    rma("nvshmem_put" #BITS, Op::put, dest, source, nelems * sizeof(T), pe);            \
  }                                                                                     \
  void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    rma("nvshmem_get" #BITS, Op::get, dest, source, nelems * sizeof(T), pe);            \
  }                                                                                     \
  void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    rma("nvshmem_put" #BITS "_nbi", Op::put_nbi, dest, source, nelems * sizeof(T), pe); \
  }                                                                                     \
  void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    rma("nvshmem_get" #BITS "_nbi", Op::get_nbi, dest, source, nelems * sizeof(T), pe); \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_HOST_SIZED_RMA)
#undef NVSHM_HOST_SIZED_RMA

void nvshmem_putmem(void *dest, const void *source, size_t nbytes, int pe) {
  rma("nvshmem_putmem", Op::put, dest, source, nbytes, pe);
}
void nvshmem_getmem(void *dest, const void *source, size_t nbytes, int pe) {
  rma("nvshmem_getmem", Op::get, dest, source, nbytes, pe);
}
void nvshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  rma("nvshmem_putmem_nbi", Op::put_nbi, dest, source, nbytes, pe);
}
void nvshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  rma("nvshmem_getmem_nbi", Op::get_nbi, dest, source, nbytes, pe);
}

}  // extern "C"
