// SPDX-License-Identifier: BSD-3-Clause
// Device RMA under nvshmrun -n 2 (or more): every typed, sized and byte form in thread, warp and
// block scope, on random data with poisoned destinations. Puts go to the right neighbour, gets read
// from it.
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr int kPutSections = 7;  // put, put_nbi, p, put_warp, put_nbi_warp, put_block, put_nbi_block

template <typename T>
using TypedKernel = void (*)(T *, const T *, size_t, int, T *);

// Section k of each buffer holds count elements; p and g fill element 0 of section 2 only.
template <typename T>
void run_typed(TypedKernel<T> thread_kernel, TypedKernel<T> group_kernel, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 257 + 2 * salt;
  const size_t bytes = count * sizeof(T);
  T *src = static_cast<T *>(nvshmem_malloc(bytes));
  T *dst = static_cast<T *>(nvshmem_malloc(kPutSections * bytes));
  ASSERT_NE(src, nullptr);
  ASSERT_NE(dst, nullptr);
  T *got = nullptr;
  CUDA_CHECK(cudaMalloc(&got, kPutSections * bytes));
  const auto mine = random_bytes(bytes, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, kPutSections * bytes));
  CUDA_CHECK(cudaMemset(got, kPoison, kPutSections * bytes));
  gpu_test::barrier();

  thread_kernel<<<1, 1>>>(dst, src, count, right, got);
  LAUNCH_CHECK();
  group_kernel<<<1, 128>>>(dst, src, count, right, got);
  LAUNCH_CHECK();
  gpu_test::barrier();

  const auto from_left = random_bytes(bytes, left, salt);
  const auto from_right = random_bytes(bytes, right, salt);
  const auto put_result = to_host(dst, kPutSections * bytes);
  const auto get_result = to_host(got, kPutSections * bytes);
  for (int s = 0; s < kPutSections; ++s) {
    const size_t check = s == 2 ? sizeof(T) : bytes;
    EXPECT_EQ(memcmp(put_result.data() + s * bytes, from_left.data(), check), 0) << "put section " << s;
    EXPECT_EQ(memcmp(get_result.data() + s * bytes, from_right.data(), check), 0) << "get section " << s;
    if (s == 2) EXPECT_EQ(put_result[s * bytes + sizeof(T)], kPoison) << "p wrote past its element";
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dst);
  nvshmem_free(src);
}

#define DEFINE_TYPED_KERNELS(NAME, T)                                               \
  __global__ void thread_##NAME(T *dst, const T *src, size_t n, int peer, T *got) { \
    nvshmem_##NAME##_put(dst, src, n, peer);                                        \
    nvshmem_##NAME##_put_nbi(dst + n, src, n, peer);                                \
    nvshmem_##NAME##_p(dst + 2 * n, src[0], peer);                                  \
    nvshmem_##NAME##_get(got, src, n, peer);                                        \
    nvshmem_##NAME##_get_nbi(got + n, src, n, peer);                                \
    got[2 * n] = nvshmem_##NAME##_g(src, peer);                                     \
    nvshmem_quiet();                                                                \
  }                                                                                 \
  __global__ void group_##NAME(T *dst, const T *src, size_t n, int peer, T *got) {  \
    const int warp = threadIdx.x / 32;                                              \
    if (warp == 0) {                                                                \
      nvshmemx_##NAME##_put_warp(dst + 3 * n, src, n, peer);                        \
      nvshmemx_##NAME##_get_warp(got + 3 * n, src, n, peer);                        \
    } else if (warp == 1) {                                                         \
      nvshmemx_##NAME##_put_nbi_warp(dst + 4 * n, src, n, peer);                    \
      nvshmemx_##NAME##_get_nbi_warp(got + 4 * n, src, n, peer);                    \
    }                                                                               \
    __syncthreads();                                                                \
    nvshmemx_##NAME##_put_block(dst + 5 * n, src, n, peer);                         \
    nvshmemx_##NAME##_get_block(got + 5 * n, src, n, peer);                         \
    nvshmemx_##NAME##_put_nbi_block(dst + 6 * n, src, n, peer);                     \
    nvshmemx_##NAME##_get_nbi_block(got + 6 * n, src, n, peer);                     \
    if (threadIdx.x == 0) nvshmem_quiet();                                          \
  }                                                                                 \
  TEST(DeviceRma, Typed_##NAME) {                                                   \
    run_typed<T>(thread_##NAME, group_##NAME, __LINE__ % 7);                        \
  }
NVSHM_FOR_EACH_RMA_TYPE(DEFINE_TYPED_KERNELS)
#undef DEFINE_TYPED_KERNELS

// ---- sized forms: put<BITS>/get<BITS> in thread and block scope ----
#define DEFINE_SIZED_KERNELS(BITS, T)                                                       \
  __global__ void sized_##BITS(void *dst, const void *src, size_t n, int peer, void *got) { \
    const size_t bytes = n * sizeof(T);                                                     \
    if (threadIdx.x == 0) {                                                                 \
      nvshmem_put##BITS(dst, src, n, peer);                                                 \
      nvshmem_put##BITS##_nbi(static_cast<char *>(dst) + bytes, src, n, peer);              \
      nvshmem_get##BITS(got, src, n, peer);                                                 \
      nvshmem_get##BITS##_nbi(static_cast<char *>(got) + bytes, src, n, peer);              \
    }                                                                                       \
    __syncthreads();                                                                        \
    nvshmemx_put##BITS##_block(static_cast<char *>(dst) + 2 * bytes, src, n, peer);         \
    nvshmemx_get##BITS##_nbi_block(static_cast<char *>(got) + 2 * bytes, src, n, peer);     \
    if (threadIdx.x < 32) {                                                                 \
      nvshmemx_put##BITS##_nbi_warp(static_cast<char *>(dst) + 3 * bytes, src, n, peer);    \
      nvshmemx_get##BITS##_warp(static_cast<char *>(got) + 3 * bytes, src, n, peer);        \
    }                                                                                       \
    if (threadIdx.x == 0) nvshmem_quiet();                                                  \
  }                                                                                         \
  TEST(DeviceRma, Sized_##BITS) {                                                           \
    run_sized(sized_##BITS, sizeof(T), BITS);                                               \
  }

void run_sized(void (*kernel)(void *, const void *, size_t, int, void *), size_t elem, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 1000 + 3, bytes = count * elem;
  void *src = nvshmem_malloc(bytes), *dst = nvshmem_malloc(4 * bytes), *got = nullptr;
  ASSERT_TRUE(src && dst);
  CUDA_CHECK(cudaMalloc(&got, 4 * bytes));
  const auto mine = random_bytes(bytes, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, 4 * bytes));
  CUDA_CHECK(cudaMemset(got, kPoison, 4 * bytes));
  gpu_test::barrier();
  kernel<<<1, 96>>>(dst, src, count, right, got);
  LAUNCH_CHECK();
  gpu_test::barrier();
  const auto puts = to_host(dst, 4 * bytes), gets = to_host(got, 4 * bytes);
  const auto from_left = random_bytes(bytes, left, salt), from_right = random_bytes(bytes, right, salt);
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(memcmp(puts.data() + s * bytes, from_left.data(), bytes), 0) << "put section " << s;
    EXPECT_EQ(memcmp(gets.data() + s * bytes, from_right.data(), bytes), 0) << "get section " << s;
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dst);
  nvshmem_free(src);
}
NVSHM_FOR_EACH_RMA_SIZE(DEFINE_SIZED_KERNELS)
#undef DEFINE_SIZED_KERNELS

// ---- byte forms with every alignment case of the copy loop ----
__global__ void mem_kernel(char *dst, const char *src, size_t bytes, int peer, char *got, int scope) {
  if (scope == 0 && threadIdx.x == 0) {
    nvshmem_putmem(dst, src, bytes, peer);
    nvshmem_getmem_nbi(got, src, bytes, peer);
    nvshmem_quiet();
  } else if (scope == 1 && threadIdx.x < 32) {
    nvshmemx_putmem_nbi_warp(dst, src, bytes, peer);
    nvshmemx_getmem_warp(got, src, bytes, peer);
  } else if (scope == 2) {
    nvshmemx_putmem_block(dst, src, bytes, peer);
    nvshmemx_getmem_nbi_block(got, src, bytes, peer);
  }
}

TEST(DeviceRma, MemAllAlignments) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  // 2 * 4096 + 5: two or three 16-byte words per thread of the block, all in the copy's one
  // predicated step (no full step of 4 words before it). 4, 8, 12 and 24: one or more words narrower
  // than 16 bytes (and a byte tail after 16-byte words), at every pair of offsets below.
  const size_t sizes[] = {1, 4, 7, 8, 12, 16, 24, 33, 4096 + 5, 2 * 4096 + 5, (1 << 20) + 3};
  const size_t offsets[][2] = {{0, 0}, {1, 1}, {0, 8}, {4, 0}, {3, 5}, {16, 32}};
  const size_t cap = (1 << 20) + 64;
  char *src = static_cast<char *>(nvshmem_malloc(cap)), *dst = static_cast<char *>(nvshmem_malloc(cap));
  char *got = nullptr;
  ASSERT_TRUE(src && dst);
  CUDA_CHECK(cudaMalloc(&got, cap));
  const auto mine = random_bytes(cap, me, 99);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), cap, cudaMemcpyHostToDevice));
  const auto left_src = random_bytes(cap, left, 99), right_src = random_bytes(cap, right, 99);
  for (int scope = 0; scope < 3; ++scope) {
    for (size_t bytes : sizes) {
      for (const auto &off : offsets) {
        CUDA_CHECK(cudaMemset(dst, kPoison, cap));
        CUDA_CHECK(cudaMemset(got, kPoison, cap));
        gpu_test::barrier();
        mem_kernel<<<1, 256>>>(dst + off[1], src + off[0], bytes, right, got + off[1], scope);
        LAUNCH_CHECK();
        gpu_test::barrier();
        const auto puts = to_host(dst, cap), gets = to_host(got, cap);
        EXPECT_EQ(memcmp(puts.data() + off[1], left_src.data() + off[0], bytes), 0)
            << "scope " << scope << " bytes " << bytes << " offsets " << off[0] << "/" << off[1];
        EXPECT_EQ(memcmp(gets.data() + off[1], right_src.data() + off[0], bytes), 0)
            << "scope " << scope << " bytes " << bytes << " offsets " << off[0] << "/" << off[1];
        EXPECT_EQ(static_cast<unsigned char>(puts[off[1] + bytes]), kPoison) << "wrote past the end";
        if (off[1]) EXPECT_EQ(static_cast<unsigned char>(puts[off[1] - 1]), kPoison) << "wrote before the start";
      }
    }
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dst);
  nvshmem_free(src);
}

}  // namespace
