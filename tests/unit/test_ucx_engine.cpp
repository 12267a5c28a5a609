// SPDX-License-Identifier: BSD-3-Clause
// The UCX engine (src/remote/ucx_engine.cpp) in one process: every operation on a registered range
// reached through UCX (the engine's peer is this process itself), checked on the memory, one-sided and
// on the staged path (messages executed by the target's engine through its local transport); and the init
// exchange with a fake bootstrap of up to 1024 PEs, whose bytes per PE must not grow with the PE count
// (lazy endpoints: nothing is connected at init); and, between two processes, a wait that gives up on a
// stopped PE releases the caller's buffer for good (no late reply writes it).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "remote/engine.hpp"

namespace nvshm {
namespace {

// `size` PEs of which this process is `rank`; every allgather hands this PE's contribution to all
// slots (the other PEs "published" the same blob), counting the bytes this PE contributes.
class FakeBootstrap : public Bootstrap {
 public:
  FakeBootstrap(int rank, int size) {
    rank_ = rank;
    size_ = size;
  }
  const char *name() const override { return "fake"; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    contributed += bytes;
    for (int pe = 0; pe < size_; ++pe) memcpy(static_cast<char *>(out) + pe * bytes, in, bytes);
    return Status::ok;
  }
  Status barrier() override { return Status::ok; }
  std::size_t contributed = 0;
};

// Two PEs in two processes, joined by a connected socket.
class PairBootstrap : public Bootstrap {
 public:
  PairBootstrap(int rank, int fd) : fd_(fd) {
    rank_ = rank;
    size_ = 2;
  }
  const char *name() const override { return "pair"; }
  Status allgather(const void *in, void *out, std::size_t bytes) override {
    char *o = static_cast<char *>(out);
    memcpy(o + rank_ * bytes, in, bytes);
    // Small blobs: the write fits in the socket's buffer before the peer reads.
    return transfer(true, const_cast<void *>(in), bytes) && transfer(false, o + (1 - rank_) * bytes, bytes)
               ? Status::ok
               : Status::internal;
  }
  Status barrier() override {
    char mine = 0, both[2];
    return allgather(&mine, both, 1);
  }

 private:
  bool transfer(bool send, void *buf, std::size_t bytes) {
    for (char *p = static_cast<char *>(buf); bytes > 0;) {
      const ssize_t n = send ? write(fd_, p, bytes) : read(fd_, p, bytes);
      if (n <= 0) return false;
      p += n;
      bytes -= static_cast<std::size_t>(n);
    }
    return true;
  }
  int fd_;
};

// Sets an environment variable for a scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

RemoteOptions options(bool staged = false) {
  RemoteOptions o;
  o.timeout_s = 30;
  o.staged = staged;
  return o;
}

// Parameter: the staged path (true) or one-sided RMA.
class UcxEngineOps : public ::testing::TestWithParam<bool> {};

TEST_P(UcxEngineOps, EveryOperationOnTheMemory) {
  std::vector<uint64_t> slot(1 << 19);  // 4 MiB "heap"
  const std::size_t slot_bytes = slot.size() * sizeof(uint64_t);
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, options(GetParam()), &engine), Status::ok);
  ASSERT_STREQ(engine->name(), "UCX");
  char *base = reinterpret_cast<char *>(slot.data());

  // Blocking put of 100 KiB at an odd offset, then get it back into another buffer; then 1.5 MiB (6
  // messages of the staged path's pipeline, the last one short).
  for (const std::size_t bytes : {std::size_t{100 * 1024}, std::size_t{1536 * 1024 + 77}}) {
    std::vector<unsigned char> data(bytes), back(bytes, 0xEE);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7 + 3 + bytes);
    ASSERT_EQ(engine->put(0, 1001, data.data(), data.size()), Status::ok);
    EXPECT_EQ(memcmp(base + 1001, data.data(), data.size()), 0);
    ASSERT_EQ(engine->get(back.data(), 0, 1001, back.size()), Status::ok);
    EXPECT_EQ(back, data);
  }

  // Non-blocking: 64 puts of 1 KiB and 64 gets, complete at quiet.
  std::vector<unsigned char> chunks(64 * 1024), gathered(chunks.size());
  for (std::size_t i = 0; i < chunks.size(); ++i) chunks[i] = static_cast<unsigned char>(i * 13 + 5);
  for (int c = 0; c < 64; ++c) ASSERT_EQ(engine->put_nbi(0, 2000000 + c * 1024, &chunks[c * 1024], 1024), Status::ok);
  ASSERT_EQ(engine->fence(), Status::ok);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(memcmp(base + 2000000, chunks.data(), chunks.size()), 0);
  for (int c = 0; c < 64; ++c) ASSERT_EQ(engine->get_nbi(&gathered[c * 1024], 0, 2000000 + c * 1024, 1024), Status::ok);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(gathered, chunks);

  // Atomics on an 8-byte and a 4-byte word against a reference model: each returns the previous value
  // and leaves the new one (compare-swap once with a matching and once with a different compare value).
  const uint64_t start8 = 0x1122334455667788ull;
  const uint32_t start4 = 0x0A0B0C0Du;
  for (const std::size_t width : {std::size_t{8}, std::size_t{4}}) {
    const std::size_t at = width == 8 ? 3000000 : 3000012;
    const uint64_t mask = width == 8 ? ~0ull : 0xFFFFFFFFull;
    uint64_t model = width == 8 ? start8 : start4;
    memcpy(base + at, &model, width);
    struct Case {
      AtomicOp op;
      uint64_t value;
      bool cond_matches;  // compare_swap: compare with the current value, or with another one
    };
    const Case cases[] = {{AtomicOp::add, 0x10, false},        {AtomicOp::and_, 0xFFFF0000FFFF00F0ull, false},
                          {AtomicOp::or_, 0x0F, false},        {AtomicOp::xor_, 0xFF, false},
                          {AtomicOp::compare_swap, 42, false}, {AtomicOp::swap, 0xDEADBEEFCAFEF00Dull, false},
                          {AtomicOp::compare_swap, 77, true},  {AtomicOp::set, 5, false},
                          {AtomicOp::fetch, 0, false}};
    for (const Case &c : cases) {
      const uint64_t cond = c.cond_matches ? model : model ^ 1;
      uint64_t want = model;
      switch (c.op) {
        case AtomicOp::add:
          want = model + c.value;
          break;
        case AtomicOp::and_:
          want = model & c.value;
          break;
        case AtomicOp::or_:
          want = model | c.value;
          break;
        case AtomicOp::xor_:
          want = model ^ c.value;
          break;
        case AtomicOp::swap:
        case AtomicOp::set:
          want = c.value;
          break;
        case AtomicOp::compare_swap:
          want = cond == model ? c.value : model;
          break;
        case AtomicOp::fetch:
          break;
        default:
          FAIL() << "no model of this operation";
      }
      want &= mask;
      uint64_t old = ~0ull, now = 0;
      ASSERT_EQ(engine->atomic(0, at, AtomicArgs{c.op, width, c.value & mask, cond & mask}, &old), Status::ok);
      memcpy(&now, base + at, width);
      EXPECT_EQ(old, model) << width << "-byte op " << static_cast<int>(c.op);
      EXPECT_EQ(now, want) << width << "-byte op " << static_cast<int>(c.op);
      model = want;
    }
    // A non-fetching add is complete on return.
    ASSERT_EQ(engine->atomic(0, at, AtomicArgs{AtomicOp::add, width, 1000, 0}, nullptr), Status::ok);
    uint64_t now = 0;
    memcpy(&now, base + at, width);
    EXPECT_EQ(now, (model + 1000) & mask);
  }
}

// A batch of word writes (the team synchronisation's relay): every word has its value on return, the
// words between them are untouched, and an empty batch does nothing.
TEST_P(UcxEngineOps, SetWordsWritesEveryWordOfTheBatch) {
  std::vector<uint64_t> slot(4096, 0x5A5A5A5A5A5A5A5Aull);  // poison: no write leaves it
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot.size() * sizeof(uint64_t), *local, options(GetParam()), &engine),
            Status::ok);
  std::vector<RemoteEngine::WordWrite> writes;
  for (std::size_t i = 0; i < 200; ++i) writes.push_back({0, 16 * i, 0x0123456789ABCDEFull * (i + 1)});
  ASSERT_EQ(engine->set_words(writes), Status::ok);
  for (std::size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(slot[2 * i], 0x0123456789ABCDEFull * (i + 1)) << "word " << i;
    EXPECT_EQ(slot[2 * i + 1], 0x5A5A5A5A5A5A5A5Aull) << "the word after " << i;
  }
  ASSERT_EQ(engine->set_words({}), Status::ok);
  EXPECT_EQ(slot[0], 0x0123456789ABCDEFull);
}

// Several threads quiet at once (the proxy, its team threads and the application's threads share the engine):
// each finds its own non-blocking puts complete when its quiet returns, also when another thread's flush took
// the PE's flags first.
TEST_P(UcxEngineOps, ConcurrentQuietsEachCompleteTheirOwnPuts) {
  constexpr int kThreads = 4, kRounds = 60;
  constexpr std::size_t kBytes = 256 * 1024;
  std::vector<uint64_t> slot(kThreads * kBytes / sizeof(uint64_t));
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot.size() * sizeof(uint64_t), *local, options(GetParam()), &engine),
            Status::ok);
  const char *base = reinterpret_cast<const char *>(slot.data());
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<uint64_t> data(kBytes / sizeof(uint64_t));
      for (uint64_t round = 1; round <= kRounds; ++round) {
        for (std::size_t w = 0; w < data.size(); ++w) data[w] = round << 40 | static_cast<uint64_t>(t) << 32 | w;
        if (engine->put_nbi(0, t * kBytes, data.data(), kBytes) != Status::ok || engine->fence() != Status::ok ||
            engine->quiet() != Status::ok)
          ++failed;
        else if (memcmp(base + t * kBytes, data.data(), kBytes) != 0)
          ++wrong;
      }
    });
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0) << "a quiet returned before its own puts were complete";
}

// Local buffers registered with the engine (nvshmemx_buffer_register on a job with remote PEs) are mapped
// with ucp_mem_map: operations whose local side lies wholly inside one (or inside the slot) pass its
// handle, others none; the data of puts from and gets into them is right; unregistering drops it.
TEST(UcxEngine, RegisteredLocalBuffersAreMappedAndCarryData) {
  std::vector<uint64_t> slot(1 << 16);  // 512 KiB "heap"
  const std::size_t slot_bytes = slot.size() * sizeof(uint64_t);
  char *base = reinterpret_cast<char *>(slot.data());
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, options(), &engine), Status::ok);

  constexpr std::size_t kBytes = 3 * 4096 + 17;
  std::vector<unsigned char> source(kBytes + 64), dest(kBytes + 64, 0xA5);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 29 + 11);
  unsigned char *src = source.data() + 8, *dst = dest.data() + 8;
  EXPECT_TRUE(engine->registered_local(base + 100, 4096)) << "the slot is registered";
  EXPECT_FALSE(engine->registered_local(base + slot_bytes - 8, 16)) << "past the slot's end";
  EXPECT_FALSE(engine->registered_local(src, kBytes)) << "not registered yet";
  ASSERT_EQ(engine->register_local(src, kBytes, "test"), Status::ok);
  ASSERT_EQ(engine->register_local(dst, kBytes, "test"), Status::ok);
  EXPECT_TRUE(engine->registered_local(src, kBytes));
  EXPECT_TRUE(engine->registered_local(src + 100, kBytes - 100));
  EXPECT_FALSE(engine->registered_local(src + 1, kBytes)) << "one byte past the buffer";
  EXPECT_FALSE(engine->registered_local(src - 1, 2)) << "one byte before the buffer";
  EXPECT_FALSE(engine->registered_local(src, kBytes + 1));

  // Blocking and non-blocking puts from the registered source, gets into the registered destination.
  ASSERT_EQ(engine->put(0, 4096, src, kBytes), Status::ok);
  EXPECT_EQ(memcmp(base + 4096, src, kBytes), 0) << "put";
  ASSERT_EQ(engine->put_nbi(0, 65536 + 3, src + 5, kBytes - 5), Status::ok);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(memcmp(base + 65536 + 3, src + 5, kBytes - 5), 0) << "put_nbi";
  ASSERT_EQ(engine->get(dst, 0, 4096, kBytes), Status::ok);
  EXPECT_EQ(memcmp(dst, src, kBytes), 0) << "get";
  std::fill(dest.begin(), dest.end(), 0xA5);
  ASSERT_EQ(engine->get_nbi(dst + 1, 0, 65536 + 3, kBytes - 5), Status::ok);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(memcmp(dst + 1, src + 5, kBytes - 5), 0) << "get_nbi";
  EXPECT_EQ(dest[8], 0xA5) << "get_nbi wrote before its destination";
  EXPECT_EQ(dest[8 + kBytes - 4], 0xA5) << "get_nbi wrote past its destination";

  engine->unregister_local(src);
  EXPECT_FALSE(engine->registered_local(src, kBytes));
  EXPECT_TRUE(engine->registered_local(dst, kBytes)) << "the other buffer stays registered";
  engine->unregister_local(src);  // unknown now: ignored
  ASSERT_EQ(engine->put(0, 8, src, 64), Status::ok) << "an unregistered source still works";
  EXPECT_EQ(memcmp(base + 8, src, 64), 0);
  // dst is left registered: the engine unmaps it when it goes.
}

// The staged path checks requests at the target: bytes past the slot are refused and the initiator's
// call fails (instead of writing past the heap or waiting for the timeout).
TEST(UcxEngine, StagedRequestPastTheSlotFails) {
  std::vector<uint64_t> slot(1 << 10);
  const std::size_t slot_bytes = slot.size() * sizeof(uint64_t);
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, options(true), &engine), Status::ok);
  const uint64_t word = 7;
  uint64_t back = 0;
  EXPECT_EQ(engine->put(0, slot_bytes - 4, &word, sizeof word), Status::internal);
  EXPECT_EQ(engine->get(&back, 0, slot_bytes, sizeof back), Status::internal);
  EXPECT_EQ(engine->atomic(0, slot_bytes, AtomicArgs{AtomicOp::add, 8, 1, 0}, nullptr), Status::internal);
  EXPECT_EQ(engine->atomic(0, 4, AtomicArgs{AtomicOp::add, 8, 1, 0}, nullptr), Status::internal);  // unaligned
  EXPECT_EQ(engine->atomic(0, 0, AtomicArgs{AtomicOp::add, 3, 1, 0}, nullptr), Status::internal);  // no such width
  EXPECT_EQ(engine->put(0, slot_bytes - 8, &word, sizeof word), Status::ok);  // the engine still works
  EXPECT_EQ(slot.back(), word);
}

// A blocking call's own failure at the target is reported to that call, also while other threads complete
// requests to the same PE (the failure once went to a PE-wide count that any completion took: another
// thread's good atomic failed, and the failed one returned success with the old value unset).
TEST(UcxEngine, StagedFailureGoesToItsOwnCaller) {
  constexpr int kRounds = 300;
  std::vector<uint64_t> slot(1 << 10, 0);
  const std::size_t slot_bytes = slot.size() * sizeof(uint64_t);
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, options(true), &engine), Status::ok);
  std::atomic<int> bad_succeeded{0}, good_failed{0};
  std::thread bad([&] {
    uint64_t back = 0;
    for (int i = 0; i < kRounds; ++i) {
      if (engine->atomic(0, slot_bytes, AtomicArgs{AtomicOp::add, 8, 1, 0}, &back) == Status::ok) ++bad_succeeded;
      if (engine->get(&back, 0, slot_bytes, sizeof back) == Status::ok) ++bad_succeeded;
    }
  });
  std::thread good([&] {
    uint64_t old = 0;
    for (int i = 0; i < 2 * kRounds; ++i)
      if (engine->atomic(0, 0, AtomicArgs{AtomicOp::add, 8, 1, 0}, &old) != Status::ok) ++good_failed;
  });
  bad.join();
  good.join();
  EXPECT_EQ(bad_succeeded.load(), 0) << "a request the target refused returned success";
  EXPECT_EQ(good_failed.load(), 0) << "a good atomic reported another call's failure";
  EXPECT_EQ(slot[0], 2u * kRounds);
  // A get_nbi's failure, which no one waits for, goes to the next completion of the PE: the quiet.
  uint64_t back = 0;
  ASSERT_EQ(engine->get_nbi(&back, 0, slot_bytes, sizeof back), Status::ok);
  EXPECT_EQ(engine->quiet(), Status::internal);
  EXPECT_EQ(engine->quiet(), Status::ok);  // reported once
}

// atomic_nbi (the proxy's atomics without a record, and signals): complete at quiet, ordered after earlier
// puts by fence; every operation and width; a 2-byte set (compare-swap underneath) too.
TEST_P(UcxEngineOps, AtomicNbiCompletesAtQuiet) {
  std::vector<uint64_t> slot(4096, 0);
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot.size() * sizeof(uint64_t), *local, options(GetParam()), &engine),
            Status::ok);
  slot[1] = 0xF0F0F0F0F0F0F0F0ull;
  slot[2] = 0x00FF00FF00FF00FFull;
  slot[3] = 0x123456789ull;
  // More than the staged path's window of unanswered requests (4096): the later ones wait for replies.
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(engine->atomic_nbi(0, 0, AtomicArgs{AtomicOp::add, 8, 3, 0}), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 8, AtomicArgs{AtomicOp::and_, 8, 0xFFFF0000FFFF0000ull, 0}), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 16, AtomicArgs{AtomicOp::or_, 8, 0x1100110011001100ull, 0}), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 24, AtomicArgs{AtomicOp::xor_, 4, 0xFFFFFFFFull, 0}), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 32, AtomicArgs{AtomicOp::set, 8, 0xABCDEF0123456789ull, 0}), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 42, AtomicArgs{AtomicOp::set, 2, 0xBEEF, 0}), Status::ok);
  // A put, a fence, then a signal: once the signal is seen the data is there (checked after quiet here).
  std::vector<uint64_t> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = i * 0x9E3779B97F4A7C15ull;
  ASSERT_EQ(engine->put_nbi(0, 8192, data.data(), data.size() * 8), Status::ok);
  ASSERT_EQ(engine->fence(), Status::ok);
  ASSERT_EQ(engine->atomic_nbi(0, 48, AtomicArgs{AtomicOp::set, 8, 1, 0}), Status::ok);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(slot[0], 30000u);
  EXPECT_EQ(slot[1], 0xF0F00000F0F00000ull);
  EXPECT_EQ(slot[2], 0x11FF11FF11FF11FFull);
  EXPECT_EQ(slot[3], 0x1DCBA9876ull);  // the low 4 bytes inverted, the high ones untouched
  EXPECT_EQ(slot[4], 0xABCDEF0123456789ull);
  EXPECT_EQ(slot[5], 0xBEEFull << 16);  // bytes 42-43 of the word at 40
  EXPECT_EQ(slot[6], 1u);
  EXPECT_EQ(memcmp(&slot[1024], data.data(), data.size() * 8), 0);
  if (!GetParam()) return;
  // Staged, the target refuses an atomic past the slot: the next quiet reports it, once.
  ASSERT_EQ(engine->atomic_nbi(0, slot.size() * 8, AtomicArgs{AtomicOp::add, 8, 1, 0}), Status::ok);
  EXPECT_EQ(engine->quiet(), Status::internal);
  EXPECT_EQ(engine->quiet(), Status::ok);
}

// The host transport with atomics() observed: the size of each batch, and `delay` per batch (a slow GPU kernel
// launch), so that requests pile up at the target while one batch executes.
class BatchWatchingTransport : public Transport {
 public:
  explicit BatchWatchingTransport(std::chrono::milliseconds delay) : delay_(delay) {}
  Status put(void *r, const void *l, std::size_t b) override { return inner_->put(r, l, b); }
  Status get(void *l, const void *r, std::size_t b) override { return inner_->get(l, r, b); }
  Status put_nbi(void *r, const void *l, std::size_t b) override { return inner_->put_nbi(r, l, b); }
  Status get_nbi(void *l, const void *r, std::size_t b) override { return inner_->get_nbi(l, r, b); }
  Status quiet() override { return inner_->quiet(); }
  Status fence() override { return inner_->fence(); }
  Status atomic(void *r, const AtomicArgs &a, uint64_t *old) override { return inner_->atomic(r, a, old); }
  Status atomics(AtomicJob *jobs, std::size_t n) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      batches_.push_back(n);
    }
    std::this_thread::sleep_for(delay_);
    return inner_->atomics(jobs, n);
  }
  std::vector<std::size_t> batches() {
    std::lock_guard<std::mutex> lock(mutex_);
    return batches_;
  }
  Status strided(void *d, std::ptrdiff_t ds, const void *s, std::ptrdiff_t ss, std::size_t e, std::size_t n) override {
    return inner_->strided(d, ds, s, ss, e, n);
  }
  Status copy_on_stream(void *d, const void *s, std::size_t b, cudaStream_t st) override {
    return inner_->copy_on_stream(d, s, b, st);
  }
  Status strided_on_stream(void *d, std::ptrdiff_t ds, const void *s, std::ptrdiff_t ss, std::size_t e, std::size_t n,
                           cudaStream_t st) override {
    return inner_->strided_on_stream(d, ds, s, ss, e, n, st);
  }
  Status atomic_on_stream(void *r, const AtomicArgs &a, cudaStream_t st) override {
    return inner_->atomic_on_stream(r, a, st);
  }
  Status order_stream(cudaStream_t st) override { return inner_->order_stream(st); }

 private:
  const std::chrono::milliseconds delay_;
  std::unique_ptr<Transport> inner_ = make_host_transport();
  std::mutex mutex_;
  std::vector<std::size_t> batches_;
};

// A staged engine on `slot` whose peer is this process, executing peers' requests with `local`.
std::unique_ptr<RemoteEngine> staged_engine(std::vector<uint64_t> &slot, Transport &local) {
  FakeBootstrap boot(0, 1);
  std::unique_ptr<RemoteEngine> engine;
  EXPECT_EQ(make_ucx_engine(boot, slot.data(), slot.size() * sizeof(uint64_t), local, options(true), &engine),
            Status::ok);
  return engine;
}

// The staged target executes the atomics that arrive together as one batch (one kernel on a GPU heap), in the
// order they came, each initiator's put or get after its atomics (a get right after an add sees it).
TEST(UcxEngine, StagedAtomicsArriveInBatchesAndKeepTheirOrder) {
  std::vector<uint64_t> slot(4096, 0);
  BatchWatchingTransport local(std::chrono::milliseconds(2));
  std::unique_ptr<RemoteEngine> engine = staged_engine(slot, local);
  ASSERT_NE(engine, nullptr);
  constexpr int kAdds = 400;
  for (int i = 0; i < kAdds; ++i) {
    ASSERT_EQ(engine->atomic_nbi(0, 0, AtomicArgs{AtomicOp::add, 8, 1, 0}), Status::ok);
    // Order on one word: set, then add, then xor (any other order gives another value).
    ASSERT_EQ(engine->atomic_nbi(0, 8, AtomicArgs{AtomicOp::set, 8, static_cast<uint64_t>(i), 0}), Status::ok);
    ASSERT_EQ(engine->atomic_nbi(0, 8, AtomicArgs{AtomicOp::add, 8, 1000, 0}), Status::ok);
    ASSERT_EQ(engine->atomic_nbi(0, 8, AtomicArgs{AtomicOp::xor_, 8, 0xF0, 0}), Status::ok);
  }
  uint64_t seen = 0;
  ASSERT_EQ(engine->get(&seen, 0, 8, 8), Status::ok);  // after this initiator's atomics before it
  EXPECT_EQ(seen, (kAdds - 1 + 1000u) ^ 0xF0u);
  ASSERT_EQ(engine->quiet(), Status::ok);
  EXPECT_EQ(slot[0], static_cast<uint64_t>(kAdds));
  const std::vector<std::size_t> batches = local.batches();
  std::size_t executed = 0, largest = 0;
  for (std::size_t n : batches) executed += n, largest = std::max(largest, n);
  EXPECT_EQ(executed, 4u * kAdds);
  EXPECT_GT(largest, 1u) << "every atomic was a batch of its own";
  EXPECT_LT(batches.size(), 2u * kAdds) << "batches of " << executed / batches.size() << " on average";
}

// A get that arrives while the target executes an earlier atomic of the initiator (a batch taken off the queue,
// 20 ms) waits for it (a reviewer found the get running first, 20 times of 20, when only queued atomics counted).
TEST(UcxEngine, StagedGetAfterAnAtomicBeingExecutedSeesIt) {
  std::vector<uint64_t> slot(512, 0);
  BatchWatchingTransport local(std::chrono::milliseconds(20));
  std::unique_ptr<RemoteEngine> engine = staged_engine(slot, local);
  ASSERT_NE(engine, nullptr);
  for (uint64_t i = 1; i <= 20; ++i) {
    ASSERT_EQ(engine->atomic_nbi(0, 0, AtomicArgs{AtomicOp::add, 8, 1, 0}), Status::ok);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the progress thread is executing it now
    uint64_t seen = 0;
    ASSERT_EQ(engine->get(&seen, 0, 0, 8), Status::ok);
    EXPECT_EQ(seen, i) << "the get ran before the atomic sent before it";
  }
  ASSERT_EQ(engine->quiet(), Status::ok);
}

INSTANTIATE_TEST_SUITE_P(Paths, UcxEngineOps, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &p) { return p.param ? "Staged" : "OneSided"; });

// Two PEs over TCP: PE 1 a child process serving `slot` through its engine's progress thread until it is
// killed, PE 0 this process (timeout_s 2), connected to PE 1 by a first get.
class ChildPe {
 public:
  explicit ChildPe(std::vector<unsigned char> &slot) {
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv_) != 0) return;
    child_ = fork();
    if (child_ < 0) {
      close(sv_[1]);
      return;
    }
    if (child_ == 0) {
      close(sv_[0]);
      PairBootstrap boot(1, sv_[1]);
      if (make_ucx_engine(boot, slot.data(), slot.size(), *local_, options(), &engine) != Status::ok) _exit(1);
      for (;;) pause();
    }
    close(sv_[1]);
    PairBootstrap boot(0, sv_[0]);
    RemoteOptions o = options();
    o.timeout_s = 2;
    std::vector<unsigned char> first(64);
    ok_ = make_ucx_engine(boot, slot.data(), slot.size(), *local_, o, &engine) == Status::ok &&
          engine->get(first.data(), 1, 0, first.size()) == Status::ok && first[63] == slot[63];
  }
  ~ChildPe() {
    if (child_ > 0) {  // first: no part of this PE's teardown can then wait for a stopped PE 1
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    engine.reset();
    close(sv_[0]);
  }
  bool ok() const { return ok_; }
  bool signal(int sig) {
    int status = 0;
    return kill(child_, sig) == 0 && (sig != SIGSTOP || waitpid(child_, &status, WUNTRACED) == child_);
  }
  std::unique_ptr<RemoteEngine> engine;

 private:
  ScopedEnv tls_{"UCX_TLS", "tcp"}, devices_{"UCX_NET_DEVICES", "lo"};  // no shared memory: PE 1 must serve
  std::unique_ptr<Transport> local_ = make_host_transport();
  int sv_[2] = {-1, -1};
  pid_t child_ = -1;
  bool ok_ = false;
};

// PE 1 is stopped while PE 0 gets 1 MiB from it: the get fails with a timeout within
// NVSHMEM_BOOTSTRAP_TIMEOUT plus the close bound, and once PE 1 runs again (and serves the request it
// holds) nothing lands in the buffer that the caller has since reused; PE 1 counts as failed from then on.
TEST(UcxEngine, AWaitThatGivesUpLeavesTheBufferToTheCaller) {
  constexpr std::size_t kBytes = 1 << 20;
  std::vector<unsigned char> slot(kBytes, 0x5A);
  ChildPe pes(slot);
  ASSERT_TRUE(pes.ok());
  std::vector<unsigned char> buf(kBytes, 0);
  ASSERT_TRUE(pes.signal(SIGSTOP));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(pes.engine->get(buf.data(), 1, 0, kBytes), Status::timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2 + 2 + 3));
  memset(buf.data(), 0xEE, kBytes);  // the caller's again
  ASSERT_TRUE(pes.signal(SIGCONT));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // PE 1 answers what it holds; our progress thread runs
  EXPECT_EQ(std::count(buf.begin(), buf.end(), 0xEE), static_cast<std::ptrdiff_t>(kBytes));
  EXPECT_EQ(pes.engine->put(1, 0, buf.data(), 8), Status::peer_failed);
}

// A wait that gives up closes PE 1's endpoint while another thread keeps issuing puts to PE 1: that
// thread's next operation fails with peer_failed instead of using the closed endpoint (under TSan: no
// race on the endpoint either).
TEST(UcxEngine, AnEndpointClosedWhileAnotherThreadIssuesFailsItsOperations) {
  std::vector<unsigned char> slot(1 << 16, 0x5A);
  ChildPe pes(slot);
  ASSERT_TRUE(pes.ok());
  ASSERT_TRUE(pes.signal(SIGSTOP));
  std::atomic<bool> stop{false};
  std::atomic<Status> last{Status::ok};
  unsigned long issued = 0;
  std::thread writer([&] {
    const uint64_t word = 0x1122334455667788;
    Status st = Status::ok;
    while (!stop.load() && (st = pes.engine->put_nbi(1, 64, &word, sizeof word)) == Status::ok) {
      ++issued;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    last.store(st);
  });
  std::vector<unsigned char> buf(4096);
  EXPECT_EQ(pes.engine->get(buf.data(), 1, 0, buf.size()), Status::timeout);  // closes the endpoint
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (last == Status::ok && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  stop.store(true);
  writer.join();
  EXPECT_GT(issued, 0u);
  EXPECT_EQ(last.load(), Status::peer_failed);
  EXPECT_NE(pes.engine->quiet(), Status::ok);
}

// NVSHMEM_HCA_LIST to UCX_NET_DEVICES: included entries as they are, excluded ones (every entry with
// ^, or one ^ before the list) as UCX's negated list; mixed or empty lists refused.
TEST(UcxEngine, HcaListBecomesUcxNetDevices) {
  const std::pair<const char *, const char *> good[] = {{"mlx5_0:1", "mlx5_0:1"},
                                                        {"mlx5_0:1, mlx5_1:1", "mlx5_0:1,mlx5_1:1"},
                                                        {"^mlx5_2:1,^mlx5_3:1", "^mlx5_2:1,mlx5_3:1"},
                                                        {"^eth0,lo", "^eth0,lo"},
                                                        {"lo,,", "lo"}};
  for (const auto &[in, want] : good) {
    std::string out;
    EXPECT_EQ(ucx_net_devices(in, &out), Status::ok) << in;
    EXPECT_EQ(out, want) << in;
  }
  for (const char *bad : {"mlx5_0:1,^mlx5_1:1", "^", " , "}) {
    std::string out = "unchanged";
    EXPECT_EQ(ucx_net_devices(bad, &out), Status::invalid_value) << bad;
    EXPECT_EQ(out, "unchanged") << bad;
  }
}

// NVSHMEM_IB_GID_INDEX, _SL and _TRAFFIC_CLASS: integers in InfiniBand's ranges reach UCX (which ignores
// them without an InfiniBand device: the engine works); anything else fails the engine's set-up.
TEST(UcxEngine, InfinibandVariablesAreCheckedAndPassedToUcx) {
  std::vector<uint64_t> slot(1 << 10);
  const std::size_t slot_bytes = slot.size() * sizeof(uint64_t);
  FakeBootstrap boot(0, 1);
  std::unique_ptr<Transport> local = make_host_transport();
  RemoteOptions o = options();
  o.ib_gid_index = "3";
  o.ib_sl = "15";
  o.ib_traffic_class = "106";
  std::unique_ptr<RemoteEngine> engine;
  ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, o, &engine), Status::ok);
  const uint64_t word = 0x1b2b3b4b5b6b7b8bull;
  ASSERT_EQ(engine->put(0, 16, &word, sizeof word), Status::ok);
  EXPECT_EQ(slot[2], word);
  engine.reset();
  for (const auto &[field, bad] : {std::pair<std::string RemoteOptions::*, const char *>{&RemoteOptions::ib_sl, "16"},
                                   {&RemoteOptions::ib_gid_index, "-1"},
                                   {&RemoteOptions::ib_traffic_class, "256"},
                                   {&RemoteOptions::ib_sl, "x"}}) {
    RemoteOptions b = options();
    b.*field = bad;
    std::unique_ptr<RemoteEngine> refused;
    EXPECT_EQ(make_ucx_engine(boot, slot.data(), slot_bytes, *local, b, &refused), Status::invalid_value) << bad;
  }
}

// NVSHMEM_HCA_PE_MAPPING (count PEs per entry, in order, round again) and NVSHMEM_ENABLE_NIC_PE_MAPPING
// (the list's devices round robin) give each PE of a node its device; malformed mappings are refused.
TEST(UcxEngine, NicToPeMappings) {
  const char *by_mapping[] = {"mlx5_0:1", "mlx5_0:1", "mlx5_0:2", "mlx5_0:2", "mlx5_0:1", "mlx5_0:1"};
  for (int rank = 0; rank < 6; ++rank) {
    std::string list = "mlx5_9:1";  // replaced by the mapping, with or without enable
    ASSERT_EQ(map_nic_to_pe("mlx5_0:1:2,mlx5_0:2:2", rank % 2 == 0, rank, &list), Status::ok);
    EXPECT_EQ(list, by_mapping[rank]) << rank;
  }
  std::string eth = "";
  ASSERT_EQ(map_nic_to_pe("eth0::1,lo::3", false, 2, &eth), Status::ok);
  EXPECT_EQ(eth, "lo");
  for (int rank = 0; rank < 5; ++rank) {
    std::string list = "mlx5_0:1, mlx5_1:1,mlx5_2:1";
    ASSERT_EQ(map_nic_to_pe("", true, rank, &list), Status::ok);
    EXPECT_EQ(list, std::string("mlx5_") + std::to_string(rank % 3) + ":1") << rank;
  }
  for (const char *unchanged : {"mlx5_0:1,mlx5_1:1", "^mlx5_0:1,^mlx5_1:1", ""}) {
    std::string list = unchanged;  // not enabled, or a deny list, or no list: UCX chooses
    ASSERT_EQ(map_nic_to_pe("", std::string(unchanged) != "mlx5_0:1,mlx5_1:1", 1, &list), Status::ok);
    EXPECT_EQ(list, unchanged);
  }
  for (const char *bad : {"mlx5_0:1", "mlx5_0:1:0", "mlx5_0:1:x", ":1:2", "mlx5_0:1:2,", "mlx5_0:1:-1"}) {
    std::string list = "kept";
    EXPECT_EQ(map_nic_to_pe(bad, true, 0, &list), Status::invalid_value) << bad;
    EXPECT_EQ(list, "kept") << bad;
  }
}

// NVSHMEM_CPU_AFFINITY: AUTO (any case) or a CPU list, sorted without repeats.
TEST(UcxEngine, CpuAffinityIsAutoOrACpuList) {
  std::vector<int> cpus{99};
  EXPECT_EQ(parse_cpu_list("AUTO", &cpus), Status::ok);
  EXPECT_TRUE(cpus.empty());
  EXPECT_EQ(parse_cpu_list("auto", &cpus), Status::ok);
  EXPECT_TRUE(cpus.empty());
  EXPECT_EQ(parse_cpu_list("3", &cpus), Status::ok);
  EXPECT_EQ(cpus, std::vector<int>({3}));
  EXPECT_EQ(parse_cpu_list("8,0-3,2", &cpus), Status::ok);
  EXPECT_EQ(cpus, std::vector<int>({0, 1, 2, 3, 8}));
  for (const char *bad : {"x", "1-", "3-1", "1,,2", "-1", "2 ", "0-100000"})
    EXPECT_EQ(parse_cpu_list(bad, &cpus), Status::invalid_value) << bad;
}

TEST(UcxEngine, InitExchangeBytesPerPeDoNotGrowWithThePeCount) {
  std::vector<uint64_t> slot(1 << 12);
  std::size_t per_pe_at_2 = 0;
  for (int n : {2, 64, 1024}) {
    FakeBootstrap boot(1, n);
    std::unique_ptr<RemoteEngine> engine;
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Transport> local = make_host_transport();
    ASSERT_EQ(make_ucx_engine(boot, slot.data(), slot.size() * sizeof(uint64_t), *local, options(), &engine),
              Status::ok);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    engine.reset();
    printf("%4d PEs: %zu bytes contributed by this PE (so %zu received), init %.3f s\n", n, boot.contributed,
           boot.contributed * n, s);
    if (n == 2) per_pe_at_2 = boot.contributed;
    EXPECT_EQ(boot.contributed, per_pe_at_2) << n << " PEs";
    EXPECT_LT(boot.contributed, 1024u);
    EXPECT_LT(s, 1.0) << n << " PEs";
  }
}

}  // namespace
}  // namespace nvshm
