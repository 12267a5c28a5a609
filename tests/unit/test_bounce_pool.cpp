// SPDX-License-Identifier: BSD-3-Clause
// The staged path's bounce buffers (src/remote/bounce_pool.cpp) without a GPU: pooled blocks are reused,
// blocks beyond the pool are temporary, a leaked block is not handed out again, every block holds its
// whole size, and threads that take and return blocks at once never hold the same one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "remote/bounce_pool.hpp"

namespace nvshm {
namespace {

constexpr std::size_t kBlock = 64 * 1024;

TEST(BouncePool, PooledBlocksAreReused) {
  BouncePool pool(kBlock, 2, nullptr);
  EXPECT_EQ(pool.idle(), 2u);
  std::set<char *> seen;
  for (int round = 0; round < 3; ++round) {
    BouncePool::Block a, b;
    ASSERT_EQ(pool.take("test", &a), Status::ok);
    ASSERT_EQ(pool.take("test", &b), Status::ok);
    ASSERT_NE(a.data(), b.data());
    memset(a.data(), 0xA5, pool.block_bytes());  // the whole block is ours to write
    memset(b.data(), 0x5A, pool.block_bytes());
    EXPECT_EQ(static_cast<unsigned char>(a.data()[kBlock - 1]), 0xA5);
    EXPECT_EQ(pool.idle(), 0u);
    seen.insert(a.data());
    seen.insert(b.data());
  }
  EXPECT_EQ(seen.size(), 2u);  // rounds 2 and 3 took the blocks of round 1
  EXPECT_EQ(pool.temporaries(), 0u);
  EXPECT_EQ(pool.idle(), 2u);
}

TEST(BouncePool, BlocksBeyondThePoolAreTemporary) {
  BouncePool pool(kBlock, 2, nullptr);
  std::set<char *> first;
  {
    std::vector<BouncePool::Block> held(5);
    for (auto &b : held) ASSERT_EQ(pool.take("test", &b), Status::ok);
    for (int i = 0; i < 2; ++i) first.insert(held[i].data());
    std::set<char *> all;
    for (auto &b : held) all.insert(b.data());
    EXPECT_EQ(all.size(), 5u);
    EXPECT_EQ(pool.temporaries(), 3u);
    memset(held[4].data(), 1, pool.block_bytes());
  }
  EXPECT_EQ(pool.idle(), 2u);  // only the pooled blocks came back to it
  BouncePool::Block a, b;
  ASSERT_EQ(pool.take("test", &a), Status::ok);
  ASSERT_EQ(pool.take("test", &b), Status::ok);
  EXPECT_EQ(std::set<char *>({a.data(), b.data()}), first);
  EXPECT_EQ(pool.temporaries(), 3u);
}

TEST(BouncePool, MovedResetAndLeakedBlocks) {
  BouncePool pool(kBlock, 2, nullptr);
  BouncePool::Block a, c;
  ASSERT_EQ(pool.take("test", &a), Status::ok);
  char *p = a.data();
  BouncePool::Block b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  c = std::move(b);  // move assignment: c held nothing
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(b.data(), nullptr);
  c.reset();
  c.reset();
  EXPECT_EQ(pool.idle(), 2u);
  ASSERT_EQ(pool.take("test", &a), Status::ok);
  ASSERT_EQ(pool.take("test", &c), Status::ok);
  char *leaked = a.data();
  a.leak();  // as after a wait that gave up: never handed out again (the pool frees it at the end)
  EXPECT_EQ(a.data(), nullptr);
  c = BouncePool::Block();  // move-assigning over a held block returns it
  EXPECT_EQ(pool.idle(), 1u);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(pool.take("test", &a), Status::ok);
    EXPECT_NE(a.data(), leaked);
  }
}

// Threads take a block, record it as held (a block held twice at once fails), fill it with their own
// byte, check it, and return it.
TEST(BouncePool, ThreadsNeverHoldTheSameBlock) {
  BouncePool pool(kBlock, 3, nullptr);
  std::mutex held_mutex;
  std::set<char *> held;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        BouncePool::Block b;
        if (pool.take("test", &b) != Status::ok) {
          ++bad;
          return;
        }
        {
          std::lock_guard<std::mutex> lock(held_mutex);
          if (!held.insert(b.data()).second) ++bad;
        }
        const char mine = static_cast<char>(t + 1);
        memset(b.data(), mine, 256);
        std::this_thread::yield();
        for (int k = 0; k < 256; ++k)
          if (b.data()[k] != mine) {
            ++bad;
            break;
          }
        std::lock_guard<std::mutex> lock(held_mutex);
        held.erase(b.data());
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(pool.idle(), 3u);
}

}  // namespace
}  // namespace nvshm
