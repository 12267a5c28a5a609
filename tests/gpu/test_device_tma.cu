// SPDX-License-Identifier: BSD-3-Clause
// The TMA data path (docs/tma.md), compiled in here (NVSHM_TMA_DATA_PATH): block-scope puts and gets of
// random data from blocks that lent shared memory, at sizes of one chunk, several chunks (both staging
// buffers in turn) and a size that is not a multiple of 16 (loads and stores), and from a block that lent
// only the mbarrier's bytes (too little: loads and stores). Run with NVSHMEM_TMA_POLICY=ENABLE (TMA) and
// without (loads and stores): the data must be the same.
#define NVSHM_TMA_DATA_PATH
#include "gpu_test.hpp"

namespace {

// Puts n bytes of src to dest on `peer`, then gets them back from the peer's src into got.
__global__ void put_get_block(char *dest, const char *src, char *got, size_t n, int peer, size_t lent) {
  extern __shared__ __align__(16) unsigned char smem[];
  if (threadIdx.x == 0) nvshmemx_give_smem(smem, lent);
  __syncthreads();
  nvshmemx_putmem_block(dest, src, n, peer);
  nvshmemx_getmem_nbi_block(got, src, n, peer);
  nvshmem_quiet();
  __syncthreads();
  if (threadIdx.x == 0) nvshmemx_release_smem();
}

void run(size_t n, nvshmemx_smem_amount_t amount, int salt) {
  const int me = nvshmem_my_pe(), n_pes = nvshmem_n_pes(), peer = (me + 1) % n_pes, left = (me + n_pes - 1) % n_pes;
  char *src = static_cast<char *>(nvshmem_malloc(n));
  char *dest = static_cast<char *>(nvshmem_malloc(n));
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dest, nullptr);
  char *got = nullptr;
  CUDA_CHECK(cudaMalloc(&got, n));
  const std::vector<unsigned char> mine = gpu_test::random_bytes(n, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, gpu_test::kPoison, n));
  CUDA_CHECK(cudaMemset(got, gpu_test::kPoison, n));
  const size_t lent = static_cast<size_t>(nvshmemx_ask_smem(amount));
  CUDA_CHECK(cudaFuncSetAttribute(put_get_block, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(lent)));
  gpu_test::barrier();
  put_get_block<<<1, 256, lent>>>(dest, src, got, n, peer, lent);
  LAUNCH_CHECK();
  gpu_test::barrier();
  std::vector<unsigned char> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), dest, n, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(h == gpu_test::random_bytes(n, left, salt)) << n << " bytes put by the left neighbour";
  CUDA_CHECK(cudaMemcpy(h.data(), got, n, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(h == gpu_test::random_bytes(n, peer, salt)) << n << " bytes got from the right neighbour";
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dest);
  nvshmem_free(src);
}

TEST(DeviceTma, AskSmemAmounts) {
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED), 65536);
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_MINIMUM), 32768);
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_BARRIERS_ONLY), 16);
}
TEST(DeviceTma, OneChunk) {
  run(4096, NVSHMEMX_SMEM_RECOMMENDED, 1);
}
TEST(DeviceTma, ManyChunksBothBuffers) {
  run((size_t{1} << 20) + 48, NVSHMEMX_SMEM_RECOMMENDED, 2);
}
TEST(DeviceTma, SmallChunksOfTheMinimum) {
  run(200000 - 200000 % 16, NVSHMEMX_SMEM_MINIMUM, 3);
}
TEST(DeviceTma, SizeNotAMultipleOf16UsesLoadsAndStores) {
  run(100003, NVSHMEMX_SMEM_RECOMMENDED, 4);
}
TEST(DeviceTma, BarriersOnlyIsTooLittleToStage) {
  run(65536, NVSHMEMX_SMEM_BARRIERS_ONLY, 5);
}

}  // namespace
