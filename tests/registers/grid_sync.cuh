// SPDX-License-Identifier: BSD-3-Clause
// A grid-wide counter sync as NVIDIA's bandwidth perftests do between iterations: block b of the
// grid adds 1 to *counter and waits until it reaches `target` (the k-th sync waits for k x gridDim.x).
// Shared by the register corpus and the GPU test that launches such kernels (test_launch_1024.cu).
#pragma once

__device__ __forceinline__ void grid_sync(unsigned *counter, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
    while (atomicAdd(counter, 0u) < target) {
    }
  }
  __syncthreads();
}
