/* SPDX-License-Identifier: BSD-3-Clause */
/* NVIDIA install path non_abi/nvshmemx_error.h: the nvshmemx_status codes and the NVSHMEMI_* error-check
 * macros (docs/compatibility.md). */
#ifndef NVSHM_COMPAT_NON_ABI_NVSHMEMX_ERROR_H
#define NVSHM_COMPAT_NON_ABI_NVSHMEMX_ERROR_H

#include "nvshmem_detail/types.h"
#include "nvshmem_detail/error_macros.h"

#endif /* NVSHM_COMPAT_NON_ABI_NVSHMEMX_ERROR_H */
