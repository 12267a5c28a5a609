/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path non_abi/nvshmem_version.h: the version macros (docs/compatibility.md). The
 * generated header sits one level up in an install and in build/include in the build tree, hence <>. */
#ifndef NVSHM_COMPAT_NON_ABI_NVSHMEM_VERSION_H
#define NVSHM_COMPAT_NON_ABI_NVSHMEM_VERSION_H

#include <nvshmem_version.h>

#endif /* NVSHM_COMPAT_NON_ABI_NVSHMEM_VERSION_H */
