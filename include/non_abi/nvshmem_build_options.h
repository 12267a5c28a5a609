/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path non_abi/nvshmem_build_options.h: the NVSHMEM_* build-option macros
 * (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_NON_ABI_NVSHMEM_BUILD_OPTIONS_H
#define NVSHM_COMPAT_NON_ABI_NVSHMEM_BUILD_OPTIONS_H

#include "nvshmem_detail/build_options.h"

#endif /* NVSHM_COMPAT_NON_ABI_NVSHMEM_BUILD_OPTIONS_H */
