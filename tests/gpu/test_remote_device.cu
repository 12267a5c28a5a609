// SPDX-License-Identifier: BSD-3-Clause
// The device API on remote PEs through the host proxy (docs/proxy.md): every PE works on its right
// neighbour. Run with NVSHMEM_DISABLE_P2P=1 (gpu.remote.*: every peer remote, UCX over TCP loopback); it
// passes on mapped peers too. Every output is poisoned before the kernel that writes it.
#include <algorithm>
#include <chrono>

#include <nvshmemx.h>

#include "gpu_test.hpp"

namespace {

constexpr int kInts = 1000;  // not a multiple of 16 bytes: the unaligned tail too
constexpr int kBlocks = 3, kThreads = 64;

int right() {
  return (nvshmem_my_pe() + 1) % nvshmem_n_pes();
}
int left() {
  return (nvshmem_my_pe() + nvshmem_n_pes() - 1) % nvshmem_n_pes();
}
__host__ __device__ int value_of(int pe, int i) {
  return pe * 1000003 + i * 7 + 1;
}
// Copies n ints of dst (device memory) back and expects PE `pe`'s values there, naming the first wrong ones.
void expect_values(const int *dst, int n, int pe) {
  std::vector<int> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), dst, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (got[i] != value_of(pe, i) && bad++ < 5) ADD_FAILURE() << "dst[" << i << "] = " << got[i];
  EXPECT_EQ(bad, 0);
}

// Fills `src` (local GPU memory) with this PE's values; thread scope puts `kInts` ints to the right
// neighbour's `dst` (blocking, then nbi of the second half), warp and block scope put slices.
__global__ void fill(int *src, int n) {
  const int me = nvshmem_my_pe();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) src[i] = value_of(me, i);
}
__global__ void put_scopes(int *dst, const int *src, int pe) {
  // block b: scope b % 3 (thread, warp, block) moves slice b of kInts / kBlocks ints
  const int slice = kInts / kBlocks, first = blockIdx.x * slice;
  const int n = blockIdx.x == kBlocks - 1 ? kInts - first : slice;
  __syncthreads();
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      nvshmem_int_put(dst + first, src + first, n / 2, pe);
      nvshmem_int_put_nbi(dst + first + n / 2, src + first + n / 2, n - n / 2, pe);
    }
  } else if (blockIdx.x == 1) {
    if (threadIdx.x < 32) nvshmemx_int_put_warp(dst + first, src + first, n, pe);
  } else {
    nvshmemx_int_put_nbi_block(dst + first, src + first, n, pe);
  }
  if (threadIdx.x == 0) nvshmem_quiet();
}
__global__ void get_scopes(int *dst, const int *src, int pe) {
  const int slice = kInts / kBlocks, first = blockIdx.x * slice;
  const int n = blockIdx.x == kBlocks - 1 ? kInts - first : slice;
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) nvshmem_int_get(dst + first, src + first, n, pe);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x < 32) nvshmemx_int_get_warp(dst + first, src + first, n, pe);
  } else {
    nvshmemx_int_get_nbi_block(dst + first, src + first, n, pe);
    if (threadIdx.x == 0) nvshmem_quiet();
  }
}

TEST(RemoteDevice, PutEveryScope) {
  const int me = nvshmem_my_pe();
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(src, nullptr);
  printf("PE %d: right neighbour %d is %s\n", me, right(), nvshmem_ptr(dst, right()) ? "mapped" : "remote");
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  put_scopes<<<kBlocks, kThreads>>>(dst, src, right());
  LAUNCH_CHECK();
  gpu_test::barrier();
  expect_values(dst, kInts, left());
  gpu_test::barrier();
  nvshmem_free(src);
  nvshmem_free(dst);
}

TEST(RemoteDevice, GetEveryScope) {
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *dst = nullptr;
  ASSERT_NE(src, nullptr);
  CUDA_CHECK(cudaMalloc(&dst, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  get_scopes<<<kBlocks, kThreads>>>(dst, src, right());
  LAUNCH_CHECK();
  expect_values(dst, kInts, right());
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(dst));
  nvshmem_free(src);
}

// Every thread gets one int (nbi) and quiets, then reads what it got into `seen`: the threads of a block that
// quiet together share a quiet marker through the proxy (docs/proxy.md, "Concurrent quiets share a marker"),
// and each must see its own data after its quiet, whichever thread issued the marker.
__global__ void get_nbi_then_quiet(int *dst, const int *src, int *seen, int n, int pe) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) nvshmem_int_get_nbi(dst + i, src + i, 1, pe);
  nvshmem_quiet();
  if (i < n) seen[i] = *static_cast<volatile int *>(dst + i);
}

TEST(RemoteDevice, EveryThreadQuietsItsOwnGet) {
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  ASSERT_NE(src, nullptr);
  int *dst = nullptr, *seen = nullptr;
  CUDA_CHECK(cudaMalloc(&dst, kInts * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&seen, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(seen, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  get_nbi_then_quiet<<<(kInts + 511) / 512, 512>>>(dst, src, seen, kInts, right());
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  expect_values(seen, kInts, right());
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(seen));
  CUDA_CHECK(cudaFree(dst));
  nvshmem_free(src);
}

// p then g back, and g of the neighbour's own word; out[0..2]: the values read.
__global__ void p_and_g(long *words, long *out, int pe) {
  const int me = nvshmem_my_pe();
  nvshmem_long_p(words, 100 + me, pe);
  nvshmem_quiet();
  out[0] = nvshmem_long_g(words, pe);
  out[1] = nvshmem_long_g(words + 1, pe);
  nvshmem_fence();
  nvshmem_double_p(reinterpret_cast<double *>(words + 2), 0.5 + me, pe);
  nvshmem_quiet();
  out[2] = static_cast<long>(nvshmem_double_g(reinterpret_cast<double *>(words + 2), pe) * 2);
}

TEST(RemoteDevice, PAndG) {
  const int me = nvshmem_my_pe();
  long *words = static_cast<long *>(nvshmem_malloc(3 * sizeof(long)));
  long *out = nullptr;
  ASSERT_NE(words, nullptr);
  CUDA_CHECK(cudaMalloc(&out, 3 * sizeof(long)));
  CUDA_CHECK(cudaMemset(out, gpu_test::kPoison, 3 * sizeof(long)));
  const long own[3] = {-1, 5000 + me, -1};
  CUDA_CHECK(cudaMemcpy(words, own, sizeof own, cudaMemcpyHostToDevice));
  gpu_test::barrier();
  p_and_g<<<1, 1>>>(words, out, right());
  LAUNCH_CHECK();
  gpu_test::barrier();
  long h[3];
  CUDA_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], 100 + me);
  EXPECT_EQ(h[1], 5000 + right());
  EXPECT_EQ(h[2], 1 + 2 * me);
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(out));
  nvshmem_free(words);
}

// Every thread of every PE adds to PE 0's counter (fetching and not); one compare_swap wins; each
// thread records its fetch_add's old value, which must all differ.
__global__ void atomics(unsigned long long *counter, int *lock, int *wins, unsigned long long *olds) {
  const int me = nvshmem_my_pe();
  const int gid = (me * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  nvshmem_ulonglong_atomic_add(counter, 2ull, 0);
  olds[blockIdx.x * blockDim.x + threadIdx.x] = nvshmem_ulonglong_atomic_fetch_add(counter, 1ull << 32, 0);
  if (nvshmem_int_atomic_compare_swap(lock, 0, gid + 1, 0) == 0) nvshmem_int_atomic_inc(wins, 0);
  nvshmem_quiet();
}

TEST(RemoteDevice, AtomicsSumExactly) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr int kAtomicBlocks = 2, kAtomicThreads = 32, kPerPe = kAtomicBlocks * kAtomicThreads;
  unsigned long long *counter = static_cast<unsigned long long *>(nvshmem_calloc(2, sizeof(unsigned long long)));
  ASSERT_NE(counter, nullptr);
  int *lock = reinterpret_cast<int *>(counter + 1), *wins = lock + 1;
  unsigned long long *olds = nullptr;
  CUDA_CHECK(cudaMalloc(&olds, kPerPe * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(olds, gpu_test::kPoison, kPerPe * sizeof(unsigned long long)));
  gpu_test::barrier();
  atomics<<<kAtomicBlocks, kAtomicThreads>>>(counter, lock, wins, olds);
  LAUNCH_CHECK();
  gpu_test::barrier();
  std::vector<unsigned long long> h(kPerPe);
  CUDA_CHECK(cudaMemcpy(h.data(), olds, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
  for (unsigned long long v : h) EXPECT_LT(v >> 32, static_cast<unsigned long long>(n * kPerPe)) << "an old value";
  std::sort(h.begin(), h.end());
  EXPECT_EQ(std::adjacent_find(h.begin(), h.end()), h.end()) << "two fetch_adds saw the same old value";
  if (me == 0) {
    unsigned long long c[2];
    CUDA_CHECK(cudaMemcpy(c, counter, sizeof c, cudaMemcpyDeviceToHost));
    EXPECT_EQ(c[0], static_cast<unsigned long long>(n * kPerPe) * ((1ull << 32) + 2));
    int lw[2];
    memcpy(lw, &c[1], sizeof lw);
    EXPECT_NE(lw[0], 0);
    EXPECT_EQ(lw[1], 1) << "exactly one compare_swap wins";
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(olds));
  nvshmem_free(counter);
}

// put_signal of each scope (block b: thread, warp, block) into slice b, signal ADD 1 each; then a
// signal_op SET of a second word.
__global__ void put_signal_scopes(int *dst, const int *src, uint64_t *sig, int pe) {
  const int slice = kInts / kBlocks, first = blockIdx.x * slice;
  const int n = blockIdx.x == kBlocks - 1 ? kInts - first : slice;
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) nvshmem_int_put_signal(dst + first, src + first, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x < 32) nvshmemx_int_put_signal_warp(dst + first, src + first, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  } else {
    nvshmemx_int_put_signal_nbi_block(dst + first, src + first, n, sig, 1, NVSHMEM_SIGNAL_ADD, pe);
  }
  if (threadIdx.x == 0) {
    nvshmem_quiet();
    if (blockIdx.x == 0) nvshmemx_signal_op(sig + 1, 42, NVSHMEM_SIGNAL_SET, pe);
    nvshmem_quiet();
  }
}

TEST(RemoteDevice, PutSignalEveryScope) {
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  ASSERT_NE(dst, nullptr);
  ASSERT_NE(src, nullptr);
  ASSERT_NE(sig, nullptr);
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  put_signal_scopes<<<kBlocks, kThreads>>>(dst, src, sig, right());
  LAUNCH_CHECK();
  gpu_test::barrier();
  expect_values(dst, kInts, left());
  uint64_t s[2];
  CUDA_CHECK(cudaMemcpy(s, sig, sizeof s, cudaMemcpyDeviceToHost));
  EXPECT_EQ(s[0], static_cast<uint64_t>(kBlocks));
  EXPECT_EQ(s[1], 42u);
  gpu_test::barrier();
  nvshmem_free(sig);
  nvshmem_free(src);
  nvshmem_free(dst);
}

// A thread's put from its local array and get into another (memory the proxy cannot address: 8 bytes per
// request), of a size that is not a multiple of 8 bytes.
constexpr int kPrivate = 21;
__global__ void private_put_get(int *dst, int *out, int pe) {
  const int me = nvshmem_my_pe();
  int mine[kPrivate], back[kPrivate];
  for (int i = 0; i < kPrivate; ++i) {
    mine[i] = value_of(me, i);
    back[i] = -1;
  }
  nvshmem_int_put(dst, mine, kPrivate, pe);
  nvshmem_quiet();
  nvshmem_int_get(back, dst, kPrivate, pe);
  for (int i = 0; i < kPrivate; ++i) out[i] = back[i];
}

TEST(RemoteDevice, ThreadPutAndGetOfLocalArrays) {
  int *dst = static_cast<int *>(nvshmem_malloc(kPrivate * sizeof(int)));
  int *out = nullptr;
  ASSERT_NE(dst, nullptr);
  CUDA_CHECK(cudaMalloc(&out, kPrivate * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kPrivate * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, gpu_test::kPoison, kPrivate * sizeof(int)));
  gpu_test::barrier();
  private_put_get<<<1, 1>>>(dst, out, right());
  LAUNCH_CHECK();
  gpu_test::barrier();
  std::vector<int> got(kPrivate), landed(kPrivate);
  CUDA_CHECK(cudaMemcpy(got.data(), out, kPrivate * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(landed.data(), dst, kPrivate * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kPrivate; ++i) {
    EXPECT_EQ(got[i], value_of(nvshmem_my_pe(), i)) << "read back [" << i << "]";
    EXPECT_EQ(landed[i], value_of(left(), i)) << "landed [" << i << "]";
  }
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(out));
  nvshmem_free(dst);
}

// The stream forms to the right neighbour (on a GPU heap, to a remote PE: the device API in a kernel on the
// stream, through the proxy): put, put-with-signal, p, signal_op, quiet, then get, in stream order.
TEST(RemoteDevice, StreamFormsInStreamOrder) {
  const int me = nvshmem_my_pe();
  constexpr int kHalf = kInts / 2;
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  auto *sig = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t)));
  auto *word = static_cast<long *>(nvshmem_malloc(sizeof(long)));
  int *got = nullptr;
  ASSERT_TRUE(dst && src && sig && word);
  CUDA_CHECK(cudaMalloc(&got, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(got, gpu_test::kPoison, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(word, gpu_test::kPoison, sizeof(long)));
  CUDA_CHECK(cudaMemset(sig, 0, sizeof(uint64_t)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvshmemx_putmem_on_stream(dst, src, kHalf * sizeof(int), right(), stream);
  nvshmemx_putmem_signal_on_stream(dst + kHalf, src + kHalf, (kInts - kHalf) * sizeof(int), sig, 7, NVSHMEM_SIGNAL_ADD,
                                   right(), stream);
  nvshmemx_long_p_on_stream(word, value_of(me, 3), right(), stream);
  nvshmemx_signal_op_on_stream(sig, 5, NVSHMEM_SIGNAL_ADD, right(), stream);
  nvshmemx_quiet_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  gpu_test::barrier();
  expect_values(dst, kInts, left());
  uint64_t h_sig = 0;
  long h_word = 0;
  CUDA_CHECK(cudaMemcpy(&h_sig, sig, sizeof h_sig, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&h_word, word, sizeof h_word, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_sig, 12u) << "the signal adds of put-with-signal (7) and signal_op (5)";
  EXPECT_EQ(h_word, value_of(left(), 3));
  nvshmemx_getmem_on_stream(got, src, kInts * sizeof(int), right(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  expect_values(got, kInts, right());
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(word);
  nvshmem_free(sig);
  nvshmem_free(src);
  nvshmem_free(dst);
}

// g, iput and iget on a stream to the right neighbour (on a GPU heap, to a remote PE: a kernel on the stream
// through the proxy): a value, then every element to every other slot, then every other element back.
TEST(RemoteDevice, StreamGAndStridedForms) {
  constexpr int kPoisonInt = static_cast<int>(0xA5A5A5A5u);
  static_assert(static_cast<unsigned char>(kPoisonInt) == gpu_test::kPoison, "the int the poison bytes make");
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(2 * kInts * sizeof(int)));
  auto *word = static_cast<long *>(nvshmem_malloc(sizeof(long)));
  int *got = nullptr;
  ASSERT_TRUE(src && dst && word);
  CUDA_CHECK(cudaMalloc(&got, kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, 2 * kInts * sizeof(int)));
  CUDA_CHECK(cudaMemset(got, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  const long mine = value_of(nvshmem_my_pe(), 5);
  CUDA_CHECK(cudaMemcpy(word, &mine, sizeof mine, cudaMemcpyHostToDevice));
  gpu_test::barrier();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  EXPECT_EQ(nvshmemx_long_g_on_stream(word, right(), stream), static_cast<long>(value_of(right(), 5)));
  nvshmemx_int_iput_on_stream(dst, src, 2, 1, kInts, right(), stream);  // src[i] to dst[2i] of the right PE
  nvshmemx_quiet_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  gpu_test::barrier();
  std::vector<int> host(2 * kInts);
  CUDA_CHECK(cudaMemcpy(host.data(), dst, host.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < kInts; ++i)
    if ((host[2 * i] != value_of(left(), i) || host[2 * i + 1] != kPoisonInt) && bad++ < 5)
      ADD_FAILURE() << "dst[" << 2 * i << "], dst[" << 2 * i + 1 << "] = " << host[2 * i] << ", " << host[2 * i + 1];
  EXPECT_EQ(bad, 0) << "iput_on_stream: every element at every other slot, the slots between untouched";
  nvshmemx_int_iget_on_stream(got, src, 1, 2, kInts / 2, right(), stream);  // src[2i] of the right PE to got[i]
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(host.data(), got, kInts * sizeof(int), cudaMemcpyDeviceToHost));
  bad = 0;
  for (int i = 0; i < kInts; ++i) {
    const int want = i < kInts / 2 ? value_of(right(), 2 * i) : kPoisonInt;
    if (host[i] != want && bad++ < 5) ADD_FAILURE() << "got[" << i << "] = " << host[i] << ", not " << want;
  }
  EXPECT_EQ(bad, 0) << "iget_on_stream: every other element, nothing past the count";
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(word);
  nvshmem_free(dst);
  nvshmem_free(src);
}

// Stream collectives return to the host at once, also the first of their kind in the process: PE 0 enqueues
// a barrier and a reduction, then releases PE 1 with a host p; PE 1 waits for it before it enqueues the
// same. With CUDA's lazy loading the reduction's first launch on PE 0 waited for the barrier's kernel, which
// waits for PE 1: a hang (docs/proxy.md, "Kernels loaded at init"). PE 1 gives up waiting after 20 s, then
// enqueues anyway, so that a failure ends the test instead of hanging it. It catches that hang only as the
// process's first stream collective (no other test of this binary enqueues one) under lazy loading (the
// default; not with CUDA_MODULE_LOADING=EAGER).
TEST(RemoteDevice, StreamCollectivesReturnAtOnce) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  if (n < 2) GTEST_SKIP() << "PE 0 releases PE 1";
  int *flag = static_cast<int *>(nvshmem_calloc(1, sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  ASSERT_TRUE(flag && src && dst);
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  gpu_test::barrier();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const auto enqueue = [&] {
    nvshmemx_barrier_all_on_stream(stream);
    EXPECT_EQ(nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kInts, stream), 0);
  };
  if (me == 1) {
    bool released = false;
    for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
         !released && std::chrono::steady_clock::now() < until;) {
      int seen = 0;
      CUDA_CHECK(cudaMemcpy(&seen, flag, sizeof seen, cudaMemcpyDeviceToHost));
      released = seen == 1;
    }
    EXPECT_TRUE(released) << "PE 0's host p did not come within 20 s: its stream collectives blocked it";
    enqueue();
  } else {
    enqueue();
    if (me == 0) {
      nvshmem_int_p(flag, 1, 1);
      nvshmem_quiet();  // the p is complete (the stream's kernels are not waited for)
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> host(kInts);
  CUDA_CHECK(cudaMemcpy(host.data(), dst, kInts * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < kInts; ++i) {
    int want = 0;
    for (int pe = 0; pe < n; ++pe) want += value_of(pe, i);
    if (host[i] != want && bad++ < 5) ADD_FAILURE() << "dst[" << i << "] = " << host[i] << ", not " << want;
  }
  EXPECT_EQ(bad, 0);
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dst);
  nvshmem_free(src);
  nvshmem_free(flag);
}

// A block's put_nbi to the right neighbour, left to the proxy when that PE is remote (no quiet in the kernel).
__global__ void put_nbi_right(int *dst, const int *src, int n, int pe) {
  nvshmemx_int_put_nbi_block(dst, src, n, pe);
}
// Counts the ints of dst that are not PE `from`'s values into *bad.
__global__ void count_wrong(const int *dst, int n, int from, int *bad) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (dst[i] != value_of(from, i)) atomicAdd(bad, 1);
}

// A barrier on a stream completes the put_nbi of a kernel before it on the stream, also one the proxy carries to
// another node: a kernel's completion does not complete its proxy requests, so the barrier's kernel quiets the
// proxy first. A check kernel right after the barrier, on the same stream, reads what the left neighbour put.
// Both kernels are loaded first: under CUDA's lazy loading the check kernel's first launch, behind the
// barrier's, waits for the kernels running in the context while the proxy's CUDA copies wait for that launch,
// so the barrier's kernel never ends (it hung so on an H100; docs/proxy.md, "Kernels loaded at init").
TEST(RemoteDevice, StreamBarrierCompletesTheNbiPutsOfKernelsBeforeIt) {
  cudaFuncAttributes attr;
  CUDA_CHECK(cudaFuncGetAttributes(&attr, put_nbi_right));
  CUDA_CHECK(cudaFuncGetAttributes(&attr, count_wrong));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *bad = nullptr;
  ASSERT_TRUE(src && dst);
  CUDA_CHECK(cudaMalloc(&bad, sizeof(int)));
  CUDA_CHECK(cudaMemset(bad, 0, sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  fill<<<4, 128>>>(src, kInts);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  gpu_test::barrier();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  put_nbi_right<<<1, 256, 0, stream>>>(dst, src, kInts, right());
  LAUNCH_CHECK();
  nvshmemx_barrier_all_on_stream(stream);
  count_wrong<<<1, 256, 0, stream>>>(dst, kInts, left(), bad);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  int h_bad = -1;
  CUDA_CHECK(cudaMemcpy(&h_bad, bad, sizeof h_bad, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_bad, 0) << "ints of the left neighbour's put_nbi not here after the stream barrier";
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(bad));
  nvshmem_free(dst);
  nvshmem_free(src);
}

// Many small nbi puts from every block (more than one lap of each channel's ring), then one quiet.
// Rounds of: this PE's values of round r into `src`, a put to the right neighbour, a device barrier, a
// check of what the left neighbour put here, a sync (nobody rewrites before everybody checked). One block
// (block scope: put and barrier_all; sync_all), or one thread (thread scope: barrier on NVSHMEM_TEAM_WORLD,
// team_sync) or one warp (warp scope). Counts wrong ints in *bad.
template <int Scope>
__global__ void barrier_rounds(int *dst, int *src, int rounds, int pe, int from, int *bad) {
  const int me = nvshmem_my_pe();
  const int rank = Scope == 0 ? 0 : threadIdx.x, size = Scope == 0 ? 1 : Scope == 1 ? 32 : blockDim.x;
  for (int r = 0; r < rounds; ++r) {
    for (int i = rank; i < kInts; i += size) src[i] = value_of(me, i + r);
    if (Scope == 2) {
      __syncthreads();
      nvshmemx_int_put_nbi_block(dst, src, kInts, pe);
      nvshmemx_barrier_all_block();
    } else if (Scope == 1) {
      __syncwarp();
      nvshmemx_int_put_nbi_warp(dst, src, kInts, pe);
      nvshmemx_barrier_warp(NVSHMEM_TEAM_WORLD);
    } else {
      nvshmem_int_put_nbi(dst, src, kInts, pe);
      nvshmem_barrier(NVSHMEM_TEAM_WORLD);
    }
    for (int i = rank; i < kInts; i += size)
      if (dst[i] != value_of(from, i + r)) atomicAdd(bad, 1);
    if (Scope == 2)
      nvshmemx_sync_all_block();
    else if (Scope == 1)
      nvshmemx_team_sync_warp(NVSHMEM_TEAM_WORLD);
    else
      nvshmem_team_sync(NVSHMEM_TEAM_WORLD);
  }
}

// Device barriers and syncs on a team with remote members (node rounds and the leaders' dissemination through
// the proxies, docs/teams.md): the puts before a barrier have landed after it, in every scope, round after round.
TEST(RemoteDevice, BarriersOrderPutsEveryScope) {
  int *dst = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *src = static_cast<int *>(nvshmem_malloc(kInts * sizeof(int)));
  int *bad = nullptr;
  ASSERT_TRUE(dst && src);
  CUDA_CHECK(cudaMalloc(&bad, 3 * sizeof(int)));
  CUDA_CHECK(cudaMemset(bad, 0, 3 * sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kInts * sizeof(int)));
  gpu_test::barrier();
  barrier_rounds<0><<<1, 1>>>(dst, src, 3, right(), left(), bad);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  barrier_rounds<1><<<1, 32>>>(dst, src, 3, right(), left(), bad + 1);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  barrier_rounds<2><<<1, 256>>>(dst, src, 5, right(), left(), bad + 2);
  LAUNCH_CHECK();
  CUDA_CHECK(cudaDeviceSynchronize());
  int h_bad[3] = {-1, -1, -1};
  CUDA_CHECK(cudaMemcpy(h_bad, bad, sizeof h_bad, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_bad[0], 0) << "thread scope";
  EXPECT_EQ(h_bad[1], 0) << "warp scope";
  EXPECT_EQ(h_bad[2], 0) << "block scope";
  gpu_test::barrier();
  CUDA_CHECK(cudaFree(bad));
  nvshmem_free(src);
  nvshmem_free(dst);
}

// Device collectives on NVSHMEM_TEAM_WORLD, block scope (Block) or thread scope (thread 0 of one thread):
// broadcast from PE 0, fcollect, alltoall, sum reduce and sum reducescatter of `n` ints each.
template <bool Block>
__global__ void collectives(const int *src, int *bcast, int *fcol, int *a2a, int *red, int *rsc, int n) {
  const nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
  if (Block) {
    nvshmemx_int_broadcast_block(w, bcast, src, n, 0);
    nvshmemx_int_fcollect_block(w, fcol, src, n);
    nvshmemx_int_alltoall_block(w, a2a, src, n);
    nvshmemx_int_sum_reduce_block(w, red, src, n);
    nvshmemx_int_sum_reducescatter_block(w, rsc, src, n);
  } else {
    nvshmem_int_broadcast(w, bcast, src, n, 0);
    nvshmem_int_fcollect(w, fcol, src, n);
    nvshmem_int_alltoall(w, a2a, src, n);
    nvshmem_int_sum_reduce(w, red, src, n);
    nvshmem_int_sum_reducescatter(w, rsc, src, n);
  }
}

// On a team with remote members (gpu.remote.*) device collectives go through the proxy (the host
// collectives); every result is checked against the members' values, in both scopes.
TEST(RemoteDevice, CollectivesBlockAndThreadScope) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  constexpr int kN = 100;
  const size_t all = static_cast<size_t>(npes) * kN;
  int *src = static_cast<int *>(nvshmem_malloc(all * sizeof(int)));
  int *out = static_cast<int *>(nvshmem_malloc(4 * all * sizeof(int) + kN * sizeof(int)));
  ASSERT_TRUE(src && out);
  int *fcol = out, *a2a = out + all, *red = out + 2 * all, *rsc = out + 3 * all, *bcast = out + 4 * all;
  std::vector<int> h_src(all);
  for (size_t i = 0; i < all; ++i) h_src[i] = value_of(me, static_cast<int>(i));
  CUDA_CHECK(cudaMemcpy(src, h_src.data(), all * sizeof(int), cudaMemcpyHostToDevice));
  for (int block = 1; block >= 0; --block) {
    CUDA_CHECK(cudaMemset(out, gpu_test::kPoison, 4 * all * sizeof(int) + kN * sizeof(int)));
    gpu_test::barrier();
    if (block)
      collectives<true><<<1, 128>>>(src, bcast, fcol, a2a, red, rsc, kN);
    else
      collectives<false><<<1, 1>>>(src, bcast, fcol, a2a, red, rsc, kN);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> got(4 * all + kN);
    CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    auto expect = [&](const char *what, size_t at, int want) {
      if (got[at] != want && bad++ < 5)
        ADD_FAILURE() << (block ? "block " : "thread ") << what << " [" << at << "] = " << got[at] << ", want " << want;
    };
    for (int i = 0; i < kN; ++i) {
      int sum = 0, sum_block = 0;
      for (int j = 0; j < npes; ++j) {
        expect("fcollect", static_cast<size_t>(j) * kN + i, value_of(j, i));
        expect("alltoall", all + static_cast<size_t>(j) * kN + i, value_of(j, me * kN + i));
        sum += value_of(j, i);
        sum_block += value_of(j, me * kN + i);
      }
      expect("reduce", 2 * all + i, sum);
      expect("reducescatter", 3 * all + i, sum_block);
      expect("broadcast", 4 * all + i, value_of(0, i));
    }
    EXPECT_EQ(bad, 0);
    gpu_test::barrier();
  }
  nvshmem_free(out);
  nvshmem_free(src);
}

__global__ void many_p(int *dst, int pe, int per_block) {
  if (threadIdx.x != 0) return;
  const int me = nvshmem_my_pe();
  for (int i = 0; i < per_block; ++i) {
    const int at = blockIdx.x * per_block + i;
    nvshmem_int_p(dst + at, value_of(me, at), pe);
  }
  nvshmem_quiet();
}

TEST(RemoteDevice, ManySmallPutsLapTheRings) {
  constexpr int kBlocksP = 16, kPer = 600;  // 2 blocks per channel: 1200 requests on a ring of 256
  int *dst = static_cast<int *>(nvshmem_malloc(kBlocksP * kPer * sizeof(int)));
  ASSERT_NE(dst, nullptr);
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, kBlocksP * kPer * sizeof(int)));
  gpu_test::barrier();
  many_p<<<kBlocksP, 32>>>(dst, right(), kPer);
  LAUNCH_CHECK();
  gpu_test::barrier();
  expect_values(dst, kBlocksP * kPer, left());
  gpu_test::barrier();
  nvshmem_free(dst);
}

}  // namespace
