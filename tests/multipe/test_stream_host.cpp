// SPDX-License-Identifier: BSD-3-Clause
// The stream forms of RMA, signals and quiet on every heap kind, meant for a host heap (docs/remote.md,
// "Stream calls on a host heap": host functions in stream order, to mapped and remote PEs alike; at once
// without a CUDA device). The null stream; each PE writes to the next and reads from it.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "pe_test.hpp"

namespace {
using pe_test::random_bytes;
using pe_test::read_local;
using pe_test::write_local;

constexpr cudaStream_t kStream = nullptr;

// Later host code sees what the stream did (nothing to wait for without a CUDA device).
void wait_stream() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    ASSERT_EQ(cudaStreamSynchronize(kStream), cudaSuccess);
  }
}

// Polls this PE's signal word until it equals `want`; fails naming `what` after 30 s.
void wait_signal(uint64_t *sig, uint64_t want, const char *what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  uint64_t seen = 0;
  while ((seen = nvshmem_signal_fetch(sig)) != want) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << what << " is " << seen << ", still not " << want;
    std::this_thread::yield();
  }
}

int next_pe() {
  return (nvshmem_my_pe() + 1) % nvshmem_n_pes();
}
int prev_pe() {
  return (nvshmem_my_pe() + nvshmem_n_pes() - 1) % nvshmem_n_pes();
}

TEST(StreamHost, PutmemAndGetmemReachTheNextPe) {
  constexpr std::size_t kBytes = 100 * 1024 + 3;
  auto *in = static_cast<unsigned char *>(nvshmem_malloc(kBytes));
  auto *own = static_cast<unsigned char *>(nvshmem_malloc(kBytes));
  ASSERT_NE(in, nullptr);
  ASSERT_NE(own, nullptr);
  const int me = nvshmem_my_pe();
  write_local(own, random_bytes(kBytes, me, 2).data(), kBytes);
  const std::vector<unsigned char> out = random_bytes(kBytes, me, 1);
  nvshmemx_putmem_on_stream(in, out.data(), kBytes, next_pe(), kStream);
  nvshmemx_quiet_on_stream(kStream);
  wait_stream();
  nvshmem_barrier_all();
  EXPECT_EQ(read_local(in, kBytes), random_bytes(kBytes, prev_pe(), 1));

  std::vector<unsigned char> got(kBytes, 0xEE);
  nvshmemx_getmem_on_stream(got.data(), own, kBytes, next_pe(), kStream);
  wait_stream();
  EXPECT_EQ(got, random_bytes(kBytes, next_pe(), 2));
  nvshmem_barrier_all();
  nvshmem_free(own);
  nvshmem_free(in);
}

TEST(StreamHost, PAndGAndStrided) {
  constexpr std::size_t kElems = 64;
  auto *word = static_cast<int64_t *>(nvshmem_calloc(1, sizeof(int64_t)));
  auto *strided = static_cast<int32_t *>(nvshmem_calloc(2 * kElems, sizeof(int32_t)));
  ASSERT_NE(word, nullptr);
  ASSERT_NE(strided, nullptr);
  const int me = nvshmem_my_pe();
  nvshmemx_int64_p_on_stream(word, 1000 + me, next_pe(), kStream);
  std::vector<int32_t> src(kElems);
  for (std::size_t i = 0; i < kElems; ++i) src[i] = static_cast<int32_t>(me * 100000 + i);
  // Every other element of the target, from consecutive elements here.
  nvshmemx_int32_iput_on_stream(strided, src.data(), 2, 1, kElems, next_pe(), kStream);
  nvshmemx_quiet_on_stream(kStream);
  wait_stream();
  nvshmem_barrier_all();
  EXPECT_EQ(nvshmemx_int64_g_on_stream(word, me, kStream), 1000 + prev_pe());
  EXPECT_EQ(nvshmemx_int64_g_on_stream(word, next_pe(), kStream), 1000 + me);
  // Back from the next PE (which holds this PE's elements at even indices) into every third element.
  std::vector<int32_t> back(3 * kElems, -1);
  nvshmemx_int32_iget_on_stream(back.data(), strided, 3, 2, kElems, next_pe(), kStream);
  wait_stream();
  for (std::size_t i = 0; i < 3 * kElems; ++i) ASSERT_EQ(back[i], i % 3 ? -1 : src[i / 3]) << "element " << i;
  nvshmem_barrier_all();
  nvshmem_free(strided);
  nvshmem_free(word);
}

TEST(StreamHost, SignalsAndPutWithSignal) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr std::size_t kBytes = 8192;
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  auto *data = static_cast<unsigned char *>(nvshmem_malloc(kBytes));
  ASSERT_NE(sig, nullptr);
  ASSERT_NE(data, nullptr);
  for (int pe = 0; pe < n; ++pe) nvshmemx_signal_op_on_stream(sig, me + 1, NVSHMEM_SIGNAL_ADD, pe, kStream);
  const std::vector<unsigned char> out = random_bytes(kBytes, me, 3);
  nvshmemx_putmem_signal_on_stream(data, out.data(), kBytes, sig + 1, 7 + me, NVSHMEM_SIGNAL_SET, next_pe(), kStream);
  wait_stream();
  wait_signal(sig + 1, static_cast<uint64_t>(7 + prev_pe()), "the previous PE's put-with-signal");
  EXPECT_EQ(read_local(data, kBytes), random_bytes(kBytes, prev_pe(), 3));
  wait_signal(sig, static_cast<uint64_t>(n) * (n + 1) / 2, "the sum of every PE's signal add");
  nvshmem_barrier_all();
  nvshmem_free(data);
  nvshmem_free(sig);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
