// SPDX-License-Identifier: BSD-3-Clause
// The groups of a device barrier across nodes (src/team/team_table.hpp, barrier_groups; docs/teams.md, "Device
// barriers across nodes") on made-up jobs: every PE's view of a team, from every world PE's node.
#include <gtest/gtest.h>

#include <vector>

#include "team/team_table.hpp"

using nvshm::barrier_groups;
using nvshm::node_groups;
using nvshm::Team;

namespace {
Team strided(int start, int stride, int size, int my_index, const std::vector<int> &group_of) {
  Team t;
  t.start = start;
  t.stride = stride;
  t.size = size;
  t.my_index = my_index;
  t.nodes = node_groups(t, group_of, t.world_pe(my_index));
  return t;
}
// Each member's groups: its node's members, then the leaders where it leads.
std::vector<std::vector<int>> every_member(int start, int stride, int size, const std::vector<int> &group_of) {
  std::vector<std::vector<int>> all;
  for (int i = 0; i < size; ++i) all.push_back(barrier_groups(strided(start, stride, size, i, group_of)));
  return all;
}
}  // namespace

// Nodes of 3, 2 and 1 PEs: each member lists its node; the node's first member also lists the three leaders,
// the same list on each of them.
TEST(BarrierGroups, NodesOfDifferentSizes) {
  const std::vector<int> group_of{0, 0, 0, 1, 1, 2};
  const std::vector<std::vector<int>> want{{0, 1, 2, 0, 3, 5}, {0, 1, 2}, {0, 1, 2},
                                           {3, 4, 0, 3, 5},    {3, 4},    {5, 0, 3, 5}};
  EXPECT_EQ(every_member(0, 1, 6, group_of), want);
}

// A strided team (world PEs 1, 3, 5, 7 on nodes of four): team index 0 (world 1) leads node 0 and team index 2
// (world 5) node 1, though neither is its node's first world PE.
TEST(BarrierGroups, StridedTeamLeadersAreTheirNodesFirstMembers) {
  const std::vector<int> group_of{0, 0, 0, 0, 1, 1, 1, 1};
  const std::vector<std::vector<int>> want{{0, 1, 0, 2}, {0, 1}, {2, 3, 0, 2}, {2, 3}};
  EXPECT_EQ(every_member(1, 2, 4, group_of), want);
}

// Every PE a node of its own (NVSHMEM_DISABLE_P2P): every member leads, with every member as a leader.
TEST(BarrierGroups, EveryPeItsOwnNode) {
  const std::vector<int> group_of{0, 1, 2, 3};
  const std::vector<std::vector<int>> want{{0, 0, 1, 2, 3}, {1, 0, 1, 2, 3}, {2, 0, 1, 2, 3}, {3, 0, 1, 2, 3}};
  EXPECT_EQ(every_member(0, 1, 4, group_of), want);
}

// Nodes interleaved in world order (group ids need not follow the PEs): the leaders stay in team order.
TEST(BarrierGroups, InterleavedNodes) {
  const std::vector<int> group_of{1, 0, 1, 0};
  const std::vector<std::vector<int>> want{{0, 2, 0, 1}, {1, 3, 0, 1}, {0, 2}, {1, 3}};
  EXPECT_EQ(every_member(0, 1, 4, group_of), want);
}
