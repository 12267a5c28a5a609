// SPDX-License-Identifier: BSD-3-Clause
// Misuse: copying a ModuleRegistration guard (it would unregister the module twice).
#include <nvshmem/nvshmem.hpp>

void misuse(const nvshmem::Runtime &rt, CUmodule m) {
  auto reg = rt.register_module(m);
#if defined(NVSHM_CASE_fail)
  nvshmem::ModuleRegistration copy(reg);
  (void)copy;
#endif
  reg.finalize();
}
