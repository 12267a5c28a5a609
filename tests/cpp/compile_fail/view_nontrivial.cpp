// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a device view of a type that is not trivially copyable.
#include <nvshmem/nvshmem.hpp>

#include <string>

#if defined(NVSHM_CASE_fail)
nvshmem::DeviceView<std::string> view;
#else
nvshmem::DeviceView<double> view;
#endif
