// SPDX-License-Identifier: BSD-3-Clause
// Compiled to a cubin at build time and loaded through the driver API by test_module.cu.
#include <nvshmem.h>

extern "C" __global__ void module_ring(int *dst) {
  const int me = nvshmem_my_pe();
  nvshmem_int_p(dst, me + 1, (me + 1) % nvshmem_n_pes());
  nvshmem_quiet();
}
