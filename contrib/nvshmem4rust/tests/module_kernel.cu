// SPDX-License-Identifier: BSD-3-Clause
// Compiled to a cubin (CMakeLists.txt, where nvcc is) for the module-registration tests: each PE
// writes its id + 1 into element 0 of its right neighbour's `dst`.
#include <nvshmem.h>

extern "C" __global__ void nvshmem4rust_ring(int *dst) {
  const int me = nvshmem_my_pe();
  nvshmem_int_p(dst, me + 1, (me + 1) % nvshmem_n_pes());
  nvshmem_quiet();
}
