// SPDX-License-Identifier: BSD-3-Clause
// The stream forms of RMA, signals, quiet, waits and collectives on every heap kind, meant for a host heap
// (docs/remote.md, "Stream calls on a host heap": host functions in stream order, to mapped and remote PEs
// alike; at once without a CUDA device). The null stream; each PE writes to the next and reads from it.
#include <cuda_runtime.h>
#include <nvshmemx.h>

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
  // signal_wait_until fed by every PE's adds (remote ones among them): on a host heap the host waits.
  nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_GE, static_cast<uint64_t>(n) * (n + 1) / 2, kStream);
  wait_stream();
  EXPECT_EQ(nvshmem_signal_fetch(sig), static_cast<uint64_t>(n) * (n + 1) / 2) << "the sum of every PE's signal add";
  nvshmem_barrier_all();
  nvshmem_free(data);
  nvshmem_free(sig);
}

// The wait forms on a host heap wait on the host, in stream order, until peers' writes arrive: each PE
// writes the next PE's words only after a pause, so a wait that returned early would see them unset.
TEST(StreamHost, WaitUntilFormsWaitForThePreviousPe) {
  const int me = nvshmem_my_pe();
  constexpr std::size_t kWords = 4;
  auto *words = static_cast<int32_t *>(nvshmem_calloc(kWords, sizeof(int32_t)));
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  auto *data = static_cast<unsigned char *>(nvshmem_malloc(4096));
  ASSERT_NE(words, nullptr);
  ASSERT_NE(sig, nullptr);
  ASSERT_NE(data, nullptr);
  nvshmem_barrier_all();
  std::thread writer([&] {  // as if another PE's host code wrote later: the waits below must block
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (std::size_t i = 0; i < kWords; ++i)
      nvshmem_int32_p(words + i, static_cast<int32_t>(100 * (me + 1) + i), next_pe());
    nvshmem_quiet();
    const std::vector<unsigned char> out = random_bytes(4096, me, 4);
    nvshmemx_putmem_signal_on_stream(data, out.data(), 4096, sig, 5 + me, NVSHMEM_SIGNAL_SET, next_pe(), kStream);
    wait_stream();
  });
  const int32_t base = 100 * (prev_pe() + 1);
  // One word; then all of them with word 3 excluded by `status` (its target is never reached); then each
  // against its own target.
  nvshmemx_int32_wait_until_on_stream(words + 1, NVSHMEM_CMP_EQ, base + 1, kStream);
  const int status[kWords] = {0, 0, 0, 1};
  nvshmemx_int32_wait_until_all_on_stream(words, kWords, status, NVSHMEM_CMP_GE, base, kStream);
  const int32_t targets[kWords] = {base, base + 1, base + 2, base + 3};
  nvshmemx_int32_wait_until_all_vector_on_stream(words, kWords, nullptr, NVSHMEM_CMP_EQ, const_cast<int32_t *>(targets),
                                                 kStream);
  nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, static_cast<uint64_t>(5 + prev_pe()), kStream);
  wait_stream();
  // What the waits waited for is there (the data of the put-with-signal before its signal).
  for (std::size_t i = 0; i < kWords; ++i)
    EXPECT_EQ(nvshmem_int32_g(words + i, me), base + static_cast<int32_t>(i)) << "word " << i;
  EXPECT_EQ(nvshmem_signal_fetch(sig), static_cast<uint64_t>(5 + prev_pe()));
  EXPECT_EQ(read_local(data, 4096), random_bytes(4096, prev_pe(), 4));
  writer.join();
  nvshmem_barrier_all();
  nvshmem_free(data);
  nvshmem_free(sig);
  nvshmem_free(words);
}

// The collectives on stream on a host heap: the host collectives in stream order, to mapped and remote PEs.
TEST(StreamHost, BarriersOrderPutsOnTheStream) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  auto *slots = static_cast<int64_t *>(nvshmem_calloc(static_cast<std::size_t>(n), sizeof(int64_t)));
  ASSERT_NE(slots, nullptr);
  for (int round = 1; round <= 3; ++round) {
    // Every PE writes its slot on every PE, then a barrier of each kind; every slot must then hold the round.
    for (int pe = 0; pe < n; ++pe) nvshmemx_int64_p_on_stream(slots + me, round * 1000 + me, pe, kStream);
    if (round == 1) nvshmemx_barrier_all_on_stream(kStream);
    if (round == 2) {
      ASSERT_EQ(nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, kStream), 0);
    }
    if (round == 3) {
      nvshmemx_quiet_on_stream(kStream);
      nvshmemx_sync_all_on_stream(kStream);
    }
    wait_stream();
    for (int pe = 0; pe < n; ++pe)
      ASSERT_EQ(nvshmem_int64_g(slots + pe, me), round * 1000 + pe) << "round " << round << ", slot of PE " << pe;
    ASSERT_EQ(nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, kStream), 0);  // all have read before the next round
    wait_stream();
  }
  nvshmem_barrier_all();
  nvshmem_free(slots);
}

TEST(StreamHost, DataCollectivesOnStream) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr std::size_t kElems = 300;
  const std::size_t all = kElems * static_cast<std::size_t>(n);
  auto *src = static_cast<int32_t *>(nvshmem_malloc(all * sizeof(int32_t)));
  auto *dst = static_cast<int32_t *>(nvshmem_malloc(all * sizeof(int32_t)));
  auto *dsrc = static_cast<double *>(nvshmem_malloc(kElems * sizeof(double)));
  auto *ddst = static_cast<double *>(nvshmem_malloc(kElems * sizeof(double)));
  ASSERT_TRUE(src && dst && dsrc && ddst);
  auto value = [](int pe, std::size_t i) { return static_cast<int32_t>(pe * 100003 + static_cast<int>(i) * 7 + 1); };
  std::vector<int32_t> mine(all);
  for (std::size_t i = 0; i < all; ++i) mine[i] = value(me, i);
  write_local(src, mine.data(), all * sizeof(int32_t));
  std::vector<double> dmine(kElems);
  for (std::size_t i = 0; i < kElems; ++i) dmine[i] = me * 0.5 + static_cast<double>(i);
  write_local(dsrc, dmine.data(), kElems * sizeof(double));
  nvshmem_barrier_all();
  auto read_ints = [&](std::size_t count) {
    std::vector<int32_t> out(count);
    const std::vector<unsigned char> bytes = read_local(dst, count * sizeof(int32_t));
    memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  };

  const int root = n - 1;
  ASSERT_EQ(nvshmemx_int32_broadcast_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kElems, root, kStream), 0);
  wait_stream();
  std::vector<int32_t> got = read_ints(kElems);
  for (std::size_t i = 0; i < kElems; ++i) ASSERT_EQ(got[i], value(root, i)) << "broadcast, element " << i;

  ASSERT_EQ(nvshmemx_int32_fcollect_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kElems, kStream), 0);
  wait_stream();
  got = read_ints(all);
  for (std::size_t i = 0; i < all; ++i) ASSERT_EQ(got[i], value(static_cast<int>(i / kElems), i % kElems)) << i;

  ASSERT_EQ(nvshmemx_int32_alltoall_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kElems, kStream), 0);
  wait_stream();
  got = read_ints(all);
  for (std::size_t i = 0; i < all; ++i) {
    const int from = static_cast<int>(i / kElems);  // block `from` holds from's block for this PE
    ASSERT_EQ(got[i], value(from, me * kElems + i % kElems)) << "alltoall, element " << i;
  }

  ASSERT_EQ(nvshmemx_int32_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kElems, kStream), 0);
  wait_stream();
  got = read_ints(kElems);
  for (std::size_t i = 0; i < kElems; ++i) {
    int32_t sum = 0;
    for (int pe = 0; pe < n; ++pe) sum += value(pe, i);
    ASSERT_EQ(got[i], sum) << "sum_reduce, element " << i;
  }

  ASSERT_EQ(nvshmemx_double_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, ddst, dsrc, kElems, kStream), 0);
  wait_stream();
  const std::vector<unsigned char> dbytes = read_local(ddst, kElems * sizeof(double));
  for (std::size_t i = 0; i < kElems; ++i) {
    double d = 0;
    memcpy(&d, dbytes.data() + i * sizeof(double), sizeof d);
    ASSERT_EQ(d, (n - 1) * 0.5 + static_cast<double>(i)) << "max_reduce, element " << i;
  }

  ASSERT_EQ(nvshmemx_int32_xor_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, dst, src, kElems, kStream), 0);
  wait_stream();
  got = read_ints(kElems);
  for (std::size_t i = 0; i < kElems; ++i) {
    int32_t x = 0;
    for (int pe = 0; pe < n; ++pe) x ^= value(pe, me * kElems + i);
    ASSERT_EQ(got[i], x) << "xor_reducescatter, element " << i;
  }
  nvshmem_barrier_all();
  nvshmem_free(ddst);
  nvshmem_free(dsrc);
  nvshmem_free(dst);
  nvshmem_free(src);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
