// SPDX-License-Identifier: BSD-3-Clause
// CTest contrib.nvshmem4rust.device_link: a kernel that only declares the device functions it calls, as a
// CUDA-Oxide kernel does through nvshmem_device_cuda_oxide.rs (no NVSHMEM header), compiled with -rdc; the
// test device-links it with libnvshmem_device_defs.a and the installed libnvshmem_device.a.
#include <stddef.h>
#include <stdint.h>

typedef int32_t nvshmem_team_t;
extern "C" __device__ int nvshmem_my_pe(void);
extern "C" __device__ int nvshmem_n_pes(void);
extern "C" __device__ void nvshmem_int_p(int *dest, int value, int pe);
extern "C" __device__ int nvshmem_int_g(const int *source, int pe);
extern "C" __device__ void nvshmemx_putmem_nbi_warp(void *dest, const void *source, size_t bytes, int pe);
extern "C" __device__ void nvshmemx_getmem_block(void *dest, const void *source, size_t bytes, int pe);
extern "C" __device__ uint64_t nvshmem_uint64_atomic_fetch_add(uint64_t *dest, uint64_t value, int pe);
extern "C" __device__ void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
extern "C" __device__ uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
extern "C" __device__ int nvshmem_float_sum_reduce(nvshmem_team_t team, float *dest, const float *source,
                                                   size_t nreduce);
extern "C" __device__ void nvshmem_quiet(void);
extern "C" __device__ void nvshmem_barrier_all(void);

extern "C" __global__ void ring(int *data, uint64_t *counter, uint64_t *signal, float *sum) {
  const int me = nvshmem_my_pe(), next = (me + 1) % nvshmem_n_pes();
  nvshmem_int_p(data, me, next);
  nvshmemx_putmem_nbi_warp(data + 1, data, sizeof(int), next);
  nvshmemx_getmem_block(data + 2, data, sizeof(int), next);
  data[3] = nvshmem_int_g(data, next);
  (void)nvshmem_uint64_atomic_fetch_add(counter, 1, 0);
  nvshmemx_signal_op(signal, 1, 0, next);
  (void)nvshmem_signal_wait_until(signal, 0, 1);
  (void)nvshmem_float_sum_reduce(0, sum, sum + 1, 1);
  nvshmem_quiet();
  nvshmem_barrier_all();
}
