// SPDX-License-Identifier: BSD-3-Clause
// Device strided RMA (iput/iget) for every type and size, in thread, warp and block scope: the
// destination stride 3 and source stride 2 for iput, the reverse for iget; elements between the
// strides keep their poison.
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr size_t kCount = 67;  // elements moved per form
constexpr int kScopes = 3;

// Section s of `dest` (3*kCount elements) receives scope s's iput; section s of `got` (3*kCount,
// local) receives its iget of the right neighbour's src with stride 2 into stride 3.
template <typename T, typename Put, typename Get>
__device__ void strided_forms(T *dest, const T *src, T *got, int right, Put put, Get get) {
  const size_t span = 3 * kCount;
  if (threadIdx.x == 0) {
    put(0, dest, src, right);
    get(0, got, src, right);
  }
  if (threadIdx.x < 32) {
    put(1, dest + span, src, right);
    get(1, got + span, src, right);
  }
  put(2, dest + 2 * span, src, right);
  get(2, got + 2 * span, src, right);
}

#define DEFINE_STRIDED_KERNEL(NAME, T)                                          \
  __global__ void strided_##NAME(T *dest, const T *src, T *got, int right) {    \
    strided_forms(                                                              \
        dest, src, got, right,                                                  \
        [](int scope, T *d, const T *s, int pe) {                               \
          if (scope == 0) nvshmem_##NAME##_iput(d, s, 3, 2, kCount, pe);        \
          if (scope == 1) nvshmemx_##NAME##_iput_warp(d, s, 3, 2, kCount, pe);  \
          if (scope == 2) nvshmemx_##NAME##_iput_block(d, s, 3, 2, kCount, pe); \
        },                                                                      \
        [](int scope, T *d, const T *s, int pe) {                               \
          if (scope == 0) nvshmem_##NAME##_iget(d, s, 3, 2, kCount, pe);        \
          if (scope == 1) nvshmemx_##NAME##_iget_warp(d, s, 3, 2, kCount, pe);  \
          if (scope == 2) nvshmemx_##NAME##_iget_block(d, s, 3, 2, kCount, pe); \
        });                                                                     \
  }                                                                             \
  TEST(DeviceStrided, Typed_##NAME) {                                           \
    run_strided(reinterpret_cast<Kernel>(strided_##NAME), sizeof(T), __LINE__); \
  }

#define DEFINE_SIZED_STRIDED_KERNEL(BITS, T)                                   \
  __global__ void strided_##BITS(T *dest, const T *src, T *got, int right) {   \
    strided_forms(                                                             \
        dest, src, got, right,                                                 \
        [](int scope, T *d, const T *s, int pe) {                              \
          if (scope == 0) nvshmem_iput##BITS(d, s, 3, 2, kCount, pe);          \
          if (scope == 1) nvshmemx_iput##BITS##_warp(d, s, 3, 2, kCount, pe);  \
          if (scope == 2) nvshmemx_iput##BITS##_block(d, s, 3, 2, kCount, pe); \
        },                                                                     \
        [](int scope, T *d, const T *s, int pe) {                              \
          if (scope == 0) nvshmem_iget##BITS(d, s, 3, 2, kCount, pe);          \
          if (scope == 1) nvshmemx_iget##BITS##_warp(d, s, 3, 2, kCount, pe);  \
          if (scope == 2) nvshmemx_iget##BITS##_block(d, s, 3, 2, kCount, pe); \
        });                                                                    \
  }                                                                            \
  TEST(DeviceStrided, Sized_##BITS) {                                          \
    run_strided(reinterpret_cast<Kernel>(strided_##BITS), sizeof(T), BITS);    \
  }

using Kernel = void (*)(void *, const void *, void *, int);

void run_strided(Kernel kernel, size_t elem, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t src_bytes = 2 * kCount * elem, section = 3 * kCount * elem;
  void *src = nvshmem_malloc(src_bytes), *dest = nvshmem_malloc(kScopes * section), *got = nullptr;
  ASSERT_TRUE(src && dest);
  CUDA_CHECK(cudaMalloc(&got, kScopes * section));
  const auto mine = random_bytes(src_bytes, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), src_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, kPoison, kScopes * section));
  CUDA_CHECK(cudaMemset(got, kPoison, kScopes * section));
  gpu_test::barrier();
  kernel<<<1, 96>>>(dest, src, got, right);
  LAUNCH_CHECK();
  gpu_test::barrier();
  const auto puts = to_host(dest, kScopes * section), gets = to_host(got, kScopes * section);
  const auto from_left = random_bytes(src_bytes, left, salt), from_right = random_bytes(src_bytes, right, salt);
  for (int s = 0; s < kScopes; ++s) {
    for (size_t i = 0; i < 3 * kCount; ++i) {
      const unsigned char *p = puts.data() + s * section + i * elem, *g = gets.data() + s * section + i * elem;
      if (i % 3 == 0) {
        EXPECT_EQ(memcmp(p, from_left.data() + (i / 3) * 2 * elem, elem), 0) << "iput scope " << s << " element " << i;
        EXPECT_EQ(memcmp(g, from_right.data() + (i / 3) * 2 * elem, elem), 0) << "iget scope " << s << " element " << i;
      } else {
        EXPECT_EQ(p[0], kPoison) << "iput scope " << s << " wrote between strides at " << i;
        EXPECT_EQ(g[0], kPoison) << "iget scope " << s << " wrote between strides at " << i;
      }
    }
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(dest);
  nvshmem_free(src);
}

NVSHM_FOR_EACH_RMA_TYPE(DEFINE_STRIDED_KERNEL)
NVSHM_FOR_EACH_RMA_SIZE(DEFINE_SIZED_STRIDED_KERNEL)
#undef DEFINE_STRIDED_KERNEL
#undef DEFINE_SIZED_STRIDED_KERNEL

}  // namespace
