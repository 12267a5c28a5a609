// SPDX-License-Identifier: BSD-3-Clause
// The proxy (src/remote/proxy.cpp) and its channels (include/nvshmem_detail/proxy_ring.h) without a
// GPU: host producer threads write requests with the same producer code the device uses, the real
// proxy thread drains them into the real UCX engine (whose peer is this process itself, one-sided
// and staged), and every result is checked on the memory. Plus the encoding alone.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <chrono>
#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/log.hpp"
#include "remote/proxy.hpp"

namespace nvshm {
namespace {

class OneRank : public Bootstrap {
 public:
  OneRank() {
    rank_ = 0;
    size_ = 1;
  }
  const char *name() const override { return "one"; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    memcpy(out, in, bytes);
    return Status::ok;
  }
  Status barrier() override { return Status::ok; }
};

TEST(ProxyRing, EncodingRoundTripsAndLapsAreTold) {
  std::mt19937_64 rng(27);
  for (int i = 0; i < 1000; ++i) {
    nvshm_proxy_request r{static_cast<uint32_t>(rng() % 10),
                          static_cast<uint32_t>(rng() & 0xff),
                          static_cast<uint32_t>(rng() & 0xffff),
                          static_cast<int32_t>(rng() & 0x7fffffff),
                          rng() >> 1,
                          rng() >> 1,
                          rng() >> 1,
                          rng(),
                          rng(),
                          rng()};
    const uint64_t ticket = rng() % 100000;
    uint64_t w[NVSHM_PROXY_WORDS];
    nvshm_proxy_encode(&r, ticket, w);
    nvshm_proxy_request back{};
    ASSERT_EQ(nvshm_proxy_decode(w, ticket, &back), 1);
    EXPECT_EQ(memcmp(&r, &back, sizeof r), 0) << "request " << i;
    // The same words are stale one lap later and one lap earlier; a single stale word is enough.
    EXPECT_EQ(nvshm_proxy_decode(w, ticket + NVSHM_PROXY_ENTRIES, &back), 0);
    w[5] ^= 1ull << 63;
    EXPECT_EQ(nvshm_proxy_decode(w, ticket, &back), 0);
  }
  const uint64_t zero[NVSHM_PROXY_WORDS] = {};  // fresh memory is no request of the first lap
  nvshm_proxy_request r;
  EXPECT_EQ(nvshm_proxy_decode(zero, 0, &r), 0);
}

// The proxies' global_exit here: say so and end the process with the status.
[[noreturn]] void exit_with(int status) {
  fprintf(stderr, "global exit %d\n", status);
  _exit(status);
}

// The proxies' collective hook here (it runs on the proxy's team threads): records each request's team and
// kind; team 13 fails; team kSlowTeam takes 2 s; team kWaitingTeam returns once team kAwaitedTeam's
// collective has started (a collective that waits for another team's, as on a PE whose blocks each use
// their own team), failing after 5 s; team kSettlingTeam, once started, waits 300 ms and settles through
// g_settling_owner (as the runtime's host collectives settle through the runtime's pointer).
std::mutex g_collectives_mutex;
std::vector<std::pair<int, uint32_t>> g_collectives;
constexpr int kSlowTeam = 21, kWaitingTeam = 22, kAwaitedTeam = 23, kSettlingTeam = 24;
std::atomic<bool> g_awaited_started{false}, g_settling_started{false};
std::unique_ptr<Proxy> *g_settling_owner = nullptr;
std::atomic<int> g_settled{-1};  // the settle's Status
Status record_collective(const nvshm_proxy_request &r) {
  if (r.pe == kSlowTeam) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    return Status::ok;
  }
  if (r.pe == kAwaitedTeam) g_awaited_started = true;
  if (r.pe == kSettlingTeam) {
    g_settling_started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    g_settled = static_cast<int>(*g_settling_owner ? (*g_settling_owner)->settle("test (stopping)") : Status::internal);
    return Status::ok;
  }
  if (r.pe == kWaitingTeam) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!g_awaited_started && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    if (!g_awaited_started) return Status::timeout;
  }
  std::lock_guard<std::mutex> lock(g_collectives_mutex);
  g_collectives.emplace_back(r.pe, r.aux);
  return r.pe == 13 ? Status::invalid_value : Status::ok;
}

// The engine of the tests: the real one, with atomics on the word at kSlowOffset taking 200 ms (a request
// that holds its channel back), and `lost` PEs added to its unreachable count (a PE that went away).
constexpr std::size_t kSlowOffset = 1800000;
class SlowWordEngine : public RemoteEngine {
 public:
  explicit SlowWordEngine(std::unique_ptr<RemoteEngine> inner) : inner_(std::move(inner)) {}
  const char *name() const override { return inner_->name(); }
  Status put(int pe, std::size_t offset, const void *local, std::size_t bytes) override {
    return inner_->put(pe, offset, local, bytes);
  }
  Status get(void *local, int pe, std::size_t offset, std::size_t bytes) override {
    return inner_->get(local, pe, offset, bytes);
  }
  Status put_local(int pe, std::size_t offset, const void *local, std::size_t bytes) override {
    return inner_->put_local(pe, offset, local, bytes);
  }
  Status put_nbi(int pe, std::size_t offset, const void *local, std::size_t bytes) override {
    return inner_->put_nbi(pe, offset, local, bytes);
  }
  Status get_nbi(void *local, int pe, std::size_t offset, std::size_t bytes) override {
    return inner_->get_nbi(local, pe, offset, bytes);
  }
  Status atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) override {
    delay(offset);
    return inner_->atomic(pe, offset, args, old);
  }
  Status atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args) override {
    delay(offset);
    return inner_->atomic_nbi(pe, offset, args);
  }
  Status set_words(const std::vector<WordWrite> &writes) override { return inner_->set_words(writes); }
  Status fence() override { return inner_->fence(); }
  Status quiet() override { return inner_->quiet(); }
  int unreachable_count() const override { return inner_->unreachable_count() + lost.load(); }
  uint64_t unwaited_failures() const override { return inner_->unwaited_failures(); }
  void prepare_finalize() override { inner_->prepare_finalize(); }
  std::atomic<int> lost{0};

 private:
  static void delay(std::size_t offset) {
    if (offset == kSlowOffset) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::unique_ptr<RemoteEngine> inner_;
};

// A proxy over `channels` channels, on the UCX engine reaching this process's own slot.
class ProxyTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    slot_.assign(1 << 18, 0);  // 2 MiB
    local_ = make_host_transport();
    RemoteOptions o;
    o.timeout_s = 30;
    o.staged = GetParam();
    OneRank boot;
    std::unique_ptr<RemoteEngine> ucx;
    ASSERT_EQ(make_ucx_engine(boot, slot_.data(), slot_.size() * 8, *local_, o, &ucx), Status::ok);
    auto slow = std::make_unique<SlowWordEngine>(std::move(ucx));
    slow_ = slow.get();
    engine_ = std::move(slow);
    void *mem = nullptr;
    ASSERT_EQ(posix_memalign(&mem, 64, sizeof(nvshm_proxy_channel) * kChannels), 0);
    memset(mem, 0, sizeof(nvshm_proxy_channel) * kChannels);
    channels_ = static_cast<nvshm_proxy_channel *>(mem);
    for (int c = 0; c < kChannels; ++c) channels_[c].timeout_ns = 30ull * 1000000000ull;
    proxy_ = std::make_unique<Proxy>(*engine_, channels_, kChannels, 1, 32, nullptr, exit_with, record_collective);
  }
  void TearDown() override {
    proxy_.reset();
    engine_.reset();
    free(channels_);
  }
  // Enqueues `r` on channel `c`; with NVSHM_PROXY_DONE waits for its record and returns its value.
  uint64_t submit(int c, nvshm_proxy_request r) {
    uint64_t ticket = 0, value = 0;
    EXPECT_EQ(nvshm_proxy_enqueue(&channels_[c], &counters_[c].reserve, &r, &ticket), 1);
    if (r.flags & NVSHM_PROXY_DONE) {
      EXPECT_EQ(nvshm_proxy_wait_done(&channels_[c], ticket, &value), 1);
    }
    return value;
  }
  // A quiet as the device makes it (nvshm_proxy_quiet: a marker, shared with concurrent quiets).
  void quiet(int c) { EXPECT_EQ(nvshm_proxy_quiet(channels_, counters_, kChannels, c), 1); }
  char *heap() { return reinterpret_cast<char *>(slot_.data()); }
  static uint64_t at(const void *p) { return reinterpret_cast<uint64_t>(p); }

  static constexpr int kChannels = 4;
  std::vector<uint64_t> slot_;
  std::unique_ptr<Transport> local_;
  std::unique_ptr<RemoteEngine> engine_;
  SlowWordEngine *slow_ = nullptr;  // engine_
  nvshm_proxy_channel *channels_ = nullptr;
  nvshm_proxy_counters counters_[kChannels] = {};
  std::unique_ptr<Proxy> proxy_;
};

TEST_P(ProxyTest, PutsAndGetsOfEveryKind) {
  // Blocking put (local completion), then quiet: the data is there. Get it back, blocking.
  std::vector<unsigned char> src(300 * 1024), back(src.size(), 0xEE);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 11 + 1);
  submit(0, {NVSHM_PROXY_PUT, NVSHM_PROXY_DONE, 0, 0, 4096, at(src.data()), src.size(), 0, 0, 0});
  quiet(0);
  EXPECT_EQ(memcmp(heap() + 4096, src.data(), src.size()), 0);
  submit(0, {NVSHM_PROXY_GET, NVSHM_PROXY_DONE, 0, 0, 4096, at(back.data()), back.size(), 0, 0, 0});
  EXPECT_EQ(back, src);

  // Inline puts of 1 to 8 bytes, non-blocking; get_nbi; complete at quiet.
  for (uint64_t n = 1; n <= 8; ++n)
    submit(0, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1000000 + 16 * n, 0, n, 0x8877665544332211ull, 0, 0});
  uint64_t got[8] = {};
  quiet(0);
  for (uint64_t n = 1; n <= 8; ++n)
    submit(0, {NVSHM_PROXY_GET, 0, 0, 0, 1000000 + 16 * n, at(&got[n - 1]), 8, 0, 0, 0});
  quiet(0);
  for (uint64_t n = 1; n <= 8; ++n)
    EXPECT_EQ(got[n - 1], 0x8877665544332211ull & (n == 8 ? ~0ull : (1ull << (8 * n)) - 1)) << n << " bytes";

  // `g`: 1 to 8 bytes into the completion record.
  for (uint64_t n = 1; n <= 8; ++n)
    EXPECT_EQ(submit(0, {NVSHM_PROXY_GET, NVSHM_PROXY_DONE, 0, 0, 1000000 + 16 * 8, 0, n, 0, 0, 0}),
              0x8877665544332211ull & (n == 8 ? ~0ull : (1ull << (8 * n)) - 1))
        << n << " bytes";

  // Strided: every third 4-byte element of a local array to every second of the heap, and back.
  std::vector<uint32_t> spread(30), gathered(30, 0);
  for (int i = 0; i < 30; ++i) spread[i] = 0xA0000000u + i;
  submit(0, {NVSHM_PROXY_IPUT, NVSHM_PROXY_DONE, 4, 0, 1100000, at(spread.data()), 10, 0, 8, 12});
  for (int i = 0; i < 10; ++i) {
    uint32_t v;
    memcpy(&v, heap() + 1100000 + 8 * i, 4);
    EXPECT_EQ(v, spread[3 * i]);
  }
  submit(0, {NVSHM_PROXY_IGET, NVSHM_PROXY_DONE, 4, 0, 1100000, at(gathered.data()), 10, 0, 8, 4});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(gathered[i], spread[3 * i]);
}

// Zero-length RMA moves nothing whatever the pointers (OpenSHMEM 1.5 Annex C): a device put or get of 0 bytes
// with a NULL local buffer, from a warp or a block, is a request with no local address, which a get of 1 to 8
// bytes into the completion record (`g`) also is. Each completes without error; a put-with-signal of 0 bytes
// still delivers its signal.
TEST_P(ProxyTest, ZeroLengthRequestsMoveNothing) {
  memset(heap() + 1300000, 0x5A, 64);
  const std::vector<char> before(heap() + 1300000, heap() + 1300064);
  for (uint32_t flags : {0u, static_cast<uint32_t>(NVSHM_PROXY_DONE)}) {
    submit(0, {NVSHM_PROXY_PUT, flags, 0, 0, 1300000, 0, 0, 0, 0, 0});
    submit(0, {NVSHM_PROXY_GET, flags, 0, 0, 1300000, 0, 0, 0, 0, 0});
  }
  submit(0, {NVSHM_PROXY_IPUT, NVSHM_PROXY_DONE, 4, 0, 1300000, 0, 0, 0, 8, 12});
  submit(0, {NVSHM_PROXY_IGET, NVSHM_PROXY_DONE, 4, 0, 1300000, 0, 0, 0, 8, 4});
  submit(0, {NVSHM_PROXY_PUT_SIGNAL, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_ADD, 0, 1300000, 0, 0, 3, 0, 1300056});
  quiet(0);
  std::vector<char> want = before;
  const uint64_t signal = 0x5A5A5A5A5A5A5A5Aull + 3;
  memcpy(want.data() + 56, &signal, 8);
  EXPECT_EQ(std::vector<char>(heap() + 1300000, heap() + 1300064), want);
}

TEST_P(ProxyTest, AtomicsReturnTheOldValueAndSignalsFollowTheirData) {
  uint64_t *word = reinterpret_cast<uint64_t *>(heap() + 1200000);
  *word = 5;
  const uint32_t add8 = NVSHM_PROXY_AMO_ADD | 8u << 8;
  EXPECT_EQ(submit(1, {NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, add8, 0, 1200000, 0, 0, 10, 0, 0}), 5u);
  EXPECT_EQ(submit(1, {NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_COMPARE_SWAP | 8u << 8, 0, 1200000, 0, 0,
                       99, 15, 0}),
            15u);
  EXPECT_EQ(*word, 99u);
  EXPECT_EQ(
      submit(1, {NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_FETCH | 4u << 8, 0, 1200000, 0, 0, 0, 0, 0}),
      99u);

  // Put with signal, non-blocking: after quiet both are there; the signal add accumulates.
  std::vector<unsigned char> data(5000, 0x5A);
  uint64_t *signal = reinterpret_cast<uint64_t *>(heap() + 1300000);
  *signal = 1;
  submit(1, {NVSHM_PROXY_PUT_SIGNAL, 0, NVSHM_PROXY_AMO_ADD, 0, 1310000, at(data.data()), data.size(), 41, 0, 1300000});
  submit(1, {NVSHM_PROXY_FENCE, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  submit(1, {NVSHM_PROXY_PUT_SIGNAL, 0, NVSHM_PROXY_AMO_SET, 0, 1320000, at(data.data()), 100, 7, 0, 1300008});
  quiet(1);
  EXPECT_EQ(*signal, 42u);
  EXPECT_EQ(signal[1], 7u);
  EXPECT_EQ(memcmp(heap() + 1310000, data.data(), data.size()), 0);
}

// Producers on every channel, several per channel, many laps of each ring: every fetch-add returns a
// distinct old value and the sum is exact; non-blocking inline puts all land.
TEST_P(ProxyTest, ConcurrentProducersOverManyLaps) {
  constexpr int kThreads = 8, kAdds = 600, kPuts = 400;
  uint64_t *counter = reinterpret_cast<uint64_t *>(heap() + 1400000);
  std::vector<std::vector<uint64_t>> olds(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const int c = t % kChannels;
      for (int i = 0; i < kAdds; ++i) {
        olds[t].push_back(submit(
            c, {NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_ADD | 8u << 8, 0, 1400000, 0, 0, 1, 0, 0}));
        if (i < kPuts)
          submit(c, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1500000 + 8u * (t * kPuts + i), 0, 8,
                     (uint64_t{1} << 63) | static_cast<uint64_t>(t * kPuts + i), 0, 0});
      }
      quiet(c);
    });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(*counter, uint64_t{kThreads} * kAdds);
  std::set<uint64_t> seen;
  for (const auto &v : olds) seen.insert(v.begin(), v.end());
  EXPECT_EQ(seen.size(), std::size_t{kThreads} * kAdds);
  EXPECT_EQ(*seen.rbegin(), uint64_t{kThreads} * kAdds - 1);
  const uint64_t *puts = reinterpret_cast<const uint64_t *>(heap() + 1500000);
  for (uint64_t i = 0; i < uint64_t{kThreads} * kPuts; ++i) ASSERT_EQ(puts[i], (uint64_t{1} << 63) | i) << i;
}

// A quiet marker on one channel completes what the other channels held before it.
TEST_P(ProxyTest, QuietCoversEveryChannel) {
  for (uint64_t i = 0; i < 200; ++i) submit(2, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1600000 + 8 * i, 0, 8, ~i, 0, 0});
  quiet(0);
  const uint64_t *words = reinterpret_cast<const uint64_t *>(heap() + 1600000);
  for (uint64_t i = 0; i < 200; ++i) ASSERT_EQ(words[i], ~i) << i;
}

// nvshm_proxy_quiet: nothing pending on any channel, it returns at once; else a caller issues a marker unless
// another caller that saw at least the same tickets is about to (then it waits for that marker), so concurrent
// quiets share markers and each still returns only after its own requests completed.
TEST_P(ProxyTest, ConcurrentQuietsShareMarkers) {
  nvshm_proxy_counters &k = counters_[1];
  // Alone: one marker, claimed after the call began.
  submit(1, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1650000, 0, 8, 0x1234, 0, 0});
  const uint64_t before = k.reserve;
  ASSERT_EQ(nvshm_proxy_quiet(channels_, counters_, kChannels, 1), 1);
  EXPECT_EQ(k.reserve, before + 1);
  EXPECT_EQ(k.quiet_done, before + 1);
  EXPECT_EQ(*reinterpret_cast<const uint64_t *>(heap() + 1650000), 0x1234u);
  // Nothing taken since on any channel (each one's last ticket a marker that came back, or none): at once.
  ASSERT_EQ(nvshm_proxy_quiet(channels_, counters_, kChannels, 1), 1);
  EXPECT_EQ(k.reserve, before + 1) << "a marker with nothing pending";
  // A request on another channel since: a marker on the caller's channel, which completes it.
  submit(2, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1650008, 0, 8, 0x5678, 0, 0});
  ASSERT_EQ(nvshm_proxy_quiet(channels_, counters_, kChannels, 1), 1);
  EXPECT_EQ(k.reserve, before + 2);
  EXPECT_EQ(*reinterpret_cast<const uint64_t *>(heap() + 1650008), 0x5678u);

  // A caller that saw the tickets another quiet is about to cover waits for that marker and issues none.
  const uint64_t seen = k.reserve;
  k.quiet_wanted = seen + 1;  // the other quiet saw `seen` tickets and has not claimed its marker yet
  std::atomic<int> follower{-1};
  std::thread t([&] { follower = nvshm_proxy_quiet(channels_, counters_, kChannels, 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(follower.load(), -1) << "returned before the marker it waits for";
  uint64_t ticket = 0, value = 0;  // the other quiet's marker
  const nvshm_proxy_request marker{NVSHM_PROXY_QUIET, NVSHM_PROXY_DONE, 0, -1, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[1], &k.reserve, &marker, &ticket), 1);
  ASSERT_EQ(nvshm_proxy_wait_done(&channels_[1], ticket, &value), 1);
  nvshm_proxy_counter_max(&k.quiet_done, ticket + 1);
  t.join();
  EXPECT_EQ(follower.load(), 1);
  EXPECT_EQ(k.reserve, seen + 1) << "the follower issued a marker of its own";

  // Rounds of 8 threads: each puts (non-blocking, from its own buffer), all meet, all quiet at once, and each
  // finds its own put done; quiets that overlap share markers.
  constexpr int kThreads = 8, kRounds = 200;
  std::atomic<int> arrived{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      const int c = 2 + th % 2;
      const uint64_t at = 1660000 + 4096u * th;
      std::vector<uint64_t> words(512);
      for (uint64_t i = 1; i <= kRounds; ++i) {
        for (std::size_t w = 0; w < words.size(); ++w) words[w] = i << 16 | th << 9 | w;
        submit(c, {NVSHM_PROXY_PUT, 0, 0, 0, at, reinterpret_cast<uint64_t>(words.data()), 4096, 0, 0, 0});
        arrived.fetch_add(1);
        while (arrived.load() < static_cast<int>(i) * kThreads) std::this_thread::yield();
        if (nvshm_proxy_quiet(channels_, counters_, kChannels, c) != 1 || memcmp(heap() + at, words.data(), 4096) != 0)
          ++wrong;
      }
    });
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Proxy::settle (the host's quiet, barriers and free): returns once every request written before it, on
// every channel, was executed, with no marker in the channels; with nothing written it returns at once.
// A slow request first (an atomic of 200 ms) holds channel 0's puts back until settle has waited for it; a
// settle that runs past the channels' timeout says so.
TEST_P(ProxyTest, SettleExecutesWhatWasWrittenBefore) {
  EXPECT_EQ(proxy_->settle("test (idle)"), Status::ok);
  submit(0, {NVSHM_PROXY_ATOMIC, 0, NVSHM_PROXY_AMO_ADD | 8u << 8, 0, kSlowOffset, 0, 0, 1, 0, 0});
  for (uint64_t i = 0; i < 3 * NVSHM_PROXY_ENTRIES; ++i)
    submit(static_cast<int>(i % kChannels), {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1700000 + 8 * i, 0, 8, i * 3 + 1, 0, 0});
  ASSERT_EQ(proxy_->settle("test"), Status::ok);
  ASSERT_EQ(engine_->quiet(), Status::ok);
  const uint64_t *words = reinterpret_cast<const uint64_t *>(heap() + 1700000);
  for (uint64_t i = 0; i < 3 * NVSHM_PROXY_ENTRIES; ++i) ASSERT_EQ(words[i], i * 3 + 1) << i;

  channels_[3].timeout_ns = 20000000;  // 20 ms
  submit(3, {NVSHM_PROXY_ATOMIC, 0, NVSHM_PROXY_AMO_ADD | 8u << 8, 0, kSlowOffset, 0, 0, 1, 0, 0});
  EXPECT_EQ(proxy_->settle("test (timeout)"), Status::timeout);
  channels_[3].timeout_ns = 30ull * 1000000000ull;
  EXPECT_EQ(proxy_->settle("test (after the timeout)"), Status::ok);
}

// Whether every channel's error word is raised within `seconds` (the device's waits then fail).
bool every_channel_fails(const nvshm_proxy_channel *channels, int n, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int c = 0; c < n; ++c)
    while (__atomic_load_n(&channels[c].error, __ATOMIC_RELAXED) == 0)
      if (std::chrono::steady_clock::now() > until) return false;
  return true;
}

// A PE that the engine reports unreachable fails every channel: a kernel waiting for a record, a quiet or
// a signal from that PE ends with the proxy's message instead of waiting until the launcher's timeout.
TEST_P(ProxyTest, UnreachablePeFailsEveryChannel) {
  submit(1, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1700000, 0, 8, 0x77, 0, 0});
  quiet(1);
  for (int c = 0; c < kChannels; ++c) ASSERT_EQ(channels_[c].error, 0u) << "channel " << c << " failed before";
  slow_->lost = 1;
  EXPECT_TRUE(every_channel_fails(channels_, kChannels, 5)) << "an unreachable PE left a channel's waits running";
}

// Atomics and signals the device does not wait for are issued without waiting (atomic_nbi); one the target
// refuses fails every channel's waits, also when another thread's quiet took the engine's report of it (the
// proxy watches the engine's count of such failures). The staged path, where the target checks the offset
// (one-sided, a word past the heap is not refused).
TEST_P(ProxyTest, FailedSignalFailsEveryChannel) {
  if (!GetParam()) GTEST_SKIP() << "one-sided: the target does not check offsets";
  uint64_t *word = reinterpret_cast<uint64_t *>(heap() + 1710000);
  *word = 3;
  for (int i = 0; i < 100; ++i)  // good ones first: they complete and fail nothing
    submit(i % kChannels, {NVSHM_PROXY_ATOMIC, 0, NVSHM_PROXY_AMO_ADD | 8u << 8, 0, 1710000, 0, 0, 2, 0, 0});
  quiet(0);
  EXPECT_EQ(*word, 203u);
  for (int c = 0; c < kChannels; ++c) ASSERT_EQ(channels_[c].error, 0u) << "channel " << c;
  std::vector<unsigned char> data(64, 0x3C);
  // The signal word past the heap. The put's own wait may already see the failure (the proxy watches the engine
  // between taking the request and the producer's read of its record): either outcome.
  const nvshm_proxy_request put_signal{
      NVSHM_PROXY_PUT_SIGNAL, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_SET, 0, 1720000, at(data.data()), data.size(), 1, 0,
      slot_.size() * 8};
  uint64_t ticket = 0, value = 0;
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[2], &counters_[2].reserve, &put_signal, &ticket), 1);
  (void)nvshm_proxy_wait_done(&channels_[2], ticket, &value);
  (void)engine_->quiet();  // the application's quiet: it may take the engine's report first
  EXPECT_TRUE(every_channel_fails(channels_, kChannels, 10)) << "a refused signal failed no wait";
  EXPECT_EQ(memcmp(heap() + 1720000, data.data(), data.size()), 0);
}

// A request the proxy cannot execute fails its producer's wait (with the proxy's message), not a hang.
TEST_P(ProxyTest, BadRequestsFailTheirWait) {
  uint64_t ticket = 0, value = 0;
  const nvshm_proxy_request bad_pe{
      NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_ADD | 8u << 8, 3, 0, 0, 0, 1, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[2], &counters_[2].reserve, &bad_pe, &ticket), 1);
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[2], ticket, &value), 0);
  const nvshm_proxy_request bad_inline{NVSHM_PROXY_PUT_INLINE, NVSHM_PROXY_DONE, 0, 0, 0, 0, 9, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[3], &counters_[3].reserve, &bad_inline, &ticket), 1);
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[3], ticket, &value), 0);
  // A producer whose record never comes times out instead of hanging.
  channels_[1].timeout_ns = 1000000;
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[1], 12345, &value), 0);
}

// The first failure the proxy sees logs the last 16 requests it took, oldest first, the failed one marked (what
// the device asked for just before it went wrong); later failures log only themselves.
TEST_P(ProxyTest, FirstFailureTellsTheLastRequests) {
  for (int i = 0; i < 20; ++i)
    submit(i % kChannels, {NVSHM_PROXY_PUT_INLINE, NVSHM_PROXY_DONE, 0, 0, 0x1a0000u + 8u * i, 0, 8, 0x66, 0, 0});
  uint64_t ticket = 0, value = 0;
  const nvshm_proxy_request bad_pe{
      NVSHM_PROXY_ATOMIC, NVSHM_PROXY_DONE, NVSHM_PROXY_AMO_ADD | 8u << 8, 3, 0x40, 0, 0, 1, 0, 0};
  testing::internal::CaptureStderr();
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[2], &counters_[2].reserve, &bad_pe, &ticket), 1);
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[2], ticket, &value), 0);
  const std::string first = testing::internal::GetCapturedStderr();
  EXPECT_NE(first.find("the last 16 requests the proxy took, oldest first:"), std::string::npos) << first;
  EXPECT_EQ(first.find("offset 0x1a0020 of PE 0"), std::string::npos) << "the 5th request is not among the last 16";
  EXPECT_NE(first.find("  channel 1, request 1: inline put of 8 bytes at offset 0x1a0028 of PE 0\n"), std::string::npos)
      << first;
  EXPECT_NE(first.find("  channel 2, request 5: atomic add of 8 bytes at offset 0x40 of PE 3  <- failed"),
            std::string::npos)
      << first;
  testing::internal::CaptureStderr();
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[0], &counters_[0].reserve, &bad_pe, &ticket), 1);
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[0], ticket, &value), 0);
  const std::string second = testing::internal::GetCapturedStderr();
  EXPECT_NE(second.find("names PE 3 of 1"), std::string::npos) << second;
  EXPECT_EQ(second.find("the last"), std::string::npos) << second;
}

// nvshmem_global_exit on the device: a GLOBAL_EXIT request makes the proxy call its global_exit with the
// status (the runtime passes nvshmem_global_exit: the process ends), so the request's record never comes.
TEST_P(ProxyTest, GlobalExitEndsTheProcessWithTheStatus) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(submit(0, nvshm_proxy_request{NVSHM_PROXY_GLOBAL_EXIT, NVSHM_PROXY_DONE, 0, -1, 0, 0, 0, 7, 0, 0}),
              ::testing::ExitedWithCode(7), "global exit 7");
  // With NVSHMEM_DEBUG=WARN the proxy first logs the last requests it took.
  const auto traced_exit = [this] {
    log_configure("WARN");
    submit(1, {NVSHM_PROXY_PUT_INLINE, NVSHM_PROXY_DONE, 0, 0, 0x1a0000, 0, 8, 0x66, 0, 0});
    submit(1, nvshm_proxy_request{NVSHM_PROXY_GLOBAL_EXIT, NVSHM_PROXY_DONE, 0, -1, 0, 0, 0, 9, 0, 0});
  };
  EXPECT_EXIT(traced_exit(), ::testing::ExitedWithCode(9),
              "device-initiated global exit; the last 2 requests the proxy took:\n"
              "  channel 1, request 0: inline put of 8 bytes at offset 0x1a0000 of PE 0\n"
              "  channel 1, request 1: global_exit with status 9");
}

// A device collective on a team with remote members: the proxy hands the request to its collective hook
// (the runtime's host collective) with the team and kind, whatever the team number (no PE check), and a
// failing hook fails the producer's wait.
TEST_P(ProxyTest, CollectivesGoToTheHook) {
  g_collectives.clear();
  submit(1, {NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_BROADCAST, 5, 0, 0, 0, 0, 0, 0});
  submit(2, {NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_FCOLLECT, 0, 0, 0, 0, 0, 0, 0});
  const std::vector<std::pair<int, uint32_t>> want{{5, NVSHM_PROXY_COLL_BROADCAST}, {0, NVSHM_PROXY_COLL_FCOLLECT}};
  EXPECT_EQ(g_collectives, want);
  uint64_t ticket = 0, value = 0;
  const nvshm_proxy_request failing{
      NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_FCOLLECT, 13, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[3], &counters_[3].reserve, &failing, &ticket), 1);
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[3], ticket, &value), 0);
}

// A collective runs on its team's thread: the requests after it, on its channel and the others, and another
// team's collective go ahead meanwhile (a collective that waits for another team's ends), a team's
// collectives run in the order taken, and settle does not wait for a running collective.
TEST_P(ProxyTest, CollectivesRunBesideOtherWork) {
  using Clock = std::chrono::steady_clock;
  g_collectives.clear();
  g_awaited_started = false;
  const auto began = Clock::now();
  uint64_t slow = 0, waiting = 0, awaited = 0, value = 0;
  const nvshm_proxy_request slow_fcollect{
      NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_FCOLLECT, kSlowTeam, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[0], &counters_[0].reserve, &slow_fcollect, &slow), 1);
  // Behind it on its channel and on another: a put and a quiet, a `g`, a settle; all done while it runs.
  submit(0, {NVSHM_PROXY_PUT_INLINE, 0, 0, 0, 1900000, 0, 8, 0xC0FFEE, 0, 0});
  quiet(0);
  EXPECT_EQ(submit(1, {NVSHM_PROXY_GET, NVSHM_PROXY_DONE, 0, 0, 1900000, 0, 8, 0, 0, 0}), 0xC0FFEEu);
  EXPECT_EQ(proxy_->settle("test (a collective running)"), Status::ok);
  EXPECT_EQ(__atomic_load_n(&channels_[0].done[slow % NVSHM_PROXY_ENTRIES].tag, __ATOMIC_ACQUIRE), 0u)
      << "the collective ended before the requests behind it: it held them back";
  ASSERT_EQ(nvshm_proxy_wait_done(&channels_[0], slow, &value), 1);
  EXPECT_GE(Clock::now() - began, std::chrono::seconds(2));

  // One team's collective waits for another's to start; each team's in order.
  const nvshm_proxy_request waiting_fcollect{
      NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_FCOLLECT, kWaitingTeam, 0, 0, 0, 0, 0, 0};
  const nvshm_proxy_request awaited_broadcast{
      NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, NVSHM_PROXY_COLL_BROADCAST, kAwaitedTeam, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[2], &counters_[2].reserve, &waiting_fcollect, &waiting), 1);
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[2], &counters_[2].reserve, &awaited_broadcast, &awaited), 1);
  std::vector<uint64_t> tickets;
  for (uint32_t kind = NVSHM_PROXY_COLL_BROADCAST; kind <= NVSHM_PROXY_COLL_REDUCESCATTER; ++kind) {
    const nvshm_proxy_request r{NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, kind, 5, 0, 0, 0, 0, 0, 0};
    ASSERT_EQ(nvshm_proxy_enqueue(&channels_[3], &counters_[3].reserve, &r, &tickets.emplace_back()), 1);
  }
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[2], waiting, &value), 1) << "one team's collective waited for another's";
  EXPECT_EQ(nvshm_proxy_wait_done(&channels_[2], awaited, &value), 1);
  for (uint64_t t : tickets) EXPECT_EQ(nvshm_proxy_wait_done(&channels_[3], t, &value), 1);
  std::vector<uint32_t> team5;
  for (const auto &[team, kind] : g_collectives)
    if (team == 5) team5.push_back(kind);
  EXPECT_EQ(team5,
            (std::vector<uint32_t>{NVSHM_PROXY_COLL_BROADCAST, NVSHM_PROXY_COLL_FCOLLECT, NVSHM_PROXY_COLL_ALLTOALL,
                                   NVSHM_PROXY_COLL_REDUCE, NVSHM_PROXY_COLL_REDUCESCATTER}));
}

// A collective still running when the proxy stops (finalize) may settle: stop() returns after it ended, with
// the proxy still in its owner's pointer (the runtime's stop_proxy clears the pointer only after).
TEST_P(ProxyTest, StopWaitsForARunningCollectiveThatSettles) {
  g_settled = -1;
  g_settling_started = false;
  g_settling_owner = &proxy_;
  uint64_t ticket = 0;
  const nvshm_proxy_request settling{
      NVSHM_PROXY_COLLECTIVE, 0, NVSHM_PROXY_COLL_FCOLLECT, kSettlingTeam, 0, 0, 0, 0, 0, 0};
  ASSERT_EQ(nvshm_proxy_enqueue(&channels_[1], &counters_[1].reserve, &settling, &ticket), 1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!g_settling_started && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  ASSERT_TRUE(g_settling_started);
  proxy_->stop();
  EXPECT_EQ(g_settled.load(), static_cast<int>(Status::ok)) << "stop() returned before the collective settled";
  proxy_->stop();  // idempotent: the destructor stops again
  proxy_.reset();
  g_settling_owner = nullptr;
}

INSTANTIATE_TEST_SUITE_P(Paths, ProxyTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &p) { return p.param ? "Staged" : "OneSided"; });

}  // namespace
}  // namespace nvshm
