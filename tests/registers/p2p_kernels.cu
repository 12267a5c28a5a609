// SPDX-License-Identifier: BSD-3-Clause
// Point-to-point kernels shaped like real users' code (perftests, MoE token shuffles, halo
// exchanges): loops, run-time PEs, sizes and teams, grid-wide syncs. tests/registers/check.sh
// compiles them with and without -rdc and bounds each kernel's registers (docs/registers.md).
#include <nvshmem.h>
#include <nvshmemx.h>

#include "grid_sync.cuh"

// Bandwidth loops: each block moves its share of `len` elements, `iter` times, then quiet.
#define CORPUS_BW_KERNEL(NAME, CALL)                                                                      \
  __global__ void NAME(double *dst, const double *src, size_t len, int pe, int iter, unsigned *counter) { \
    const size_t chunk = len / gridDim.x;                                                                 \
    for (int i = 0; i < iter; ++i) {                                                                      \
      double *d = dst + blockIdx.x * chunk;                                                               \
      const double *s = src + blockIdx.x * chunk;                                                         \
      CALL;                                                                                               \
      grid_sync(counter, (i + 1) * gridDim.x);                                                            \
    }                                                                                                     \
    if (threadIdx.x == 0) nvshmem_quiet();                                                                \
  }
CORPUS_BW_KERNEL(put_nbi_block_bw, nvshmemx_double_put_nbi_block(d, s, chunk, pe))
CORPUS_BW_KERNEL(put_block_bw, nvshmemx_double_put_block(d, s, chunk, pe))
CORPUS_BW_KERNEL(get_nbi_block_bw, nvshmemx_double_get_nbi_block(d, s, chunk, pe))
CORPUS_BW_KERNEL(put_nbi_warp_bw, nvshmemx_double_put_nbi_warp(d + (threadIdx.x / 32) * (chunk / 32),
                                                               s + (threadIdx.x / 32) * (chunk / 32), chunk / 32, pe))
CORPUS_BW_KERNEL(get_warp_bw, nvshmemx_double_get_warp(d + (threadIdx.x / 32) * (chunk / 32),
                                                       s + (threadIdx.x / 32) * (chunk / 32), chunk / 32, pe))
CORPUS_BW_KERNEL(put_nbi_thread_bw,
                 nvshmem_double_put_nbi(d + threadIdx.x * (chunk / blockDim.x), s + threadIdx.x * (chunk / blockDim.x),
                                        chunk / blockDim.x, pe))
CORPUS_BW_KERNEL(getmem_thread_bw,
                 nvshmem_getmem(d + threadIdx.x * (chunk / blockDim.x), s + threadIdx.x * (chunk / blockDim.x),
                                (chunk / blockDim.x) * sizeof(double), pe))
CORPUS_BW_KERNEL(p_bw, for (size_t k = threadIdx.x; k < chunk; k += blockDim.x) nvshmem_double_p(d + k, s[k], pe))
CORPUS_BW_KERNEL(g_bw, for (size_t k = threadIdx.x; k < chunk; k += blockDim.x) d[k] = nvshmem_double_g(s + k, pe))
CORPUS_BW_KERNEL(iput_block_bw, nvshmemx_double_iput_block(d, s, 2, 3, chunk / 3, pe))

// Latency loops over sizes, one thread (put_latency / get_latency shapes).
__global__ void putmem_latency(char *dst, const char *src, size_t max_bytes, int pe, int iter) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2)
    for (int i = 0; i < iter; ++i) {
      nvshmem_putmem(dst, src, bytes, pe);
      nvshmem_quiet();
    }
}
__global__ void getmem_latency(char *dst, const char *src, size_t max_bytes, int pe, int iter) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (size_t bytes = 8; bytes <= max_bytes; bytes *= 2)
    for (int i = 0; i < iter; ++i) nvshmem_getmem(dst, src, bytes, pe);
}
// Put-with-signal ping-pong between PEs 0 and 1 (shmem_put_signal_ping_pong shape).
__global__ void put_signal_ping_pong(int *data, uint64_t *sig, size_t nelems, int iter) {
  const int me = nvshmem_my_pe(), peer = !me;
  for (int i = 0; i < iter; ++i) {
    if (me == 0) {
      nvshmemx_int_put_signal_block(data, data, nelems, sig, i + 1, NVSHMEM_SIGNAL_SET, peer);
      if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, i + 1);
    } else {
      if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, i + 1);
      __syncthreads();
      nvshmemx_int_put_signal_nbi_block(data, data, nelems, sig, i + 1, NVSHMEM_SIGNAL_SET, peer);
    }
    __syncthreads();
  }
}
// int_p ping-pong (shmem_p_latency shape).
__global__ void p_ping_pong(int *flag, int iter) {
  const int me = nvshmem_my_pe(), peer = !me;
  for (int i = 1; i <= iter; ++i) {
    if ((me == 0) == (i & 1)) {
      nvshmem_int_p(flag, i, peer);
    } else {
      nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, i);
    }
  }
}

// MoE token shuffle: each warp sends its tokens to the expert's PE, then signals; every PE waits for
// all its senders (flux / pplx / DeepEP shapes).
__global__ void moe_dispatch_warp(char *recv, const char *send, const int *expert_pe, const int *count,
                                  size_t token_bytes, uint64_t *signals, int n_pes, int tokens) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int warps = gridDim.x * blockDim.x / 32;
  const int me = nvshmem_my_pe();
  for (int t = warp; t < tokens; t += warps) {
    const int pe = expert_pe[t];
    nvshmemx_putmem_nbi_warp(recv + (size_t)(me * tokens + t) * token_bytes, send + (size_t)t * token_bytes,
                             token_bytes, pe);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    nvshmem_fence();
    for (int pe = 0; pe < n_pes; ++pe) nvshmemx_signal_op(signals + me, count[pe], NVSHMEM_SIGNAL_ADD, pe);
    for (int pe = 0; pe < n_pes; ++pe) nvshmem_signal_wait_until(signals + pe, NVSHMEM_CMP_GE, count[me]);
  }
  __syncthreads();
}
__global__ void moe_dispatch_block(char *recv, const char *send, const size_t *offset, const size_t *bytes,
                                   uint64_t *signals, int n_pes, uint64_t epoch) {
  const int me = nvshmem_my_pe();
  for (int i = blockIdx.x; i < n_pes; i += gridDim.x) {
    const int pe = (me + i) % n_pes;
    nvshmemx_putmem_signal_nbi_block(recv + offset[me], send + offset[pe], bytes[pe], signals + me, epoch,
                                     NVSHMEM_SIGNAL_SET, pe);
  }
  for (int i = blockIdx.x; i < n_pes; i += gridDim.x)
    if (threadIdx.x == 0) nvshmem_signal_wait_until(signals + i, NVSHMEM_CMP_EQ, epoch);
  __syncthreads();
}

// Atomics in loops (shmem_atomic_bw / latency shapes), run-time PE.
__global__ void atomic_add_bw(unsigned long long *ctr, int pe, int iter) {
  for (int i = 0; i < iter; ++i) nvshmem_ulonglong_atomic_add(ctr + threadIdx.x, 1, pe);
  if (threadIdx.x == 0) nvshmem_quiet();
}
__global__ void atomic_fetch_latency(int *out, int *ctr, int pe, int iter) {
  int sum = 0;
  for (int i = 0; i < iter; ++i) {
    sum += nvshmem_int_atomic_fetch_add(ctr, 1, pe);
    sum += nvshmem_int_atomic_compare_swap(ctr + 1, i, i + 1, pe);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
// Floating-point accumulation into a peer's histogram or gradient buckets (NVSHMEM 3.7 float adds), run-time
// PE and bucket; a fetch_add of a half counter; the sources are reused after a block-scope flush.
__global__ void float_accumulate(float *buckets, double *total, __half *hits, const float *values, const int *bucket,
                                 int n, int pe) {
  double sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    nvshmemx_float_atomic_add(buckets + bucket[i], values[i], pe);
    sum += values[i];
    (void)nvshmemx_half_atomic_fetch_add(hits + bucket[i], __float2half(1.0f), pe);
  }
  nvshmemx_double_atomic_add(total, sum, pe);
  nvshmemx_flush_block();
}

// Waits over arrays, the team queries.
__global__ void wait_arrays(uint64_t *ivars, size_t n, int *status, size_t *idx, uint64_t *cmp, nvshmem_team_t team,
                            int *out) {
  nvshmem_uint64_wait_until_all(ivars, n, status, NVSHMEM_CMP_GE, 1);
  size_t k = nvshmem_uint64_wait_until_any_vector(ivars, n, status, NVSHMEM_CMP_EQ, cmp);
  k += nvshmem_uint64_wait_until_some(ivars, n, idx, status, NVSHMEM_CMP_NE, 0);
  out[threadIdx.x] = (int)k + nvshmem_team_my_pe(team) + nvshmem_team_translate_pe(team, 1, NVSHMEM_TEAM_WORLD) +
                     nvshmem_uint64_test_any(ivars, n, status, NVSHMEM_CMP_GT, 3);
}
// A halo exchange with the put-with-signal in a loop over time steps (thread scope).
__global__ void halo_thread(float *u, uint64_t *sig, int n, int steps) {
  const int me = nvshmem_my_pe(), np = nvshmem_n_pes();
  const int left = (me + np - 1) % np, right = (me + 1) % np;
  for (int s = 1; s <= steps; ++s) {
    for (int i = threadIdx.x + 1; i < n - 1; i += blockDim.x) u[i] = 0.5f * (u[i - 1] + u[i + 1]);
    __syncthreads();
    if (threadIdx.x == 0) {
      nvshmem_float_put_signal_nbi(u + n - 1, u + 1, 1, sig, s, NVSHMEM_SIGNAL_SET, left);
      nvshmem_float_put_signal(u, u + n - 2, 1, sig + 1, s, NVSHMEM_SIGNAL_SET, right);
      nvshmem_uint64_wait_until(sig, NVSHMEM_CMP_GE, s);
      nvshmem_uint64_wait_until(sig + 1, NVSHMEM_CMP_GE, s);
    }
    __syncthreads();
  }
}
