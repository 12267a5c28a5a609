// SPDX-License-Identifier: BSD-3-Clause
// Several PEs on one GPU (NVSHMEM's "multiple processes per GPU", MPG): which PEs share this PE's GPU,
// whether CUDA MPS runs their kernels side by side, and what that leaves a collective launch
// (docs/compatibility.md, "Several PEs on one GPU"). A pure rule over what every PE reports at init. May use: common/.
#pragma once
#include <cstdint>
#include <vector>

namespace nvshm {

// What one PE reports about its GPU at init (exchanged by allgather; the same layout on every PE).
struct PeGpu {
  uint8_t uuid[16] = {};        // cudaDeviceProp::uuid; all zero for a PE without a GPU heap
  int32_t mps = 0;              // 1 when its contexts are MPS clients (cudaDevAttrMpsEnabled)
  int32_t thread_permille = 0;  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE in tenths of a percent; 0 when unset
};

struct GpuSharing {
  int pes = 1;         // PEs of the job on this PE's GPU, itself included
  bool mps = false;    // they run under MPS
  bool full = true;    // NVSHMEM_STATUS_FULL_MPG where pes > 1: every PE's collective grid fits at once
  int grid_share = 1;  // a collective launch's largest grid is the GPU's divided by this
};

// The sharing of PE `me`'s GPU. Under MPS the PEs' kernels run at once on SMs they share, so the
// co-resident grids of a collective launch must fit together: that holds when their
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE values are all set and add up to at most 100 (CUDA then limits each
// client to its part, and the query sees that part), or when `ignore_percentage`
// (NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) says the application sees to it; otherwise each PE
// gets 1/pes of the GPU's blocks (grid_share). Without MPS the PEs' contexts take turns on the GPU, so
// a grid that fits the GPU needs no share; NVSHMEM calls that limited MPG all the same.
GpuSharing gpu_sharing_of(const std::vector<PeGpu> &all, int me, bool ignore_percentage);

// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE's value in tenths of a percent: a number in (0, 100], else 0.
int32_t parse_thread_permille(const char *value);

}  // namespace nvshm
