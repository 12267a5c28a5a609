// SPDX-License-Identifier: BSD-3-Clause
// The staged path's bounce buffers (src/remote/bounce_pool.cpp) without a GPU: blocks are reused, at
// most `keep` idle ones stay, every block holds its whole size, and threads that take and return
// blocks at once never share one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "remote/bounce_pool.hpp"

namespace nvshm {
namespace {

constexpr std::size_t kBlock = 64 * 1024;

TEST(BouncePool, ReturnedBlocksAreReusedWithoutMakingNewOnes) {
  BouncePool pool(kBlock, 4, nullptr);
  std::set<char *> seen;
  for (int round = 0; round < 3; ++round) {
    BouncePool::Block a, b;
    ASSERT_EQ(pool.take("test", &a), Status::ok);
    ASSERT_EQ(pool.take("test", &b), Status::ok);
    ASSERT_NE(a.data(), b.data());
    memset(a.data(), 0xA5, pool.block_bytes());  // the whole block is ours to write
    memset(b.data(), 0x5A, pool.block_bytes());
    EXPECT_EQ(static_cast<unsigned char>(a.data()[kBlock - 1]), 0xA5);
    seen.insert(a.data());
    seen.insert(b.data());
  }
  EXPECT_EQ(pool.made(), 2u);  // rounds 2 and 3 took the blocks of round 1
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(pool.idle(), 2u);
}

TEST(BouncePool, KeepsAtMostKeepIdleBlocks) {
  BouncePool pool(kBlock, 2, nullptr);
  {
    std::vector<BouncePool::Block> held(5);
    for (auto &b : held) ASSERT_EQ(pool.take("test", &b), Status::ok);
    EXPECT_EQ(pool.made(), 5u);
    EXPECT_EQ(pool.idle(), 0u);
  }
  EXPECT_EQ(pool.idle(), 2u);  // three were freed on return
  BouncePool::Block again;
  ASSERT_EQ(pool.take("test", &again), Status::ok);
  EXPECT_EQ(pool.made(), 5u);
  EXPECT_EQ(pool.idle(), 1u);
}

TEST(BouncePool, AMovedOrResetBlockReturnsOnce) {
  BouncePool pool(kBlock, 4, nullptr);
  BouncePool::Block a;
  ASSERT_EQ(pool.take("test", &a), Status::ok);
  char *p = a.data();
  BouncePool::Block b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  b.reset();
  b.reset();
  EXPECT_EQ(pool.idle(), 1u);
  ASSERT_EQ(pool.take("test", &a), Status::ok);
  EXPECT_EQ(a.data(), p);
}

// Threads take a block, fill it with their own byte, check it, return it: a block given to two
// threads at once would show the other's byte.
TEST(BouncePool, ThreadsNeverShareABlock) {
  BouncePool pool(kBlock, 3, nullptr);
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
        const char mine = static_cast<char>(t + 1);
        memset(b.data(), mine, 256);
        std::this_thread::yield();
        for (int k = 0; k < 256; ++k)
          if (b.data()[k] != mine) {
            ++bad;
            break;
          }
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(pool.idle(), 3u);
  EXPECT_LE(pool.made(), 2000u * 4u);
}

}  // namespace
}  // namespace nvshm
