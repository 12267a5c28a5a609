// SPDX-License-Identifier: BSD-3-Clause
// What NVIDIA's nvshmem.h brings with it under nvcc, used after only `#include <nvshmem.h>`
// (docs/compatibility.md, "What nvshmem.h brings"): assert, cooperative groups through the global
// alias `cg`, cg::reduce, and libcu++'s cuda::atomic_ref with its scopes and memory orders.
// Compiled by nvcc with and without -rdc (tests/compat/CMakeLists.txt); nothing runs.
#include <nvshmem.h>

namespace cg = cooperative_groups;  // programs declare the alias too: a redeclaration must compile

__global__ void uses_what_nvshmem_h_brings(int *counter, int *out) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  assert(grid.size() >= block.size());
  const int sum = cg::reduce(warp, static_cast<int>(block.thread_rank()), cg::plus<int>());
  cuda::atomic_ref<int, cuda::thread_scope_system> ref(*counter);
  const int before = ref.fetch_add(sum, cuda::memory_order_relaxed);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_system);
  if (warp.thread_rank() == 0) out[block.group_index().x] = before + ref.load(cuda::memory_order_acquire);
  nvshmem_int_p(out, sum, nvshmem_my_pe());
}
