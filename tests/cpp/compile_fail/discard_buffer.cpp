// SPDX-License-Identifier: BSD-3-Clause
// Misuse: dropping the result of a collective allocation ([[nodiscard]]; -Werror makes it an error).
#include <nvshmem/nvshmem.hpp>

void misuse(const nvshmem::Runtime &rt) {
#if defined(NVSHM_CASE_fail)
  nvshmem::SymmetricBuffer<int>::allocate(rt, 4);
#else
  auto b = nvshmem::SymmetricBuffer<int>::allocate(rt, 4);
#endif
}
