/* SPDX-License-Identifier: BSD-3-Clause */
/* NVSHMEM host interface: every host-callable routine, for code compiled by any C++ compiler.
 * Link with libnvshmem_host.so. */
#ifndef NVSHMEM_HOST_H
#define NVSHMEM_HOST_H

#include "nvshmem_detail/host_api.h"
#include "nvshmem_detail/collective_launch.h"
#include "nvshmem_detail/version_registration.h"

#endif /* NVSHMEM_HOST_H */
