// SPDX-License-Identifier: BSD-3-Clause
// Misuse: copying a SymmetricBuffer (move-only: a copy would free the allocation twice).
#include <nvshmem/nvshmem.hpp>

void misuse(nvshmem::SymmetricBuffer<int> &a) {
#if defined(NVSHM_CASE_fail)
  nvshmem::SymmetricBuffer<int> b(a);
#else
  nvshmem::SymmetricBuffer<int> b(std::move(a));
#endif
  (void)b;
}
