// SPDX-License-Identifier: BSD-3-Clause
// Kernels shaped like NVIDIA's perftests and MoE token shuffles, launched with 1024-thread blocks
// (which need 64 registers per thread or fewer, docs/registers.md), moving random data that is
// checked on every PE: a loop of block puts with a grid-wide counter sync and a final quiet, the same
// with byte puts at unaligned offsets (the out-of-line copy), a token dispatch whose grid comes
// from nvshmemx_collective_launch_query_gridsize, and a training step: block reductions at sizes that
// take each path (LL, one-shot, two-shot) and a block broadcast, on a team passed at run time.
#include <cuda_runtime.h>

#include "../registers/grid_sync.cuh"
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr int kThreads = 1024;

// Each block puts its share of `len` doubles to `pe`, `iter` times (the last one leaves the data).
__global__ void put_loop(double *dst, const double *src, size_t len, int pe, int iter, unsigned *counter) {
  const size_t chunk = len / gridDim.x;
  for (int i = 0; i < iter; ++i) {
    nvshmemx_double_put_nbi_block(dst + blockIdx.x * chunk, src + blockIdx.x * chunk, chunk, pe);
    grid_sync(counter, (i + 1) * gridDim.x);
  }
  if (threadIdx.x == 0) nvshmem_quiet();
}
// The same with bytes at offsets that are not 16-byte aligned.
__global__ void putmem_loop(char *dst, const char *src, size_t chunk, int pe, int iter, unsigned *counter) {
  for (int i = 0; i < iter; ++i) {
    nvshmemx_putmem_nbi_block(dst + blockIdx.x * chunk, src + blockIdx.x * chunk, chunk, pe);
    grid_sync(counter, (i + 1) * gridDim.x);
  }
  if (threadIdx.x == 0) nvshmem_quiet();
}
// Token dispatch: warp w sends token t (w, w + warps, ...) to PE expert_pe[t], slot (me, t); once
// every block has sent (a counter), thread 0 of block 0 fences, signals every PE and waits for every
// PE's signal.
__global__ void moe_dispatch(char *recv, const char *send, const int *expert_pe, size_t token_bytes, int tokens,
                             uint64_t *signals, unsigned *counter) {
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int warps = static_cast<int>(gridDim.x * blockDim.x / 32);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  for (int t = warp; t < tokens; t += warps)
    nvshmemx_putmem_nbi_warp(recv + (static_cast<size_t>(me) * tokens + t) * token_bytes,
                             send + static_cast<size_t>(t) * token_bytes, token_bytes, expert_pe[t]);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    atomicAdd(counter, 1u);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (atomicAdd(counter, 0u) < gridDim.x) {
    }
    nvshmem_fence();
    for (int pe = 0; pe < npes; ++pe) nvshmemx_signal_op(signals + me, 1, NVSHMEM_SIGNAL_ADD, pe);
    for (int pe = 0; pe < npes; ++pe) nvshmem_signal_wait_until(signals + pe, NVSHMEM_CMP_GE, 1);
  }
}

// A training step: block sum-reduces of the gradients of `layers` layers in place, then a block
// broadcast of the parameters from `root`, on the team passed at run time.
__global__ void training_step(nvshmem_team_t team, int *grad, const size_t *sizes, int layers, int *params,
                              size_t nparams, int root) {
  size_t offset = 0;
  for (int l = 0; l < layers; ++l) {
    nvshmemx_int_sum_reduce_block(team, grad + offset, grad + offset, sizes[l]);
    offset += sizes[l];
  }
  nvshmemx_int_broadcast_block(team, params, params, nparams, root);
}

template <typename K>
int registers_of(K kernel) {
  cudaFuncAttributes attr{};
  EXPECT_EQ(cudaFuncGetAttributes(&attr, kernel), cudaSuccess);
  return attr.numRegs;
}

TEST(Launch1024, PutLoopOfBlockPuts) {
  EXPECT_LE(registers_of(put_loop), 64);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
  constexpr int kBlocks = 4;
  const size_t len = size_t{kBlocks} << 16;  // 2 MiB of doubles
  auto *src = static_cast<double *>(nvshmem_malloc(len * sizeof(double)));
  auto *dst = static_cast<double *>(nvshmem_malloc(len * sizeof(double)));
  unsigned *counter;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  const auto data = random_bytes(len * sizeof(double), me, 1);
  CUDA_CHECK(cudaMemcpy(src, data.data(), data.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, len * sizeof(double)));
  gpu_test::barrier();
  put_loop<<<kBlocks, kThreads>>>(dst, src, len, right, 3, counter);
  LAUNCH_CHECK();
  gpu_test::barrier();
  EXPECT_EQ(to_host(dst, len * sizeof(double)), random_bytes(len * sizeof(double), left, 1));
  CUDA_CHECK(cudaFree(counter));
  nvshmem_free(dst);
  nvshmem_free(src);
}

TEST(Launch1024, PutLoopOfUnalignedBytes) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
  constexpr int kBlocks = 4;
  constexpr size_t kChunk = 100003, kOffset = 3, kBytes = kBlocks * kChunk;
  auto *src = static_cast<char *>(nvshmem_malloc(kBytes + 16));
  auto *dst = static_cast<char *>(nvshmem_malloc(kBytes + 16));
  unsigned *counter;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  const auto data = random_bytes(kBytes, me, 2);
  CUDA_CHECK(cudaMemcpy(src + kOffset, data.data(), kBytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, kBytes + 16));
  gpu_test::barrier();
  putmem_loop<<<kBlocks, kThreads>>>(dst + kOffset, src + kOffset, kChunk, right, 2, counter);
  LAUNCH_CHECK();
  gpu_test::barrier();
  const auto got = to_host(dst, kBytes + 16);
  EXPECT_EQ(std::vector<unsigned char>(got.begin() + kOffset, got.begin() + kOffset + kBytes),
            random_bytes(kBytes, left, 2));
  for (size_t i = 0; i < kOffset; ++i) EXPECT_EQ(got[i], kPoison) << "byte " << i << " before the put was written";
  for (size_t i = kOffset + kBytes; i < got.size(); ++i) EXPECT_EQ(got[i], kPoison) << "byte " << i << " past the put";
  CUDA_CHECK(cudaFree(counter));
  nvshmem_free(dst);
  nvshmem_free(src);
}

TEST(Launch1024, MoeDispatchGetsAGridAndRuns) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  constexpr int kTokens = 96;
  constexpr size_t kTokenBytes = 7168 * 2;  // a bf16 hidden state of 7168
  int grid = 0;
  void *probe_args[7] = {};
  ASSERT_EQ(nvshmemx_collective_launch_query_gridsize(reinterpret_cast<const void *>(moe_dispatch), dim3(kThreads),
                                                      probe_args, 0, &grid),
            0);
  ASSERT_GT(grid, 0) << "a 1024-thread block of the dispatch kernel cannot be resident";
  grid = std::min(grid, 8);
  auto *send = static_cast<char *>(nvshmem_malloc(kTokens * kTokenBytes));
  auto *recv = static_cast<char *>(nvshmem_malloc(static_cast<size_t>(npes) * kTokens * kTokenBytes));
  auto *signals = static_cast<uint64_t *>(nvshmem_calloc(npes, sizeof(uint64_t)));
  int *expert_pe;
  unsigned *counter;
  CUDA_CHECK(cudaMalloc(&expert_pe, kTokens * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
  std::vector<int> experts(kTokens);
  for (int t = 0; t < kTokens; ++t) experts[t] = (t * 7 + me) % npes;  // every PE computes every PE's map
  CUDA_CHECK(cudaMemcpy(expert_pe, experts.data(), kTokens * sizeof(int), cudaMemcpyHostToDevice));
  const auto tokens = random_bytes(kTokens * kTokenBytes, me, 3);
  CUDA_CHECK(cudaMemcpy(send, tokens.data(), tokens.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(recv, kPoison, static_cast<size_t>(npes) * kTokens * kTokenBytes));
  gpu_test::barrier();
  size_t token_bytes = kTokenBytes;
  int n_tokens = kTokens;
  void *args[] = {&recv, &send, &expert_pe, &token_bytes, &n_tokens, &signals, &counter};
  ASSERT_EQ(
      nvshmemx_collective_launch(reinterpret_cast<const void *>(moe_dispatch), dim3(grid), dim3(kThreads), args, 0, 0),
      0);
  LAUNCH_CHECK();
  gpu_test::barrier();
  const auto got = to_host(recv, static_cast<size_t>(npes) * kTokens * kTokenBytes);
  for (int src_pe = 0; src_pe < npes; ++src_pe) {
    const auto sent = random_bytes(kTokens * kTokenBytes, src_pe, 3);
    for (int t = 0; t < kTokens; ++t) {
      const unsigned char *slot = got.data() + (static_cast<size_t>(src_pe) * kTokens + t) * kTokenBytes;
      const bool mine = (t * 7 + src_pe) % npes == me;
      if (mine)
        EXPECT_EQ(0, memcmp(slot, sent.data() + static_cast<size_t>(t) * kTokenBytes, kTokenBytes))
            << "token " << t << " from PE " << src_pe;
      else
        EXPECT_EQ(slot[0], kPoison) << "token " << t << " from PE " << src_pe << " landed on the wrong PE";
    }
  }
  CUDA_CHECK(cudaFree(counter));
  CUDA_CHECK(cudaFree(expert_pe));
  nvshmem_free(signals);
  nvshmem_free(recv);
  nvshmem_free(send);
}

// Values below 2^16, so that sums over the PEs stay exact in an int.
std::vector<int> small_ints(size_t n, int pe, int salt) {
  const auto bytes = random_bytes(n * sizeof(int), pe, salt);
  std::vector<int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (bytes[4 * i] << 8 | bytes[4 * i + 1]) + 1;
  return v;
}

TEST(Launch1024, TrainingStepOfBlockReducesAndABroadcast) {
  EXPECT_LE(registers_of(training_step), 64);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes(), root = npes - 1;
  // Layers of 800 bytes (LL), 12004 (one-shot, not a whole number of vectors), 160000 (two-shot).
  const std::vector<size_t> sizes = {200, 3001, 40000};
  size_t total = 0;
  for (size_t c : sizes) total += c;
  // Parameters of 800 bytes (LL) and of 160000 (pushed to every member), one launch each.
  for (const size_t nparams : {size_t{200}, size_t{40000}}) {
    auto *grad = static_cast<int *>(nvshmem_malloc(total * sizeof(int)));
    auto *params = static_cast<int *>(nvshmem_malloc(nparams * sizeof(int)));
    size_t *d_sizes;
    CUDA_CHECK(cudaMalloc(&d_sizes, sizes.size() * sizeof(size_t)));
    CUDA_CHECK(cudaMemcpy(d_sizes, sizes.data(), sizes.size() * sizeof(size_t), cudaMemcpyHostToDevice));
    const auto my_grad = small_ints(total, me, 4);
    CUDA_CHECK(cudaMemcpy(grad, my_grad.data(), total * sizeof(int), cudaMemcpyHostToDevice));
    if (me == root) {
      const auto p = small_ints(nparams, root, 5);
      CUDA_CHECK(cudaMemcpy(params, p.data(), nparams * sizeof(int), cudaMemcpyHostToDevice));
    } else {
      CUDA_CHECK(cudaMemset(params, kPoison, nparams * sizeof(int)));
    }
    gpu_test::barrier();
    training_step<<<1, kThreads>>>(NVSHMEM_TEAM_WORLD, grad, d_sizes, static_cast<int>(sizes.size()), params, nparams,
                                   root);
    LAUNCH_CHECK();
    gpu_test::barrier();
    std::vector<int> sum(total, 0);
    for (int pe = 0; pe < npes; ++pe) {
      const auto theirs = small_ints(total, pe, 4);
      for (size_t i = 0; i < total; ++i) sum[i] += theirs[i];
    }
    std::vector<int> got_grad(total), got_params(nparams);
    CUDA_CHECK(cudaMemcpy(got_grad.data(), grad, total * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_params.data(), params, nparams * sizeof(int), cudaMemcpyDeviceToHost));
    size_t at = 0;
    for (size_t c : sizes) {
      for (size_t i = at; i < at + c; ++i)
        ASSERT_EQ(got_grad[i], sum[i]) << "layer of " << c << " ints, element " << i - at;
      at += c;
    }
    EXPECT_EQ(got_params, small_ints(nparams, root, 5)) << "broadcast of " << nparams << " ints";
    gpu_test::barrier();
    CUDA_CHECK(cudaFree(d_sizes));
    nvshmem_free(params);
    nvshmem_free(grad);
  }
}

}  // namespace
