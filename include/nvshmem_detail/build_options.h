/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM_* build-option macros (NVIDIA's non_abi/nvshmem_build_options.h; reached through nvshmem.h).
 * NVIDIA's build defines one empty macro per feature its build enabled, and programs test them with
 * #ifdef. This build defines the ones that describe it and whose test cannot pull another library's
 * headers into the program (docs/compatibility.md, "Build-option macros"):
 *
 *   NVSHMEM_ENABLE_ALL_DEVICE_INLINING  defined: the whole device API is inline in the headers.
 *
 * Left undefined, each for a reason given there: NVSHMEM_MPI_SUPPORT, NVSHMEM_PMIX_SUPPORT (both
 * bootstraps are present, reached at run time with dlopen), NVSHMEM_SHMEM_SUPPORT, NVSHMEM_USE_NCCL,
 * NVSHMEM_USE_GDRCOPY, NVSHMEM_IBGDA_SUPPORT, NVSHMEM_UCX_SUPPORT, NVSHMEM_LIBFABRIC_SUPPORT,
 * NVSHMEM_COMPLEX_SUPPORT, NVSHMEM_TIMEOUT_DEVICE_POLLING, NVSHMEM_DEBUG, NVSHMEM_DEVEL, NVSHMEM_TRACE,
 * NVSHMEM_DEFAULT_PMI2, NVSHMEM_DEFAULT_PMIX, NVSHMEM_DEFAULT_UCX. */
#ifndef NVSHMEM_DETAIL_BUILD_OPTIONS_H
#define NVSHMEM_DETAIL_BUILD_OPTIONS_H

#define NVSHMEM_ENABLE_ALL_DEVICE_INLINING

#endif /* NVSHMEM_DETAIL_BUILD_OPTIONS_H */
