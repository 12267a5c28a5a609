/* SPDX-License-Identifier: BSD-3-Clause */
/* Header-version check. Every translation unit that includes nvshmem_host.h registers, at static
 * initialisation, the release of the headers it was compiled with (NVSHM_RELEASE_*, ours; not the
 * NVSHMEM interface level NVSHMEM_VENDOR_*); nvshmem_init (and every other init
 * entry point) fails with a message naming both versions unless each registered version has the
 * library's MAJOR and a MINOR not newer than the library's. A unit registered after init (a library
 * loaded later) is checked at once. docs/versioning.md gives the rules. */
#ifndef NVSHMEM_DETAIL_VERSION_REGISTRATION_H
#define NVSHMEM_DETAIL_VERSION_REGISTRATION_H

#include "nvshmem_version.h"
#include "nvshmem_detail/macros.h"

NVSHM_EXTERN_C_BEGIN
NVSHM_API void nvshm_register_header_version(int major, int minor, int patch);
NVSHM_API void nvshm_unregister_header_version(int major, int minor, int patch);
/* This implementation's release of the library actually loaded (nvshmemx_vendor_get_version_info gives
 * the NVSHMEM interface level instead). Any thread, before or after init; the pointers must be valid. */
NVSHM_API void nvshm_get_release_version(int *major, int *minor, int *patch);
NVSHM_EXTERN_C_END

/* Host code only: not under NVRTC, not in the device pass. A constructor/destructor pair works in C
 * and C++ alike; `static` keeps one pair per translation unit. */
#if !defined(__CUDACC_RTC__) && !defined(__CUDA_ARCH__) && !defined(NVSHM_NO_VERSION_REGISTRATION)
__attribute__((constructor, used)) static void nvshm_register_this_unit_version(void) {
  nvshm_register_header_version(NVSHM_RELEASE_MAJOR, NVSHM_RELEASE_MINOR, NVSHM_RELEASE_PATCH);
}
__attribute__((destructor, used)) static void nvshm_unregister_this_unit_version(void) {
  nvshm_unregister_header_version(NVSHM_RELEASE_MAJOR, NVSHM_RELEASE_MINOR, NVSHM_RELEASE_PATCH);
}
#endif

#endif /* NVSHMEM_DETAIL_VERSION_REGISTRATION_H */
