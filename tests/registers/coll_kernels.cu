// SPDX-License-Identifier: BSD-3-Clause
// Collective kernels shaped like real users' code: a team passed at run time, sizes at run time,
// timing loops (NVIDIA's collective perftests, training loops). tests/registers/check.sh bounds
// each kernel's registers with and without -rdc (docs/registers.md).
#include <nvshmem.h>
#include <nvshmemx.h>

// Timing loops: one collective per iteration on a run-time team, thread, warp and block scope.
#define CORPUS_COLL_LOOP(NAME, T, CALL)                                                                    \
  __global__ void NAME(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int root, int iter) { \
    for (int i = 0; i < iter; ++i) {                                                                       \
      CALL;                                                                                                \
    }                                                                                                      \
  }
#define CORPUS_THREAD_ONLY(CALL) \
  if (threadIdx.x == 0 && blockIdx.x == 0) CALL
#define CORPUS_WARP_ONLY(CALL) \
  if (threadIdx.x < 32 && blockIdx.x == 0) CALL

CORPUS_COLL_LOOP(alltoall_thread, int, CORPUS_THREAD_ONLY(nvshmem_int_alltoall(team, dest, source, nelems)))
CORPUS_COLL_LOOP(alltoall_warp, int, CORPUS_WARP_ONLY(nvshmemx_int_alltoall_warp(team, dest, source, nelems)))
CORPUS_COLL_LOOP(alltoall_block, int, nvshmemx_int_alltoall_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(broadcast_thread, long, CORPUS_THREAD_ONLY(nvshmem_long_broadcast(team, dest, source, nelems, root)))
CORPUS_COLL_LOOP(broadcast_warp, long, CORPUS_WARP_ONLY(nvshmemx_long_broadcast_warp(team, dest, source, nelems, root)))
CORPUS_COLL_LOOP(broadcast_block, long, nvshmemx_long_broadcast_block(team, dest, source, nelems, root))
CORPUS_COLL_LOOP(fcollect_thread, float, CORPUS_THREAD_ONLY(nvshmem_float_fcollect(team, dest, source, nelems)))
CORPUS_COLL_LOOP(fcollect_warp, float, CORPUS_WARP_ONLY(nvshmemx_float_fcollect_warp(team, dest, source, nelems)))
CORPUS_COLL_LOOP(fcollect_block, float, nvshmemx_float_fcollect_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(sum_reduce_thread, float, CORPUS_THREAD_ONLY(nvshmem_float_sum_reduce(team, dest, source, nelems)))
CORPUS_COLL_LOOP(sum_reduce_warp, float, CORPUS_WARP_ONLY(nvshmemx_float_sum_reduce_warp(team, dest, source, nelems)))
CORPUS_COLL_LOOP(sum_reduce_block, float, nvshmemx_float_sum_reduce_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(max_reduce_thread_double, double,
                 CORPUS_THREAD_ONLY(nvshmem_double_max_reduce(team, dest, source, nelems)))
CORPUS_COLL_LOOP(max_reduce_block_double, double, nvshmemx_double_max_reduce_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(prod_reduce_thread_long, long,
                 CORPUS_THREAD_ONLY(nvshmem_long_prod_reduce(team, dest, source, nelems)))
CORPUS_COLL_LOOP(and_reduce_warp_uint, unsigned,
                 CORPUS_WARP_ONLY(nvshmemx_uint_and_reduce_warp(team, dest, source, nelems)))
CORPUS_COLL_LOOP(sum_reduce_block_half, half, nvshmemx_half_sum_reduce_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(sum_reduce_block_bf16, __nv_bfloat16, nvshmemx_bfloat16_sum_reduce_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(sum_reducescatter_thread, int,
                 CORPUS_THREAD_ONLY(nvshmem_int_sum_reducescatter(team, dest, source, nelems)))
CORPUS_COLL_LOOP(sum_reducescatter_warp, int,
                 CORPUS_WARP_ONLY(nvshmemx_int_sum_reducescatter_warp(team, dest, source, nelems)))
CORPUS_COLL_LOOP(sum_reducescatter_block, int, nvshmemx_int_sum_reducescatter_block(team, dest, source, nelems))
CORPUS_COLL_LOOP(barrier_thread, int, CORPUS_THREAD_ONLY(nvshmem_barrier(team)))
CORPUS_COLL_LOOP(barrier_block, int, nvshmemx_barrier_block(team))
CORPUS_COLL_LOOP(team_sync_warp, int, CORPUS_WARP_ONLY(nvshmemx_team_sync_warp(team)))
CORPUS_COLL_LOOP(sync_all_block, int, nvshmemx_sync_all_block())
CORPUS_COLL_LOOP(barrier_all_thread, int, CORPUS_THREAD_ONLY(nvshmem_barrier_all()))

// A training step: reduce gradients of several sizes, then broadcast parameters, on the world team.
__global__ void allreduce_then_broadcast(float *grad, const size_t *sizes, int layers, float *params, size_t nparams) {
  size_t offset = 0;
  for (int l = 0; l < layers; ++l) {
    nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, grad + offset, grad + offset, sizes[l]);
    offset += sizes[l];
  }
  nvshmemx_float_broadcast_block(NVSHMEM_TEAM_WORLD, params, params, nparams, 0);
}
// Collectives next to point-to-point traffic in one kernel (a pipeline stage: exchange, then sync).
__global__ void exchange_then_barrier(char *buf, const char *src, size_t bytes, nvshmem_team_t team, int iter) {
  const int np = nvshmem_team_n_pes(team);
  const int me = nvshmem_team_my_pe(team);
  for (int i = 0; i < iter; ++i) {
    const int peer = nvshmem_team_translate_pe(team, (me + 1 + i % (np - 1 > 0 ? np - 1 : 1)) % np, NVSHMEM_TEAM_WORLD);
    nvshmemx_putmem_nbi_block(buf, src, bytes, peer);
    nvshmemx_barrier_block(team);
  }
}
// Several collectives per loop iteration, or loops of different collectives one after the other: the
// collectives' inline code adds up (each alone is within the budget; docs/registers.md).
__global__ void reduce_and_broadcast_loop(nvshmem_team_t team, int *red, int *bcast, const int *src,
                                          const size_t *counts, int nsizes, int root) {
  size_t at = 0;
  for (int k = 0; k < nsizes; ++k) {
    nvshmemx_int_sum_reduce_block(team, red + at, src + at, counts[k]);
    nvshmemx_int_broadcast_block(team, bcast + at, src + at, counts[k], root);
    at += counts[k];
  }
}
__global__ void reduce_loop_then_broadcast_loop(nvshmem_team_t team, int *red, int *bcast, const int *src,
                                                const size_t *counts, int nsizes, int root) {
  size_t at = 0;
  for (int k = 0; k < nsizes; ++k) {
    nvshmemx_int_sum_reduce_block(team, red + at, src + at, counts[k]);
    at += counts[k];
  }
  at = 0;
  for (int k = 0; k < nsizes; ++k) {
    nvshmemx_int_broadcast_block(team, bcast + at, src + at, counts[k], root);
    at += counts[k];
  }
}
