// SPDX-License-Identifier: BSD-3-Clause
#include "team/team_table.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <utility>

#include "common/log.hpp"

namespace nvshm {
namespace {
// nvshmemx_team_init rendezvous entries per PE: a PE may have this many team unique ids in use at once.
constexpr int kRendezvousEntries = 16;
constexpr std::size_t kAlign = 256;
constexpr int kMaxTeamsLimit = 65536;  // bounds the free-slot agreement (one round per 32 slots)

std::size_t round_up(std::size_t v, std::size_t a) {
  return (v + a - 1) / a * a;
}

// Team slots whose buffers (collective scratch and LL words) the init-time workspace holds: 32, the
// default NVSHMEM_MAX_TEAMS before NVSHMEM 3.5, so that a job pays what it paid then. A team in a later
// slot takes its buffers from the top of the symmetric heap when it is created (docs/teams.md).
constexpr int kSlotsWithReservedBuffers = 32;

// Where each part of the workspace lies, as byte offsets into the pool (docs/teams.md), and the size of
// one slot's buffers: [scratch | LL words].
struct Layout {
  int reserved;  // slots whose buffers are in the workspace: 0 .. reserved - 1
  std::size_t sync_words, mask_words, rendezvous_words, ll_words, scratch_stride, buffer_stride;
  std::size_t epochs, pes, groups, rendezvous, table, buffers, total;
  Layout(int max_teams, std::size_t scratch_bytes, int n_pes, std::size_t ll_slot_words) {
    const std::size_t t = static_cast<std::size_t>(max_teams), n = static_cast<std::size_t>(n_pes);
    reserved = std::min(max_teams, kSlotsWithReservedBuffers);
    sync_words = NVSHM_TEAM_SYNC_WORDS(n_pes);
    mask_words = (t + 63) / 64;
    rendezvous_words = mask_words + n;
    ll_words = NVSHM_TEAM_LL_WORDS(n, ll_slot_words);
    scratch_stride = round_up(scratch_bytes, kAlign);
    buffer_stride = scratch_stride + round_up(ll_words * sizeof(uint64_t), kAlign);
    epochs = t * sync_words * sizeof(uint64_t);
    pes = epochs + t * NVSHM_TEAM_EPOCH_WORDS * sizeof(uint64_t);
    groups = pes + round_up(t * n * sizeof(int), sizeof(uint64_t));
    rendezvous = groups + round_up(t * (n + 1) * sizeof(int), sizeof(uint64_t));
    table = rendezvous + kRendezvousEntries * rendezvous_words * sizeof(uint64_t);
    buffers = round_up(table + t * sizeof(nvshm_team_device), kAlign);
    total = buffers + static_cast<std::size_t>(reserved) * buffer_stride;
  }
};

std::string pe_list(const std::vector<int> &pes) {
  std::string s;
  for (int pe : pes) s += (s.empty() ? "" : ", ") + std::to_string(pe);
  return s;
}
}  // namespace

int Team::index_of(int world) const {
  if (size == 0) return -1;
  if (!pes.empty()) {
    auto it = std::find(pes.begin(), pes.end(), world);
    return it == pes.end() ? -1 : static_cast<int>(it - pes.begin());
  }
  const int d = world - start;
  if (d < 0 || d % stride != 0 || d / stride >= size) return -1;
  return d / stride;
}

std::size_t TeamTable::workspace_bytes(int max_teams, std::size_t scratch_bytes, int n_pes, std::size_t ll_slot_words) {
  if (max_teams < NVSHMEM_TEAMS_MIN || max_teams > kMaxTeamsLimit) return 0;  // create() reports it
  return Layout(max_teams, scratch_bytes, n_pes, ll_slot_words).total;
}

TeamTable::TeamTable(Bootstrap &boot, const NodeInfo &node, const NodeInfo &mapped, SymmetricHeap &heap, Peers &peers,
                     int max_teams, std::size_t scratch_bytes, std::size_t ll_slot_words, int timeout_s)
    : boot_(boot),
      node_(node),
      mapped_(mapped),
      heap_(heap),
      peers_(peers),
      my_pe_(boot.rank()),
      n_pes_(boot.size()),
      scratch_bytes_(scratch_bytes),
      ll_slot_words_(ll_slot_words),
      timeout_s_(timeout_s),
      slots_(static_cast<std::size_t>(max_teams)) {}

Status TeamTable::create(Bootstrap &boot, const NodeInfo &node, const NodeInfo &shared, SymmetricHeap &heap,
                         Peers &peers, int max_teams, std::size_t scratch_bytes, std::size_t ll_slot_words,
                         int timeout_s, std::unique_ptr<TeamTable> *out) {
  constexpr const char *kInit = "nvshmem_init";
  if (max_teams < NVSHMEM_TEAMS_MIN || max_teams > kMaxTeamsLimit) {
    log_error(kInit, "NVSHMEM_MAX_TEAMS=%d is outside [%d, %d] (slots 0..%d hold the predefined teams)", max_teams,
              NVSHMEM_TEAMS_MIN, kMaxTeamsLimit, NVSHMEM_TEAMS_MIN - 1);
    return Status::invalid_value;
  }
  std::unique_ptr<TeamTable> t(
      new TeamTable(boot, node, shared, heap, peers, max_teams, scratch_bytes, ll_slot_words, timeout_s));
  const Layout layout(max_teams, scratch_bytes, boot.size(), ll_slot_words);
  void *pool = nullptr;
  NVSHM_TRY(heap.allocate(boot, layout.total, kAlign, kInit, &pool));
  t->pool_ = static_cast<char *>(pool);
  NVSHM_TRY(heap.zero(pool, layout.buffers));  // everything but the slots' buffers, then their LL words
  for (int slot = 0; slot < layout.reserved && layout.ll_words; ++slot)
    NVSHM_TRY(heap.zero(t->ll_words(slot), layout.ll_words * sizeof(uint64_t)));
  if (heap.kind() == HeapKind::device)
    t->device_table_ = reinterpret_cast<nvshm_team_device *>(t->pool_ + layout.table);

  const int me = boot.rank(), node_n = static_cast<int>(node.pes.size());
  Team world;
  world.size = boot.size();
  world.my_index = me;
  t->slots_[NVSHMEM_TEAM_WORLD] = world;
  // A team of consecutive world PEs, or of the listed ones: a node, or the PEs whose heaps are mapped.
  auto node_team = [](const NodeInfo &n) {
    Team team;
    team.size = static_cast<int>(n.pes.size());
    team.my_index = n.my_index;
    team.start = n.pes.front();
    if (!n.consecutive()) team.pes = n.pes;
    return team;
  };
  t->slots_[NVSHMEM_TEAM_SHARED] = node_team(shared);
  t->slots_[NVSHMEMX_TEAM_NODE] = node_team(node);
  // No multicast here: the multicast-shared team (NVSHMEM 3.7) is NVSHMEM_TEAM_SHARED's PEs, in a slot of its
  // own as NVIDIA's takes one (its collectives keep their own sync words and scratch).
  t->slots_[NVSHMEM_TEAM_MC_SHARED] = node_team(shared);
  Team same;  // the PEs with this PE's node-local index, one per node (nodes of equal size, in blocks)
  same.size = node.n_nodes;
  same.my_index = (me - node.my_index) / node_n;
  same.start = node.my_index;
  same.stride = node_n;
  t->slots_[NVSHMEMX_TEAM_SAME_MYPE_NODE] = same;
  for (Team &team : t->slots_) {
    team.config = NVSHMEM_TEAM_CONFIG_INITIALIZER;
    if (team.size) team.nodes = node_groups(team, t->mapped_.group_of, t->my_pe_);
  }
  // Slots 4 and 5 (NVSHMEM's internal same-GPU and GPU-leader teams) stay reserved and empty.
  for (int slot = 0; slot < max_teams; ++slot) NVSHM_TRY(t->write_device_entry(slot));
  *out = std::move(t);
  return Status::ok;
}

uint64_t *TeamTable::sync_flags(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  return reinterpret_cast<uint64_t *>(pool_) + static_cast<std::size_t>(slot) * l.sync_words;
}

std::size_t TeamTable::top_offset(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  const std::size_t below_top = static_cast<std::size_t>(slot - l.reserved + 1) * l.buffer_stride;
  const std::size_t top = heap_.size() / kAlign * kAlign;
  return below_top <= top ? top - below_top : SIZE_MAX;
}

char *TeamTable::buffers(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  if (slot < l.reserved) return pool_ + l.buffers + static_cast<std::size_t>(slot) * l.buffer_stride;
  return slots_[slot].size ? heap_.local() + top_offset(slot) : nullptr;
}

uint64_t *TeamTable::ll_words(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  return reinterpret_cast<uint64_t *>(buffers(slot) + l.scratch_stride);
}

uint64_t *TeamTable::rendezvous(int entry) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  return reinterpret_cast<uint64_t *>(pool_ + l.rendezvous) + static_cast<std::size_t>(entry) * l.rendezvous_words;
}

nvshm_team_device TeamTable::device_entry(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  const Team &t = slots_[slot];
  nvshm_team_device d{};
  d.size = t.size;
  d.my_pe = t.size ? t.my_index : -1;
  d.start = t.start;
  d.stride = t.pes.empty() ? t.stride : 0;
  if (!t.pes.empty()) d.world_pes = world_pes(slot);
  d.sync_flags = sync_flags(slot);
  d.part_flags = d.sync_flags + 4 * static_cast<std::size_t>(n_pes_) + 64;  // NVSHM_TEAM_SYNC_WORDS's last part
  d.sync_epoch =
      reinterpret_cast<uint64_t *>(pool_ + l.epochs) + static_cast<std::size_t>(slot) * NVSHM_TEAM_EPOCH_WORDS;
  d.scratch = buffers(slot);  // NULL: an empty slot without buffers of its own
  d.scratch_bytes = scratch_bytes_;
  d.ll_words = ll_slot_words_ && d.scratch ? ll_words(slot) : nullptr;
  d.ll_slot_words = ll_slot_words_;
  for (int i = 0; i < t.size && !d.remote; ++i) d.remote = heap_.translate(heap_.local(), t.world_pe(i)) == nullptr;
  if (d.remote) {
    const std::vector<int> groups = barrier_groups(t);
    d.groups = this->groups(slot);
    d.node_members = static_cast<int>(t.nodes.mine.size());
    d.leaders = static_cast<int>(groups.size()) - d.node_members;
    if (d.leaders > 0)
      d.leader_index = static_cast<int>(std::find(groups.begin() + d.node_members, groups.end(), t.my_index) -
                                        (groups.begin() + d.node_members));
  }
  return d;
}

std::vector<int> barrier_groups(const Team &t) {
  std::vector<int> groups = t.nodes.mine;
  if (!groups.empty() && groups.front() == t.my_index) {  // this PE leads its node
    std::vector<int> leaders = t.nodes.leaders;
    leaders.insert(std::upper_bound(leaders.begin(), leaders.end(), t.my_index), t.my_index);
    groups.insert(groups.end(), leaders.begin(), leaders.end());
  }
  return groups;
}

int *TeamTable::world_pes(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  return reinterpret_cast<int *>(pool_ + l.pes) + static_cast<std::size_t>(slot) * n_pes_;
}

int *TeamTable::groups(int slot) const {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  return reinterpret_cast<int *>(pool_ + l.groups) + static_cast<std::size_t>(slot) * (n_pes_ + 1);
}

Status TeamTable::write_device_entry(int slot) {
  if (!device_table_) return Status::ok;
  const Team &t = slots_[slot];
  if (!t.pes.empty()) NVSHM_TRY(peers_.mapped().put(world_pes(slot), t.pes.data(), t.pes.size() * sizeof(int)));
  const nvshm_team_device d = device_entry(slot);
  if (d.groups) {
    const std::vector<int> groups = barrier_groups(t);
    NVSHM_TRY(peers_.mapped().put(this->groups(slot), groups.data(), groups.size() * sizeof(int)));
  }
  return peers_.mapped().put(device_table_ + slot, &d, sizeof d);
}

Status TeamTable::install(int slot, Team team, const char *call) {
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  if (slot >= l.reserved && team.size == 0) {
    heap_.give_back_range(top_offset(slot));
  } else if (slot >= l.reserved) {
    // Every member sees the same symmetric allocations, so all of them take the range or none does.
    const std::size_t offset = top_offset(slot);
    if (offset == SIZE_MAX || !heap_.take_range(offset, l.buffer_stride)) {
      log_error(call,
                "team slot %d needs %zu bytes at the top of the symmetric heap for its collective scratch and LL "
                "words (slots %d and up take them when their team is created; docs/teams.md), but %s; free "
                "symmetric memory, destroy teams or raise NVSHMEM_SYMMETRIC_SIZE",
                slot, l.buffer_stride, l.reserved,
                offset == SIZE_MAX ? "the heap is smaller than that" : "symmetric allocations hold part of them");
      return Status::out_of_memory;
    }
  }
  team.rounds = 0;
  if (team.size) team.nodes = node_groups(team, mapped_.group_of, my_pe_);
  slots_[slot] = std::move(team);
  if (slot >= l.reserved && slots_[slot].size && l.ll_words)
    NVSHM_TRY(heap_.zero(ll_words(slot), l.ll_words * sizeof(uint64_t)));
  return write_device_entry(slot);
}

const Team *TeamTable::find(nvshmem_team_t team) const {
  if (team < 0 || team >= max_teams() || slots_[team].size == 0) return nullptr;
  return &slots_[team];
}

const Team *TeamTable::find(nvshmem_team_t team, const char *call) const {
  const Team *t = find(team);
  if (!t) log_error(call, "team %d is not a valid team of this PE", team);
  return t;
}

int TeamTable::translate(nvshmem_team_t src, int src_pe, nvshmem_team_t dest) const {
  const Team *s = find(src), *d = find(dest);
  if (!s || !d || src_pe < 0 || src_pe >= s->size) return -1;
  return d->index_of(s->world_pe(src_pe));
}

namespace {
// The writers (names[i]) of the words (of those at the indices in `only`, when not null) that do not
// carry `tag` in their upper half.
std::vector<int> late_writers(const std::vector<uint64_t> &words, const std::vector<int> *only, uint32_t tag,
                              const std::vector<int> &names) {
  std::vector<int> late;
  auto check = [&](int i) {
    if (static_cast<uint32_t>(words[i] >> 32) != tag) late.push_back(names[i]);
  };
  if (only)
    for (int i : *only) check(i);
  else
    for (std::size_t i = 0; i < words.size(); ++i) check(static_cast<int>(i));
  return late;
}
}  // namespace

Status TeamTable::wait_words(int pe, const uint64_t *words, int n, const std::vector<int> *only, int gathered_on,
                             uint32_t tag, const char *what, const std::vector<int> &names, std::vector<uint64_t> *seen,
                             const char *call) {
  const Target at = peers_.target(words, pe);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto next_check = std::chrono::duration_cast<clock::duration>(std::chrono::milliseconds(100));
  seen->assign(static_cast<std::size_t>(n), 0);
  for (unsigned polls = 0;; ++polls) {
    NVSHM_TRY(peers_.get_words(seen->data(), at, static_cast<std::size_t>(n)));
    std::vector<int> missing = late_writers(*seen, only, tag, names);
    if (missing.empty()) break;
    const auto waited = clock::now() - t0;
    // A missing member whose process has exited never arrives, and words on a PE that has exited are
    // never written: say so now rather than at the timeout.
    auto gone = [&](int who, const char *when) {
      if (peers_.unreachable(who)) {  // a remote PE: the engine saw its process or the network fail
        log_error(call, "PE %d is unreachable (its process or the network failed)%s; this call cannot complete", who,
                  when);
        return true;
      }
      const auto index = std::find(node_.pes.begin(), node_.pes.end(), who) - node_.pes.begin();
      if (index == static_cast<std::ptrdiff_t>(node_.pes.size()) || !node_.has_exited(static_cast<int>(index)))
        return false;
      log_error(call, "PE %d (pid %lld) has exited (or crashed)%s; this call cannot complete", who,
                static_cast<long long>(node_.pids[index]), when);
      return true;
    };
    if (waited >= next_check) {
      next_check = waited + std::chrono::milliseconds(100);
      for (int who : missing)
        if (gone(who, " before it arrived")) return Status::peer_failed;
      if (pe != my_pe_ && gone(pe, " (this PE polls words on it)")) return Status::peer_failed;
    }
    if (waited > std::chrono::seconds(timeout_s_)) {
      // The other nodes' words reach this PE from `gathered_on`: name those missing there, or, when all
      // are there, that PE as the one that did not pass them on.
      std::vector<uint64_t> there(static_cast<std::size_t>(n));
      if (gathered_on >= 0 &&
          peers_.get_words(there.data(), peers_.target(words, gathered_on), there.size()) == Status::ok) {
        const std::vector<int> missing_there = late_writers(there, nullptr, tag, names);
        if (missing_there.empty()) {
          log_error(call,
                    "timed out after %d s (NVSHMEM_BOOTSTRAP_TIMEOUT): every PE arrived at PE %d (this node's "
                    "leader), which has not passed on the words of %s %s",
                    timeout_s_, gathered_on, what, pe_list(missing).c_str());
          return Status::timeout;
        }
        missing = missing_there;
      }
      log_error(call, "timed out after %d s (NVSHMEM_BOOTSTRAP_TIMEOUT): %s %s did not arrive", timeout_s_, what,
                pe_list(missing).c_str());
      return Status::timeout;
    }
    if (polls < 64) continue;
    if (waited < std::chrono::milliseconds(1))
      sched_yield();
    else
      usleep(50);
  }
  std::atomic_thread_fence(std::memory_order_acquire);  // the data written before the words
  return Status::ok;
}

NodeGroups node_groups(const Team &t, const std::vector<int> &group_of, int my_pe) {
  NodeGroups g;
  std::vector<char> seen(group_of.size(), 0);
  const int mine = group_of[my_pe];
  for (int i = 0; i < t.size; ++i) {
    const int group = group_of[t.world_pe(i)];
    if (group == mine)
      g.mine.push_back(i);
    else if (!std::exchange(seen[group], 1))
      g.leaders.push_back(i);
  }
  return g;
}

Status TeamTable::exchange(int slot, uint32_t mine, std::vector<uint32_t> *values, const char *call) {
  Team &t = slots_[slot];
  const uint64_t round = ++t.rounds;
  const uint32_t tag = static_cast<uint32_t>(round);
  // Two banks used in turn: a member can only be one round ahead, so it never overwrites a word of
  // the round a slower member is still reading (docs/teams.md, "Host synchronisation").
  uint64_t *bank = host_words(slot) + (round & 1) * static_cast<std::size_t>(n_pes_);
  const uint64_t word = (static_cast<uint64_t>(tag) << 32) | mine;
  // Groups: the members whose heaps map each other (a node; a PE alone without P2P). Each member
  // writes its word into every member of its group (loads and stores); each group's member of lowest
  // index leads it: once its group's words are in its bank it relays them to the other groups' leaders
  // in one batch, and once all words are there it copies the other groups' words into its members'
  // banks. Every member polls only its own bank, so none reads a bank its owner may clear (team destroy).
  const std::vector<int> &group = t.nodes.mine, &leaders = t.nodes.leaders;
  const int my_group = mapped_.group_of[my_pe_];
  std::vector<int> names(static_cast<std::size_t>(t.size));
  for (int i = 0; i < t.size; ++i) names[i] = t.world_pe(i);
  for (int i : group) {
    if (i == t.my_index) continue;
    NVSHM_TRY(
        peers_.atomic(peers_.target(bank + t.my_index, names[i]), AtomicArgs{AtomicOp::set, 8, word, 0}, nullptr));
  }
  NVSHM_TRY(peers_.mapped().put(bank + t.my_index, &word, sizeof word));  // own word: the wait checks every member
  const int leader = names[group.front()];
  std::vector<uint64_t> seen;
  if (leader == my_pe_ && !leaders.empty()) {
    NVSHM_TRY(wait_words(my_pe_, bank, t.size, &group, -1, tag, "PEs", names, &seen, call));
    std::vector<std::pair<Target, uint64_t>> relay;
    for (int l : leaders)
      for (int i : group) relay.emplace_back(peers_.target(bank + i, names[l]), seen[i]);
    const Status st = peers_.set_words(relay);
    if (st != Status::ok) {  // a remote PE that failed (the engine said why): name the call too
      std::vector<int> failed, all;
      for (int l : leaders) (peers_.unreachable(names[l]) ? failed : all).push_back(names[l]);
      log_error(call, "team %d's synchronisation cannot reach PE %s (%s)", slot,
                pe_list(failed.empty() ? all : failed).c_str(), status_name(st));
      return st;
    }
    NVSHM_TRY(wait_words(my_pe_, bank, t.size, nullptr, -1, tag, "PEs", names, &seen, call));
    // The other groups' words, in runs of consecutive indices: each word written is one its member waits
    // for, so none lands after that member has finished the round.
    for (std::size_t k = 1; k < group.size(); ++k)
      for (int i = 0; i < t.size;) {
        if (mapped_.group_of[names[i]] == my_group) {
          ++i;
          continue;
        }
        int end = i;
        while (end < t.size && mapped_.group_of[names[end]] != my_group) ++end;
        NVSHM_TRY(peers_.put(peers_.target(bank + i, names[group[k]]), &seen[i], (end - i) * sizeof(uint64_t)));
        i = end;
      }
  } else {
    NVSHM_TRY(wait_words(my_pe_, bank, t.size, nullptr, leaders.empty() ? -1 : leader, tag, "PEs", names, &seen, call));
  }
  values->resize(seen.size());
  for (std::size_t i = 0; i < seen.size(); ++i) (*values)[i] = static_cast<uint32_t>(seen[i]);
  return Status::ok;
}

namespace {
constexpr std::size_t kMaxCollArgs = 4;

// FNV-1a over the call's name and the arguments' values; never 0, which a sync without arguments sends.
uint32_t digest(const char *call, std::initializer_list<CollArg> args) {
  if (args.size() == 0) return 0;
  uint64_t h = 14695981039346656037ull;
  auto mix = [&h](uint8_t byte) { h = (h ^ byte) * 1099511628211ull; };
  for (const char *c = call; *c; ++c) mix(static_cast<uint8_t>(*c));
  for (const CollArg &a : args)
    for (int i = 0; i < 8; ++i) mix(static_cast<uint8_t>(a.value >> (8 * i)));
  const uint32_t d = static_cast<uint32_t>(h ^ (h >> 32));
  return d ? d : 1;
}
}  // namespace

Status TeamTable::sync(nvshmem_team_t team, const char *call, std::initializer_list<CollArg> args) {
  if (!find(team, call)) return Status::invalid_value;
  const uint32_t mine = digest(call, args);
  std::vector<uint32_t> values;
  NVSHM_TRY(exchange(team, mine, &values, call));
  for (uint32_t v : values)
    if (v != mine) return report_mismatch(team, mine, values, call, args);
  return Status::ok;
}

Status TeamTable::report_mismatch(int slot, uint32_t mine, const std::vector<uint32_t> &digests, const char *call,
                                  std::initializer_list<CollArg> args) {
  // Every member saw the same digests, so every member is here and does the same rounds.
  const Team &t = slots_[slot];
  std::vector<std::vector<int64_t>> values(kMaxCollArgs, std::vector<int64_t>(static_cast<std::size_t>(t.size)));
  std::vector<uint32_t> half;
  for (std::size_t k = 0; k < kMaxCollArgs; ++k) {
    const uint64_t v = k < args.size() ? static_cast<uint64_t>(args.begin()[k].value) : 0;
    NVSHM_TRY(exchange(slot, static_cast<uint32_t>(v), &half, call));
    std::vector<uint32_t> low = half;
    NVSHM_TRY(exchange(slot, static_cast<uint32_t>(v >> 32), &half, call));
    for (int i = 0; i < t.size; ++i) values[k][i] = static_cast<int64_t>(static_cast<uint64_t>(half[i]) << 32 | low[i]);
  }
  int other = 0;
  while (digests[other] == mine) ++other;
  const int other_pe = t.world_pe(other);
  for (std::size_t k = 0; k < args.size() && k < kMaxCollArgs; ++k) {
    const CollArg &a = args.begin()[k];
    if (values[k][other] == a.value) continue;
    log_error(call,
              "PE %d passed %s=%lld but PE %d (this PE) passed %s=%lld; every PE of team %d must pass the same "
              "arguments",
              other_pe, a.name, static_cast<long long>(values[k][other]), my_pe_, a.name,
              static_cast<long long>(a.value), slot);
    return Status::symmetry;
  }
  if (digests[other] == 0)
    log_error(call,
              "PE %d is in a synchronisation of team %d (nvshmem_barrier, nvshmem_team_sync, or the end of another "
              "collective) while this PE (%d) is in %s; every PE of the team must make the same collective calls "
              "in the same order",
              other_pe, slot, my_pe_, call);
  else if (args.size() == 0)
    log_error(call,
              "PE %d is in another collective call (with arguments) on team %d while this PE (%d) is in a "
              "synchronisation; every PE of the team must make the same collective calls in the same order",
              other_pe, slot, my_pe_);
  else
    log_error(call,
              "PE %d is in another collective call on team %d than this PE (%d), or passed other arguments; every PE "
              "of the team must make the same collective calls in the same order",
              other_pe, slot, my_pe_);
  return Status::symmetry;
}

uint32_t TeamTable::free_mask_chunk(int chunk) const {
  uint32_t mask = 0;
  for (int bit = 0; bit < 32; ++bit) {
    const int slot = chunk * 32 + bit;
    if (slot >= NVSHMEM_TEAMS_MIN && slot < max_teams() && slots_[slot].size == 0) mask |= 1u << bit;
  }
  return mask;
}

namespace {
nvshmem_team_config_t effective_config(const nvshmem_team_config_t *config, long mask) {
  nvshmem_team_config_t c = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  if (config && (mask & NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS)) c.num_contexts = config->num_contexts;
  if (config && (mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID)) c.uniqueid = config->uniqueid;
  return c;
}

void log_out_of_slots(const char *call, int max_teams, const char *who) {
  log_error(call,
            "no team slot is free on every PE of %s: NVSHMEM_MAX_TEAMS=%d slots (%d predefined); destroy teams "
            "that are no longer needed or raise NVSHMEM_MAX_TEAMS",
            who, max_teams, NVSHMEM_TEAMS_MIN);
}
}  // namespace

Status TeamTable::split(nvshmem_team_t parent, const Span &mine, const nvshmem_team_config_t *config, long config_mask,
                        nvshmem_team_t *out, const char *call) {
  const Team &p = slots_[parent];
  // Agree on the lowest slot free on every member of the parent, 32 slots per round; every
  // member sees the same AND, so all leave the loop at the same round.
  int slot = -1;
  std::vector<uint32_t> values;
  for (int chunk = 0; chunk * 32 < max_teams() && slot < 0; ++chunk) {
    NVSHM_TRY(exchange(parent, free_mask_chunk(chunk), &values, call));
    uint32_t all = ~0u;
    for (uint32_t v : values) all &= v;
    if (all) slot = chunk * 32 + __builtin_ctz(all);
  }
  if (slot < 0) {
    log_out_of_slots(call, max_teams(), "the parent team");
    return Status::out_of_memory;
  }
  if (mine.size == 0) return Status::ok;
  Team t;
  t.size = mine.size;
  t.my_index = (p.my_index - mine.start) / mine.stride;
  if (p.pes.empty()) {
    t.start = p.world_pe(mine.start);
    t.stride = p.stride * mine.stride;
  } else {
    for (int i = 0; i < mine.size; ++i) t.pes.push_back(p.world_pe(mine.start + i * mine.stride));
    t.start = t.pes.front();
  }
  t.config = effective_config(config, config_mask);
  NVSHM_TRY(install(slot, std::move(t), call));
  *out = slot;
  return Status::ok;
}

Status TeamTable::split_strided(nvshmem_team_t parent, int start, int stride, int size,
                                const nvshmem_team_config_t *config, long config_mask, nvshmem_team_t *out,
                                const char *call) {
  *out = NVSHMEM_TEAM_INVALID;
  const Team *p = find(parent);
  if (!p) {
    log_error(call, "parent team %d is not a valid team of this PE", parent);
    return Status::invalid_value;
  }
  // Every member must pass the same arguments (checked before their validity, so that a PE with
  // different, invalid ones does not leave the others waiting).
  NVSHM_TRY(sync(parent, call, {{"start", start}, {"stride", stride}, {"size", size}, {"config_mask", config_mask}}));
  const char *cause = nullptr;
  if (size < 1)
    cause = "size must be at least 1";
  else if (start < 0 || start >= p->size)
    cause = "start must be a PE index of the parent team";
  else if (stride < 1)
    cause = "stride must be at least 1";
  else if (static_cast<long long>(start) + static_cast<long long>(size - 1) * stride >= p->size)
    cause = "the last PE, start + (size - 1) * stride, is past the parent team";
  else if (config_mask != 0 && !config)
    cause = "config is NULL but config_mask is not 0";
  if (cause) {
    log_error(call, "invalid arguments start=%d stride=%d size=%d for parent team %d of %d PEs: %s", start, stride,
              size, parent, p->size, cause);
    return Status::invalid_value;
  }
  const int d = p->my_index - start;
  const bool member = d >= 0 && d % stride == 0 && d / stride < size;
  return split(parent, member ? Span{start, stride, size} : Span{0, 1, 0}, config, config_mask, out, call);
}

Status TeamTable::split_2d(nvshmem_team_t parent, int xrange, const nvshmem_team_config_t *xconfig, long xmask,
                           nvshmem_team_t *xteam, const nvshmem_team_config_t *yconfig, long ymask,
                           nvshmem_team_t *yteam, const char *call) {
  *xteam = *yteam = NVSHMEM_TEAM_INVALID;
  const Team *p = find(parent);
  if (!p) {
    log_error(call, "parent team %d is not a valid team of this PE", parent);
    return Status::invalid_value;
  }
  NVSHM_TRY(sync(parent, call, {{"xrange", xrange}, {"xconfig_mask", xmask}, {"yconfig_mask", ymask}}));
  if (xrange < 1 || (xmask != 0 && !xconfig) || (ymask != 0 && !yconfig)) {
    log_error(call, "invalid arguments for parent team %d: xrange=%d must be at least 1%s", parent, xrange,
              (xmask && !xconfig) || (ymask && !yconfig) ? ", and a config is NULL with a non-zero mask" : "");
    return Status::invalid_value;
  }
  const int n = p->size, x = std::min(xrange, n), me = p->my_index;
  // Every row of x PEs is one x-team and every column one y-team; all rows (all columns) share one slot.
  const int row_start = me / x * x, column = me % x;
  NVSHM_TRY(split(parent, Span{row_start, 1, std::min(x, n - row_start)}, xconfig, xmask, xteam, call));
  return split(parent, Span{column, x, (n - column + x - 1) / x}, yconfig, ymask, yteam, call);
}

Status TeamTable::destroy(nvshmem_team_t team, const char *call) {
  if (team == NVSHMEM_TEAM_INVALID) return Status::ok;
  if (!find(team, call)) return Status::invalid_value;
  if (team < NVSHMEM_TEAMS_MIN) {
    log_error(call,
              "team %d is a predefined team; only teams created by a split or nvshmemx_team_init can be destroyed",
              team);
    return Status::invalid_value;
  }
  // After this round no member writes this PE's words of the slot any more, and no member reuses
  // the slot before this PE offers it again (after zeroing), so the next team starts from zeros.
  NVSHM_TRY(peers_.quiet());
  NVSHM_TRY(sync(team, call));
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  NVSHM_TRY(heap_.zero(sync_flags(team), l.sync_words * sizeof(uint64_t)));
  NVSHM_TRY(heap_.zero(ll_words(team), l.ll_words * sizeof(uint64_t)));
  NVSHM_TRY(heap_.zero(pool_ + l.epochs + static_cast<std::size_t>(team) * NVSHM_TEAM_EPOCH_WORDS * sizeof(uint64_t),
                       NVSHM_TEAM_EPOCH_WORDS * sizeof(uint64_t)));
  return install(team, Team{}, call);
}

Status TeamTable::make_uniqueid(nvshmemx_team_uniqueid_t *id, const char *call) {
  if (!id) {
    log_error(call, "uniqueid is NULL");
    return Status::invalid_value;
  }
  if (static_cast<uint32_t>(++uniqueid_serial_) == 0) ++uniqueid_serial_;  // 0 marks an id as invalid
  const uint32_t serial = static_cast<uint32_t>(uniqueid_serial_);
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  // The entry: the AND of the members' free-slot masks, then one word per member.
  std::vector<uint64_t> entry(l.rendezvous_words, 0);
  std::fill(entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(l.mask_words), ~0ull);
  NVSHM_TRY(peers_.mapped().put(rendezvous(static_cast<int>(serial % kRendezvousEntries)), entry.data(),
                                entry.size() * sizeof(uint64_t)));
  *id = (static_cast<uint64_t>(my_pe_ + 1) << 32) | serial;
  return Status::ok;
}

Status TeamTable::init_from_uniqueid(const nvshmem_team_config_t *config, long config_mask, int npes, int my_index,
                                     nvshmem_team_t *out, const char *call) {
  *out = NVSHMEM_TEAM_INVALID;
  if (!config || !(config_mask & NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID)) {
    log_error(call,
              "needs config->uniqueid (from nvshmemx_team_get_uniqueid) and NVSHMEM_TEAM_CONFIG_MASK_UNIQUEID "
              "in config_mask");
    return Status::invalid_value;
  }
  const int owner = static_cast<int>(config->uniqueid >> 32) - 1;
  const uint32_t serial = static_cast<uint32_t>(config->uniqueid);
  if (owner < 0 || owner >= n_pes_ || serial == 0) {
    log_error(call, "uniqueid %#llx did not come from nvshmemx_team_get_uniqueid",
              static_cast<unsigned long long>(config->uniqueid));
    return Status::invalid_value;
  }
  if (npes < 1 || npes > n_pes_ || my_index < 0 || my_index >= npes) {
    log_error(call, "invalid arguments npes=%d pe_idx_in_team=%d: need 1 <= npes <= %d and 0 <= pe_idx_in_team < npes",
              npes, my_index, n_pes_);
    return Status::invalid_value;
  }
  const Layout l(max_teams(), scratch_bytes_, n_pes_, ll_slot_words_);
  uint64_t *entry = rendezvous(static_cast<int>(serial % kRendezvousEntries));  // on the id's owner
  // AND this PE's free-slot mask into the id owner's entry, then announce this PE; a member that
  // sees every announcement sees every mask.
  for (std::size_t w = 0; w < l.mask_words; ++w) {
    const uint64_t mask = static_cast<uint64_t>(free_mask_chunk(static_cast<int>(2 * w))) |
                          static_cast<uint64_t>(free_mask_chunk(static_cast<int>(2 * w + 1))) << 32;
    NVSHM_TRY(peers_.atomic(peers_.target(entry + w, owner), AtomicArgs{AtomicOp::and_, 8, mask, 0}, nullptr));
  }
  const uint64_t me = (static_cast<uint64_t>(serial) << 32) | static_cast<uint32_t>(my_pe_ + 1);
  NVSHM_TRY(peers_.atomic(peers_.target(entry + l.mask_words + my_index, owner), AtomicArgs{AtomicOp::set, 8, me, 0},
                          nullptr));
  std::vector<int> indices(static_cast<std::size_t>(npes));
  for (int i = 0; i < npes; ++i) indices[i] = i;
  std::vector<uint64_t> seen;
  NVSHM_TRY(wait_words(owner, entry + l.mask_words, npes, nullptr, -1, serial, "the PEs with team indices", indices,
                       &seen, call));
  std::vector<uint64_t> masks(l.mask_words);
  NVSHM_TRY(peers_.get(masks.data(), peers_.target(entry, owner), masks.size() * sizeof(uint64_t)));
  Team t;
  t.size = npes;
  t.my_index = my_index;
  for (uint64_t w : seen) t.pes.push_back(static_cast<int>(static_cast<uint32_t>(w)) - 1);
  std::vector<int> sorted = t.pes;
  std::sort(sorted.begin(), sorted.end());
  if (t.pes[my_index] != my_pe_ || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    log_error(call, "the PEs of uniqueid %#llx disagree: team members (world PEs) %s for pe_idx_in_team 0..%d",
              static_cast<unsigned long long>(config->uniqueid), pe_list(t.pes).c_str(), npes - 1);
    return Status::invalid_value;
  }
  int slot = -1;
  for (int s = NVSHMEM_TEAMS_MIN; s < max_teams() && slot < 0; ++s)
    if (masks[s / 64] >> (s % 64) & 1) slot = s;
  if (slot < 0) {
    log_out_of_slots(call, max_teams(), "the new team");
    return Status::out_of_memory;
  }
  t.start = t.pes.front();
  t.config = effective_config(config, config_mask);
  NVSHM_TRY(install(slot, std::move(t), call));
  *out = slot;
  return Status::ok;
}

}  // namespace nvshm
