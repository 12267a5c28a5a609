/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM host interface: every host-callable routine, for code compiled by any C++ compiler.
 * Link with libnvshmem_host.so. Also the macros NVIDIA's public headers make visible: the version
 * (nvshmem_version.h, through types.h), the NVSHMEM_* build options and the NVSHMEMI_* error-check
 * macros (docs/compatibility.md). */
#ifndef NVSHMEM_HOST_H
#define NVSHMEM_HOST_H

#include "nvshmem_detail/build_options.h"
#include "nvshmem_detail/error_macros.h"
#include "nvshmem_detail/host_api.h"
#include "nvshmem_detail/collective_launch.h"
#include "nvshmem_detail/version_registration.h"

#endif /* NVSHMEM_HOST_H */
