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
  uint8_t uuid[16] = {};  // cudaDeviceProp::uuid; all zero for a PE without a GPU heap
  int32_t mps = 0;        // 1 when its contexts are MPS clients (cudaDevAttrMpsEnabled)
  int32_t reserved = 0;
  double thread_percent = 0;  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE; 0 when unset
};

struct GpuSharing {
  int pes = 1;         // PEs of the job on this PE's GPU, itself included
  bool mps = false;    // they run under MPS (as any of them reports)
  bool full = true;    // NVSHMEM_STATUS_FULL_MPG where pes > 1 (else LIMITED_MPG)
  int grid_share = 1;  // a collective launch's largest grid is the GPU's divided by this
};

// The sharing of PE `me`'s GPU. Under MPS the PEs' kernels run at once on SMs they share, so the
// co-resident grids of their collective launches must fit together: each PE gets 1/pes of the blocks
// that fit the SMs CUDA gives it, unless `ignore_percentage` (NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)
// says the application sees to it. CUDA_MPS_ACTIVE_THREAD_PERCENTAGE caps the SMs a client uses at once
// (the SM count CUDA reports follows it) but gives it none of its own, so it does not lift the division
// (measured: docs/compatibility.md); it decides NVSHMEM's status only: full MPG when the PEs' parts are all
// set and add up to at most 100. Without MPS the PEs' contexts take turns on the GPU, so a grid that fits
// the GPU needs no share; NVSHMEM calls that limited MPG.
GpuSharing gpu_sharing_of(const std::vector<PeGpu> &all, int me, bool ignore_percentage);

// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE's value: a number in (0, 100], else 0.
double parse_thread_percent(const char *value);

}  // namespace nvshm
