// SPDX-License-Identifier: BSD-3-Clause
// The rule for several PEs on one GPU (src/cuda/gpu_sharing.hpp) on made-up jobs: which PEs share a GPU,
// full or limited MPG, and the collective launch's share.
#include <gtest/gtest.h>

#include <vector>

#include "cuda/gpu_sharing.hpp"

using nvshm::gpu_sharing_of;
using nvshm::parse_thread_percent;
using nvshm::PeGpu;

namespace {
PeGpu on_gpu(uint8_t id, bool mps, double percent = 0) {
  PeGpu pe;
  pe.uuid[0] = 0x5a;
  pe.uuid[15] = id;
  pe.mps = mps ? 1 : 0;
  pe.thread_percent = percent;
  return pe;
}
}  // namespace

TEST(GpuSharing, APeAloneOnItsGpuIsNotMpg) {
  const std::vector<PeGpu> job = {on_gpu(1, true), on_gpu(2, true), on_gpu(3, false)};
  for (int me = 0; me < 3; ++me) {
    const auto s = gpu_sharing_of(job, me, false);
    EXPECT_EQ(s.pes, 1);
    EXPECT_EQ(s.grid_share, 1);
    EXPECT_TRUE(s.full);
  }
}

TEST(GpuSharing, MpsWithoutPercentagesDividesTheGridAmongTheGpusPes) {
  // PEs 0, 2 and 3 on GPU 1, PE 1 on GPU 2.
  const std::vector<PeGpu> job = {on_gpu(1, true), on_gpu(2, true), on_gpu(1, true), on_gpu(1, true)};
  for (int me : {0, 2, 3}) {
    const auto s = gpu_sharing_of(job, me, false);
    EXPECT_EQ(s.pes, 3);
    EXPECT_TRUE(s.mps);
    EXPECT_FALSE(s.full);
    EXPECT_EQ(s.grid_share, 3);
  }
  EXPECT_EQ(gpu_sharing_of(job, 1, false).grid_share, 1);
  // The application takes it upon itself: the whole GPU's grid for every PE.
  const auto ignored = gpu_sharing_of(job, 0, true);
  EXPECT_TRUE(ignored.full);
  EXPECT_EQ(ignored.grid_share, 1);
}

// The parts cap each PE's SMs but give it none of its own: the grid stays divided.
TEST(GpuSharing, PercentagesThatFitTogetherMakeFullMpgAndKeepTheShare) {
  const std::vector<PeGpu> halves = {on_gpu(1, true, 50), on_gpu(1, true, 50)};
  EXPECT_TRUE(gpu_sharing_of(halves, 1, false).full);
  EXPECT_EQ(gpu_sharing_of(halves, 1, false).grid_share, 2);
  // Over 100 in all, or one PE without a part: limited.
  const std::vector<PeGpu> over = {on_gpu(1, true, 50), on_gpu(1, true, 50.04)};
  EXPECT_FALSE(gpu_sharing_of(over, 0, false).full);
  EXPECT_EQ(gpu_sharing_of(over, 0, false).grid_share, 2);
  const std::vector<PeGpu> one_unset = {on_gpu(1, true, 30), on_gpu(1, true, 0)};
  EXPECT_EQ(gpu_sharing_of(one_unset, 0, false).grid_share, 2);
}

TEST(GpuSharing, WithoutMpsTheContextsTakeTurnsSoTheGridIsWhole) {
  const std::vector<PeGpu> job = {on_gpu(7, false), on_gpu(7, false)};
  const auto s = gpu_sharing_of(job, 0, false);
  EXPECT_EQ(s.pes, 2);
  EXPECT_FALSE(s.mps);
  EXPECT_FALSE(s.full);  // NVSHMEM's limited MPG
  EXPECT_EQ(s.grid_share, 1);
}

TEST(GpuSharing, PesWithoutAGpuHeapShareNothing) {
  const std::vector<PeGpu> job(4);  // all-zero UUIDs: the host heap
  EXPECT_EQ(gpu_sharing_of(job, 2, false).pes, 1);
  EXPECT_EQ(gpu_sharing_of(job, 2, false).grid_share, 1);
}

TEST(GpuSharing, ThreadPercentageParses) {
  EXPECT_EQ(parse_thread_percent("50"), 50.0);
  EXPECT_EQ(parse_thread_percent("33.3"), 33.3);
  EXPECT_EQ(parse_thread_percent("100"), 100.0);
  for (const char *bad : {"", "0", "-5", "100.5", "50%", "half"}) EXPECT_EQ(parse_thread_percent(bad), 0.0) << bad;
  EXPECT_EQ(parse_thread_percent(nullptr), 0.0);
}

// PEs that disagree about MPS (one context an MPS client, the other not) still agree on the answer.
TEST(GpuSharing, EveryPeOfAGpuComesToTheSameAnswer) {
  const std::vector<PeGpu> job = {on_gpu(3, true), on_gpu(3, false)};
  for (int me : {0, 1}) {
    EXPECT_TRUE(gpu_sharing_of(job, me, false).mps);
    EXPECT_EQ(gpu_sharing_of(job, me, false).grid_share, 2);
  }
}
