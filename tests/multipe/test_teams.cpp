// SPDX-License-Identifier: BSD-3-Clause
// Teams across real processes (docs/teams.md): predefined teams, split_strided (strides > 1,
// invalid arguments), split_2d, translate in every direction, get_config, destroy and re-create
// beyond NVSHMEM_MAX_TEAMS, running out of slots, nvshmemx_team_init over an arbitrary subset, and
// PEs that arrive seconds apart. Run under nvshmrun with 1, 2, 3, 4 and 8 PEs.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "pe_test.hpp"

namespace {

int max_teams() {
  const char *v = getenv("NVSHMEM_MAX_TEAMS");
  return v ? atoi(v) : 128;
}

// NVSHMEM_SYMMETRIC_SIZE as the test sets it ("640m"; k, m, g suffixes).
std::size_t symmetric_size() {
  const char *v = getenv("NVSHMEM_SYMMETRIC_SIZE");
  if (!v) return std::size_t{1} << 30;
  char *end = nullptr;
  std::size_t bytes = strtoull(v, &end, 10);
  for (const char *unit = "kmg"; *unit; ++unit) {
    bytes *= 1024;
    if (tolower(*end) == *unit) return bytes;
  }
  return strtoull(v, nullptr, 10);
}

// Make teams of every PE until a split fails (rc and NVSHMEM_TEAM_INVALID); returns them.
std::vector<nvshmem_team_t> split_until_refused() {
  std::vector<nvshmem_team_t> teams;
  for (;;) {
    nvshmem_team_t team = 12345;
    if (nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), nullptr, 0, &team) != 0) {
      EXPECT_EQ(team, NVSHMEM_TEAM_INVALID);
      return teams;
    }
    teams.push_back(team);
  }
}

// Team index -> world PE through translate, checked against the expected members.
void expect_members(nvshmem_team_t team, const std::vector<int> &world) {
  const int me = nvshmem_my_pe();
  ASSERT_EQ(nvshmem_team_n_pes(team), static_cast<int>(world.size()));
  int my_index = -1;
  for (std::size_t i = 0; i < world.size(); ++i) {
    const int idx = static_cast<int>(i);
    EXPECT_EQ(nvshmem_team_translate_pe(team, idx, NVSHMEM_TEAM_WORLD), world[i]) << "team index " << i;
    EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, world[i], team), idx);
    EXPECT_EQ(nvshmem_team_translate_pe(team, idx, team), idx);
    if (world[i] == me) my_index = idx;
  }
  EXPECT_EQ(nvshmem_team_my_pe(team), my_index);
  EXPECT_EQ(nvshmem_team_translate_pe(team, -1, NVSHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(nvshmem_team_translate_pe(team, static_cast<int>(world.size()), NVSHMEM_TEAM_WORLD), -1);
  for (int pe = 0; pe < nvshmem_n_pes(); ++pe) {  // world PEs outside the team translate to -1
    bool in = false;
    for (int w : world) in = in || w == pe;
    if (!in) {
      EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, pe, team), -1) << "PE " << pe;
    }
  }
}

// First test: PEs arrive seconds apart right after init, and the split still works.
TEST(Teams, SplitRightAfterInitWithLatePes) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  sleep(static_cast<unsigned>(me % 3));
  nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
  ASSERT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &team), 0);
  ASSERT_NE(team, NVSHMEM_TEAM_INVALID);
  EXPECT_EQ(nvshmem_team_n_pes(team), n);
  EXPECT_EQ(nvshmem_team_my_pe(team), me);
  sleep(static_cast<unsigned>((n - 1 - me) % 3));
  EXPECT_EQ(nvshmem_team_sync(team), 0);
  nvshmem_team_destroy(team);
}

TEST(Teams, Predefined) {
  const int n = nvshmem_n_pes();
  std::vector<int> all;
  for (int pe = 0; pe < n; ++pe) all.push_back(pe);
  expect_members(NVSHMEM_TEAM_WORLD, all);
  expect_members(NVSHMEM_TEAM_SHARED, pe_test::shared_pes());
  expect_members(NVSHMEMX_TEAM_NODE, pe_test::node_pes());
  expect_members(NVSHMEMX_TEAM_SAME_MYPE_NODE, pe_test::same_index_pes());
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(nvshmem_team_n_pes(max_teams()), -1);
  EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_INVALID, 0, NVSHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, 0, NVSHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
  EXPECT_EQ(nvshmem_team_sync(NVSHMEMX_TEAM_NODE), 0);
  EXPECT_EQ(nvshmem_team_sync(NVSHMEMX_TEAM_SAME_MYPE_NODE), 0);
  EXPECT_NE(nvshmem_team_sync(NVSHMEM_TEAM_INVALID), 0);
  nvshmem_team_destroy(NVSHMEM_TEAM_WORLD);  // refused with a message; the team stays
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD), n);
  nvshmem_team_destroy(NVSHMEM_TEAM_INVALID);  // does nothing
}

TEST(Teams, SplitStrided) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  for (int stride = 1; stride <= 3; ++stride) {
    for (int start = 0; start < n; ++start) {
      const int size = (n - start + stride - 1) / stride;
      nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
      config.num_contexts = stride + start;
      nvshmem_team_t team = 12345;
      ASSERT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, stride, size, &config,
                                           NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &team),
                0);
      const bool member = me >= start && (me - start) % stride == 0;
      if (!member) {
        EXPECT_EQ(team, NVSHMEM_TEAM_INVALID) << "start " << start << " stride " << stride;
        continue;
      }
      ASSERT_GE(team, NVSHMEM_TEAMS_MIN);
      std::vector<int> world;
      for (int i = 0; i < size; ++i) world.push_back(start + i * stride);
      expect_members(team, world);
      nvshmem_team_config_t got;
      nvshmem_team_get_config(team, &got);
      EXPECT_EQ(got.num_contexts, stride + start);
      // A split of the split: every second member, translated through both teams.
      nvshmem_team_t sub = NVSHMEM_TEAM_INVALID;
      const int sub_size = (size + 1) / 2;
      ASSERT_EQ(nvshmem_team_split_strided(team, 0, 2, sub_size, nullptr, 0, &sub), 0);
      if (nvshmem_team_my_pe(team) % 2 == 0) {
        std::vector<int> sub_world;
        for (int i = 0; i < sub_size; ++i) sub_world.push_back(start + 2 * i * stride);
        expect_members(sub, sub_world);
        for (int i = 0; i < sub_size; ++i) EXPECT_EQ(nvshmem_team_translate_pe(sub, i, team), 2 * i);
        for (int i = 0; i < size; ++i) EXPECT_EQ(nvshmem_team_translate_pe(team, i, sub), i % 2 ? -1 : i / 2);
        nvshmem_team_get_config(sub, &got);
        EXPECT_EQ(got.num_contexts, 0);
        EXPECT_EQ(nvshmem_barrier(sub), 0);
        nvshmem_team_destroy(sub);
      } else {
        EXPECT_EQ(sub, NVSHMEM_TEAM_INVALID);
      }
      EXPECT_EQ(nvshmem_barrier(team), 0);
      nvshmem_team_destroy(team);
    }
  }
}

TEST(Teams, SplitStridedInvalidArguments) {
  const int n = nvshmem_n_pes();
  struct Case {
    int start, stride, size;
  } cases[] = {{-1, 1, 1}, {n, 1, 1},  {0, 0, 1},     {0, -1, 1},
               {0, 1, 0},  {0, 1, -2}, {0, 1, n + 1}, {0, 2, (n + 1) / 2 + 1}};
  for (const Case &c : cases) {
    nvshmem_team_t team = 12345;
    EXPECT_NE(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, c.start, c.stride, c.size, nullptr, 0, &team), 0)
        << c.start << " " << c.stride << " " << c.size;
    EXPECT_EQ(team, NVSHMEM_TEAM_INVALID);
  }
  nvshmem_team_t team = 12345;
  EXPECT_NE(nvshmem_team_split_strided(NVSHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &team), 0);
  EXPECT_EQ(team, NVSHMEM_TEAM_INVALID);
  EXPECT_NE(
      nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, 1, nullptr, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS, &team),
      0);
  nvshmem_team_t x = 1, y = 1;
  EXPECT_NE(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 0, nullptr, 0, &x, nullptr, 0, &y), 0);
  EXPECT_EQ(x, NVSHMEM_TEAM_INVALID);
  EXPECT_EQ(y, NVSHMEM_TEAM_INVALID);
  EXPECT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);  // the rest still works
}

TEST(Teams, Split2d) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  for (int xrange : {1, 2, 3, n + 2}) {
    nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
    ASSERT_EQ(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, xrange, nullptr, 0, &x, nullptr, 0, &y), 0);
    const int xr = xrange < n ? xrange : n;
    std::vector<int> row, column;
    for (int pe = me / xr * xr; pe < n && pe < me / xr * xr + xr; ++pe) row.push_back(pe);
    for (int pe = me % xr; pe < n; pe += xr) column.push_back(pe);
    expect_members(x, row);
    expect_members(y, column);
    EXPECT_EQ(nvshmem_team_sync(x), 0);
    EXPECT_EQ(nvshmem_team_sync(y), 0);
    nvshmem_team_destroy(x);
    nvshmem_team_destroy(y);
  }
}

TEST(Teams, DestroyAndRecreateBeyondTheLimit) {
  const int n = nvshmem_n_pes();
  for (int i = 0; i < 3 * max_teams(); ++i) {
    nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
    ASSERT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &team), 0) << "iteration " << i;
    ASSERT_EQ(nvshmem_team_sync(team), 0);
    nvshmem_team_destroy(team);
  }
}

TEST(Teams, RunningOutOfSlotsLeavesTheRestWorking) {
  const int n = nvshmem_n_pes();
  std::vector<nvshmem_team_t> teams = split_until_refused();
  EXPECT_EQ(static_cast<int>(teams.size()), max_teams() - NVSHMEM_TEAMS_MIN);
  for (nvshmem_team_t team : teams) EXPECT_EQ(nvshmem_team_sync(team), 0);
  EXPECT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
  nvshmem_team_destroy(teams.back());
  teams.pop_back();
  nvshmem_team_t again = NVSHMEM_TEAM_INVALID;
  EXPECT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &again), 0);
  teams.push_back(again);
  for (nvshmem_team_t team : teams) nvshmem_team_destroy(team);
}

// Team buffers (collective scratch, LL words) of the first 32 slots are reserved at init; a later slot's
// are taken from the top of the symmetric heap when its team is created (docs/teams.md). With the heap
// nearly full only the reserved slots' teams can be made, and the data of the allocation is untouched;
// with an empty heap more teams are made, and a world allocation of the whole heap is then refused on
// every PE until they are destroyed.
TEST(Teams, LaterSlotsTakeTheirBuffersFromTheHeapTop) {
  const int me = nvshmem_my_pe();
  const int reserved = std::min(max_teams(), 32) - NVSHMEM_TEAMS_MIN;
  const std::size_t most = symmetric_size() - (std::size_t{1} << 20);
  char *big = static_cast<char *>(nvshmem_malloc(most));
  ASSERT_NE(big, nullptr);
  // Random data in the allocation's last 16 MiB, where the teams' buffers would go.
  const std::size_t tail = std::min(most, std::size_t{16} << 20);
  const std::vector<unsigned char> data = pe_test::random_bytes(tail, me, 91);
  pe_test::write_local(big + most - tail, data.data(), tail);
  std::vector<nvshmem_team_t> teams = split_until_refused();
  // Beside the reserved slots, the 2 MiB left (1 MiB not asked for, 1 MiB of headroom) hold at most two slots'
  // buffers of 1 MiB or more.
  EXPECT_GE(static_cast<int>(teams.size()), reserved) << "the reserved slots' teams need no heap";
  EXPECT_LE(static_cast<int>(teams.size()), reserved + 2) << "the allocation leaves room for two slots at most";
  for (nvshmem_team_t team : teams) EXPECT_EQ(nvshmem_team_sync(team), 0);
  EXPECT_TRUE(pe_test::read_local(big + most - tail, tail) == data) << "team creation touched a symmetric allocation";
  for (nvshmem_team_t team : teams) nvshmem_team_destroy(team);
  nvshmem_free(big);

  teams = split_until_refused();
  if (max_teams() > 32) {
    EXPECT_GT(static_cast<int>(teams.size()), reserved) << "later slots take their buffers from the empty heap";
    EXPECT_EQ(nvshmem_malloc(most), nullptr) << "the heap's top is held by the teams' buffers";
  }
  for (nvshmem_team_t team : teams) EXPECT_EQ(nvshmem_team_sync(team), 0);
  for (nvshmem_team_t team : teams) nvshmem_team_destroy(team);
  big = static_cast<char *>(nvshmem_malloc(most));
  EXPECT_NE(big, nullptr) << "destroyed teams give their heap back";
  nvshmem_free(big);
}

TEST(Teams, InitFromUniqueIdOverASubset) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  // Members: the odd PEs in reverse order (PE 0 alone in a 1-PE job); the last member makes the id.
  std::vector<int> members;
  for (int pe = n - 1; pe >= 0; --pe)
    if (pe % 2 == 1 || n == 1) members.push_back(pe);
  auto *id = static_cast<nvshmemx_team_uniqueid_t *>(nvshmem_malloc(sizeof(nvshmemx_team_uniqueid_t)));
  auto *ints = static_cast<int *>(nvshmem_malloc(2 * sizeof(int)));
  ASSERT_NE(id, nullptr);
  ASSERT_NE(ints, nullptr);
  if (me == members.back()) {
    nvshmemx_team_uniqueid_t made = 0;
    ASSERT_EQ(nvshmemx_team_get_uniqueid(&made), 0);
    for (int pe = 0; pe < n; ++pe) nvshmem_uint64_p(id, made, pe);
  }
  nvshmem_barrier_all();
  nvshmemx_team_uniqueid_t got = 0;
  nvshmem_getmem(&got, id, sizeof got, me);
  int index = -1;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (members[i] == me) index = static_cast<int>(i);
  if (index >= 0) {
    if (index == 0) sleep(1);  // a late member
    nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    config.uniqueid = got;
    nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
    ASSERT_EQ(
        nvshmemx_team_init(&team, &config, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, static_cast<int>(members.size()), index),
        0);
    expect_members(team, members);
    nvshmem_team_config_t back;
    nvshmem_team_get_config(team, &back);
    EXPECT_EQ(back.uniqueid, got);
    // A collective on the new team: the sum of the members' world ids.
    pe_test::write_local(ints, &me, sizeof me);
    ASSERT_EQ(nvshmem_int_sum_reduce(team, ints + 1, ints, 1), 0);
    int sum = 0, want = 0;
    for (int pe : members) want += pe;
    nvshmem_getmem(&sum, ints + 1, sizeof sum, me);
    EXPECT_EQ(sum, want);
    EXPECT_EQ(nvshmem_barrier(team), 0);
    nvshmem_team_destroy(team);
  }
  nvshmem_team_config_t bad = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  nvshmem_team_t team = 12345;
  EXPECT_NE(nvshmemx_team_init(&team, &bad, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, 1, 0), 0);  // id 0
  EXPECT_EQ(team, NVSHMEM_TEAM_INVALID);
  bad.uniqueid = got;
  EXPECT_NE(nvshmemx_team_init(&team, &bad, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, 1, 1), 0);  // index >= npes
  EXPECT_NE(nvshmemx_team_init(&team, &bad, 0, 1, 0), 0);                                  // no uniqueid in the mask
  nvshmem_barrier_all();
  nvshmem_free(ints);
  nvshmem_free(id);
}

// A team of every PE in interleaved order (even world PEs first, then odd ones) made and destroyed 3
// times, each time with 40 rounds of reductions, broadcasts and barriers on fresh values. Across fake
// hosts (2 x 2: PEs 0 and 1 on one host) a node's members are not consecutive in the team, its leader
// (lowest team index) is not its lowest world PE, and the other node's words reach a member in several
// runs (docs/teams.md, "Host synchronisation"); destroying right after the last round checks that no
// word of it lands in a cleared bank.
TEST(Teams, InterleavedMembersAcrossNodes) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  std::vector<int> members;
  for (int parity : {0, 1})
    for (int pe = parity; pe < n; pe += 2) members.push_back(pe);
  const int index = static_cast<int>(std::find(members.begin(), members.end(), me) - members.begin());
  auto *id = static_cast<nvshmemx_team_uniqueid_t *>(nvshmem_malloc(sizeof(nvshmemx_team_uniqueid_t)));
  auto *ints = static_cast<int *>(nvshmem_malloc(3 * sizeof(int)));
  ASSERT_NE(id, nullptr);
  ASSERT_NE(ints, nullptr);
  for (int life = 0; life < 3; ++life) {
    if (me == members.front()) {
      nvshmemx_team_uniqueid_t made = 0;
      ASSERT_EQ(nvshmemx_team_get_uniqueid(&made), 0);
      for (int pe = 0; pe < n; ++pe) nvshmem_uint64_p(id, made, pe);
    }
    nvshmem_barrier_all();
    nvshmem_team_config_t config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    nvshmem_getmem(&config.uniqueid, id, sizeof config.uniqueid, me);
    nvshmem_team_t team = NVSHMEM_TEAM_INVALID;
    ASSERT_EQ(nvshmemx_team_init(&team, &config, NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID, n, index), 0);
    expect_members(team, members);
    for (int round = 0; round < 40; ++round) {
      const int mine = 1000 * life + 10 * round + me, poison = -777;
      const int root = (round + life) % n;  // a team index
      int want_sum = 0, got[2] = {poison, poison};
      for (int pe = 0; pe < n; ++pe) want_sum += 1000 * life + 10 * round + pe;
      pe_test::write_local(ints, &mine, sizeof mine);
      pe_test::write_local(ints + 1, got, sizeof got);
      ASSERT_EQ(nvshmem_int_sum_reduce(team, ints + 1, ints, 1), 0);
      ASSERT_EQ(nvshmem_int_broadcast(team, ints + 2, ints, 1, root), 0);
      ASSERT_EQ(nvshmem_barrier(team), 0);
      nvshmem_getmem(got, ints + 1, sizeof got, me);
      ASSERT_EQ(got[0], want_sum) << "life " << life << ", round " << round;
      ASSERT_EQ(got[1], 1000 * life + 10 * round + members[root]) << "life " << life << ", round " << round;
    }
    nvshmem_team_destroy(team);
  }
  nvshmem_barrier_all();
  nvshmem_free(ints);
  nvshmem_free(id);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
