// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "heap/allocator.hpp"

using nvshm::Allocator;

TEST(Allocator, FirstFitAlignmentAndMerge) {
  Allocator a(1 << 20);
  std::size_t x, y, z;
  ASSERT_TRUE(a.allocate(100, 64, &x));
  ASSERT_TRUE(a.allocate(100, 4096, &y));
  ASSERT_TRUE(a.allocate(10, 8, &z));
  EXPECT_EQ(x, 0u);
  EXPECT_EQ(y, 4096u);
  EXPECT_EQ(z, 104u) << "the gap before the aligned block is reused";
  EXPECT_EQ(a.block_size(y), 100u);
  EXPECT_EQ(a.bytes_in_use(), 210u);
  ASSERT_TRUE(a.release(x));
  ASSERT_TRUE(a.release(z));
  ASSERT_TRUE(a.release(y));
  EXPECT_FALSE(a.release(y)) << "double free is refused";
  EXPECT_EQ(a.bytes_in_use(), 0u);
  EXPECT_EQ(a.largest_free(), std::size_t{1} << 20) << "free ranges merge back into one";
}

// A limit (the heap's top held by team buffers, docs/teams.md): blocks end at or below it, first fit
// still; is_free sees used blocks only.
TEST(Allocator, LimitAndIsFree) {
  Allocator a(1 << 20);
  std::size_t x = 0, y = 0;
  EXPECT_FALSE(a.allocate(8192, 8, &x, 4096)) << "does not fit below the limit";
  ASSERT_TRUE(a.allocate(4096, 8, &x, 4096));
  EXPECT_EQ(x, 0u);
  EXPECT_FALSE(a.allocate(8, 8, &y, 4096)) << "the range below the limit is used up";
  EXPECT_FALSE(a.allocate(8, 8, &y, 4100)) << "a block may not end past the limit";
  ASSERT_TRUE(a.allocate(8, 8, &y, 4104));
  EXPECT_EQ(y, 4096u);
  EXPECT_FALSE(a.is_free(0, 1));
  EXPECT_FALSE(a.is_free(4000, 200)) << "overlaps both blocks";
  EXPECT_TRUE(a.is_free(4104, (1 << 20) - 4104));
  EXPECT_FALSE(a.is_free(4104, (1 << 20) - 4103)) << "past the end";
  ASSERT_TRUE(a.release(x));
  EXPECT_TRUE(a.is_free(0, 4096));
  EXPECT_FALSE(a.is_free(0, 4097));
}

// allocate_at (nvshmemx_buffer_register_symmetric_at_preferred_address): a block at a chosen offset inside
// one free range, refused across a used block or past the end; the ranges around it stay free.
TEST(Allocator, AllocateAtAnOffset) {
  Allocator a(1 << 20);
  std::size_t x = 0;
  ASSERT_TRUE(a.allocate(4096, 4096, &x));
  EXPECT_EQ(x, 0u);
  EXPECT_FALSE(a.allocate_at(0, 4096)) << "taken";
  EXPECT_FALSE(a.allocate_at(2048, 8192)) << "overlaps the used block";
  EXPECT_FALSE(a.allocate_at((1 << 20) - 4096, 8192)) << "past the end";
  EXPECT_FALSE(a.allocate_at(65536, 0)) << "empty";
  ASSERT_TRUE(a.allocate_at(65536, 8192));
  EXPECT_EQ(a.block_size(65536), 8192u);
  EXPECT_EQ(a.bytes_in_use(), 4096u + 8192u);
  std::size_t y = 0;
  ASSERT_TRUE(a.allocate(4096, 4096, &y));
  EXPECT_EQ(y, 4096u) << "the gap before the placed block is still free";
  ASSERT_TRUE(a.allocate_at(65536 + 8192, (1 << 20) - 65536 - 8192)) << "exactly the rest";
  ASSERT_TRUE(a.release(65536));
  ASSERT_TRUE(a.release(65536 + 8192));
  ASSERT_TRUE(a.release(x));
  ASSERT_TRUE(a.release(y));
  EXPECT_EQ(a.largest_free(), std::size_t{1} << 20) << "free ranges merge back into one";
}

TEST(Allocator, FullHeapAndExactFit) {
  Allocator a(4096);
  std::size_t x, y;
  EXPECT_FALSE(a.allocate(4097, 8, &x));
  ASSERT_TRUE(a.allocate(4096, 8, &x));
  EXPECT_FALSE(a.allocate(8, 8, &y));
  ASSERT_TRUE(a.release(x));
  EXPECT_TRUE(a.allocate(8, 8, &y));
}

// Two allocators fed the same random sequence give the same offsets (the heap's symmetry).
TEST(Allocator, DeterministicUnderRandomSequences) {
  Allocator a(64 << 20), b(64 << 20);
  std::mt19937 rng(7);
  std::vector<std::size_t> live;
  for (int i = 0; i < 5000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      const std::size_t k = rng() % live.size();
      ASSERT_TRUE(a.release(live[k]));
      ASSERT_TRUE(b.release(live[k]));
      live.erase(live.begin() + k);
    } else {
      const std::size_t size = 1 + rng() % 100000, align = std::size_t{8} << (rng() % 10);
      std::size_t oa = 0, ob = 0;
      const bool ra = a.allocate(size, align, &oa), rb = b.allocate(size, align, &ob);
      ASSERT_EQ(ra, rb);
      if (!ra) continue;
      ASSERT_EQ(oa, ob);
      ASSERT_EQ(oa % align, 0u);
      live.push_back(oa);
    }
  }
}
