/* SPDX-License-Identifier: BSD-3-Clause */
/* Collective kernel launch (NVSHMEM docs: "Collective Kernel Launch"). Defined inline so that the
 * launch runs in the application's own CUDA runtime, where its kernels are registered; it asks
 * libnvshmem_host.so (which every NVSHMEM program links) only for the GPU's share
 * (nvshm_collective_grid_share). */
#ifndef NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H
#define NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H

/* Host code only: NVRTC (device code, no CUDA runtime) sees nothing of this header. */
#if !defined(__CUDACC_RTC__)
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "nvshmem_detail/macros.h"
#include "nvshmem_detail/types.h"

NVSHM_EXTERN_C_BEGIN
/* The number of PEs among which this PE's GPU divides a collective launch's blocks: the PEs on its GPU
 * when they run under CUDA MPS (unless NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), else 1; 1 before
 * init. Any thread. */
NVSHM_API int nvshm_collective_grid_share(void);
/* The SMs' worth of blocks a collective launch leaves free on this PE's GPU: 1 where remote PEs' atomics
 * are applied to it by a kernel of this PE's engine (the job has PEs on other nodes and the heap is on the
 * GPU; docs/remote.md), which a whole-GPU grid waiting for those atomics would otherwise starve; else 0 (and
 * before init). Any thread. */
NVSHM_API int nvshm_collective_reserved_sms(void);
NVSHM_EXTERN_C_END

/* What decides whether one block of a kernel fits on an SM: the kernel's attributes
 * (cudaFuncGetAttributes) and the device's limits (cudaDeviceGetAttribute), for one launch shape. */
typedef struct {
  int threads;                  /* threads per block (blockDim.x * y * z) */
  size_t dynamic_shmem;         /* dynamic shared memory per block, bytes */
  int regs_per_thread;          /* cudaFuncAttributes::numRegs */
  size_t static_shmem;          /* cudaFuncAttributes::sharedSizeBytes */
  int max_threads_per_block;    /* cudaFuncAttributes::maxThreadsPerBlock (registers, launch bounds) */
  int max_dynamic_shmem;        /* cudaFuncAttributes::maxDynamicSharedSizeBytes */
  int regs_per_block;           /* cudaDevAttrMaxRegistersPerBlock */
  int max_block_threads;        /* cudaDevAttrMaxThreadsPerBlock */
  size_t shmem_per_block_optin; /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
} nvshm_launch_shape;

/* Why no block of `s` can be resident, as one sentence in `buf` (at most `len` bytes). Returns 1
 * when a limit explains it, 0 when none does (then `buf` says so). Registers are allocated per warp,
 * in units of 256, for a per-thread count rounded up to a multiple of 8. */
static inline int nvshm_explain_no_residency(const nvshm_launch_shape *s, char *buf, size_t len) {
  const int warps = (s->threads + 31) / 32;
  const long long regs = (long long)warps * ((((s->regs_per_thread + 7) / 8 * 8) * 32 + 255) / 256 * 256);
  const size_t shmem = s->static_shmem + s->dynamic_shmem;
  if (s->threads > s->max_block_threads)
    snprintf(buf, len, "a block of %d threads is larger than the device's %d", s->threads, s->max_block_threads);
  else if (regs > s->regs_per_block)
    snprintf(buf, len,
             "registers: the kernel uses %d per thread, %lld for a block of %d threads, more than the %d a block "
             "may hold (at most %d threads per block for this kernel)",
             s->regs_per_thread, regs, s->threads, s->regs_per_block, s->max_threads_per_block);
  else if (s->threads > s->max_threads_per_block)
    snprintf(buf, len, "block size: the kernel launches at most %d threads per block (__launch_bounds__), not %d",
             s->max_threads_per_block, s->threads);
  else if (shmem > s->shmem_per_block_optin)
    snprintf(buf, len,
             "shared memory: %zu bytes per block (%zu static + %zu dynamic) is more than the %zu a block may use",
             shmem, s->static_shmem, s->dynamic_shmem, s->shmem_per_block_optin);
  else if (s->dynamic_shmem > (size_t)s->max_dynamic_shmem)
    snprintf(buf, len,
             "shared memory: %zu dynamic bytes per block is more than the kernel's limit of %d (raise it with "
             "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))",
             s->dynamic_shmem, s->max_dynamic_shmem);
  else {
    snprintf(buf, len, "CUDA's occupancy calculator gives 0 blocks per SM (%d threads, %zu bytes of shared memory)",
             s->threads, shmem);
    return 0;
  }
  return 1;
}

/* nvshm_explain_no_residency for `kernel` on the current device; 0 when its attributes are
 * unavailable (then `buf` says so). */
static inline int nvshm_kernel_no_residency(const void *kernel, int threads, size_t shmem, char *buf, size_t len) {
  struct cudaFuncAttributes fa;
  int device = 0, optin = 0;
  nvshm_launch_shape s = {threads, shmem, 0, 0, 0, 0, 0, 0, 0};
  if (cudaFuncGetAttributes(&fa, kernel) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&s.regs_per_block, cudaDevAttrMaxRegistersPerBlock, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&s.max_block_threads, cudaDevAttrMaxThreadsPerBlock, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    (void)cudaGetLastError();
    snprintf(buf, len, "the kernel's attributes are unavailable");
    return 0;
  }
  s.regs_per_thread = fa.numRegs;
  s.static_shmem = fa.sharedSizeBytes;
  s.max_threads_per_block = fa.maxThreadsPerBlock;
  s.max_dynamic_shmem = fa.maxDynamicSharedSizeBytes;
  s.shmem_per_block_optin = (size_t)optin;
  return nvshm_explain_no_residency(&s, buf, len);
}

/* Blocks per SM times SMs (less those nvshm_collective_reserved_sms leaves free) for `kernel` with `threads`
 * threads and `shmem` dynamic shared bytes per block, divided among the PEs that share the GPU under MPS
 * (nvshm_collective_grid_share), into
 * *gridsize; when that is 0 stderr says why. CUDA answers 0 for some shapes that cannot
 * be resident, refuses others and overlooks a __launch_bounds__ limit: whenever a limit rules the
 * shape out the grid is 0 (and a refusal's error is cleared: CUDA's last error belongs to the
 * application's next launch). Otherwise a failing query is NVSHMEMX_ERROR_INTERNAL, with CUDA's
 * message. */
static inline int nvshm_cooperative_gridsize(const char *call, const void *kernel, int threads, size_t shmem,
                                             int *gridsize) {
  int device = 0, sms = 0, per_sm = 0;
  char why[320] = "";
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shmem);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (!nvshm_kernel_no_residency(kernel, threads, shmem, why, sizeof why)) {
      fprintf(stderr, "nvshmem error in %s: the occupancy query failed: %s\n", call, cudaGetErrorString(err));
      return NVSHMEMX_ERROR_INTERNAL;
    }
    per_sm = 0;
  } else if (nvshm_kernel_no_residency(kernel, threads, shmem, why, sizeof why)) {
    /* CUDA's occupancy calculator ignores a __launch_bounds__ thread limit (it gave 2 blocks per SM
     * of 1024 threads for a kernel bounded to 128): a limit that rules the shape out wins. */
    per_sm = 0;
  }
  const int share = nvshm_collective_grid_share(), reserved = nvshm_collective_reserved_sms();
  const int usable = sms > reserved ? sms - reserved : sms;
  *gridsize = per_sm * usable / share;
  if (*gridsize == 0 && per_sm > 0)
    snprintf(why, sizeof why, "%d blocks fit the GPU, fewer than the %d PEs that share it under MPS", per_sm * usable,
             share);
  if (*gridsize == 0) fprintf(stderr, "nvshmem error in %s: no block of the kernel can be resident: %s\n", call, why);
  return NVSHMEMX_SUCCESS;
}

/* Largest grid of `kernel` with `block` threads and `shmem` dynamic shared bytes per block whose
 * blocks can all be resident at once on this PE's GPU: blocks per SM
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor) times the SM count, into *gridsize; one SM fewer where
 * the job has PEs on other nodes and the heap is on the GPU (their atomics run as a kernel on this GPU,
 * docs/remote.md); where PEs share the GPU under MPS (unless NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE),
 * the grids of all of them must be resident at once, so each PE gets that divided by their number
 * (docs/compatibility.md, "Several PEs on one GPU"). `args` is not
 * used. Returns NVSHMEMX_SUCCESS, also when the grid is 0 (no block fits: stderr then says why:
 * registers, shared memory or block size); NVSHMEMX_ERROR_INVALID_VALUE for a NULL gridsize;
 * NVSHMEMX_ERROR_INTERNAL if CUDA fails. Any thread of the host may call it; no init needed. */
static inline int nvshmemx_collective_launch_query_gridsize(const void *kernel, dim3 block, void **args, size_t shmem,
                                                            int *gridsize) {
  (void)args;
  if (!gridsize) return NVSHMEMX_ERROR_INVALID_VALUE;
  return nvshm_cooperative_gridsize("nvshmemx_collective_launch_query_gridsize", kernel,
                                    (int)(block.x * block.y * block.z), shmem, gridsize);
}

/* Launch `kernel` cooperatively on this PE's `stream` (every PE calls it), so that its blocks are
 * co-resident and may synchronise through NVSHMEM. A grid of 0 blocks (any dimension 0) launches the
 * largest grid the query above gives, as a 1-D grid. Returns NVSHMEMX_SUCCESS, or
 * NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED with a message on stderr when the grid is larger than that
 * (or no block fits) or the launch fails; NVSHMEMX_ERROR_INTERNAL if the occupancy query fails. */
/* The grid a collective launch uses, in *grid: a grid of 0 blocks becomes the largest co-resident grid
 * (1-D); a larger grid than that, or a kernel of which no block fits, is
 * NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED with a message; NVSHMEMX_ERROR_INTERNAL if the query fails. */
static inline int nvshm_collective_grid(const char *call, const void *kernel, dim3 block, size_t shmem, dim3 *grid) {
  int max_grid = 0;
  const int st = nvshm_cooperative_gridsize(call, kernel, (int)(block.x * block.y * block.z), shmem, &max_grid);
  if (st != NVSHMEMX_SUCCESS) return st;
  if (max_grid == 0) return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  const long long blocks = (long long)grid->x * grid->y * grid->z;
  if (blocks == 0) {
    *grid = dim3((unsigned)max_grid, 1, 1);
  } else if (blocks > max_grid) {
    const int share = nvshm_collective_grid_share(), reserved = nvshm_collective_reserved_sms();
    char shared[360] = "";
    if (share > 1)
      snprintf(shared, sizeof shared,
               ": this PE's part of a GPU that %d PEs share under MPS, whose grids must all be resident at once "
               "(NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1 leaves that to the application)%s",
               share, reserved ? ", less one SM's worth left free for remote PEs' atomics" : "");
    else if (reserved)
      snprintf(shared, sizeof shared, ": one SM's worth is left free for the atomics of remote PEs (docs/remote.md)");
    fprintf(stderr,
            "nvshmem error in %s: a grid of %lld blocks cannot be resident at once; at most %d blocks of %u threads "
            "and %zu bytes of dynamic shared memory fit (nvshmemx_collective_launch_query_gridsize)%s\n",
            call, blocks, max_grid, block.x * block.y * block.z, shmem, shared);
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

static inline int nvshmemx_collective_launch(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                                             cudaStream_t stream) {
  const char *call = "nvshmemx_collective_launch";
  const int st = nvshm_collective_grid(call, kernel, block, shmem, &grid);
  if (st != NVSHMEMX_SUCCESS) return st;
  const cudaError_t err = cudaLaunchCooperativeKernel(kernel, grid, block, args, shmem, stream);
  if (err != cudaSuccess) {
    fprintf(stderr, "nvshmem error in %s: cudaLaunchCooperativeKernel failed: %s\n", call, cudaGetErrorString(err));
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

/* NVSHMEM 3.8: a collective launch described by CUDA's launch configuration (grid, block, dynamic shared
 * memory, stream and launch attributes). */
typedef struct nvshmemx_collective_launch_attr {
  cudaLaunchConfig_t cuda_config;
} nvshmemx_collective_launch_attr_t;

/* Most launch attributes the caller may pass in cuda_config (NVSHMEM adds the cooperative one). */
#define NVSHM_COLLECTIVE_LAUNCH_MAX_ATTRS 16

/* As nvshmemx_collective_launch, with the grid, block, dynamic shared memory, stream and launch
 * attributes of attr->cuda_config (NVSHMEM 3.8, "Collective Kernel Launch"). A grid of all zeros launches
 * the largest co-resident grid (1-D); a grid with some, not all, dimensions 0 is refused. The caller's
 * attributes (at most 16) are passed to cudaLaunchKernelExC with cudaLaunchAttributeCooperative added
 * unless the caller set it (the caller's value wins), so CUDA applies or refuses each one (locality-domain
 * and other attributes a GPU lacks are refused by CUDA). The kernel runs on cuda_config.stream itself
 * (NVIDIA runs it on an internal stream fenced both ways with the caller's: the same order for the
 * caller). Every PE calls it. Returns NVSHMEMX_SUCCESS; NVSHMEMX_ERROR_INVALID_VALUE with a message for a
 * NULL attr or func, more than 16 attributes or a NULL attribute array, or a partly zero grid;
 * NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED when the grid cannot be resident or CUDA refuses the launch;
 * NVSHMEMX_ERROR_INTERNAL if the occupancy query fails. Host code, any thread. */
static inline int nvshmemx_collective_launch_attr(const nvshmemx_collective_launch_attr_t *attr, const void *func,
                                                  void **args) {
  const char *call = "nvshmemx_collective_launch_attr";
  if (!attr || !func) {
    fprintf(stderr, "nvshmem error in %s: %s is NULL\n", call, !attr ? "attr" : "func");
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  cudaLaunchConfig_t config = attr->cuda_config;
  if (config.numAttrs > NVSHM_COLLECTIVE_LAUNCH_MAX_ATTRS || (config.numAttrs > 0 && !config.attrs)) {
    fprintf(stderr, "nvshmem error in %s: cuda_config has %u launch attributes at %p; at most %d, not NULL\n", call,
            config.numAttrs, (const void *)config.attrs, NVSHM_COLLECTIVE_LAUNCH_MAX_ATTRS);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const dim3 g = config.gridDim;
  if ((g.x == 0 || g.y == 0 || g.z == 0) && (g.x != 0 || g.y != 0 || g.z != 0)) {
    fprintf(stderr,
            "nvshmem error in %s: grid %u x %u x %u has a dimension of 0; all three 0 asks for the largest "
            "co-resident grid, otherwise none may be 0\n",
            call, g.x, g.y, g.z);
    return NVSHMEMX_ERROR_INVALID_VALUE;
  }
  const int st = nvshm_collective_grid(call, func, config.blockDim, config.dynamicSmemBytes, &config.gridDim);
  if (st != NVSHMEMX_SUCCESS) return st;
  cudaLaunchAttribute attrs[NVSHM_COLLECTIVE_LAUNCH_MAX_ATTRS + 1];
  int cooperative = 0;
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    attrs[i] = config.attrs[i];
    cooperative |= attrs[i].id == cudaLaunchAttributeCooperative;
  }
  if (!cooperative) {
    attrs[config.numAttrs].id = cudaLaunchAttributeCooperative;
    attrs[config.numAttrs].val.cooperative = 1;
    ++config.numAttrs;
  }
  config.attrs = attrs;
  const cudaError_t err = cudaLaunchKernelExC(&config, func, args);
  if (err != cudaSuccess) {
    fprintf(stderr, "nvshmem error in %s: cudaLaunchKernelExC failed: %s\n", call, cudaGetErrorString(err));
    return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
  }
  return NVSHMEMX_SUCCESS;
}

#endif /* !__CUDACC_RTC__ */
#endif /* NVSHMEM_DETAIL_COLLECTIVE_LAUNCH_H */
