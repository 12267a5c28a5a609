// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a buffer member reduction NVSHMEM does not have (bitwise and on float); the twin sums.
#include <nvshmem/nvshmem.hpp>

void misuse(const nvshmem::SymmetricBuffer<float> &dest, const nvshmem::SymmetricBuffer<float> &source) {
#if defined(NVSHM_CASE_fail)
  dest.reduce<nvshmem::Op::and_>(nvshmem::Team::world(), source);
#else
  dest.reduce<nvshmem::Op::sum>(nvshmem::Team::world(), source);
#endif
}
