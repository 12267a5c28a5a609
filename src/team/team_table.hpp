// SPDX-License-Identifier: BSD-3-Clause
// The team table (docs/teams.md): NVSHMEM_MAX_TEAMS slots, the predefined teams, team creation
// agreed over the parent team through the peers seam (mapped or remote PEs alike), and the host-side team
// synchronisation every host collective is built on. May use: remote/, transport/, heap/, bootstrap/,
// common/. See src/team/README.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

#include "bootstrap/bootstrap.hpp"
#include "heap/node.hpp"
#include "heap/symmetric_heap.hpp"
#include "nvshmem_detail/device_state.h"
#include "nvshmem_detail/types.h"
#include "remote/peers.hpp"

namespace nvshm {

// A team's members by node (the PEs whose heaps map each other; each PE alone under
// NVSHMEM_DISABLE_P2P): this PE's node's team indices, ascending (the first leads the node), and the
// leader (lowest team index) of each other node. docs/teams.md, "Host synchronisation".
struct NodeGroups {
  std::vector<int> mine, leaders;
};

// One team as this PE sees it (a member: teams this PE is not in are never stored).
struct Team {
  int size = 0;          // 0: unused slot
  int my_index = -1;     // this PE's index in the team
  int start = 0;         // world PE of member 0
  int stride = 1;        // world PE of member i = start + i * stride when `pes` is empty
  std::vector<int> pes;  // members' world PEs of a team from nvshmemx_team_init
  nvshmem_team_config_t config{};
  uint64_t rounds = 0;  // host synchronisation rounds done on this team (the same on every member)
  NodeGroups nodes;     // set when the table stores the team (the members do not change)

  int world_pe(int index) const { return pes.empty() ? start + index * stride : pes[index]; }
  // This team's index of world PE `world`, or -1 when it is not a member.
  int index_of(int world) const;
};

// `t`'s members by node as PE `my_pe` sees them (Team::nodes), from every world PE's group (NodeInfo::group_of).
NodeGroups node_groups(const Team &t, const std::vector<int> &group_of, int my_pe);

// nvshm_team_device::groups of `t`, for device barriers across nodes (docs/teams.md): the team indices of this PE's
// node, ascending, then, where this PE leads the node (it has the node's lowest index), every node's leader,
// ascending (this PE among them).
std::vector<int> barrier_groups(const Team &t);

// An argument of a collective call that every member must pass alike (TeamTable::sync).
struct CollArg {
  const char *name;
  int64_t value;
};

class TeamTable {
 public:
  // Symmetric heap bytes the table's workspace takes (the runtime reserves them beyond
  // NVSHMEM_SYMMETRIC_SIZE). `ll_slot_words`: LL words per member and half of each team (0: no LL
  // words, as on the CPU backend, where no device collective runs).
  static std::size_t workspace_bytes(int max_teams, std::size_t scratch_bytes, int n_pes, std::size_t ll_slot_words);
  // Collective over all PEs: allocates and zeroes the workspace, sets up the predefined teams
  // (NVSHMEMX_TEAM_NODE: `node`; NVSHMEM_TEAM_SHARED: `shared`, the PEs whose heaps are mapped).
  static Status create(Bootstrap &boot, const NodeInfo &node, const NodeInfo &shared, SymmetricHeap &heap, Peers &peers,
                       int max_teams, std::size_t scratch_bytes, std::size_t ll_slot_words, int timeout_s,
                       std::unique_ptr<TeamTable> *out);

  int max_teams() const { return static_cast<int>(slots_.size()); }
  // The device array [max_teams] of nvshm_team_device (GPU heap), nullptr on the CPU backend.
  nvshm_team_device *device_table() const { return device_table_; }
  // The device entry of `slot` as it is in the device array (zero for an empty slot): the state
  // keeps copies of the predefined teams' entries (NVSHM_PREDEFINED_TEAMS).
  nvshm_team_device device_entry(int slot) const;
  // The team, or nullptr when `team` is not a valid team of this PE.
  const Team *find(nvshmem_team_t team) const;
  // find(), with a message naming `call` when the team is not valid.
  const Team *find(nvshmem_team_t team, const char *call) const;
  // nvshmem_team_translate_pe: -1 for an invalid team or PE, or a PE that is not in `dest`.
  int translate(nvshmem_team_t src, int src_pe, nvshmem_team_t dest) const;

  // Collective over the parent team (`call` names the API call in messages). Invalid arguments,
  // no free slot and timeouts are logged and returned; *out is NVSHMEM_TEAM_INVALID then, and on PEs
  // that are not in the new team.
  Status split_strided(nvshmem_team_t parent, int start, int stride, int size, const nvshmem_team_config_t *config,
                       long config_mask, nvshmem_team_t *out, const char *call);
  Status split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t *xconfig, long xmask,
                  nvshmem_team_t *xteam, const nvshmem_team_config_t *yconfig, long ymask, nvshmem_team_t *yteam,
                  const char *call);
  // Collective over the team's members; predefined teams are refused with a message.
  Status destroy(nvshmem_team_t team, const char *call);
  // nvshmemx_team_get_uniqueid / nvshmemx_team_init (collective over the PEs that pass the id).
  Status make_uniqueid(nvshmemx_team_uniqueid_t *id, const char *call);
  Status init_from_uniqueid(const nvshmem_team_config_t *config, long config_mask, int npes, int my_index,
                            nvshmem_team_t *out, const char *call);

  // Host synchronisation over the team's members (every member calls it, in the same order):
  // returns when every member has entered; ordered after this PE's earlier blocking transport
  // operations. Bounded by the timeout; the message names the PEs that did not arrive, or a member
  // whose process has exited. With `args` (at most 4), every member must be in the same `call` with the
  // same values: a 32-bit digest of them rides in the synchronisation's words (no extra round); a
  // mismatch is Status::symmetry on every member, with a message naming both values.
  Status sync(nvshmem_team_t team, const char *call, std::initializer_list<CollArg> args = {});

 private:
  TeamTable(Bootstrap &boot, const NodeInfo &node, const NodeInfo &mapped, SymmetricHeap &heap, Peers &peers,
            int max_teams, std::size_t scratch_bytes, std::size_t ll_slot_words, int timeout_s);
  struct Span {  // a team inside its parent: members start + i * stride, i < size
    int start, stride, size;
  };
  Status setup_workspace();
  // One round over `slot`'s team: each member contributes `mine`; values[i] receives member i's.
  Status exchange(int slot, uint32_t mine, std::vector<uint32_t> *values, const char *call);
  // After digests that differ (`digests`, this PE's is `mine`): rounds that exchange every argument,
  // then the message naming the first difference. Returns Status::symmetry (or a failed round's status).
  Status report_mismatch(int slot, uint32_t mine, const std::vector<uint32_t> &digests, const char *call,
                         std::initializer_list<CollArg> args);
  // 32 bits of this PE's free-slot mask from slot 32 * chunk on.
  uint32_t free_mask_chunk(int chunk) const;
  // Split `parent` into teams agreed on one slot; `mine` is this PE's team (size 0: none).
  Status split(nvshmem_team_t parent, const Span &mine, const nvshmem_team_config_t *config, long config_mask,
               nvshmem_team_t *out, const char *call);
  // Puts `team` in `slot` (an empty Team clears it): a slot from the workspace's reserved ones on
  // takes (or gives back) its buffers at the top of the heap; out_of_memory, with a message, when
  // symmetric allocations hold that range.
  Status install(int slot, Team team, const char *call);
  Status write_device_entry(int slot);
  // Polls n words at symmetric `words` on `pe` until each (each of the indices in `only`, when not null)
  // carries `tag` in its upper half; *seen receives the n words. Messages name word i's writer names[i];
  // `gathered_on` (or -1) is the PE whose copy of the words this PE's come from, whose missing words the
  // timeout's message names.
  Status wait_words(int pe, const uint64_t *words, int n, const std::vector<int> *only, int gathered_on, uint32_t tag,
                    const char *what, const std::vector<int> &names, std::vector<uint64_t> *seen, const char *call);

  uint64_t *sync_flags(int slot) const;
  int *world_pes(int slot) const;  // the device array [n_pes] of a team of arbitrary PEs
  int *groups(int slot) const;     // the device array [n_pes + 1] of nvshm_team_device::groups
  uint64_t *host_words(int slot) const { return sync_flags(slot) + 2 * static_cast<std::size_t>(n_pes_) + 32; }
  uint64_t *rendezvous(int entry) const;
  // The slot's buffers, [scratch | LL words]: in the workspace for the first slots, else at the top of
  // the heap while the slot holds a team (nullptr otherwise).
  char *buffers(int slot) const;
  // Heap offset of a later slot's buffers (SIZE_MAX: the heap is too small).
  std::size_t top_offset(int slot) const;
  // NVSHM_TEAM_LL_WORDS(n_pes, ll_slot_words_) words of the slot (device LL collectives)
  uint64_t *ll_words(int slot) const;

  Bootstrap &boot_;
  const NodeInfo &node_;    // the runtime's, alive as long as the table
  const NodeInfo &mapped_;  // the runtime's: the PEs whose heaps this PE maps, and every PE's group
  SymmetricHeap &heap_;
  Peers &peers_;
  int my_pe_, n_pes_;
  std::size_t scratch_bytes_, ll_slot_words_;
  int timeout_s_;
  std::vector<Team> slots_;
  char *pool_ = nullptr;
  nvshm_team_device *device_table_ = nullptr;
  uint64_t uniqueid_serial_ = 0;
};

}  // namespace nvshm
