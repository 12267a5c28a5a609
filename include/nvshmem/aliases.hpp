// SPDX-License-Identifier: BSD-3-Clause
// Prefix-stripped aliases of the C API: nvshmem::my_pe() is nvshmem_my_pe(), nvshmem::int_put_on_stream
// is nvshmemx_int_put_on_stream, ... Each is an inline one-line forward with the C function's
// signature and contract (NVSHMEM docs of the C name; docs/cpp.md has the table). Typed families are
// generated from the C API's type tables, so they follow the tables. Functions that the C API
// declares host+device are host+device here (device definitions come from nvshmem.h under nvcc);
// device-only families (_warp, _block) exist only under a CUDA compiler.
// Units, callers, thread safety: the C function's (NVSHM_FOR_EACH_* typed forms count elements of T,
// sized forms BITS-bit elements, *mem forms bytes); each section below says which calls are collective.
// Errors: as the C call (these forward; they never throw): the C status where it returns one (0 is
// success), else the C API's message and abort.
#pragma once

#include <nvshmemx.h>

namespace nvshmem {

// ---- setup, exit, query ----
// init, init_thread, init_attr and finalize are collective over all PEs (one thread each; finalize after
// every other call); get_uniqueid is called by one process before init; the queries and the version
// calls are local, any thread; global_exit ends every PE. Do not mix with nvshmem::Runtime: Runtime::init
// refuses a runtime started here, and finalize must not run while a Runtime owner is live.
inline void init() {
  ::nvshmem_init();
}
inline int init_thread(int requested, int *provided) {
  return ::nvshmem_init_thread(requested, provided);
}
inline void query_thread(int *provided) {
  ::nvshmem_query_thread(provided);
}
inline int init_attr(unsigned int flags, nvshmemx_init_attr_t *attr) {
  return ::nvshmemx_init_attr(flags, attr);
}
inline int init_status() {
  return ::nvshmemx_init_status();
}
inline void finalize() {
  ::nvshmem_finalize();
}
inline int get_uniqueid(nvshmemx_uniqueid_t *id) {
  return ::nvshmemx_get_uniqueid(id);
}
inline int set_attr_uniqueid_args(int rank, int nranks, const nvshmemx_uniqueid_t *id, nvshmemx_init_attr_t *attr) {
  return ::nvshmemx_set_attr_uniqueid_args(rank, nranks, id, attr);
}
NVSHM_HOSTDEVICE inline void global_exit(int status) {
  ::nvshmem_global_exit(status);
}
NVSHM_HOSTDEVICE inline int my_pe() {
  return ::nvshmem_my_pe();
}
NVSHM_HOSTDEVICE inline int n_pes() {
  return ::nvshmem_n_pes();
}
NVSHM_HOSTDEVICE inline int team_my_pe(nvshmem_team_t team) {
  return ::nvshmem_team_my_pe(team);
}
NVSHM_HOSTDEVICE inline int team_n_pes(nvshmem_team_t team) {
  return ::nvshmem_team_n_pes(team);
}
NVSHM_HOSTDEVICE inline int team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team) {
  return ::nvshmem_team_translate_pe(src_team, src_pe, dest_team);
}
// Teams (handles owned by the caller; nvshmem::UniqueTeam owns one for you): team_split_strided and
// team_split_2d are collective over the parent team, team_init over the new team's `npes` members,
// team_destroy over the team's members; team_get_uniqueid, team_translate_pe and team_get_config are
// local. The int results are the C status (0: success).
inline int team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                              const nvshmem_team_config_t *config, long config_mask, nvshmem_team_t *new_team) {
  return ::nvshmem_team_split_strided(parent_team, start, stride, size, config, config_mask, new_team);
}
inline int team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t *xaxis_config,
                         long xaxis_mask, nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                         long yaxis_mask, nvshmem_team_t *yaxis_team) {
  return ::nvshmem_team_split_2d(parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask,
                                 yaxis_team);
}
inline void team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config) {
  ::nvshmem_team_get_config(team, config);
}
inline void team_destroy(nvshmem_team_t team) {
  ::nvshmem_team_destroy(team);
}
inline int team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid) {
  return ::nvshmemx_team_get_uniqueid(uniqueid);
}
inline int team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask, int npes,
                     int pe_idx_in_team) {
  return ::nvshmemx_team_init(team, config, config_mask, npes, pe_idx_in_team);
}
NVSHM_HOSTDEVICE inline void info_get_version(int *major, int *minor) {
  ::nvshmem_info_get_version(major, minor);
}
inline void info_get_name(char *name) {
  ::nvshmem_info_get_name(name);
}
inline void vendor_get_version_info(int *major, int *minor, int *patch) {
  ::nvshmemx_vendor_get_version_info(major, minor, patch);
}

// ---- memory ----
// malloc, calloc, align and free are collective over all PEs (same sizes in the same order; sizes in
// bytes, calloc `count` objects of `size` bytes); they return NULL on every PE on failure. ptr and mc_ptr
// are local, any thread. buffer_register / buffer_unregister[_all] are local (`length` in bytes);
// buffer_register_symmetric / buffer_unregister_symmetric are collective over all PEs. Lifetime: memory
// lives until free / unregister (nvshmem::SymmetricBuffer frees for you).
inline void *malloc(size_t size) {
  return ::nvshmem_malloc(size);
}
inline void *calloc(size_t count, size_t size) {
  return ::nvshmem_calloc(count, size);
}
inline void *align(size_t alignment, size_t size) {
  return ::nvshmem_align(alignment, size);
}
inline void free(void *ptr) {
  ::nvshmem_free(ptr);
}
NVSHM_HOSTDEVICE inline void *ptr(const void *dest, int pe) {
  return ::nvshmem_ptr(dest, pe);
}
NVSHM_HOSTDEVICE inline void *mc_ptr(nvshmem_team_t team, const void *ptr) {
  return ::nvshmemx_mc_ptr(team, ptr);
}
inline int buffer_register(void *addr, size_t length) {
  return ::nvshmemx_buffer_register(addr, length);
}
inline int buffer_unregister(void *addr) {
  return ::nvshmemx_buffer_unregister(addr);
}
inline int buffer_unregister_all() {
  return ::nvshmemx_buffer_unregister_all();
}
inline void *buffer_register_symmetric(void *buf_ptr, size_t size, int flags) {
  return ::nvshmemx_buffer_register_symmetric(buf_ptr, size, flags);
}
inline int buffer_unregister_symmetric(void *mmap_ptr, size_t size) {
  return ::nvshmemx_buffer_unregister_symmetric(mmap_ptr, size);
}

// ---- RMA, typed (NVSHM_FOR_EACH_RMA_TYPE) ----
// One-sided (the calling PE alone, any thread); `nelems` in elements of T; blocking forms return with
// `source` reusable / `dest` filled, _nbi forms complete at quiet, _on_stream forms are enqueued on
// `stream` (heap in GPU memory).
#define NVSHM_CPP_ALIAS_RMA(NAME, T)                                                                           \
  NVSHM_HOSTDEVICE inline void NAME##_p(T *dest, const T value, int pe) {                                      \
    ::nvshmem_##NAME##_p(dest, value, pe);                                                                     \
  }                                                                                                            \
  NVSHM_HOSTDEVICE inline T NAME##_g(const T *source, int pe) {                                                \
    return ::nvshmem_##NAME##_g(source, pe);                                                                   \
  }                                                                                                            \
  NVSHM_HOSTDEVICE inline void NAME##_put(T *dest, const T *source, size_t nelems, int pe) {                   \
    ::nvshmem_##NAME##_put(dest, source, nelems, pe);                                                          \
  }                                                                                                            \
  NVSHM_HOSTDEVICE inline void NAME##_get(T *dest, const T *source, size_t nelems, int pe) {                   \
    ::nvshmem_##NAME##_get(dest, source, nelems, pe);                                                          \
  }                                                                                                            \
  NVSHM_HOSTDEVICE inline void NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe) {               \
    ::nvshmem_##NAME##_put_nbi(dest, source, nelems, pe);                                                      \
  }                                                                                                            \
  NVSHM_HOSTDEVICE inline void NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe) {               \
    ::nvshmem_##NAME##_get_nbi(dest, source, nelems, pe);                                                      \
  }                                                                                                            \
  inline void NAME##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {     \
    ::nvshmemx_##NAME##_put_on_stream(dest, source, nelems, pe, stream);                                       \
  }                                                                                                            \
  inline void NAME##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) {     \
    ::nvshmemx_##NAME##_get_on_stream(dest, source, nelems, pe, stream);                                       \
  }                                                                                                            \
  inline void NAME##_put_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) { \
    ::nvshmemx_##NAME##_put_nbi_on_stream(dest, source, nelems, pe, stream);                                   \
  }                                                                                                            \
  inline void NAME##_get_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream) { \
    ::nvshmemx_##NAME##_get_nbi_on_stream(dest, source, nelems, pe, stream);                                   \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_ALIAS_RMA)
#undef NVSHM_CPP_ALIAS_RMA

// ---- RMA, sized (NVSHM_FOR_EACH_RMA_SIZE): nelems counts BITS-bit elements ----
#define NVSHM_CPP_ALIAS_SIZED(BITS, T)                                                                  \
  NVSHM_HOSTDEVICE inline void put##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    ::nvshmem_put##BITS(dest, source, nelems, pe);                                                      \
  }                                                                                                     \
  NVSHM_HOSTDEVICE inline void get##BITS(void *dest, const void *source, size_t nelems, int pe) {       \
    ::nvshmem_get##BITS(dest, source, nelems, pe);                                                      \
  }                                                                                                     \
  NVSHM_HOSTDEVICE inline void put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    ::nvshmem_put##BITS##_nbi(dest, source, nelems, pe);                                                \
  }                                                                                                     \
  NVSHM_HOSTDEVICE inline void get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe) { \
    ::nvshmem_get##BITS##_nbi(dest, source, nelems, pe);                                                \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_CPP_ALIAS_SIZED)
#undef NVSHM_CPP_ALIAS_SIZED
#define NVSHM_CPP_ALIAS_SIZED_MORE(BITS, T)                                                                            \
  NVSHM_HOSTDEVICE inline void iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                          int pe) {                                                                    \
    ::nvshmem_iput##BITS(dest, source, dst, sst, nelems, pe);                                                          \
  }                                                                                                                    \
  NVSHM_HOSTDEVICE inline void iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, \
                                          int pe) {                                                                    \
    ::nvshmem_iget##BITS(dest, source, dst, sst, nelems, pe);                                                          \
  }                                                                                                                    \
  inline void put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {      \
    ::nvshmemx_put##BITS##_on_stream(dest, source, nelems, pe, stream);                                                \
  }                                                                                                                    \
  inline void get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {      \
    ::nvshmemx_get##BITS##_on_stream(dest, source, nelems, pe, stream);                                                \
  }                                                                                                                    \
  inline void put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {  \
    ::nvshmemx_put##BITS##_nbi_on_stream(dest, source, nelems, pe, stream);                                            \
  }                                                                                                                    \
  inline void get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream) {  \
    ::nvshmemx_get##BITS##_nbi_on_stream(dest, source, nelems, pe, stream);                                            \
  }                                                                                                                    \
  inline void iput##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                                     int pe, cudaStream_t stream) {                                                    \
    ::nvshmemx_iput##BITS##_on_stream(dest, source, dst, sst, nelems, pe, stream);                                     \
  }                                                                                                                    \
  inline void iget##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,      \
                                     int pe, cudaStream_t stream) {                                                    \
    ::nvshmemx_iget##BITS##_on_stream(dest, source, dst, sst, nelems, pe, stream);                                     \
  }                                                                                                                    \
  inline void put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,          \
                                           uint64_t signal, int sig_op, int pe, cudaStream_t stream) {                 \
    ::nvshmemx_put##BITS##_signal_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);               \
  }                                                                                                                    \
  inline void put##BITS##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,      \
                                               uint64_t signal, int sig_op, int pe, cudaStream_t stream) {             \
    ::nvshmemx_put##BITS##_signal_nbi_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);           \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_CPP_ALIAS_SIZED_MORE)
#undef NVSHM_CPP_ALIAS_SIZED_MORE

// ---- RMA, bytes ----
// As the typed forms, `nbytes` in bytes.
NVSHM_HOSTDEVICE inline void putmem(void *dest, const void *source, size_t nbytes, int pe) {
  ::nvshmem_putmem(dest, source, nbytes, pe);
}
NVSHM_HOSTDEVICE inline void getmem(void *dest, const void *source, size_t nbytes, int pe) {
  ::nvshmem_getmem(dest, source, nbytes, pe);
}
NVSHM_HOSTDEVICE inline void putmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  ::nvshmem_putmem_nbi(dest, source, nbytes, pe);
}
NVSHM_HOSTDEVICE inline void getmem_nbi(void *dest, const void *source, size_t nbytes, int pe) {
  ::nvshmem_getmem_nbi(dest, source, nbytes, pe);
}
inline void putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  ::nvshmemx_putmem_on_stream(dest, source, nbytes, pe, stream);
}
inline void getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  ::nvshmemx_getmem_on_stream(dest, source, nbytes, pe, stream);
}
inline void putmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  ::nvshmemx_putmem_nbi_on_stream(dest, source, nbytes, pe, stream);
}
inline void getmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream) {
  ::nvshmemx_getmem_nbi_on_stream(dest, source, nbytes, pe, stream);
}

// ---- strided, stream p/g/iput/iget, put-with-signal on a stream (NVSHM_FOR_EACH_RMA_TYPE) ----
// One-sided, as the typed RMA; strides `dst`/`sst` in elements; the signal is an NVSHMEM_SIGNAL_SET/ADD
// (`sig_op`) of `signal` on `pe`'s symmetric `*sig_addr`, after the data.
#define NVSHM_CPP_ALIAS_RMA_MORE(NAME, T)                                                                          \
  NVSHM_HOSTDEVICE inline void NAME##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                           int pe) {                                                               \
    ::nvshmem_##NAME##_iput(dest, source, dst, sst, nelems, pe);                                                   \
  }                                                                                                                \
  NVSHM_HOSTDEVICE inline void NAME##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                           int pe) {                                                               \
    ::nvshmem_##NAME##_iget(dest, source, dst, sst, nelems, pe);                                                   \
  }                                                                                                                \
  inline void NAME##_p_on_stream(T *dest, const T value, int pe, cudaStream_t stream) {                            \
    ::nvshmemx_##NAME##_p_on_stream(dest, value, pe, stream);                                                      \
  }                                                                                                                \
  inline T NAME##_g_on_stream(const T *source, int pe, cudaStream_t stream) {                                      \
    return ::nvshmemx_##NAME##_g_on_stream(source, pe, stream);                                                    \
  }                                                                                                                \
  inline void NAME##_iput_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
                                    cudaStream_t stream) {                                                         \
    ::nvshmemx_##NAME##_iput_on_stream(dest, source, dst, sst, nelems, pe, stream);                                \
  }                                                                                                                \
  inline void NAME##_iget_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe, \
                                    cudaStream_t stream) {                                                         \
    ::nvshmemx_##NAME##_iget_on_stream(dest, source, dst, sst, nelems, pe, stream);                                \
  }                                                                                                                \
  inline void NAME##_put_signal_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,             \
                                          uint64_t signal, int sig_op, int pe, cudaStream_t stream) {              \
    ::nvshmemx_##NAME##_put_signal_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);          \
  }                                                                                                                \
  inline void NAME##_put_signal_nbi_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,         \
                                              uint64_t signal, int sig_op, int pe, cudaStream_t stream) {          \
    ::nvshmemx_##NAME##_put_signal_nbi_on_stream(dest, source, nelems, sig_addr, signal, sig_op, pe, stream);      \
  }
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_ALIAS_RMA_MORE)
#undef NVSHM_CPP_ALIAS_RMA_MORE

// ---- atomics (NVSHM_FOR_EACH_AMO_*_TYPE) ----
// One-sided, one thread per call, any thread; on `pe`'s copy of the symmetric `*dest`; fetch forms,
// compare_swap and swap return the old value.
#define NVSHM_CPP_ALIAS_AMO_ARITH(NAME, T)                                                 \
  NVSHM_HOSTDEVICE inline void NAME##_atomic_inc(T *dest, int pe) {                        \
    ::nvshmem_##NAME##_atomic_inc(dest, pe);                                               \
  }                                                                                        \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_fetch_inc(T *dest, int pe) {                     \
    return ::nvshmem_##NAME##_atomic_fetch_inc(dest, pe);                                  \
  }                                                                                        \
  NVSHM_HOSTDEVICE inline void NAME##_atomic_add(T *dest, T value, int pe) {               \
    ::nvshmem_##NAME##_atomic_add(dest, value, pe);                                        \
  }                                                                                        \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_fetch_add(T *dest, T value, int pe) {            \
    return ::nvshmem_##NAME##_atomic_fetch_add(dest, value, pe);                           \
  }                                                                                        \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe) { \
    return ::nvshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                  \
  }
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_CPP_ALIAS_AMO_ARITH)
#undef NVSHM_CPP_ALIAS_AMO_ARITH
#define NVSHM_CPP_ALIAS_AMO_FETCH(NAME, T)                                   \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_fetch(const T *source, int pe) {   \
    return ::nvshmem_##NAME##_atomic_fetch(source, pe);                      \
  }                                                                          \
  NVSHM_HOSTDEVICE inline void NAME##_atomic_set(T *dest, T value, int pe) { \
    ::nvshmem_##NAME##_atomic_set(dest, value, pe);                          \
  }                                                                          \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_swap(T *dest, T value, int pe) {   \
    return ::nvshmem_##NAME##_atomic_swap(dest, value, pe);                  \
  }
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_CPP_ALIAS_AMO_FETCH)
#undef NVSHM_CPP_ALIAS_AMO_FETCH
#define NVSHM_CPP_ALIAS_AMO_LOGIC_OP(NAME, T, OP)                                \
  NVSHM_HOSTDEVICE inline void NAME##_atomic_##OP(T *dest, T value, int pe) {    \
    ::nvshmem_##NAME##_atomic_##OP(dest, value, pe);                             \
  }                                                                              \
  NVSHM_HOSTDEVICE inline T NAME##_atomic_fetch_##OP(T *dest, T value, int pe) { \
    return ::nvshmem_##NAME##_atomic_fetch_##OP(dest, value, pe);                \
  }
#define NVSHM_CPP_ALIAS_AMO_LOGIC(NAME, T)   \
  NVSHM_CPP_ALIAS_AMO_LOGIC_OP(NAME, T, and) \
  NVSHM_CPP_ALIAS_AMO_LOGIC_OP(NAME, T, or) NVSHM_CPP_ALIAS_AMO_LOGIC_OP(NAME, T, xor)
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_CPP_ALIAS_AMO_LOGIC)
#undef NVSHM_CPP_ALIAS_AMO_LOGIC
#undef NVSHM_CPP_ALIAS_AMO_LOGIC_OP

// ---- signals ----
// One-sided: signal_op on `pe`'s signal word, signal_fetch of this PE's; the _on_stream forms are
// enqueued on `stream` (heap in GPU memory); putmem_signal* move `nbytes` bytes, then signal.
NVSHM_HOSTDEVICE inline void signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  ::nvshmemx_signal_op(sig_addr, signal, sig_op, pe);
}
NVSHM_HOSTDEVICE inline uint64_t signal_fetch(uint64_t *sig_addr) {
  return ::nvshmem_signal_fetch(sig_addr);
}
inline void signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  ::nvshmemx_signal_op_on_stream(sig_addr, signal, sig_op, pe, stream);
}
inline void signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream) {
  ::nvshmemx_signal_wait_until_on_stream(sig_addr, cmp, cmp_value, stream);
}
inline void putmem_signal_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                    int sig_op, int pe, cudaStream_t stream) {
  ::nvshmemx_putmem_signal_on_stream(dest, source, nbytes, sig_addr, signal, sig_op, pe, stream);
}
inline void putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe, cudaStream_t stream) {
  ::nvshmemx_putmem_signal_nbi_on_stream(dest, source, nbytes, sig_addr, signal, sig_op, pe, stream);
}

// ---- point-to-point synchronisation on a stream (NVSHM_FOR_EACH_WAIT_TYPE) ----
// Local: later work on `stream` waits until this PE's words compare `cmp` to the value(s); `nelems` words.
#define NVSHM_CPP_ALIAS_WAIT(NAME, T)                                                                           \
  inline void NAME##_wait_until_on_stream(T *ivar, int cmp, T cmp_value, cudaStream_t stream) {                 \
    ::nvshmemx_##NAME##_wait_until_on_stream(ivar, cmp, cmp_value, stream);                                     \
  }                                                                                                             \
  inline void NAME##_wait_until_all_on_stream(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value, \
                                              cudaStream_t stream) {                                            \
    ::nvshmemx_##NAME##_wait_until_all_on_stream(ivars, nelems, status, cmp, cmp_value, stream);                \
  }                                                                                                             \
  inline void NAME##_wait_until_all_vector_on_stream(T *ivars, size_t nelems, const int *status, int cmp,       \
                                                     T *cmp_values, cudaStream_t stream) {                      \
    ::nvshmemx_##NAME##_wait_until_all_vector_on_stream(ivars, nelems, status, cmp, cmp_values, stream);        \
  }
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_CPP_ALIAS_WAIT)
#undef NVSHM_CPP_ALIAS_WAIT

// ---- collectives (NVSHM_FOR_EACH_COLL_TYPE, NVSHM_FOR_EACH_REDUCE_OP_TYPE) ----
// Collective over `team` (every member, one thread each, same order); counts in elements of T (the *mem
// forms' `nelems` counts bytes); return the C status (0: success) instead of throwing (the generics of
// nvshmem/collectives.hpp throw Error).
NVSHM_HOSTDEVICE inline int barrier(nvshmem_team_t team) {
  return ::nvshmem_barrier(team);
}
NVSHM_HOSTDEVICE inline int team_sync(nvshmem_team_t team) {
  return ::nvshmem_team_sync(team);
}
inline int barrier_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return ::nvshmemx_barrier_on_stream(team, stream);
}
inline int team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream) {
  return ::nvshmemx_team_sync_on_stream(team, stream);
}
#define NVSHM_CPP_ALIAS_COLL(NAME, T)                                                                              \
  NVSHM_HOSTDEVICE inline int NAME##_broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems,       \
                                               int PE_root) {                                                      \
    return ::nvshmem_##NAME##_broadcast(team, dest, source, nelems, PE_root);                                      \
  }                                                                                                                \
  NVSHM_HOSTDEVICE inline int NAME##_fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {      \
    return ::nvshmem_##NAME##_fcollect(team, dest, source, nelems);                                                \
  }                                                                                                                \
  NVSHM_HOSTDEVICE inline int NAME##_alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {      \
    return ::nvshmem_##NAME##_alltoall(team, dest, source, nelems);                                                \
  }                                                                                                                \
  inline int NAME##_broadcast_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root, \
                                        cudaStream_t stream) {                                                     \
    return ::nvshmemx_##NAME##_broadcast_on_stream(team, dest, source, nelems, PE_root, stream);                   \
  }                                                                                                                \
  inline int NAME##_fcollect_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,               \
                                       cudaStream_t stream) {                                                      \
    return ::nvshmemx_##NAME##_fcollect_on_stream(team, dest, source, nelems, stream);                             \
  }                                                                                                                \
  inline int NAME##_alltoall_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,               \
                                       cudaStream_t stream) {                                                      \
    return ::nvshmemx_##NAME##_alltoall_on_stream(team, dest, source, nelems, stream);                             \
  }
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_ALIAS_COLL)
#undef NVSHM_CPP_ALIAS_COLL
NVSHM_HOSTDEVICE inline int broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                         int PE_root) {
  return ::nvshmem_broadcastmem(team, dest, source, nelems, PE_root);
}
NVSHM_HOSTDEVICE inline int fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return ::nvshmem_fcollectmem(team, dest, source, nelems);
}
NVSHM_HOSTDEVICE inline int alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return ::nvshmem_alltoallmem(team, dest, source, nelems);
}
inline int broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root,
                                  cudaStream_t stream) {
  return ::nvshmemx_broadcastmem_on_stream(team, dest, source, nelems, PE_root, stream);
}
inline int fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                 cudaStream_t stream) {
  return ::nvshmemx_fcollectmem_on_stream(team, dest, source, nelems, stream);
}
inline int alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                 cudaStream_t stream) {
  return ::nvshmemx_alltoallmem_on_stream(team, dest, source, nelems, stream);
}
#define NVSHM_CPP_ALIAS_REDUCE(OP, NAME, T)                                                                         \
  NVSHM_HOSTDEVICE inline int NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) { \
    return ::nvshmem_##NAME##_##OP##_reduce(team, dest, source, nreduce);                                           \
  }                                                                                                                 \
  NVSHM_HOSTDEVICE inline int NAME##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source,            \
                                                          size_t nreduce) {                                         \
    return ::nvshmem_##NAME##_##OP##_reducescatter(team, dest, source, nreduce);                                    \
  }                                                                                                                 \
  inline int NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,          \
                                            cudaStream_t stream) {                                                  \
    return ::nvshmemx_##NAME##_##OP##_reduce_on_stream(team, dest, source, nreduce, stream);                        \
  }                                                                                                                 \
  inline int NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,   \
                                                   cudaStream_t stream) {                                           \
    return ::nvshmemx_##NAME##_##OP##_reducescatter_on_stream(team, dest, source, nreduce, stream);                 \
  }
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_ALIAS_REDUCE)
#undef NVSHM_CPP_ALIAS_REDUCE

// ---- ordering and synchronisation ----
// quiet, fence and quiet_on_stream are local (this PE's RMA); barrier_all, sync_all and their _on_stream
// forms are collective over all PEs.
NVSHM_HOSTDEVICE inline void quiet() {
  ::nvshmem_quiet();
}
NVSHM_HOSTDEVICE inline void fence() {
  ::nvshmem_fence();
}
NVSHM_HOSTDEVICE inline void barrier_all() {
  ::nvshmem_barrier_all();
}
NVSHM_HOSTDEVICE inline void sync_all() {
  ::nvshmem_sync_all();
}
inline void quiet_on_stream(cudaStream_t stream) {
  ::nvshmemx_quiet_on_stream(stream);
}
inline void barrier_all_on_stream(cudaStream_t stream) {
  ::nvshmemx_barrier_all_on_stream(stream);
}
inline void sync_all_on_stream(cudaStream_t stream) {
  ::nvshmemx_sync_all_on_stream(stream);
}

// ---- driver-API modules ----
// On every PE that loaded the module/library, after init; _finalize before unloading it. Return the C
// status (nvshmem::Runtime::register_module throws instead and finalizes for you).
inline int cumodule_init(CUmodule module) {
  return ::nvshmemx_cumodule_init(module);
}
inline int cumodule_finalize(CUmodule module) {
  return ::nvshmemx_cumodule_finalize(module);
}
inline int culibrary_init(CUlibrary library) {
  return ::nvshmemx_culibrary_init(library);
}
inline int culibrary_finalize(CUlibrary library) {
  return ::nvshmemx_culibrary_finalize(library);
}

#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY
// ---- device-only group forms: nvshmem::int_put_warp is nvshmemx_int_put_warp, ... ----
// _warp: every thread of the warp calls with the same arguments; _block: every thread of the block.
#define NVSHM_CPP_ALIAS_GROUP_SCOPE(NAME, T, S)                                                \
  __device__ inline void NAME##_put_##S(T *dest, const T *source, size_t nelems, int pe) {     \
    ::nvshmemx_##NAME##_put_##S(dest, source, nelems, pe);                                     \
  }                                                                                            \
  __device__ inline void NAME##_get_##S(T *dest, const T *source, size_t nelems, int pe) {     \
    ::nvshmemx_##NAME##_get_##S(dest, source, nelems, pe);                                     \
  }                                                                                            \
  __device__ inline void NAME##_put_nbi_##S(T *dest, const T *source, size_t nelems, int pe) { \
    ::nvshmemx_##NAME##_put_nbi_##S(dest, source, nelems, pe);                                 \
  }                                                                                            \
  __device__ inline void NAME##_get_nbi_##S(T *dest, const T *source, size_t nelems, int pe) { \
    ::nvshmemx_##NAME##_get_nbi_##S(dest, source, nelems, pe);                                 \
  }
#define NVSHM_CPP_ALIAS_GROUP(NAME, T) \
  NVSHM_CPP_ALIAS_GROUP_SCOPE(NAME, T, warp) NVSHM_CPP_ALIAS_GROUP_SCOPE(NAME, T, block)
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_CPP_ALIAS_GROUP)
#undef NVSHM_CPP_ALIAS_GROUP
#undef NVSHM_CPP_ALIAS_GROUP_SCOPE
// sized put-with-signal (device-only in NVSHMEM): nvshmem::put64_signal is nvshmem_put64_signal, ...
#define NVSHM_CPP_ALIAS_SIZED_SIGNAL(BITS, T)                                                                      \
  __device__ inline void put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,     \
                                            uint64_t signal, int sig_op, int pe) {                                 \
    ::nvshmem_put##BITS##_signal(dest, source, nelems, sig_addr, signal, sig_op, pe);                              \
  }                                                                                                                \
  __device__ inline void put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, \
                                                uint64_t signal, int sig_op, int pe) {                             \
    ::nvshmem_put##BITS##_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe);                          \
  }
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_CPP_ALIAS_SIZED_SIGNAL)
#undef NVSHM_CPP_ALIAS_SIZED_SIGNAL
// collectives by group: nvshmem::barrier_block is nvshmemx_barrier_block, nvshmem::int_sum_reduce_warp ...
#define NVSHM_CPP_ALIAS_COLL_GROUP_SCOPE(NAME, T, S)                                                        \
  __device__ inline int NAME##_broadcast_##S(nvshmem_team_t team, T *dest, const T *source, size_t nelems,  \
                                             int PE_root) {                                                 \
    return ::nvshmemx_##NAME##_broadcast_##S(team, dest, source, nelems, PE_root);                          \
  }                                                                                                         \
  __device__ inline int NAME##_fcollect_##S(nvshmem_team_t team, T *dest, const T *source, size_t nelems) { \
    return ::nvshmemx_##NAME##_fcollect_##S(team, dest, source, nelems);                                    \
  }                                                                                                         \
  __device__ inline int NAME##_alltoall_##S(nvshmem_team_t team, T *dest, const T *source, size_t nelems) { \
    return ::nvshmemx_##NAME##_alltoall_##S(team, dest, source, nelems);                                    \
  }
#define NVSHM_CPP_ALIAS_COLL_GROUP(NAME, T) \
  NVSHM_CPP_ALIAS_COLL_GROUP_SCOPE(NAME, T, warp) NVSHM_CPP_ALIAS_COLL_GROUP_SCOPE(NAME, T, block)
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_CPP_ALIAS_COLL_GROUP)
#undef NVSHM_CPP_ALIAS_COLL_GROUP
#undef NVSHM_CPP_ALIAS_COLL_GROUP_SCOPE
#define NVSHM_CPP_ALIAS_REDUCE_GROUP_SCOPE(OP, NAME, T, S)                                                        \
  __device__ inline int NAME##_##OP##_reduce_##S(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) { \
    return ::nvshmemx_##NAME##_##OP##_reduce_##S(team, dest, source, nreduce);                                    \
  }                                                                                                               \
  __device__ inline int NAME##_##OP##_reducescatter_##S(nvshmem_team_t team, T *dest, const T *source,            \
                                                        size_t nreduce) {                                         \
    return ::nvshmemx_##NAME##_##OP##_reducescatter_##S(team, dest, source, nreduce);                             \
  }
#define NVSHM_CPP_ALIAS_REDUCE_GROUP(OP, NAME, T) \
  NVSHM_CPP_ALIAS_REDUCE_GROUP_SCOPE(OP, NAME, T, warp) NVSHM_CPP_ALIAS_REDUCE_GROUP_SCOPE(OP, NAME, T, block)
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_CPP_ALIAS_REDUCE_GROUP)
#undef NVSHM_CPP_ALIAS_REDUCE_GROUP
#undef NVSHM_CPP_ALIAS_REDUCE_GROUP_SCOPE
#define NVSHM_CPP_ALIAS_TEAM_GROUP(S)                        \
  __device__ inline int barrier_##S(nvshmem_team_t team) {   \
    return ::nvshmemx_barrier_##S(team);                     \
  }                                                          \
  __device__ inline int team_sync_##S(nvshmem_team_t team) { \
    return ::nvshmemx_team_sync_##S(team);                   \
  }
NVSHM_CPP_ALIAS_TEAM_GROUP(warp)
NVSHM_CPP_ALIAS_TEAM_GROUP(block)
#undef NVSHM_CPP_ALIAS_TEAM_GROUP
__device__ inline void barrier_all_warp() {
  ::nvshmemx_barrier_all_warp();
}
__device__ inline void barrier_all_block() {
  ::nvshmemx_barrier_all_block();
}
__device__ inline void sync_all_warp() {
  ::nvshmemx_sync_all_warp();
}
__device__ inline void sync_all_block() {
  ::nvshmemx_sync_all_block();
}
#endif

}  // namespace nvshmem
