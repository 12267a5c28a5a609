// SPDX-License-Identifier: BSD-3-Clause
// Misuse: a reduction NVSHMEM does not have (bitwise and on float); the twin sums floats.
#include <nvshmem/nvshmem.hpp>

void misuse(float *d, const float *s) {
#if defined(NVSHM_CASE_fail)
  nvshmem::reduce<nvshmem::Op::and_>(nvshmem::Team::world(), d, s, 4);
#else
  nvshmem::reduce<nvshmem::Op::sum>(nvshmem::Team::world(), d, s, 4);
#endif
}
