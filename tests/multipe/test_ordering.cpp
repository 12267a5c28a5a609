// SPDX-License-Identifier: BSD-3-Clause
// Ordering and signalling across PEs, meant for remote PEs (docs/remote.md) and run on mapped ones too:
// data put without waiting, then fence, then a flag: a reader that sees the flag sees the data; signal
// adds from every PE reach their exact sum; one fence orders the writes to each of several PEs. Every wait is bounded
// and names what it waited for.
#include <chrono>
#include <thread>
#include <vector>

#include "pe_test.hpp"

namespace {
using pe_test::read_local;
using pe_test::write_local;

// Polls this PE's `word` until it equals `want`; fails naming `what` after 30 s.
void wait_local(uint64_t *word, uint64_t want, const char *what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  uint64_t seen = 0;
  while ((seen = nvshmem_uint64_atomic_fetch(word, nvshmem_my_pe())) != want) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "PE " << nvshmem_my_pe() << ": " << what << " is " << seen << ", still not " << want << " after 30 s";
    std::this_thread::yield();
  }
}

uint32_t pattern(int writer, int round, std::size_t i) {
  return static_cast<uint32_t>(writer * 1000003 + round * 7919 + static_cast<int>(i) * 31 + 1);
}

TEST(Ordering, FenceOrdersDataBeforeTheFlag) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  constexpr std::size_t kWords = 16384;  // 64 KiB: several network messages
  auto *data = static_cast<uint32_t *>(nvshmem_malloc(kWords * sizeof(uint32_t)));
  auto *flag = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(data, nullptr);
  ASSERT_NE(flag, nullptr);
  std::vector<uint32_t> out(kWords);
  for (int round = 1; round <= 10; ++round) {
    for (std::size_t i = 0; i < kWords; ++i) out[i] = pattern(me, round, i);
    // Two halves in flight at once, then the fence, then the flag: nothing waits for the data itself.
    nvshmem_uint32_put_nbi(data, out.data(), kWords / 2, next);
    nvshmem_uint32_put_nbi(data + kWords / 2, out.data() + kWords / 2, kWords / 2, next);
    nvshmem_fence();
    nvshmem_uint64_atomic_set(flag, static_cast<uint64_t>(round), next);
    wait_local(flag, static_cast<uint64_t>(round), "the flag from the previous PE");
    const std::vector<unsigned char> got = read_local(data, kWords * sizeof(uint32_t));
    const auto *words = reinterpret_cast<const uint32_t *>(got.data());
    for (std::size_t i = 0; i < kWords; ++i)
      ASSERT_EQ(words[i], pattern(prev, round, i)) << "round " << round << ", word " << i << " from PE " << prev;
    nvshmem_quiet();        // this PE's out buffer is reused next round
    nvshmem_barrier_all();  // nobody writes round r+1 before its reader checked round r
  }
  nvshmem_free(flag);
  nvshmem_free(data);
}

// Fence orders per target PE: data to every other PE, one fence, then flags (non-blocking puts too) to
// every other PE; each reader that sees a writer's flag sees that writer's data.
TEST(Ordering, OneFenceOrdersEachTargetPe) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr std::size_t kWords = 4096;
  auto *data = static_cast<uint32_t *>(nvshmem_malloc(n * kWords * sizeof(uint32_t)));  // a row per writer
  auto *flags = static_cast<uint64_t *>(nvshmem_calloc(n, sizeof(uint64_t)));           // a flag per writer
  ASSERT_NE(data, nullptr);
  ASSERT_NE(flags, nullptr);
  std::vector<uint32_t> out(kWords);
  for (int round = 1; round <= 5; ++round) {
    for (std::size_t i = 0; i < kWords; ++i) out[i] = pattern(me, round, i);
    const uint64_t flag = static_cast<uint64_t>(round);
    for (int j = 0; j < n; ++j)
      if (j != me) nvshmem_uint32_put_nbi(data + me * kWords, out.data(), kWords, j);
    nvshmem_fence();
    for (int j = 0; j < n; ++j)
      if (j != me) nvshmem_uint64_put_nbi(flags + me, &flag, 1, j);
    for (int w = 0; w < n; ++w) {
      if (w == me) continue;
      wait_local(flags + w, flag, "a writer's flag");
      const std::vector<unsigned char> got = read_local(data + w * kWords, kWords * sizeof(uint32_t));
      const auto *words = reinterpret_cast<const uint32_t *>(got.data());
      for (std::size_t i = 0; i < kWords; ++i)
        ASSERT_EQ(words[i], pattern(w, round, i)) << "round " << round << ", word " << i << " from PE " << w;
    }
    nvshmem_quiet();  // `out` and `flag` are reused next round
    nvshmem_barrier_all();
  }
  nvshmem_free(flags);
  nvshmem_free(data);
}

TEST(Ordering, SignalAddsFromEveryPeSumExactly) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  auto *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  ASSERT_NE(sig, nullptr);
  constexpr int kAdds = 50;
  // Every PE adds (its PE + 1) kAdds times to every PE's signal, itself included.
  for (int k = 0; k < kAdds; ++k)
    for (int j = 0; j < n; ++j)
      nvshmemx_signal_op(sig, static_cast<uint64_t>(me + 1), NVSHMEM_SIGNAL_ADD, (me + j) % n);
  const uint64_t want = static_cast<uint64_t>(kAdds) * static_cast<uint64_t>(n) * static_cast<uint64_t>(n + 1) / 2;
  wait_local(sig, want, "the sum of the signal adds");
  EXPECT_EQ(nvshmem_signal_fetch(sig), want);
  nvshmem_barrier_all();
  // SET from the next PE replaces the sum.
  nvshmemx_signal_op(sig, 0xC0FFEE00ull + static_cast<uint64_t>(me), NVSHMEM_SIGNAL_SET, (me + 1) % n);
  wait_local(sig, 0xC0FFEE00ull + static_cast<uint64_t>((me + n - 1) % n), "the signal set by the previous PE");
  nvshmem_barrier_all();
  nvshmem_free(sig);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
