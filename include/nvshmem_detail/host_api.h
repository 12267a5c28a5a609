/* SPDX-License-Identifier: BSD-3-Clause */
/* Declarations of every host-callable entry point (host-only, host+device, and *_on_stream).
 * Units: `nelems` counts elements of the named type, `nbytes` counts bytes. Unless a function says
 * otherwise it may be called by any thread of a PE after initialisation (NVSHMEM_THREAD_MULTIPLE for
 * RMA and quiet; init, finalize, heap calls and barriers are called by one thread per PE, all PEs).
 * Errors in calls that return no status print a message naming the call, the PE and the cause, then
 * abort (NVSHMEM's behaviour). */
#ifndef NVSHMEM_DETAIL_HOST_API_H
#define NVSHMEM_DETAIL_HOST_API_H

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "nvshmem_detail/macros.h"
#include "nvshmem_detail/type_lists.h"
#include "nvshmem_detail/types.h"

NVSHM_EXTERN_C_BEGIN

/* ---- Library setup, exit and query (NVSHMEM docs: "Library Setup, Exit, and Query Routines") ---- */

/* Initialise the runtime: bootstrap from nvshmrun's environment (or a 1-PE job without a launcher),
 * pick a GPU (node-local PE index mod visible GPUs, unless a context is already current), map the
 * symmetric heap. Every PE calls it once per init/finalize cycle. Aborts with a message on failure. */
NVSHM_API void nvshmem_init(void);
/* As nvshmem_init; *provided receives the thread level (NVSHMEM_THREAD_MULTIPLE). Returns 0. */
NVSHM_API int nvshmem_init_thread(int requested, int *provided);
NVSHM_API void nvshmem_query_thread(int *provided);
/* Initialise with explicit bootstrap attributes: flags 0 (launcher/environment) or
 * NVSHMEMX_INIT_WITH_UNIQUEID (attr from nvshmemx_set_attr_uniqueid_args). Returns 0 or an
 * nvshmemx_status error code after printing why. */
NVSHM_API int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);
/* The host-library entry pair NVIDIA offers host-only users (its device archive is bypassed): here
 * the same as nvshmemx_init_attr and nvshmem_finalize. */
NVSHM_API int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);
NVSHM_API void nvshmemx_hostlib_finalize(void);
/* NVSHMEM_STATUS_NOT_INITIALIZED before init and after finalize; between them
 * NVSHMEM_STATUS_IS_INITIALIZED, or where several PEs share this PE's GPU NVSHMEM_STATUS_FULL_MPG (under
 * MPS, with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE parts that add up to at most 100, or
 * NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) or NVSHMEM_STATUS_LIMITED_MPG (otherwise). Under MPS
 * either way a collective launch gets 1/n of the GPU's grid for n PEs on it, unless that variable is set
 * (docs/compatibility.md, "Several PEs on one GPU"). Any thread. */
NVSHM_API int nvshmemx_init_status(void);
/* Collective: quiet, barrier, unmap the heap, close the bootstrap. A second call is harmless. */
NVSHM_API void nvshmem_finalize(void);
/* Terminate every PE of the job with `status` (no collective call needed). */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_global_exit(int status);

NVSHM_HOSTDEVICE NVSHM_API int nvshmem_my_pe(void);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_n_pes(void);
/* OpenSHMEM specification level: 1.3. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_info_get_version(int *major, int *minor);
/* "NVSHMEM v<major>.<minor>.<patch>" of this library, at most NVSHMEM_MAX_NAME_LEN bytes with the NUL. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_info_get_name(char *name);
NVSHM_HOSTDEVICE NVSHM_API void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch);

/* Unique-id bootstrap: one process calls nvshmemx_get_uniqueid (it starts the rendezvous there),
 * spreads the 128-byte id by its own means, and every process passes it with its rank. */
NVSHM_API int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid);
NVSHM_API int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const nvshmemx_uniqueid_t *uniqueid,
                                              nvshmemx_init_attr_t *attr);
/* MPI-communicator bootstrap: attr->mpi_comm = mpi_comm, a pointer to the application's MPI_Comm, for
 * nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, attr). MPI must stay initialised until nvshmem_finalize.
 * Returns 0, or NVSHMEMX_ERROR_INVALID_VALUE when an argument is NULL. */
NVSHM_API int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *attr);

/* ---- Teams ("Team Management"; docs/teams.md) ----
 * A team handle is local to a PE: it names a slot of this PE's table of NVSHMEM_MAX_TEAMS slots.
 * Predefined: NVSHMEM_TEAM_WORLD, NVSHMEM_TEAM_SHARED and NVSHMEMX_TEAM_NODE (this node's PEs),
 * NVSHMEMX_TEAM_SAME_MYPE_NODE (the PEs with this PE's node index). Creation and destruction are
 * collective (one thread per PE); queries may be called by any thread. */

/* This PE's index in `team` / the team's size; -1 for an invalid team. */
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_team_my_pe(nvshmem_team_t team);
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_team_n_pes(nvshmem_team_t team);
/* The index in `dest_team` of the PE with index `src_pe` in `src_team`; -1 when a team is invalid,
 * src_pe is out of range, or that PE is not in dest_team. */
NVSHM_HOSTDEVICE NVSHM_API int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team);
/* Collective over `parent_team`: the new team holds the parent's PEs start, start + stride, ...
 * (size PEs; stride >= 1). Members get the new handle in *new_team, the others
 * NVSHMEM_TEAM_INVALID. config/config_mask: NVSHMEM_TEAM_CONFIG_MASK_* fields to take from *config
 * (0: defaults). Returns 0, or nonzero after a message (invalid arguments; no slot free on every
 * parent PE, naming NVSHMEM_MAX_TEAMS; a PE that did not arrive within NVSHMEM_BOOTSTRAP_TIMEOUT),
 * with *new_team = NVSHMEM_TEAM_INVALID. */
NVSHM_API int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                                         const nvshmem_team_config_t *config, long config_mask,
                                         nvshmem_team_t *new_team);
/* Collective over `parent_team`, seen as a grid of rows of xrange PEs: *xaxis_team receives this PE's
 * row, *yaxis_team its column. Returns as nvshmem_team_split_strided. */
NVSHM_API int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t *xaxis_config,
                                    long xaxis_mask, nvshmem_team_t *xaxis_team,
                                    const nvshmem_team_config_t *yaxis_config, long yaxis_mask,
                                    nvshmem_team_t *yaxis_team);
/* The configuration `team` was created with (defaults for the fields its mask did not give). */
NVSHM_API void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config);
/* Collective over the team's members: frees its slot. NVSHMEM_TEAM_INVALID does nothing; a
 * predefined team is refused with a message. */
NVSHM_API void nvshmem_team_destroy(nvshmem_team_t team);
/* An id for nvshmemx_team_init, made by one PE and passed to the future members by the application;
 * at most 16 ids of one PE may be in use at once. Returns 0 or NVSHMEMX_ERROR_INVALID_VALUE. */
NVSHM_API int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid);
/* Collective over the npes PEs that pass the same config->uniqueid (config_mask with
 * NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID), each with its own index pe_idx_in_team in [0, npes): a team of
 * arbitrary PEs. Returns 0 or nonzero after a message, *team = NVSHMEM_TEAM_INVALID then. */
NVSHM_API int nvshmemx_team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask, int npes,
                                 int pe_idx_in_team);

/* ---- Memory management (collective over all PEs; "Memory Management Routines") ---- */

/* Allocate `size` bytes from the symmetric heap, same offset on every PE, aligned to 256 bytes (as
 * cudaMalloc); a block of at least 2 MiB to 2 MiB (the GPU heap's page; docs/architecture.md). size 0 gives NULL and
 * does nothing. A request past the heap gives NULL on every PE with a message; PEs that ask for different sizes get
 * NULL and a message naming both sizes. Implies a barrier. */
NVSHM_API void *nvshmem_malloc(size_t size);
/* As nvshmem_malloc for count*size bytes (overflow-checked), zero-filled. */
NVSHM_API void *nvshmem_calloc(size_t count, size_t size);
/* As nvshmem_malloc, aligned to `alignment` bytes: a power of two multiple of sizeof(void*), else NULL
 * with a message. */
NVSHM_API void *nvshmem_align(size_t alignment, size_t size);
/* Collective free of a pointer returned by nvshmem_malloc/calloc/align (NULL does nothing). */
NVSHM_API void nvshmem_free(void *ptr);
/* Address of `pe`'s copy of the symmetric object `dest`, usable with loads and stores, or NULL when
 * `pe` is not reachable that way (or dest is not symmetric). */
NVSHM_HOSTDEVICE NVSHM_API void *nvshmem_ptr(const void *dest, int pe);
/* NVLink multicast (NVLS) address of symmetric `ptr` for `team`. Always NULL in this version (it
 * never creates multicast objects); under NVSHMEM_DEBUG=INFO the host call says why. */
NVSHM_HOSTDEVICE NVSHM_API void *nvshmemx_mc_ptr(nvshmem_team_t team, const void *ptr);

/* ---- User buffers ("Memory Management Routines"; docs/compatibility.md) ---- */

/* Register the local (non-symmetric) buffer [addr, addr+length) for use as the source or
 * destination of RMA and collectives. Local to the calling PE, any thread. Registration is optional
 * with this library's transports; on a GPU heap it page-locks pageable host memory so copies through
 * it run asynchronously and kernels can address it. No alignment is required. Returns 0, or
 * NVSHMEMX_ERROR_INVALID_VALUE (with a message) for NULL, zero length, a range overlapping a
 * registered buffer or the symmetric heap. */
NVSHM_API int nvshmemx_buffer_register(void *addr, size_t length);
/* Unregister the buffer that starts at `addr` after completing this PE's RMA (quiet). Returns 0, or
 * NVSHMEMX_ERROR_INVALID_VALUE when no registered buffer starts there. */
NVSHM_API int nvshmemx_buffer_unregister(void *addr);
/* Unregister every buffer this PE registered with nvshmemx_buffer_register. Returns 0. */
NVSHM_API int nvshmemx_buffer_unregister_all(void);
/* Collective over all PEs, GPU heap only: make the application's CUDA VMM buffer `buf_ptr` (a
 * cuMemCreate allocation made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR among its handle types,
 * mapped with cuMemMap; buf_ptr is the start of that mapping, `size` bytes of it, the same on every
 * PE) a symmetric object. Returns its symmetric address (an alias of the buffer, usable in every
 * host, stream and device call), or NULL on every PE with a message naming the PE and cause: flags
 * not 0, not VMM memory, missing handle type, sizes that differ, overlap with a registered buffer,
 * a heap in host memory, or no room (NVSHMEM_MAX_MEMORY_PER_GPU). */
NVSHM_API void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags);
/* NVSHMEM 3.6: as nvshmemx_buffer_register_symmetric, mapped at `preferred_addr` when that is usable: a
 * symmetric address of this PE's registered-buffer region (the part of its NVSHMEM_MAX_MEMORY_PER_GPU
 * slot past the heap), the same offset on every PE, aligned to the heap granularity (CUDA's allocation
 * granularity and NVSHMEM_CUMEM_GRANULARITY), with room free for the whole allocation. Otherwise (NULL,
 * elsewhere, taken, unaligned, different between PEs) the buffer is mapped where the plain call would map
 * it, and NVSHMEM_DEBUG=INFO says why. Returns the symmetric address, or NULL on every PE as the plain
 * call does. Collective, one thread per PE. */
NVSHM_API void *nvshmemx_buffer_register_symmetric_at_preferred_address(void *buf_ptr, size_t size,
                                                                        void *preferred_addr, int flags);
/* Collective: undo nvshmemx_buffer_register_symmetric; `mmap_ptr` is the pointer it returned, `size`
 * the size registered. Completes this PE's RMA first. Returns 0 or an nvshmemx_status error code. */
NVSHM_API int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size);

/* ---- Remote memory access from the host ("Remote Memory Access Routines") ----
 * put/get/p/g are blocking (the source may be reused, the destination holds the data, on return);
 * _nbi forms return at once and complete at the next nvshmem_quiet. With the heap in GPU memory they
 * run on the library's own non-blocking stream: work the caller queued on a CUDA stream (a cudaMemset
 * of the destination, a kernel writing the source) is not ordered before them; synchronize it first. */
#define NVSHM_DECLARE_HOST_RMA(NAME, T)                                                                      \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_p(T *dest, const T value, int pe);                        \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_g(const T *source, int pe);                                  \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_put(T *dest, const T *source, size_t nelems, int pe);     \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_get(T *dest, const T *source, size_t nelems, int pe);     \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_put_nbi(T *dest, const T *source, size_t nelems, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_get_nbi(T *dest, const T *source, size_t nelems, int pe);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DECLARE_HOST_RMA)
#undef NVSHM_DECLARE_HOST_RMA

#define NVSHM_DECLARE_HOST_SIZED_RMA(BITS, T)                                                                     \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);       \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);       \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DECLARE_HOST_SIZED_RMA)
#undef NVSHM_DECLARE_HOST_SIZED_RMA

/* Strided forms: element i of the transfer moves source[i * sst] to dest[i * dst] (strides in
 * elements, at least 1); blocking. */
#define NVSHM_DECLARE_HOST_STRIDED(NAME, T)                                                                     \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                        size_t nelems, int pe);                                 \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                        size_t nelems, int pe);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DECLARE_HOST_STRIDED)
#undef NVSHM_DECLARE_HOST_STRIDED
#define NVSHM_DECLARE_HOST_SIZED_STRIDED(BITS, T)                                                                  \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                     size_t nelems, int pe);                                       \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                                                     size_t nelems, int pe);
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DECLARE_HOST_SIZED_STRIDED)
#undef NVSHM_DECLARE_HOST_SIZED_STRIDED

NVSHM_HOSTDEVICE NVSHM_API void nvshmem_putmem(void *dest, const void *source, size_t nbytes, int pe);
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_getmem(void *dest, const void *source, size_t nbytes, int pe);
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_putmem_nbi(void *dest, const void *source, size_t nbytes, int pe);
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_getmem_nbi(void *dest, const void *source, size_t nbytes, int pe);

/* ---- Signals ("Signaling Operations") ----
 * A signal word is a symmetric uint64_t. sig_op is NVSHMEM_SIGNAL_SET or NVSHMEM_SIGNAL_ADD; the
 * update is atomic with respect to every other signal and atomic operation on the word. On the
 * device it is a release (data this thread wrote before it is visible to a PE that waits for the
 * signal); on the host it is ordered after this PE's earlier blocking RMA. put_signal (without
 * _on_stream) is device-only, as in NVSHMEM. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
/* The current value of this PE's signal word (an atomic load). */
NVSHM_HOSTDEVICE NVSHM_API uint64_t nvshmem_signal_fetch(uint64_t *sig_addr);

/* ---- Atomic memory operations ("Atomic Memory Operations") ----
 * Atomic on `pe`'s copy of the symmetric `dest` with respect to every other NVSHMEM atomic on it,
 * from any PE, host or device. They do not order other memory operations (use fence/quiet). The
 * host forms work on both heap kinds (host memory: CPU atomics; GPU memory: a one-thread kernel with
 * system-scope atomics on the internal stream) and return when the operation is done. */
#define NVSHM_DECLARE_AMO_ARITH(NAME, T)                                                    \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_inc(T *dest, int pe);             \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch_inc(T *dest, int pe);          \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_add(T *dest, T value, int pe);    \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch_add(T *dest, T value, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe);
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_DECLARE_AMO_ARITH)
#undef NVSHM_DECLARE_AMO_ARITH
#define NVSHM_DECLARE_AMO_FETCH(NAME, T)                                                 \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch(const T *source, int pe);   \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_set(T *dest, T value, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_swap(T *dest, T value, int pe);
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_DECLARE_AMO_FETCH)
#undef NVSHM_DECLARE_AMO_FETCH
#define NVSHM_DECLARE_AMO_LOGIC(NAME, T)                                                    \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_and(T *dest, T value, int pe);    \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch_and(T *dest, T value, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_or(T *dest, T value, int pe);     \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch_or(T *dest, T value, int pe);  \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmem_##NAME##_atomic_xor(T *dest, T value, int pe);    \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmem_##NAME##_atomic_fetch_xor(T *dest, T value, int pe);
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_DECLARE_AMO_LOGIC)
#undef NVSHM_DECLARE_AMO_LOGIC

/* ---- Ordering and synchronisation ("Memory Ordering Routines", "Collective Routines") ---- */

/* Complete every RMA this PE issued (host: blocking and nbi; device: the calling thread's). */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_quiet(void);
/* Order this PE's puts to each target PE: those before the fence arrive before those after it. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_fence(void);
/* All PEs: quiet, then wait for every PE. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_barrier_all(void);
/* All PEs: wait for every PE (no quiet: only ordering of memory already visible). */
NVSHM_HOSTDEVICE NVSHM_API void nvshmem_sync_all(void);

/* ---- Stream-ordered forms ("CUDA stream-ordered ..."): enqueued on `stream`, capturable in CUDA
 * graphs; they complete in stream order. Need the heap in GPU memory. ---- */
#define NVSHM_DECLARE_STREAM_RMA(NAME, T)                                                             \
  NVSHM_API void nvshmemx_##NAME##_put_on_stream(T *dest, const T *source, size_t nelems, int pe,     \
                                                 cudaStream_t stream);                                \
  NVSHM_API void nvshmemx_##NAME##_get_on_stream(T *dest, const T *source, size_t nelems, int pe,     \
                                                 cudaStream_t stream);                                \
  NVSHM_API void nvshmemx_##NAME##_put_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                                     cudaStream_t stream);                            \
  NVSHM_API void nvshmemx_##NAME##_get_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, \
                                                     cudaStream_t stream);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DECLARE_STREAM_RMA)
#undef NVSHM_DECLARE_STREAM_RMA

NVSHM_API void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream);
NVSHM_API void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t nbytes, int pe, cudaStream_t stream);
NVSHM_API void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                                             cudaStream_t stream);
NVSHM_API void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t nbytes, int pe,
                                             cudaStream_t stream);
/* p: the value is captured at the call (a kernel argument); g: waits for the stream and returns
 * the value (not capturable). iput/iget: strided, strides in elements. */
#define NVSHM_DECLARE_STREAM_RMA_MORE(NAME, T)                                                                       \
  NVSHM_API void nvshmemx_##NAME##_p_on_stream(T *dest, const T value, int pe, cudaStream_t stream);                 \
  NVSHM_API T nvshmemx_##NAME##_g_on_stream(const T *source, int pe, cudaStream_t stream);                           \
  NVSHM_API void nvshmemx_##NAME##_iput_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                                  size_t nelems, int pe, cudaStream_t stream);                       \
  NVSHM_API void nvshmemx_##NAME##_iget_on_stream(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,            \
                                                  size_t nelems, int pe, cudaStream_t stream);                       \
  NVSHM_API void nvshmemx_##NAME##_put_signal_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, \
                                                        uint64_t signal, int sig_op, int pe, cudaStream_t stream);   \
  NVSHM_API void nvshmemx_##NAME##_put_signal_nbi_on_stream(T *dest, const T *source, size_t nelems,                 \
                                                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, \
                                                            cudaStream_t stream);
NVSHM_FOR_EACH_RMA_TYPE(NVSHM_DECLARE_STREAM_RMA_MORE)
#undef NVSHM_DECLARE_STREAM_RMA_MORE

#define NVSHM_DECLARE_STREAM_SIZED(BITS, T)                                                                         \
  NVSHM_API void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe,              \
                                                cudaStream_t stream);                                               \
  NVSHM_API void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe,              \
                                                cudaStream_t stream);                                               \
  NVSHM_API void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,          \
                                                    cudaStream_t stream);                                           \
  NVSHM_API void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,          \
                                                    cudaStream_t stream);                                           \
  NVSHM_API void nvshmemx_iput##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                                                 size_t nelems, int pe, cudaStream_t stream);                       \
  NVSHM_API void nvshmemx_iget##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                                                 size_t nelems, int pe, cudaStream_t stream);                       \
  NVSHM_API void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems,               \
                                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,     \
                                                       cudaStream_t stream);                                        \
  NVSHM_API void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems,           \
                                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, \
                                                           cudaStream_t stream);
NVSHM_FOR_EACH_RMA_SIZE(NVSHM_DECLARE_STREAM_SIZED)
#undef NVSHM_DECLARE_STREAM_SIZED

/* Put-with-signal on a stream: the data, then the signal update on `pe`, in stream order; a PE that
 * sees the signal sees the data. */
NVSHM_API void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                                uint64_t signal, int sig_op, int pe, cudaStream_t stream);
NVSHM_API void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t nbytes, uint64_t *sig_addr,
                                                    uint64_t signal, int sig_op, int pe, cudaStream_t stream);
NVSHM_API void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                            cudaStream_t stream);
/* Later work on `stream` waits until this PE's signal word satisfies the comparison. */
NVSHM_API void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                    cudaStream_t stream);
/* Later work on `stream` waits until this PE's ivar(s) satisfy the comparison. `status` (NULL: all
 * active; non-zero entries are skipped) and `cmp_values` must be readable by the GPU. */
#define NVSHM_DECLARE_STREAM_WAIT(NAME, T)                                                                       \
  NVSHM_API void nvshmemx_##NAME##_wait_until_on_stream(T *ivar, int cmp, T cmp_value, cudaStream_t stream);     \
  NVSHM_API void nvshmemx_##NAME##_wait_until_all_on_stream(T *ivars, size_t nelems, const int *status, int cmp, \
                                                            T cmp_value, cudaStream_t stream);                   \
  NVSHM_API void nvshmemx_##NAME##_wait_until_all_vector_on_stream(T *ivars, size_t nelems, const int *status,   \
                                                                   int cmp, T *cmp_values, cudaStream_t stream);
NVSHM_FOR_EACH_WAIT_TYPE(NVSHM_DECLARE_STREAM_WAIT)
#undef NVSHM_DECLARE_STREAM_WAIT

/* Work enqueued on `stream` after this point starts after all RMA this PE issued before it completed. */
NVSHM_API void nvshmemx_quiet_on_stream(cudaStream_t stream);
/* Stream-ordered barrier_all / sync_all across all PEs. */
NVSHM_API void nvshmemx_barrier_all_on_stream(cudaStream_t stream);
NVSHM_API void nvshmemx_sync_all_on_stream(cudaStream_t stream);

/* ---- Modules loaded through the driver API (cubin, PTX, NVRTC) ----
 * Write the runtime's device state into `module` so its kernels can call the device API. Call after
 * init on every PE that loaded the module; _finalize before unloading it. Return 0 or an error code. */
NVSHM_API int nvshmemx_cumodule_init(CUmodule module);
NVSHM_API int nvshmemx_cumodule_finalize(CUmodule module);
/* The same for a CUlibrary (cuLibraryLoadData / cuLibraryLoadFromFile), in the runtime's context. */
NVSHM_API int nvshmemx_culibrary_init(CUlibrary library);
NVSHM_API int nvshmemx_culibrary_finalize(CUlibrary library);

/* ---- NVSHMEM 3.7/3.8 additions (docs/compatibility.md, "NVSHMEM 3.5 to 3.8") ---- */

/* Local completion ("Memory Ordering Routines", nvshmemx_flush): on return the source buffers of this
 * PE's earlier nonblocking puts may be reused or freed. No remote visibility is promised (quiet or
 * fence is still needed for that). Host: waits for this PE's pending host transfers (as strong as
 * nvshmem_quiet here). Device: the calling thread's puts read their source before returning, so it
 * orders nothing more; _warp/_block (device only) are collective over the group and synchronise it.
 * Any thread; aborts with a message before init. */
NVSHM_HOSTDEVICE NVSHM_API void nvshmemx_flush(void);
/* Work enqueued on `stream` after this point starts once the sources of the *_nbi_on_stream puts
 * enqueued before it on `stream` may be reused (here: once they completed). GPU heap only. */
NVSHM_API void nvshmemx_flush_on_stream(cudaStream_t stream);

/* Floating-point atomic add on `pe`'s copy of the symmetric `dest` ("Atomic Memory Operations",
 * NVSHMEM 3.7): atomic with respect to the other floating-point atomic adds on the word; fetch_add
 * returns the previous value. dest aligned to its type's size. Real on the host (NVIDIA's host forms
 * are stubs): CPU atomics on the host-memory heap, a one-thread system-scope kernel on the GPU heap. The
 * half (__half) forms exist in C++ only, as NVIDIA's. Any thread; errors abort with a message naming
 * the call, the PE and the cause. */
#define NVSHM_DECLARE_FLOAT_AMO(NAME, T)                                                  \
  NVSHM_HOSTDEVICE NVSHM_API void nvshmemx_##NAME##_atomic_add(T *dest, T value, int pe); \
  NVSHM_HOSTDEVICE NVSHM_API T nvshmemx_##NAME##_atomic_fetch_add(T *dest, T value, int pe);
NVSHM_DECLARE_FLOAT_AMO(float, float)
NVSHM_DECLARE_FLOAT_AMO(double, double)
#ifdef __cplusplus
NVSHM_DECLARE_FLOAT_AMO(half, half)
#endif
#undef NVSHM_DECLARE_FLOAT_AMO

/* Set this PE's counted-signal word `signal_addr` (symmetric, 8-byte aligned) to 0 (NVSHMEM 3.8,
 * "Signaling Operations"). Host: an atomic store on the GPU or host heap; device: a relaxed store. Any
 * thread; not ordered with other PEs' counted writes (the caller makes sure none is in flight). */
NVSHM_HOSTDEVICE NVSHM_API void nvshmemx_signal_counted_reset(uint64_t *signal_addr);

/* Bytes of a block's shared memory NVSHMEM asks for its TMA data path (NVSHMEM 3.7; docs/tma.md): RECOMMENDED
 * 65536 (two 32 KiB staging buffers and the mbarrier), MINIMUM 32768 (two of 16 KiB), BARRIERS_ONLY 16 (the
 * mbarrier alone: too little to stage, such a block keeps loads and stores). A kernel lends it with
 * nvshmemx_give_smem; block-scope puts and gets then use TMA where NVSHMEM_TMA_POLICY and the unit allow
 * it (NVSHM_TMA_DATA_PATH). Host (no init needed) and device, any thread. An unknown `flag` gives 0 (the
 * host says so). */
NVSHM_HOSTDEVICE NVSHM_API int nvshmemx_ask_smem(nvshmemx_smem_amount_t flag);

/* Queue pairs (NVSHMEM 3.5, "Queue Pair (QP) Specific APIs"). Collective over all PEs, one thread per PE,
 * the same num_qps on every PE: *out_qp_array receives num_qps handles usable towards any PE. Every PE of
 * this version is reached by peer loads and stores (one NVLink domain), where NVIDIA documents that no
 * custom QP exists: every entry is NVSHMEMX_QP_DEFAULT, and the device nvshmemx_qp_* calls behave as
 * their plain forms. The array belongs to the library until nvshmem_finalize (do not free it). Returns
 * 0, or NVSHMEMX_ERROR_INVALID_VALUE on every PE with a message for num_qps < 1, a NULL out_qp_array
 * or num_qps that differ between PEs (naming both). */
NVSHM_API int nvshmemx_qp_create(int num_qps, nvshmemx_qp_handle_t **out_qp_array);

/* RMA regions (NVSHMEM 3.8, "Regions"): a span of this PE's host-initiated RMA that carries hints to the
 * transports. Inside a region the nonblocking puts and gets keep their semantics and their ordering with
 * fence and quiet; completion still needs quiet. Only network transports batch (BATCH_RMA); the peer
 * loads, stores and copies here need none, so a region is bookkeeping: its errors are NVIDIA's.
 * Open this PE's one host region; *handle receives it. attrs NULL: no hints. Returns 0, or
 * NVSHMEMX_ERROR_INVALID_VALUE with a message for a NULL handle, hint bits other than
 * NVSHMEMX_REGION_HINT_BATCH_RMA, or a region already open on this PE. Any thread of the PE. */
NVSHM_API int nvshmemx_region_start(nvshmemx_region_handle_t *handle, const nvshmemx_region_attrs_t *attrs);
/* Close the region `handle` names (there is no batch to hand over here). Returns 0, or
 * NVSHMEMX_ERROR_INVALID_VALUE with a message when it is not the open region (never opened, or closed). */
NVSHM_API int nvshmemx_region_stop(nvshmemx_region_handle_t handle);
/* *active = 1 when a region is open in the calling context (host: this PE; device: the calling block) and
 * carries every hint bit of `hints` (NVSHMEMX_REGION_HINT_NONE: any region), else 0. Returns 0, or
 * NVSHMEMX_ERROR_INVALID_VALUE for a NULL `active` or unknown hint bits. Any thread. */
NVSHM_HOSTDEVICE NVSHM_API int nvshmemx_region_is_active(uint32_t hints, int *active);

NVSHM_EXTERN_C_END

/* The name of an nvshmemx_status value ("NVSHMEMX_SUCCESS", "NVSHMEMX_ERROR_INVALID_VALUE", ...), or
 * "NVSHMEMX_ERROR_<unknown>" for any other number (NVSHMEM 3.7). Host code, any thread, no init needed. */
static inline const char *nvshmemx_status_string(int status) {
  switch (status) {
    case NVSHMEMX_SUCCESS:
      return "NVSHMEMX_SUCCESS";
    case NVSHMEMX_ERROR_INVALID_VALUE:
      return "NVSHMEMX_ERROR_INVALID_VALUE";
    case NVSHMEMX_ERROR_OUT_OF_MEMORY:
      return "NVSHMEMX_ERROR_OUT_OF_MEMORY";
    case NVSHMEMX_ERROR_NOT_SUPPORTED:
      return "NVSHMEMX_ERROR_NOT_SUPPORTED";
    case NVSHMEMX_ERROR_SYMMETRY:
      return "NVSHMEMX_ERROR_SYMMETRY";
    case NVSHMEMX_ERROR_GPU_NOT_SELECTED:
      return "NVSHMEMX_ERROR_GPU_NOT_SELECTED";
    case NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED:
      return "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED";
    case NVSHMEMX_ERROR_INTERNAL:
      return "NVSHMEMX_ERROR_INTERNAL";
    default:
      return "NVSHMEMX_ERROR_<unknown>";
  }
}

#include "nvshmem_detail/coll_host_api.h"

#endif /* NVSHMEM_DETAIL_HOST_API_H */
