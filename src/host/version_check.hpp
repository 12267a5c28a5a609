// SPDX-License-Identifier: BSD-3-Clause
// The header-version check (docs/versioning.md): every translation unit that includes nvshmem_host.h
// registers the header version it was compiled with (include/nvshmem_detail/version_registration.h);
// init refuses a version this library cannot serve.
#pragma once

#include "common/status.hpp"

namespace nvshm {

// True when headers of version major.minor can use this library: same MAJOR, MINOR not newer.
bool header_version_compatible(int major, int minor);
// Checks every registered header version; logs each incompatible one with both versions.
Status check_header_versions(const char *call);

}  // namespace nvshm
