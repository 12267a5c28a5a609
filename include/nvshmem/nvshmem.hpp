// SPDX-License-Identifier: BSD-3-Clause
// The modern C++ layer of NVSHMEM (docs/cpp.md): include this one header.
//   nvshmem::Runtime, InitMethod, UniqueId, MpiComm, Error       (host)
//   nvshmem::SymmetricBuffer<T>, DeviceView<T>                    (host; views also in kernels)
//   nvshmem::ModuleRegistration                                   (host)
//   nvshmem::put<T>/get<T>/... generic host templates              (host)
//   nvshmem::Team, UniqueTeam; broadcast<T>, reduce<Op>, ...      (host)
//   nvshmem::my_pe(), nvshmem::int_put_on_stream(...) aliases      (host; device where the C API is)
//   nvshmem::device::put<nvshmem::block>(...) generic device API   (nvcc)
// Built only on the public C API; header-only.
#pragma once

#include "nvshmem/aliases.hpp"
#include "nvshmem/atomic.hpp"
#include "nvshmem/buffer.hpp"
#include "nvshmem/collectives.hpp"
#include "nvshmem/device_view.hpp"
#include "nvshmem/error.hpp"
#include "nvshmem/generic.hpp"
#include "nvshmem/init.hpp"
#include "nvshmem/runtime.hpp"
#include "nvshmem/team.hpp"
#if NVSHM_DEVICE_API  // nvcc without NVSHMEM_HOSTLIB_ONLY
#include "nvshmem/device.hpp"
#endif
