// SPDX-License-Identifier: BSD-3-Clause
// Zero-length device RMA (OpenSHMEM 1.5 Annex C, docs/compatibility.md): every device RMA form
// (typed, sized, mem; put, get, nbi, iput, iget, put-with-signal; thread, warp and block scope) with
// 0 elements and NULL pointers, and with real symmetric ones, to every PE, moves nothing: every PE's
// random data and the local buffers stay as they were. The put-with-signal forms still deliver their
// signal (the data part is empty), so each PE's signal word counts them exactly.
#include "gpu_test.hpp"

namespace {
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr size_t kBytes = 4096;

// One small kernel per type (and one for the sized and mem forms): ptxas takes minutes on one
// kernel that inlines every form. Each runs every zero-length form of its family in thread scope
// (thread 0), warp scope (warp 0) and block scope from `sym`/`local` to every PE, for the four
// pointer combinations (0 both NULL, 1 symmetric and NULL local, 2 NULL symmetric and a local
// buffer, 3 both real); the put-with-signal forms add 1 to `sig` on the PE. n is 0, at run time.
#define FOR_EACH_CALL(BODY)                                   \
  for (int pe = 0; pe < npes; ++pe)                           \
    for (int combo = 0; combo < 4; ++combo) {                 \
      void *const sym = (combo & 1) ? sym_buf + 64 : nullptr; \
      void *const local = (combo & 2) ? local_buf : nullptr;  \
      BODY                                                    \
    }
#define KERNEL_ARGS char *sym_buf, char *local_buf, size_t n, uint64_t *sig, int npes

#define TYPED_GROUP(NAME, T, S)                                                                         \
  nvshmemx_##NAME##_put_##S(static_cast<T *>(sym), static_cast<const T *>(local), n, pe);               \
  nvshmemx_##NAME##_get_##S(static_cast<T *>(local), static_cast<const T *>(sym), n, pe);               \
  nvshmemx_##NAME##_put_nbi_##S(static_cast<T *>(sym), static_cast<const T *>(local), n, pe);           \
  nvshmemx_##NAME##_get_nbi_##S(static_cast<T *>(local), static_cast<const T *>(sym), n, pe);           \
  nvshmemx_##NAME##_iput_##S(static_cast<T *>(sym), static_cast<const T *>(local), 1, 1, n, pe);        \
  nvshmemx_##NAME##_iget_##S(static_cast<T *>(local), static_cast<const T *>(sym), 1, 1, n, pe);        \
  nvshmemx_##NAME##_put_signal_##S(static_cast<T *>(sym), static_cast<const T *>(local), n, sig, 1,     \
                                   NVSHMEM_SIGNAL_ADD, pe);                                             \
  nvshmemx_##NAME##_put_signal_nbi_##S(static_cast<T *>(sym), static_cast<const T *>(local), n, sig, 1, \
                                       NVSHMEM_SIGNAL_ADD, pe);
#define TYPED_KERNEL(NAME, T)                                                                                          \
  __global__ void zero_##NAME(KERNEL_ARGS) {                                                                           \
    FOR_EACH_CALL(if (threadIdx.x == 0) {                                                                              \
      nvshmem_##NAME##_put(static_cast<T *>(sym), static_cast<const T *>(local), n, pe);                               \
      nvshmem_##NAME##_get(static_cast<T *>(local), static_cast<const T *>(sym), n, pe);                               \
      nvshmem_##NAME##_put_nbi(static_cast<T *>(sym), static_cast<const T *>(local), n, pe);                           \
      nvshmem_##NAME##_get_nbi(static_cast<T *>(local), static_cast<const T *>(sym), n, pe);                           \
      nvshmem_##NAME##_iput(static_cast<T *>(sym), static_cast<const T *>(local), 1, 1, n, pe);                        \
      nvshmem_##NAME##_iget(static_cast<T *>(local), static_cast<const T *>(sym), 1, 1, n, pe);                        \
      nvshmem_##NAME##_put_signal(static_cast<T *>(sym), static_cast<const T *>(local), n, sig, 1, NVSHMEM_SIGNAL_ADD, \
                                  pe);                                                                                 \
      nvshmem_##NAME##_put_signal_nbi(static_cast<T *>(sym), static_cast<const T *>(local), n, sig, 1,                 \
                                      NVSHMEM_SIGNAL_ADD, pe);                                                         \
    } if (threadIdx.x < 32){TYPED_GROUP(NAME, T, warp)} TYPED_GROUP(NAME, T, block))                                   \
    nvshmem_quiet();                                                                                                   \
  }
NVSHM_FOR_EACH_RMA_TYPE(TYPED_KERNEL)

#define SIZED_GROUP(BITS, T, S)                                                   \
  nvshmemx_put##BITS##_##S(sym, local, n, pe);                                    \
  nvshmemx_get##BITS##_##S(local, sym, n, pe);                                    \
  nvshmemx_put##BITS##_nbi_##S(sym, local, n, pe);                                \
  nvshmemx_get##BITS##_nbi_##S(local, sym, n, pe);                                \
  nvshmemx_iput##BITS##_##S(sym, local, 1, 1, n, pe);                             \
  nvshmemx_iget##BITS##_##S(local, sym, 1, 1, n, pe);                             \
  nvshmemx_put##BITS##_signal_##S(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe); \
  nvshmemx_put##BITS##_signal_nbi_##S(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
#define SIZED_KERNEL(BITS, T)                                                        \
  __global__ void zero_sized_##BITS(KERNEL_ARGS) {                                   \
    FOR_EACH_CALL(if (threadIdx.x == 0) {                                            \
      nvshmem_put##BITS(sym, local, n, pe);                                          \
      nvshmem_get##BITS(local, sym, n, pe);                                          \
      nvshmem_put##BITS##_nbi(sym, local, n, pe);                                    \
      nvshmem_get##BITS##_nbi(local, sym, n, pe);                                    \
      nvshmem_iput##BITS(sym, local, 1, 1, n, pe);                                   \
      nvshmem_iget##BITS(local, sym, 1, 1, n, pe);                                   \
      nvshmem_put##BITS##_signal(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);     \
      nvshmem_put##BITS##_signal_nbi(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe); \
    } if (threadIdx.x < 32){SIZED_GROUP(BITS, T, warp)} SIZED_GROUP(BITS, T, block)) \
    nvshmem_quiet();                                                                 \
  }
NVSHM_FOR_EACH_RMA_SIZE(SIZED_KERNEL)

#define MEM_GROUP(S)                                                         \
  nvshmemx_putmem_##S(sym, local, n, pe);                                    \
  nvshmemx_getmem_##S(local, sym, n, pe);                                    \
  nvshmemx_putmem_nbi_##S(sym, local, n, pe);                                \
  nvshmemx_getmem_nbi_##S(local, sym, n, pe);                                \
  nvshmemx_putmem_signal_##S(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe); \
  nvshmemx_putmem_signal_nbi_##S(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
__global__ void zero_mem(KERNEL_ARGS) {
  FOR_EACH_CALL(if (threadIdx.x == 0) {
    nvshmem_putmem(sym, local, n, pe);
    nvshmem_getmem(local, sym, n, pe);
    nvshmem_putmem_nbi(sym, local, n, pe);
    nvshmem_getmem_nbi(local, sym, n, pe);
    nvshmem_putmem_signal(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
    nvshmem_putmem_signal_nbi(sym, local, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  } if (threadIdx.x < 32){MEM_GROUP(warp)} MEM_GROUP(block))
  nvshmem_quiet();
}

using ZeroKernel = void (*)(KERNEL_ARGS);
#define LIST_TYPED(NAME, T) zero_##NAME,
#define LIST_SIZED(BITS, T) zero_sized_##BITS,
const ZeroKernel kKernels[] = {NVSHM_FOR_EACH_RMA_TYPE(LIST_TYPED) NVSHM_FOR_EACH_RMA_SIZE(LIST_SIZED) zero_mem};
constexpr int kKernelCount = sizeof kKernels / sizeof kKernels[0];

TEST(DeviceZeroLength, EveryFormIsANoOpWithAnyPointersAndSignalsStillArrive) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  char *sym = static_cast<char *>(nvshmem_malloc(kBytes));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(sym, nullptr);
  ASSERT_NE(sig, nullptr);
  char *local = nullptr;
  CUDA_CHECK(cudaMalloc(&local, kBytes));
  const auto mine = random_bytes(kBytes, me, 33);
  CUDA_CHECK(cudaMemcpy(sym, mine.data(), kBytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(local, gpu_test::kPoison, kBytes));
  gpu_test::barrier();

  for (ZeroKernel kernel : kKernels) {
    kernel<<<1, 128>>>(sym, local, 0, sig, npes);
    LAUNCH_CHECK();
  }
  gpu_test::barrier();

  EXPECT_EQ(to_host(sym, kBytes), mine) << "a zero-length put changed PE " << me << "'s data";
  EXPECT_EQ(to_host(local, kBytes), std::vector<unsigned char>(kBytes, gpu_test::kPoison))
      << "a zero-length get wrote into the local buffer";
  // Every kernel of every PE signals every PE twice per scope and pointer combination: the thread
  // forms once each, the warp and block forms once per group (the group's first thread signals).
  uint64_t got = 0;
  CUDA_CHECK(cudaMemcpy(&got, sig, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, static_cast<uint64_t>(npes) * kKernelCount * 4 * 3 * 2);
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(local));
  nvshmem_free(sig);
  nvshmem_free(sym);
}

}  // namespace
