// SPDX-License-Identifier: BSD-3-Clause
// Misuse: copy-assigning a SymmetricBuffer.
#include <nvshmem/nvshmem.hpp>

void misuse(nvshmem::SymmetricBuffer<int> &a, nvshmem::SymmetricBuffer<int> &b) {
#if defined(NVSHM_CASE_fail)
  b = a;
#else
  b = std::move(a);
#endif
}
