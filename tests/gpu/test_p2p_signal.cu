// SPDX-License-Identifier: BSD-3-Clause
// Put-with-signal on the device: every typed, sized (put16 and NVIDIA's put6 alias included) and
// byte form in thread, warp and block scope, SET and ADD; a 64 MiB put-with-signal from several
// blocks whose SIGNAL_ADDs together reach the GE target, fully visible after signal_wait_until;
// signal_op to self and to a peer, signal_fetch.
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr int kForms = 6;  // thread, thread nbi, warp, warp nbi, block, block nbi

// Form f writes section f of dest on the right neighbour and signals sig[f] there: SET f+1 for even
// forms, ADD f+1 for odd ones (the word starts at 0). Thread 0 then waits for each of its own
// signals and checks the data from the left in place.
template <typename T, typename Send>
__device__ void signal_forms(T *dest, const T *src, size_t n, uint64_t *sig, int *errors, Send send) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const int right = (me + 1) % npes;
  for (int f = 0; f < kForms; ++f) {
    const int op = f % 2 ? NVSHMEM_SIGNAL_ADD : NVSHMEM_SIGNAL_SET;
    const int scope = f / 2;  // 0 thread, 1 warp, 2 block
    if (scope == 0 && threadIdx.x == 0) send(f, dest + f * n, src, n, sig + f, static_cast<uint64_t>(f + 1), op, right);
    if (scope == 1 && threadIdx.x < 32) send(f, dest + f * n, src, n, sig + f, static_cast<uint64_t>(f + 1), op, right);
    if (scope == 2) send(f, dest + f * n, src, n, sig + f, static_cast<uint64_t>(f + 1), op, right);
  }
  if (threadIdx.x == 0) {
    for (int f = 0; f < kForms; ++f)
      if (nvshmem_signal_wait_until(sig + f, NVSHMEM_CMP_EQ, static_cast<uint64_t>(f + 1)) !=
          static_cast<uint64_t>(f + 1))
        atomicAdd(errors, 1);
  }
}

#define DEFINE_TYPED_SIGNAL(NAME, T)                                                                 \
  __global__ void typed_signal_##NAME(T *dest, const T *src, size_t n, uint64_t *sig, int *errors) { \
    signal_forms(dest, src, n, sig, errors,                                                          \
                 [](int f, T *d, const T *s, size_t k, uint64_t *sg, uint64_t v, int op, int pe) {   \
                   switch (f) {                                                                      \
                     case 0:                                                                         \
                       nvshmem_##NAME##_put_signal(d, s, k, sg, v, op, pe);                          \
                       break;                                                                        \
                     case 1:                                                                         \
                       nvshmem_##NAME##_put_signal_nbi(d, s, k, sg, v, op, pe);                      \
                       break;                                                                        \
                     case 2:                                                                         \
                       nvshmemx_##NAME##_put_signal_warp(d, s, k, sg, v, op, pe);                    \
                       break;                                                                        \
                     case 3:                                                                         \
                       nvshmemx_##NAME##_put_signal_nbi_warp(d, s, k, sg, v, op, pe);                \
                       break;                                                                        \
                     case 4:                                                                         \
                       nvshmemx_##NAME##_put_signal_block(d, s, k, sg, v, op, pe);                   \
                       break;                                                                        \
                     default:                                                                        \
                       nvshmemx_##NAME##_put_signal_nbi_block(d, s, k, sg, v, op, pe);               \
                       break;                                                                        \
                   }                                                                                 \
                 });                                                                                 \
  }                                                                                                  \
  TEST(DeviceSignal, PutSignalTyped_##NAME) {                                                        \
    run_signal_forms(reinterpret_cast<Kernel>(typed_signal_##NAME), sizeof(T), 301, __LINE__);       \
  }

#define DEFINE_SIZED_SIGNAL(BITS, T)                                                                 \
  __global__ void sized_signal_##BITS(T *dest, const T *src, size_t n, uint64_t *sig, int *errors) { \
    signal_forms(dest, src, n, sig, errors,                                                          \
                 [](int f, T *d, const T *s, size_t k, uint64_t *sg, uint64_t v, int op, int pe) {   \
                   switch (f) {                                                                      \
                     case 0:                                                                         \
                       nvshmem_put##BITS##_signal(d, s, k, sg, v, op, pe);                           \
                       break;                                                                        \
                     case 1:                                                                         \
                       nvshmem_put##BITS##_signal_nbi(d, s, k, sg, v, op, pe);                       \
                       break;                                                                        \
                     case 2:                                                                         \
                       nvshmemx_put##BITS##_signal_warp(d, s, k, sg, v, op, pe);                     \
                       break;                                                                        \
                     case 3:                                                                         \
                       nvshmemx_put##BITS##_signal_nbi_warp(d, s, k, sg, v, op, pe);                 \
                       break;                                                                        \
                     case 4:                                                                         \
                       nvshmemx_put##BITS##_signal_block(d, s, k, sg, v, op, pe);                    \
                       break;                                                                        \
                     default:                                                                        \
                       nvshmemx_put##BITS##_signal_nbi_block(d, s, k, sg, v, op, pe);                \
                       break;                                                                        \
                   }                                                                                 \
                 });                                                                                 \
  }                                                                                                  \
  TEST(DeviceSignal, PutSignalSized_##BITS) {                                                        \
    run_signal_forms(reinterpret_cast<Kernel>(sized_signal_##BITS), sizeof(T), 203, BITS);           \
  }

using Kernel = void (*)(void *, const void *, size_t, uint64_t *, int *);

void run_signal_forms(Kernel kernel, size_t elem, size_t count, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int left = (me + n - 1) % n;
  const size_t bytes = count * elem;
  void *src = nvshmem_malloc(bytes), *dest = nvshmem_malloc(kForms * bytes);
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(kForms, sizeof(uint64_t)));
  int *errors = nullptr;
  ASSERT_TRUE(src && dest && sig);
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  const auto mine = random_bytes(bytes, me, salt);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dest, kPoison, kForms * bytes));
  gpu_test::barrier();
  kernel<<<1, 96>>>(dest, src, count, sig, errors);
  LAUNCH_CHECK();
  gpu_test::barrier();
  int h_errors = -1;
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0) << "a signal had the wrong value";
  const auto got = to_host(dest, kForms * bytes);
  const auto from_left = random_bytes(bytes, left, salt);
  for (int f = 0; f < kForms; ++f)
    EXPECT_EQ(memcmp(got.data() + f * bytes, from_left.data(), bytes), 0) << "form " << f;
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(sig);
  nvshmem_free(dest);
  nvshmem_free(src);
}

NVSHM_FOR_EACH_RMA_TYPE(DEFINE_TYPED_SIGNAL)
NVSHM_FOR_EACH_RMA_SIZE(DEFINE_SIZED_SIGNAL)
#undef DEFINE_TYPED_SIGNAL
#undef DEFINE_SIZED_SIGNAL

// NVIDIA's misspelled put6 warp/block forms are aliases of put16.
__global__ void put6_signal(uint16_t *dest, const uint16_t *src, size_t n, uint64_t *sig, int *errors) {
  signal_forms(dest, src, n, sig, errors,
               [](int f, uint16_t *d, const uint16_t *s, size_t k, uint64_t *sg, uint64_t v, int op, int pe) {
                 switch (f) {
                   case 0:
                     nvshmem_put16_signal(d, s, k, sg, v, op, pe);
                     break;
                   case 1:
                     nvshmem_put16_signal_nbi(d, s, k, sg, v, op, pe);
                     break;
                   case 2:
                     nvshmemx_put6_signal_warp(d, s, k, sg, v, op, pe);
                     break;
                   case 3:
                     nvshmemx_put6_signal_nbi_warp(d, s, k, sg, v, op, pe);
                     break;
                   case 4:
                     nvshmemx_put6_signal_block(d, s, k, sg, v, op, pe);
                     break;
                   default:
                     nvshmemx_put6_signal_nbi_block(d, s, k, sg, v, op, pe);
                     break;
                 }
               });
}
TEST(DeviceSignal, Put6AliasesPut16) {
  run_signal_forms(reinterpret_cast<Kernel>(put6_signal), 2, 157, 6);
}

__global__ void mem_signal(char *dest, const char *src, size_t n, uint64_t *sig, int *errors) {
  signal_forms(dest, src, n, sig, errors,
               [](int f, char *d, const char *s, size_t k, uint64_t *sg, uint64_t v, int op, int pe) {
                 switch (f) {
                   case 0:
                     nvshmem_putmem_signal(d, s, k, sg, v, op, pe);
                     break;
                   case 1:
                     nvshmem_putmem_signal_nbi(d, s, k, sg, v, op, pe);
                     break;
                   case 2:
                     nvshmemx_putmem_signal_warp(d, s, k, sg, v, op, pe);
                     break;
                   case 3:
                     nvshmemx_putmem_signal_nbi_warp(d, s, k, sg, v, op, pe);
                     break;
                   case 4:
                     nvshmemx_putmem_signal_block(d, s, k, sg, v, op, pe);
                     break;
                   default:
                     nvshmemx_putmem_signal_nbi_block(d, s, k, sg, v, op, pe);
                     break;
                 }
               });
}
TEST(DeviceSignal, PutSignalMem) {
  run_signal_forms(reinterpret_cast<Kernel>(mem_signal), 1, 4099, 77);
}

// 64 MiB from kChunks blocks, each putting its chunk with putmem_signal_nbi_block and ADD 1; every
// block of the receiver waits until the word reaches kChunks (GE), then checks its chunk word by
// word against the sender's pattern.
constexpr int kChunks = 8;
constexpr size_t kBig = size_t{64} << 20;
__device__ uint32_t pattern(int pe, size_t i) {
  return static_cast<uint32_t>(i * 2654435761u) ^ static_cast<uint32_t>(pe * 40503u + 1);
}
__global__ void fill_pattern(uint32_t *buf, size_t words, int pe) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
    buf[i] = pattern(pe, i);
}
__global__ void big_put_signal(uint32_t *dest, const uint32_t *src, uint64_t *sig, unsigned long long *bad) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t chunk_words = kBig / 4 / kChunks, first = blockIdx.x * chunk_words;
  nvshmemx_putmem_signal_nbi_block(dest + first, src + first, chunk_words * 4, sig, 1, NVSHMEM_SIGNAL_ADD, right);
  if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, kChunks);
  __syncthreads();
  unsigned long long local_bad = 0;
  for (size_t i = first + threadIdx.x; i < first + chunk_words; i += blockDim.x)
    local_bad += dest[i] != pattern(left, i);
  if (local_bad) atomicAdd(bad, local_bad);
}
TEST(DeviceSignal, BigPutSignalFullyVisibleAfterWait) {
  uint32_t *src = static_cast<uint32_t *>(nvshmem_malloc(kBig)), *dest = static_cast<uint32_t *>(nvshmem_malloc(kBig));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  unsigned long long *bad = nullptr;
  ASSERT_TRUE(src && dest && sig);
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
  fill_pattern<<<256, 256>>>(src, kBig / 4, nvshmem_my_pe());
  LAUNCH_CHECK();
  CUDA_CHECK(cudaMemset(dest, kPoison, kBig));
  gpu_test::barrier();
  big_put_signal<<<kChunks, 1024>>>(dest, src, sig, bad);
  LAUNCH_CHECK();
  unsigned long long h_bad = 1;
  CUDA_CHECK(cudaMemcpy(&h_bad, bad, sizeof h_bad, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_bad, 0u) << "words not visible after signal_wait_until";
  uint64_t h_sig = 0;
  CUDA_CHECK(cudaMemcpy(&h_sig, sig, sizeof h_sig, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_sig, static_cast<uint64_t>(kChunks));
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(bad));
  nvshmem_free(sig);
  nvshmem_free(dest);
  nvshmem_free(src);
}

// signal_op SET to self and ADD to a peer from every thread of a block; signal_fetch reads them.
__global__ void signal_op_kernel(uint64_t *sig, uint64_t *seen) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  if (threadIdx.x == 0) {
    nvshmemx_signal_op(sig, 4242 + me, NVSHMEM_SIGNAL_SET, me);
    seen[0] = nvshmem_signal_fetch(sig);
  }
  nvshmemx_signal_op(sig + 1, 1, NVSHMEM_SIGNAL_ADD, (me + 1) % n);
  if (threadIdx.x == 0) seen[1] = nvshmem_signal_wait_until(sig + 1, NVSHMEM_CMP_GE, blockDim.x);
}
TEST(DeviceSignal, SignalOpSelfAndPeer) {
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  uint64_t *seen = nullptr;
  ASSERT_NE(sig, nullptr);
  CUDA_CHECK(cudaMalloc(&seen, 2 * sizeof(uint64_t)));
  gpu_test::barrier();
  signal_op_kernel<<<1, 256>>>(sig, seen);
  LAUNCH_CHECK();
  uint64_t h[2];
  CUDA_CHECK(cudaMemcpy(h, seen, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 4242u + nvshmem_my_pe());
  EXPECT_EQ(h[1], 256u);
  gpu_test::barrier();
  // The host forms on the GPU heap: SET to the right neighbour, fetch after a barrier.
  nvshmemx_signal_op(sig, 99 + nvshmem_my_pe(), NVSHMEM_SIGNAL_SET, (nvshmem_my_pe() + 1) % nvshmem_n_pes());
  gpu_test::barrier();
  EXPECT_EQ(nvshmem_signal_fetch(sig), 99u + (nvshmem_my_pe() + nvshmem_n_pes() - 1) % nvshmem_n_pes());
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(seen));
  nvshmem_free(sig);
}

}  // namespace
