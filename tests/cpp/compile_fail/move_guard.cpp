// SPDX-License-Identifier: BSD-3-Clause
// Misuse: moving a ModuleRegistration guard out of its scope (guards are neither copyable nor movable).
#include <nvshmem/nvshmem.hpp>

#include <utility>

void misuse(const nvshmem::Runtime &rt, CUmodule m) {
  auto reg = rt.register_module(m);
#if defined(NVSHM_CASE_fail)
  nvshmem::ModuleRegistration moved(std::move(reg));
  (void)moved;
#endif
  (void)reg.finalized();
}
