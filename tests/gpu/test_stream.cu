// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered routines: typed and byte put/get (blocking and nbi forms), quiet, barrier and
// sync on a stream, and the same sequence captured in a CUDA graph and replayed.
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

TEST(Stream, PutGetEveryForm) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 4099, bytes = count * sizeof(double);
  double *src = static_cast<double *>(nvshmem_malloc(bytes));
  double *dst = static_cast<double *>(nvshmem_malloc(6 * bytes));
  char *got = nullptr;
  CUDA_CHECK(cudaMalloc(&got, 4 * bytes));
  const auto mine = random_bytes(bytes, me, 5);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, 6 * bytes));
  CUDA_CHECK(cudaMemset(got, kPoison, 4 * bytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvshmemx_barrier_all_on_stream(stream);
  nvshmemx_double_put_on_stream(dst, src, count, right, stream);
  nvshmemx_double_put_nbi_on_stream(dst + count, src, count, right, stream);
  nvshmemx_putmem_on_stream(dst + 2 * count, src, bytes, right, stream);
  nvshmemx_putmem_nbi_on_stream(dst + 3 * count, src, bytes, right, stream);
  nvshmemx_char_put_on_stream(reinterpret_cast<char *>(dst + 4 * count), reinterpret_cast<const char *>(src), bytes,
                              right, stream);
  nvshmemx_double_get_on_stream(reinterpret_cast<double *>(got), src, count, right, stream);
  nvshmemx_double_get_nbi_on_stream(reinterpret_cast<double *>(got + bytes), src, count, right, stream);
  nvshmemx_getmem_on_stream(got + 2 * bytes, src, bytes, right, stream);
  nvshmemx_getmem_nbi_on_stream(got + 3 * bytes, src, bytes, right, stream);
  nvshmemx_quiet_on_stream(stream);
  nvshmemx_barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto puts = to_host(dst, 6 * bytes), gets = to_host(got, 4 * bytes);
  const auto from_left = random_bytes(bytes, left, 5), from_right = random_bytes(bytes, right, 5);
  for (int s = 0; s < 5; ++s) EXPECT_EQ(memcmp(puts.data() + s * bytes, from_left.data(), bytes), 0) << "put " << s;
  EXPECT_EQ(puts[5 * bytes], kPoison);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(memcmp(gets.data() + s * bytes, from_right.data(), bytes), 0) << "get " << s;
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dst);
  nvshmem_free(src);
}

__global__ void bump(int *value, int by) {
  value[threadIdx.x] += by;
}

// A graph of: local kernel, put to the right, barrier, sync; replayed with new source data each
// time, the destination must follow.
TEST(Stream, CapturedGraphReplays) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  int *src = static_cast<int *>(nvshmem_malloc(sizeof(int) * 64));
  int *dst = static_cast<int *>(nvshmem_malloc(sizeof(int) * 64 * 4));
  int *got = nullptr;
  CUDA_CHECK(cudaMalloc(&got, sizeof(int) * 64 * 2));
  CUDA_CHECK(cudaMemset(src, 0, sizeof(int) * 64));
  CUDA_CHECK(cudaMemset(dst, kPoison, sizeof(int) * 64 * 4));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvshmemx_barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  bump<<<1, 64, 0, stream>>>(src, me + 1);
  nvshmemx_barrier_all_on_stream(stream);  // nobody reads dst while it is written
  nvshmemx_int_put_on_stream(dst, src, 64, right, stream);
  nvshmemx_int_put_nbi_on_stream(dst + 64, src, 64, right, stream);
  nvshmemx_putmem_on_stream(dst + 128, src, 64 * sizeof(int), right, stream);
  nvshmemx_putmem_nbi_on_stream(dst + 192, src, 64 * sizeof(int), right, stream);
  nvshmemx_int_get_on_stream(got, src, 64, right, stream);
  nvshmemx_getmem_nbi_on_stream(got + 64, src, 64 * sizeof(int), right, stream);
  nvshmemx_quiet_on_stream(stream);
  nvshmemx_sync_all_on_stream(stream);
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 1; replay <= 3; ++replay) {
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<int> puts(64 * 4), gets(64 * 2);
    CUDA_CHECK(cudaMemcpy(puts.data(), dst, puts.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gets.data(), got, gets.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64 * 4; i += 63) EXPECT_EQ(puts[i], replay * (left + 1)) << "replay " << replay << " put " << i;
    // The right neighbour may or may not have bumped its source for this replay when we read it.
    for (int i = 0; i < 64 * 2; i += 63) {
      EXPECT_GE(gets[i], (replay - 1) * (right + 1)) << "replay " << replay << " get " << i;
      EXPECT_LE(gets[i], replay * (right + 1)) << "replay " << replay << " get " << i;
    }
    gpu_test::barrier();
  }
  CUDA_CHECK(cudaFree(got));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dst);
  nvshmem_free(src);
}

}  // namespace
