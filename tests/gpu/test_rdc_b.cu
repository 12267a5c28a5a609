// SPDX-License-Identifier: BSD-3-Clause
#include <nvshmem.h>

__global__ void unit_b(int *out) {
  out[0] = nvshmem_my_pe();
  out[1] = nvshmem_n_pes();
}

int launch_unit_b(int *out) {
  unit_b<<<1, 1>>>(out);
  return static_cast<int>(cudaGetLastError());
}
