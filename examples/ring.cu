// SPDX-License-Identifier: BSD-3-Clause
// ring: every PE writes into its right neighbour from a CUDA kernel (a scalar with nvshmem_int_p and
// an array with a block-scope put), then checks what its left neighbour wrote. Prints one verdict.
//   nvshmrun -n 2 ./ring
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "ring: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

constexpr int kCount = 1 << 16;

__global__ void send_right(int *scalar, int *array, const int *source) {
  const int me = nvshmem_my_pe();
  const int right = (me + 1) % nvshmem_n_pes();
  if (threadIdx.x == 0) nvshmem_int_p(scalar, me + 1000, right);
  nvshmemx_int_put_nbi_block(array, source, kCount, right);
  if (threadIdx.x == 0) nvshmem_quiet();
}

int main() {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    printf("ring: no GPU visible; this example needs one (try heat1d on the CPU backend)\n");
    return 77;
  }
  nvshmem_init();
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int left = (me + n - 1) % n;
  int *scalar = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  int *array = static_cast<int *>(nvshmem_malloc(kCount * sizeof(int)));
  int *source = static_cast<int *>(nvshmem_malloc(kCount * sizeof(int)));
  if (!scalar || !array || !source) {
    fprintf(stderr, "ring: nvshmem_malloc failed\n");
    return 1;
  }
  std::vector<int> host(kCount);
  for (int i = 0; i < kCount; ++i) host[i] = me * 7919 + i * 31 + 1;
  CUDA_CHECK(cudaMemcpy(source, host.data(), kCount * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(array, 0xff, kCount * sizeof(int)));  // poison
  CUDA_CHECK(cudaMemset(scalar, 0xff, sizeof(int)));
  nvshmem_barrier_all();

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  send_right<<<1, 256, 0, stream>>>(scalar, array, source);
  CUDA_CHECK(cudaGetLastError());
  nvshmemx_barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  int got_scalar = 0;
  std::vector<int> got(kCount);
  CUDA_CHECK(cudaMemcpy(&got_scalar, scalar, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got.data(), array, kCount * sizeof(int), cudaMemcpyDeviceToHost));
  int errors = got_scalar != left + 1000;
  for (int i = 0; i < kCount; ++i) errors += got[i] != left * 7919 + i * 31 + 1;

  nvshmem_free(source);
  nvshmem_free(array);
  nvshmem_free(scalar);
  CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_finalize();
  if (errors) {
    printf("ring: PE %d FAILED (%d wrong values from PE %d)\n", me, errors, left);
    return 1;
  }
  printf("ring: PE %d of %d OK (received %d ints and a scalar from PE %d)\n", me, n, kCount, left);
  return 0;
}
