// SPDX-License-Identifier: BSD-3-Clause
/* Device collectives over a team, written once over nvshm_dev::Scope (docs/collectives.md).
 *
 * Every collective is one or two *rounds*: each member raises its word on every other member to the
 * round's epoch (atomic max with release), then waits until every member's word on itself reaches it
 * (acquire). Epochs count the rounds of a team on this PE, so the k-th round of a team has the same
 * epoch on every member. Data moves before the signal of a round, by stores to the peers (push) or by
 * loads from them after a round (pull).
 *
 * The same code runs as one group (the device API: a thread, a warp or a block) or split over the
 * blocks of an on-stream kernel (`Parts`): each block moves its slice and runs its rounds with the
 * same block of the other members, so no block waits for another block of its PE to be resident.
 * Barriers and the tile API use sync rounds instead (sync_round): counted by adds, not epochs.
 *
 * Words of a team slot used here (nvshm_team_device): part_flags, a row of size round words per
 * part, so that each part (block) of an on-stream kernel runs rounds of its own with the same part
 * of the other members (word i of a row written only by member i, by max); sync_flags[0, size) the
 * sync words of barriers and the tile API (word i counts member i's sync rounds, by adds; on a team with
 * remote members, node rounds for a member of this PE's node and leader rounds for another node's leader:
 * "barriers across nodes" below); sync_epoch[0] the round counter, sync_epoch[1] (low 32 bits) the block
 * arrival counter of multi-block kernels, sync_epoch[2] the sync round counter, sync_epoch[3] the leader
 * round counter; ll_words the LL slots of small
 * collectives (push_ll, reduce_ll), scratch the slots of one-shot reductions (reduce_shots). */
#ifndef NVSHMEM_DETAIL_DEVICE_COLLECTIVES_CUH
#define NVSHMEM_DETAIL_DEVICE_COLLECTIVES_CUH

#include "nvshmem_detail/device/primitives.cuh"
#include "nvshmem_detail/device/proxy.cuh"
#include "nvshmem_detail/type_lists.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace nvshm_dev {

/* Device-API reductions at most this many bytes per PE go one-shot through the scratch (on a stream:
 * NVSHMEM_REDUCE_ONE_SHOT_MAX); docs/collectives.md, thresholds. */
constexpr size_t kOneShotMaxBytes = size_t{64} << 10;
/* Device-API broadcast, fcollect and alltoall of at most this many bytes per member go as LL words (8
 * bytes sent per 4), and reductions of at most kLLReduceMaxBytes<S>; on a stream NVSHMEM_COLL_LL_MAX
 * and NVSHMEM_REDUCE_LL_MAX. A lone thread (thread scope) moves every word itself, one batch per
 * memory latency, so it takes LL only for the smallest sizes. The choice depends on the scope, so
 * every member must call the same routine (docs/collectives.md, thresholds). */
template <Scope S>
constexpr size_t kLLMaxBytes = S == Scope::thread ? 128 : NVSHM_TEAM_LL_DEVICE_BYTES;
template <Scope S>
constexpr size_t kLLReduceMaxBytes = S == Scope::thread ? 32 : NVSHM_TEAM_LL_DEVICE_BYTES;

/* A collective that cannot run: no symmetric heap on the device (fail_no_device_heap) or an invalid team
 * handle. One call site for both keeps the collective's entry lean (docs/registers.md). */
__device__ __noinline__ static void fail_collective_call(nvshmem_team_t team) {
  if (!state().heap_on_device) fail_no_device_heap();
  printf("nvshmem device collective on PE %d: team %d is not a valid team handle (max %d teams)\n", state().my_pe,
         static_cast<int>(team), state().max_teams);
  __trap();
}

/* The device table entry of `team`; traps with a message for an invalid handle. A predefined team's
 * entry is the state's copy in constant memory: where the handle is known at compile time (as in
 * nvshmem_barrier_all, or a kernel that names NVSHMEM_TEAM_WORLD), its fields are constant loads, not
 * table loads that miss the L1 cache the previous collective's acquire loads invalidated
 * (docs/teams.md); read through call_state, they are loaded in each collective, not held in registers
 * from one to the next. */
__device__ __forceinline__ const nvshm_team_device &team_or_trap(nvshmem_team_t team) {
  const nvshm_device_state &st = call_state();
  const nvshm_team_device *t =
      team >= 0 && team < NVSHM_PREDEFINED_TEAMS ? &st.predefined_teams[team] : team_entry(team);
  if (!st.heap_on_device || t == nullptr) fail_collective_call(team);
  return *t;
}

/* Team member i's address of the symmetric `sym`. */
template <typename T>
__device__ __forceinline__ T *member_address(const nvshm_team_device &t, T *sym, int i) {
  return peer_address(sym, team_world_pe(t, i));
}

/* Which part of the work this group does: the device API is one part; an on-stream kernel has one
 * part per block. */
struct Parts {
  int index;
  int count;
};
__device__ __forceinline__ Parts one_part() {
  return Parts{0, 1};
}

/* Rank 0's value, in every thread of the group. */
template <Scope S>
__device__ __forceinline__ uint64_t from_rank0(uint64_t v) {
  if constexpr (S == Scope::block || S == Scope::warpgroup) {
    __shared__ uint64_t shared_values[1024 / 128]; /* one per warpgroup; the block uses the first */
    const int slot = S == Scope::block ? 0 : Group<Scope::warpgroup>::index();
    Group<S>::sync();
    if (Group<S>::rank() == 0) shared_values[slot] = v;
    Group<S>::sync();
    return shared_values[slot];
  } else if constexpr (S == Scope::warp) {
    return __shfl_sync(0xffffffffu, v, 0);
  } else {
    return v;
  }
}

/* The epoch of the first of the `rounds` rounds this collective takes. One part takes them with an
 * atomic (several device calls may start collectives on different teams at once); the parts of an
 * on-stream kernel all read the counter and the last part advances it (finish_parts), because the
 * launches on a team follow each other on a stream. */
template <Scope S>
__device__ __forceinline__ uint64_t take_epochs(const nvshm_team_device &t, Parts p, uint64_t rounds) {
  uint64_t base = 0;
  if (Group<S>::rank() == 0)
    base = p.count == 1 ? static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(t.sync_epoch),
                                                          static_cast<unsigned long long>(rounds)))
                        : *reinterpret_cast<volatile uint64_t *>(t.sync_epoch);
  return from_rank0<S>(base) + 1;
}

/* Called by every part after its rounds: the part that arrives last advances the round counter to
 * `last_epoch`. Every part read the counter before it arrived, and the next launch on the stream sees
 * the store, so no fence is needed. */
template <Scope S>
__device__ __forceinline__ void finish_parts(const nvshm_team_device &t, Parts p, uint64_t last_epoch) {
  if (p.count == 1) return;
  Group<S>::sync();
  if (Group<S>::rank() == 0) {
    const unsigned old = atomicInc(reinterpret_cast<unsigned *>(t.sync_epoch + 1), static_cast<unsigned>(p.count - 1));
    if (old == static_cast<unsigned>(p.count - 1)) *reinterpret_cast<volatile uint64_t *>(t.sync_epoch) = last_epoch;
  }
}

/* Raise this member's word (words[my_pe]) on every other member to `epoch` (release: the group's
 * earlier stores are visible to whoever sees it). Idempotent: the words only grow. */
template <Scope S>
__device__ __forceinline__ void signal_members(const nvshm_team_device &t, uint64_t *words, uint64_t epoch) {
  Group<S>::sync();
  for (int j = Group<S>::rank(); j < t.size; j += Group<S>::size())
    if (j != t.my_pe) max_release(member_address(t, words + t.my_pe, j), epoch);
}
/* Wait until every other member's word here reaches `epoch` (acquire), then sync the group. */
template <Scope S>
__device__ __forceinline__ void wait_members(const nvshm_team_device &t, uint64_t *words, uint64_t epoch) {
  for (int j = Group<S>::rank(); j < t.size; j += Group<S>::size())
    if (j != t.my_pe) wait_until<uint64_t>(words + j, NVSHMEM_CMP_GE, epoch);
  Group<S>::sync();
}
/* One round at `epoch` on a row of max-signalled words (part_flags). */
template <Scope S>
__device__ __forceinline__ void round(const nvshm_team_device &t, uint64_t epoch, uint64_t *words) {
  signal_members<S>(t, words, epoch);
  wait_members<S>(t, words, epoch);
}

/* A round of part p with the same part of every other member, on the part's row of part_flags (a
 * collective has at most NVSHM_TEAM_PART_ROWS parts): no part ever waits for another part of its PE,
 * which need not be resident. */
template <Scope S>
__device__ __forceinline__ void part_round(const nvshm_team_device &t, Parts p, uint64_t epoch) {
  round<S>(t, epoch, t.part_flags + static_cast<size_t>(p.index) * t.size);
}
/* The last round of a collective at `epoch`, after this part moved its share: when part q of a member
 * has seen part q of every other member, slice q has landed everywhere and is no longer read; then
 * the counter moves past `epoch`. */
template <Scope S>
__device__ __forceinline__ void closing_round(const nvshm_team_device &t, Parts p, uint64_t epoch) {
  part_round<S>(t, p, epoch);
  finish_parts<S>(t, p, epoch);
}

/* A round on the team's sync words (sync_flags), for barriers and the tile API: each member adds 1
 * to its word on every other member (release), so the signal needs no round number and leaves before
 * this PE takes its number from the sync counter (sync_epoch[2]; an atomic in local memory): the two
 * round trips overlap. Word i on a member counts the sync rounds member i signalled there, so the
 * k-th sync round waits until every other member's word reaches k. */
template <Scope S>
__device__ __forceinline__ void sync_round(const nvshm_team_device &t) {
  Group<S>::sync();
  for (int j = Group<S>::rank(); j < t.size; j += Group<S>::size())
    if (j != t.my_pe) add_release(member_address(t, t.sync_flags + t.my_pe, j), 1);
  uint64_t before = 0;
  if (Group<S>::rank() == 0)
    before = static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(t.sync_epoch + 2), 1ull));
  wait_members<S>(t, t.sync_flags, from_rank0<S>(before) + 1);
}

/* ---- teams with members on other nodes ----
 * A team with a member outside this PE's mapped range (t.remote: another node, or every peer under
 * NVSHMEM_DISABLE_P2P) runs its device data collectives on the host: the group hands the call to this PE's proxy
 * (one NVSHM_PROXY_COLLECTIVE request on the block's channel, include/nvshmem_detail/proxy_ring.h) and waits
 * for its completion; the proxy runs the host collective of the same name, which reaches mapped members by
 * copies and remote ones through the engine (docs/proxy.md, "Collectives on teams with remote members").
 * One request, inline: the reduction's (op, type) index rides in the request's aux bits, which keeps the
 * kernels of the register corpus within budget (measured there). An on-stream kernel's block 0 makes the call for its
 * kernel. Barriers and syncs stay on the device (below). `arg`: the root of a broadcast, the reduce_index of a
 * reduction. */
template <Scope S>
__device__ __forceinline__ void proxy_collective(uint32_t kind, nvshmem_team_t team, void *dest, const void *source,
                                                 uint64_t n, uint32_t arg) {
  const bool reduces = kind == NVSHM_PROXY_COLL_REDUCE || kind == NVSHM_PROXY_COLL_REDUCESCATTER;
  (void)proxy_call<S>(proxy_code(NVSHM_PROXY_COLLECTIVE, NVSHM_PROXY_DONE, kind | (reduces ? arg << 3 : 0)),
                      static_cast<int>(team), nullptr, dest, n, reduces ? 0 : arg, 0,
                      reinterpret_cast<uint64_t>(source));
}

/* ---- barriers across nodes ----
 * A team with remote members synchronises on the device in three steps (docs/teams.md, "Device barriers
 * across nodes"): a sync round among the members of this PE's node, over loads and stores (node_round); a
 * dissemination among the nodes' leaders through the proxies (leaders_round); a second node round, which
 * a member leaves only after its leader has come back from the dissemination. A member's word here,
 * sync_flags[j], counts node rounds (sync_epoch[2]) when member j shares this PE's node and leader rounds
 * (sync_epoch[3]) when j leads another node: the two sets of writers are disjoint. */

/* Wait until this PE's word `w` reaches `target` (acquire). Its writer may be on another node, so every 1024
 * polls the wait reads the block channel's error word (in mapped host memory: a PCIe read) and traps once the
 * proxy has raised it: the proxy has logged a PE it found unreachable or a signal that failed, and the barrier
 * would never end. */
__device__ __forceinline__ void wait_word_or_proxy_failure(uint64_t *w, uint64_t target) {
  const nvshm_proxy_channel *ch = call_state().proxy_channels + proxy_channel_index();
  const WaitClock clock;
  for (unsigned polls = 1; load<Load::acquire>(w) < target; ++polls) {
    clock.check(w);
    if (polls % 1024 == 0 && nvshm_proxy_load(&ch->error) != 0) __trap();
  }
}

/* A sync round among the node_members members of this PE's node (t.groups' first part). */
template <Scope S>
__device__ __forceinline__ void node_round(const nvshm_team_device &t) {
  Group<S>::sync();
  for (int k = Group<S>::rank(); k < t.node_members; k += Group<S>::size())
    if (t.groups[k] != t.my_pe) add_release(member_address(t, t.sync_flags + t.my_pe, t.groups[k]), 1);
  uint64_t before = 0;
  if (Group<S>::rank() == 0)
    before = static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(t.sync_epoch + 2), 1ull));
  const uint64_t target = from_rank0<S>(before) + 1;
  for (int k = Group<S>::rank(); k < t.node_members; k += Group<S>::size())
    if (t.groups[k] != t.my_pe) wait_word_or_proxy_failure(t.sync_flags + t.groups[k], target);
  Group<S>::sync();
}

/* The leaders' part, by one thread of a node's leader: a dissemination barrier over the L leaders (ceil(log2 L)
 * steps): in step s = 1, 2, 4, ... < L, leader i adds 1 to its word on leader i + s (mod L), a remote signal
 * through the proxy (issued without waiting: the receiver waits for it), and waits until the word of leader
 * i - s (mod L) here counts this leader round. No pair of leaders meets in two steps of a round, so each word
 * grows by one a round. */
__device__ __forceinline__ void leaders_round(const nvshm_team_device &t) {
  const int n = t.leaders, i = t.leader_index;
  const int *leader = t.groups + t.node_members;
  const uint64_t round =
      static_cast<uint64_t>(atomicAdd(reinterpret_cast<unsigned long long *>(t.sync_epoch + 3), 1ull)) + 1;
  for (int s = 1; s < n; s *= 2) {
    (void)proxy_call<Scope::thread>(proxy_code(NVSHM_PROXY_ATOMIC, 0, NVSHM_PROXY_AMO_ADD | 8u << 8),
                                    team_world_pe(t, leader[(i + s) % n]), t.sync_flags + t.my_pe, nullptr, 0, 1);
    wait_word_or_proxy_failure(t.sync_flags + leader[(i + n - s) % n], round);
  }
}

/* barrier (quiet first) and team_sync. A barrier's quiet covers every operation of the PE (NVSHMEM's barrier),
 * so it waits for the proxy where this PE runs one (a kernel's put_nbi to another node may not have read its
 * source yet); on a team with remote members that quiet is also the remote completion of this PE's operations
 * before the nodes' leaders signal each other. */
template <Scope S>
__device__ __forceinline__ int team_barrier(nvshmem_team_t team, bool quiet_first) {
  const nvshm_team_device &t = team_or_trap(team);
  Group<S>::sync();
  if (quiet_first && Group<S>::rank() == 0) {
    fence_sc_sys();
    proxy_quiet();
  }
  if (t.remote) {  // inline: out of line (__noinline__), the rounds took these kernels to 62-76 registers
    node_round<S>(t);
    if (t.leaders > 0 && Group<S>::rank() == 0) leaders_round(t);
    node_round<S>(t);
  } else {
    sync_round<S>(t);
  }
  return 0;
}

/* This part's slice [*begin, *end) of `n` items, in multiples of `granule` items. */
__device__ __forceinline__ void part_slice(size_t n, size_t granule, Parts p, size_t *begin, size_t *end) {
  const size_t per = (n + p.count - 1) / p.count;
  const size_t step = (per + granule - 1) / granule * granule;
  *begin = min(n, step * static_cast<size_t>(p.index));
  *end = min(n, *begin + step);
}

/* ---- LL words: data without a round ----
 * Each 4 bytes of data travel in one 8-byte word whose other half holds the collective's flag (from
 * its epoch), stored with one single-copy-atomic store; the receiver polls each word until the flag
 * shows, so the data needs no release fence and no separate signal (NCCL calls such words "LL").
 * The words live in the team's ll_words (zeroed at creation), never written with raw data, in two
 * halves by epoch parity, one slot of t.ll_slot_words words per sending member and half.
 * A half is rewritten two collectives later at the earliest, when every member has finished reading
 * it: an LL collective returns on a member only after that member has heard from every other member
 * (its data, or for broadcast an arrival), so no member finishes collective e + 1 before every member
 * has started it, i.e. finished e (as for the scratch of a one-shot reduction). The flag is never 0, and
 * a word repeats its flag only after 2 x (2^32 - 1) collectives on the team. */

/* The flag of the collective at `epoch`, in the upper half of its LL words. */
__device__ __forceinline__ uint32_t ll_flag(uint64_t epoch) {
  return static_cast<uint32_t>(epoch % 0xffffffffull) + 1;
}
/* The LL slot that member i sends into at `epoch` (this PE's copy; member_address finds another's). */
__device__ __forceinline__ uint64_t *ll_slot(const nvshm_team_device &t, uint64_t epoch, int i) {
  return t.ll_words + ((epoch & 1) * static_cast<size_t>(t.size) + static_cast<size_t>(i)) * t.ll_slot_words;
}

/* Whether a collective moving `bytes` (1 or more) from each sender to each receiver goes as LL words
 * in chunks of `chunk` bytes: small enough (`ll_max`, the slot), a team that has LL slots, whole
 * chunks, chunk-aligned buffers. The same on every member that calls the same routine (symmetric
 * buffers; the device API's `ll_max` depends on the scope). Zero bytes take the round path: an LL
 * collective without data would not wait for anybody. */
__device__ __forceinline__ bool ll_fits(const nvshm_team_device &t, const void *dest, const void *source, size_t bytes,
                                        size_t chunk, size_t ll_max) {
  return t.ll_words && t.size <= NVSHM_TEAM_LL_MAX_PES && bytes > 0 && bytes <= ll_max &&
         bytes <= t.ll_slot_words * 4 && bytes % chunk == 0 &&
         (reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(source)) % chunk == 0;
}

/* What a thread keeps in flight. An LL collective's thread moves its chunks (W words each) `ll` at a
 * time (`ll_reduce` in a reduction) and issues every load of a batch before it uses the first value,
 * so the loads are in flight together: one word at a time would wait a memory latency per word (a
 * store is asm with a memory clobber, which no later load passes; a poll waits on its flag), 48.6 us
 * for 512 B by a lone thread (thread scope). Copies keep `copy` 16-byte vectors in flight per thread,
 * reductions `reduce` vectors of each source.
 *
 * ApiBatches<S>, the device API's: as large as the register budget allows in the realistic kernels of
 * tests/registers (loops, run-time teams, -rdc and not), since everything is inlined into the user's
 * kernel: a lone thread batches 4 LL words, a warp 2, a block 1 (a block of 1024 threads still has 4 KiB
 * in flight); copies and reductions keep 2 vectors, a block 1 (docs/registers.md).
 * StreamBatches, the on-stream kernels': our own 512-thread kernels, with no user code to leave
 * registers for. */
template <Scope S>
struct ApiBatches {
  static constexpr size_t ll = S == Scope::thread ? 4 : S == Scope::block ? 1 : 2;
  static constexpr size_t ll_reduce = 1;
  static constexpr int copy = S == Scope::block ? 1 : 2;
  static constexpr int reduce = S == Scope::block ? 1 : 2;
};
struct StreamBatches {
  static constexpr size_t ll = 2;
  static constexpr size_t ll_reduce = 1;
  static constexpr int copy = 2;
  static constexpr int reduce = 2;
};

/* Chunks c0, c0 + g, ... (at most B, below `end`) of W words each, in registers: loaded from a
 * source, then sent as LL words into a slot. Every load of a batch is issued before its first use. */
template <size_t W, size_t B>
struct LLBatch {
  uint32_t v[B][W];
  __device__ __forceinline__ void load(const uint32_t *src, size_t c0, size_t g, size_t end) {
#pragma unroll
    for (size_t b = 0; b < B; ++b)
      if (c0 + b * g < end)
        for (size_t w = 0; w < W; ++w) v[b][w] = src[(c0 + b * g) * W + w];
  }
  __device__ __forceinline__ void send(uint64_t *remote, uint32_t flag, size_t c0, size_t g, size_t end) const {
#pragma unroll
    for (size_t b = 0; b < B; ++b)
      if (c0 + b * g < end)
        for (size_t w = 0; w < W; ++w)
          store_relaxed(remote + (c0 + b * g) * W + w, static_cast<uint64_t>(flag) << 32 | v[b][w]);
  }
};

/* Sends this thread's chunks of [c0, end) (step B x g) of `src` as LL words into the slot `remote`.
 * `ahead`, if `first`, holds the first batch already loaded: the LL collectives load it before they
 * take their epoch, so that the load and the epoch's atomic, each a memory round trip on the path of
 * every LL collective, overlap. */
template <size_t W, size_t B>
__device__ __forceinline__ void ll_send(uint64_t *remote, const uint32_t *src, uint32_t flag, size_t c0, size_t g,
                                        size_t end, const LLBatch<W, B> &ahead, bool first) {
  if (first && c0 < end) {
    ahead.send(remote, flag, c0, g, end);
    c0 += B * g;
  }
  for (; c0 < end; c0 += B * g) {
    LLBatch<W, B> batch;
    batch.load(src, c0, g, end);
    batch.send(remote, flag, c0, g, end);
  }
}

/* Reads the same chunks of the local `slot` into out, each word once its flag shows. */
template <size_t W, size_t B>
__device__ __forceinline__ void ll_read_batch(const uint64_t *slot, uint32_t flag, size_t c0, size_t g, size_t end,
                                              uint32_t (&out)[B][W]) {
  uint64_t v[B][W];
#pragma unroll
  for (size_t b = 0; b < B; ++b)
    if (c0 + b * g < end)
      for (size_t w = 0; w < W; ++w) v[b][w] = load_relaxed(slot + (c0 + b * g) * W + w);
#pragma unroll
  for (size_t b = 0; b < B; ++b)
    if (c0 + b * g < end)
      for (size_t w = 0; w < W; ++w) {
        const WaitClock clock;
        while (static_cast<uint32_t>(v[b][w] >> 32) != flag) {
          v[b][w] = load_relaxed(slot + (c0 + b * g) * W + w);
          clock.check(slot + (c0 + b * g) * W + w);
        }
        out[b][w] = static_cast<uint32_t>(v[b][w]);
      }
}

/* LL push collectives: `nbytes` (a whole number of 4-byte words) from `src_of(j)` on this PE to
 * `dest_of(my_pe)` on member j, for every member j with a source; `dest_of(i)` is where member i's
 * bytes land here (null if i sends nothing to this PE). `arrivals`: every member also raises its
 * word of the part's round row on every other member to the epoch (relaxed: it carries no data) and
 * waits for theirs, for broadcast, whose root would otherwise hear from nobody. */
template <Scope S, class K, class Dest, class Src>
__device__ __forceinline__ void push_ll(const nvshm_team_device &t, Parts p, size_t nbytes, Dest dest_of, Src src_of,
                                        bool arrivals) {
  constexpr size_t B = K::ll;
  size_t begin, end;
  part_slice(nbytes / 4, 1, p, &begin, &end);
  const size_t g = static_cast<size_t>(Group<S>::size()), r = static_cast<size_t>(Group<S>::rank());
  auto words_for = [&](int j) { return reinterpret_cast<const uint32_t *>(static_cast<const void *>(src_of(j))); };
  const uint32_t *first = t.size > 1 ? words_for((t.my_pe + 1) % t.size) : nullptr;
  LLBatch<1, B> ahead;
  if (first) ahead.load(first, begin + r, g, end);
  const uint64_t epoch = take_epochs<S>(t, p, 1);
  const uint32_t flag = ll_flag(epoch);
  uint64_t *row = t.part_flags + static_cast<size_t>(p.index) * t.size;
  if (arrivals)
    for (int j = Group<S>::rank(); j < t.size; j += Group<S>::size())
      if (j != t.my_pe) max_relaxed(member_address(t, row + t.my_pe, j), epoch);
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.my_pe + k) % t.size;
    const uint32_t *src = words_for(j);
    if (src) ll_send(member_address(t, ll_slot(t, epoch, t.my_pe), j), src, flag, begin + r, g, end, ahead, k == 1);
  }
  const void *own = src_of(t.my_pe);
  void *own_dest = dest_of(t.my_pe);
  if (own && own_dest && own != own_dest)
    copy_bytes<S, K::copy>(static_cast<char *>(own_dest) + begin * 4, static_cast<const char *>(own) + begin * 4,
                           (end - begin) * 4);
  for (int k = 1; k < t.size; ++k) {
    const int i = (t.my_pe + t.size - k) % t.size;
    uint32_t *dst = static_cast<uint32_t *>(dest_of(i));
    if (!dst) continue;
    for (size_t c0 = begin + r; c0 < end; c0 += B * g) {
      uint32_t v[B][1];
      ll_read_batch<1, B>(ll_slot(t, epoch, i), flag, c0, g, end, v);
#pragma unroll
      for (size_t b = 0; b < B; ++b)
        if (c0 + b * g < end) dst[c0 + b * g] = v[b][0];
    }
  }
  if (arrivals)
    wait_members<S>(t, row, epoch);  // ends with a group sync
  else
    Group<S>::sync();
  finish_parts<S>(t, p, epoch);
}

/* Push of different bytes to each member (alltoall): each part stores its slice of `src_of(j)` into
 * the symmetric address `dest` on member j, then the last part runs one round. */
template <Scope S, class K, class Src>
__device__ __forceinline__ void push_round(const nvshm_team_device &t, Parts p, size_t nbytes, char *dest, Src src_of) {
  const uint64_t epoch = take_epochs<S>(t, p, 1);
  size_t begin, end;
  part_slice(nbytes, 16, p, &begin, &end);
  if (begin < end) {
    for (int k = 0; k < t.size; ++k) {
      /* Start at a different member on each PE and in each part, so that the parts' local copies
       * run beside other parts' stores to peers instead of all before them. */
      const int j = (t.my_pe + k + p.index) % t.size;
      copy_bytes<S, K::copy>(member_address(t, dest, j) + begin, src_of(j) + begin, end - begin);
    }
  }
  closing_round<S>(t, p, epoch);
}

/* Stores the n bytes at `src` to the symmetric address `dest` on every other member, and here too if
 * `to_self`. Broadcast and fcollect send the same bytes to every member, so each vector is loaded
 * once and stored to all of them (peers first, this PE last): the local copy rides on the loads of
 * the pushes instead of taking a second pass over the source (a 256 MiB broadcast on a stream: 784 us
 * before, 731 after). Buffers that are not 16-byte aligned take one copy per member. */
template <Scope S, int U>
__device__ __forceinline__ void fan_out_bytes(const nvshm_team_device &t, char *dest, const char *src, size_t n,
                                              bool to_self) {
  const int last = to_self ? t.size : t.size - 1;
  if (((reinterpret_cast<uintptr_t>(dest) | reinterpret_cast<uintptr_t>(src) | n) & 15) != 0) {
    for (int k = 1; k <= last; ++k) copy_bytes<S, U>(member_address(t, dest, (t.my_pe + k) % t.size), src, n);
    return;
  }
  const int4 *s = reinterpret_cast<const int4 *>(src);
  const size_t words = n / 16, g = static_cast<size_t>(Group<S>::size());
  size_t i = static_cast<size_t>(Group<S>::rank());
  for (; i + (U - 1) * g < words; i += U * g) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = s[i + u * g];
    for (int k = 1; k <= last; ++k) {
      int4 *d = reinterpret_cast<int4 *>(member_address(t, dest, (t.my_pe + k) % t.size));
#pragma unroll
      for (int u = 0; u < U; ++u) d[i + u * g] = v[u];
    }
  }
  for (; i < words; i += g) {
    const int4 v = s[i];
    for (int k = 1; k <= last; ++k) reinterpret_cast<int4 *>(member_address(t, dest, (t.my_pe + k) % t.size))[i] = v;
  }
}

/* Push of the same bytes to every member (broadcast, fcollect): each part fans its slice of `src`
 * (null: this PE sends nothing) out to `dest` on the members, then the last part runs one round. */
template <Scope S, class K>
__device__ __forceinline__ void fan_out_round(const nvshm_team_device &t, Parts p, size_t nbytes, void *dest,
                                              const void *src, bool to_self) {
  const uint64_t epoch = take_epochs<S>(t, p, 1);
  size_t begin, end;
  part_slice(nbytes, 16, p, &begin, &end);
  if (src && begin < end)
    fan_out_bytes<S, K::copy>(t, static_cast<char *>(dest) + begin, static_cast<const char *>(src) + begin, end - begin,
                              to_self);
  closing_round<S>(t, p, epoch);
}

/* broadcast, fcollect and alltoall: LL words up to `ll_max` bytes per member (kLLMaxBytes<S> in the
 * device API, NVSHMEM_COLL_LL_MAX on a stream), else a push and one round. */
template <Scope S, class K = ApiBatches<S>>
__device__ __forceinline__ int broadcast(nvshmem_team_t team, void *dest, const void *source, size_t nbytes, int root,
                                         Parts p = one_part(), size_t ll_max = kLLMaxBytes<S>) {
  const nvshm_team_device &t = team_or_trap(team);
  if (t.remote) {
    if (p.index == 0)
      proxy_collective<S>(NVSHM_PROXY_COLL_BROADCAST, team, dest, source, nbytes, static_cast<uint32_t>(root));
    return 0;
  }
  const bool is_root = t.my_pe == root;
  if (ll_fits(t, dest, source, nbytes, 4, ll_max)) {
    push_ll<S, K>(
        t, p, nbytes, [&](int i) -> void * { return i == root ? dest : nullptr; },
        [&](int) -> const void * { return is_root ? source : nullptr; }, true);
  } else {
    fan_out_round<S, K>(t, p, nbytes, dest, is_root ? source : nullptr, dest != source);
  }
  return 0;
}

template <Scope S, class K = ApiBatches<S>>
__device__ __forceinline__ int fcollect(nvshmem_team_t team, void *dest, const void *source, size_t nbytes,
                                        Parts p = one_part(), size_t ll_max = kLLMaxBytes<S>) {
  const nvshm_team_device &t = team_or_trap(team);
  char *block = static_cast<char *>(dest);
  if (t.remote) {
    if (p.index == 0) proxy_collective<S>(NVSHM_PROXY_COLL_FCOLLECT, team, dest, source, nbytes, 0);
    return 0;
  }
  if (ll_fits(t, dest, source, nbytes, 4, ll_max)) {
    push_ll<S, K>(
        t, p, nbytes, [&](int i) -> void * { return block + static_cast<size_t>(i) * nbytes; },
        [&](int) { return source; }, false);
  } else {
    char *slot = block + static_cast<size_t>(t.my_pe) * nbytes;
    fan_out_round<S, K>(t, p, nbytes, slot, source, slot != source);
  }
  return 0;
}

template <Scope S, class K = ApiBatches<S>>
__device__ __forceinline__ int alltoall(nvshmem_team_t team, void *dest, const void *source, size_t nbytes,
                                        Parts p = one_part(), size_t ll_max = kLLMaxBytes<S>) {
  const nvshm_team_device &t = team_or_trap(team);
  char *block = static_cast<char *>(dest);
  if (t.remote) {
    if (p.index == 0) proxy_collective<S>(NVSHM_PROXY_COLL_ALLTOALL, team, dest, source, nbytes, 0);
    return 0;
  }
  auto block_for = [&](int j) { return static_cast<const char *>(source) + static_cast<size_t>(j) * nbytes; };
  if (ll_fits(t, dest, source, nbytes, 4, ll_max)) {
    push_ll<S, K>(
        t, p, nbytes, [&](int i) -> void * { return block + static_cast<size_t>(i) * nbytes; }, block_for, false);
  } else {
    push_round<S, K>(t, p, nbytes, block + static_cast<size_t>(t.my_pe) * nbytes, block_for);
  }
  return 0;
}

/* ---- reductions ---- */
/* maxloc: double2 only (NVSHMEM's nvshmemx_double2_maxloc_reduce_block), .x the value, .y its location. */
enum class ROp { and_, or_, xor_, min, max, sum, prod, maxloc };
/* The enumerator of an op as the type tables spell it (and, or, xor, min, max, sum, prod, maxloc). */
#define NVSHM_ROP(OP) NVSHM_ROP_##OP
#define NVSHM_ROP_and and_
#define NVSHM_ROP_or or_
#define NVSHM_ROP_xor xor_
#define NVSHM_ROP_min min
#define NVSHM_ROP_max max
#define NVSHM_ROP_sum sum
#define NVSHM_ROP_prod prod
#define NVSHM_ROP_maxloc maxloc

template <typename T>
constexpr bool is_low_float = std::is_same<T, half>::value || std::is_same<T, __nv_bfloat16>::value;

/* half and bfloat16 to float and back (round to nearest) by CUDA's named conversions, which exist with
 * __CUDA_NO_HALF_CONVERSIONS__ and __CUDA_NO_BFLOAT16_CONVERSIONS__ too (NVSHMEM 3.7.1's fix). */
__device__ __forceinline__ float widen(half v) {
  return __half2float(v);
}
__device__ __forceinline__ float widen(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <typename T>
__device__ __forceinline__ T narrow(float v) {
  if constexpr (std::is_same<T, half>::value)
    return __float2half_rn(v);
  else
    return __float2bfloat16_rn(v);
}

template <ROp Op, typename T>
__device__ __forceinline__ T combine(T a, T b) {
  if constexpr (is_low_float<T>) {
    return narrow<T>(combine<Op, float>(widen(a), widen(b)));
  } else if constexpr (Op == ROp::maxloc) {
    /* The larger value; of equal values the smaller location: a total order, so the result does not
     * depend on the order of the members. */
    return b.x > a.x || (b.x == a.x && b.y < a.y) ? b : a;
  } else if constexpr (Op == ROp::and_) {
    return static_cast<T>(a & b);
  } else if constexpr (Op == ROp::or_) {
    return static_cast<T>(a | b);
  } else if constexpr (Op == ROp::xor_) {
    return static_cast<T>(a ^ b);
  } else if constexpr (Op == ROp::min) {
    return b < a ? b : a;
  } else if constexpr (Op == ROp::max) {
    return a < b ? b : a;
  } else if constexpr (Op == ROp::sum) {
    return static_cast<T>(a + b);
  } else {
    return static_cast<T>(a * b);
  }
}

/* 16 bytes of T, combined element by element. */
template <typename T>
union Vec16 {
  int4 raw;
  T v[16 / sizeof(T)];
};
template <ROp Op, typename T>
__device__ __forceinline__ int4 combine16(int4 a, int4 b) {
  Vec16<T> x, y;
  x.raw = a;
  y.raw = b;
#pragma unroll
  for (int k = 0; k < static_cast<int>(16 / sizeof(T)); ++k) x.v[k] = combine<Op, T>(x.v[k], y.v[k]);
  return x.raw;
}

/* Words w, w + g, ..., w + (U - 1) g of the 16-byte-vector reduction (reduce_range): U loads of each
 * source in flight per thread before they are combined. */
template <int U, ROp Op, typename T, class SrcAt, class DstAt>
__device__ __forceinline__ void reduce_words(size_t w, size_t g, int nsrc, SrcAt src_at, int ndst, DstAt dst_at) {
  int4 acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = reinterpret_cast<const int4 *>(src_at(0))[w + u * g];
  for (int i = 1; i < nsrc; ++i) {
    int4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = reinterpret_cast<const int4 *>(src_at(i))[w + u * g];
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] = combine16<Op, T>(acc[u], x[u]);
  }
  for (int d = 0; d < ndst; ++d) {
#pragma unroll
    for (int u = 0; u < U; ++u) reinterpret_cast<int4 *>(dst_at(d))[w + u * g] = acc[u];
  }
}

/* The group computes out[k] = src_at(0)[k] op src_at(1)[k] ... op src_at(nsrc-1)[k] for k in [0, n)
 * (in member order, so every PE gets the same bits) and stores it at dst_at(d)[k] for each of the
 * ndst destinations; 16-byte words, U of each source in flight per thread, where every pointer
 * allows. */
template <Scope S, int U, ROp Op, typename T, class SrcAt, class DstAt>
__device__ __forceinline__ void reduce_range(size_t n, int nsrc, SrcAt src_at, int ndst, DstAt dst_at) {
  constexpr size_t V = 16 / sizeof(T);
  uintptr_t bits = 0;
  for (int i = 0; i < nsrc; ++i) bits |= reinterpret_cast<uintptr_t>(src_at(i));
  for (int d = 0; d < ndst; ++d) bits |= reinterpret_cast<uintptr_t>(dst_at(d));
  const size_t g = static_cast<size_t>(Group<S>::size());
  size_t done = 0;
  if ((bits & 15) == 0) {
    const size_t words = n / V;
    size_t w = static_cast<size_t>(Group<S>::rank());
    for (; w + (U - 1) * g < words; w += U * g) reduce_words<U, Op, T>(w, g, nsrc, src_at, ndst, dst_at);
    for (; w < words; w += g) reduce_words<1, Op, T>(w, g, nsrc, src_at, ndst, dst_at);
    done = words * V;
  }
  for (size_t k = done + static_cast<size_t>(Group<S>::rank()); k < n; k += g) {
    T acc = src_at(0)[k];
    for (int i = 1; i < nsrc; ++i) acc = combine<Op, T>(acc, src_at(i)[k]);
    for (int d = 0; d < ndst; ++d) dst_at(d)[k] = acc;
  }
}

/* Bytes of one member's slot in one half of the team's scratch (two halves, alternating by epoch). */
__device__ __forceinline__ size_t scratch_slot_bytes(const nvshm_team_device &t) {
  return t.scratch ? t.scratch_bytes / (2 * static_cast<size_t>(t.size)) / 16 * 16 : 0;
}

/* Bytes of T handled as one LL chunk (one or more whole elements, a whole number of LL words). */
template <typename T>
constexpr size_t kLLChunk = sizeof(T) < 4 ? 4 : sizeof(T);

template <typename T>
union LLChunk {
  uint32_t w[kLLChunk<T> / 4];
  T v[kLLChunk<T> / sizeof(T)];
};

/* LL reduction (see "LL words" above): each member sends what member j needs to j's slot, then reads
 * every member's chunks and combines them in member order. Each thread sends and then receives the
 * same chunks, so an in-place reduce (dest == source) never overwrites a chunk another thread has
 * still to send. */
template <Scope S, class K, ROp Op, typename T>
__device__ __forceinline__ void reduce_ll(const nvshm_team_device &t, T *dest, const T *source, size_t count,
                                          bool scatter, Parts p) {
  constexpr size_t C = kLLChunk<T>, W = C / 4;
  auto words_of = [&](int j) {
    return reinterpret_cast<const uint32_t *>(source + (scatter ? static_cast<size_t>(j) * count : 0));
  };
  size_t begin, end;
  part_slice(count * sizeof(T) / C, 1, p, &begin, &end);
  const size_t g = static_cast<size_t>(Group<S>::size()), r = static_cast<size_t>(Group<S>::rank());
  constexpr size_t B = (K::ll_reduce + W - 1) / W;
  LLBatch<W, B> ahead;
  if (t.size > 1) ahead.load(words_of((t.my_pe + 1) % t.size), begin + r, g, end);
  const uint64_t epoch = take_epochs<S>(t, p, 1);
  const uint32_t flag = ll_flag(epoch);
  for (int k = 1; k < t.size; ++k) {
    const int j = (t.my_pe + k) % t.size;
    ll_send(member_address(t, ll_slot(t, epoch, t.my_pe), j), words_of(j), flag, begin + r, g, end, ahead, k == 1);
  }
  for (size_t c0 = begin + r; c0 < end; c0 += B * g) {
    LLChunk<T> acc[B];
    for (int i = 0; i < t.size; ++i) {
      LLChunk<T> x[B];
      if (i == t.my_pe) {
#pragma unroll
        for (size_t b = 0; b < B; ++b)
          if (c0 + b * g < end)
            for (size_t w = 0; w < W; ++w) x[b].w[w] = words_of(i)[(c0 + b * g) * W + w];
      } else {
        uint32_t v[B][W];
        ll_read_batch<W, B>(ll_slot(t, epoch, i), flag, c0, g, end, v);
#pragma unroll
        for (size_t b = 0; b < B; ++b)
          if (c0 + b * g < end)
            for (size_t w = 0; w < W; ++w) x[b].w[w] = v[b][w];
      }
#pragma unroll
      for (size_t b = 0; b < B; ++b) {
        if (c0 + b * g >= end) continue;
        if (i == 0) {
          acc[b] = x[b];
        } else {
          for (size_t e = 0; e < C / sizeof(T); ++e) acc[b].v[e] = combine<Op, T>(acc[b].v[e], x[b].v[e]);
        }
      }
    }
#pragma unroll
    for (size_t b = 0; b < B; ++b)
      if (c0 + b * g < end)
        for (size_t w = 0; w < W; ++w) reinterpret_cast<uint32_t *>(dest)[(c0 + b * g) * W + w] = acc[b].w[w];
  }
  Group<S>::sync();
  finish_parts<S>(t, p, epoch);
}

/* One-shot and two-shot, one function: they share the reduction loop, and one loop inline instead of
 * two keeps a kernel within the register budget (docs/registers.md).
 *
 * One-shot: every member pushes what each member needs into that member's scratch slot, one round,
 * then every member reduces its slots locally into dest. `scatter`: member j needs block j of source
 * (reducescatter), else the whole source (reduce). The parts of an on-stream kernel each move and
 * reduce one slice, with a round of their own (part_flags row p.index), so no part waits for another
 * part of its PE. The scratch half of epoch e is rewritten at epoch e + 2 at the earliest, which no
 * member reaches before every member started collective e + 1 on the team, i.e. finished e.
 *
 * Two-shot by loads (any size, any number of parts): round 1 says every source is ready; member j
 * reduces block j (reduce: 1/size of the elements; reducescatter: its own block) from every member's
 * source, and for reduce stores the result into every member's dest (all-gather by stores); round 2
 * says every store landed and no member still reads a source. */
template <Scope S, class K, ROp Op, typename T>
__device__ __forceinline__ void reduce_shots(const nvshm_team_device &t, T *dest, const T *source, size_t count,
                                             bool scatter, Parts p, bool one_shot) {
  constexpr size_t V = 16 / sizeof(T);
  const uint64_t epoch = take_epochs<S>(t, p, one_shot ? 1 : 2);
  const size_t slot = scratch_slot_bytes(t);
  char *half = t.scratch + (epoch & 1) * slot * t.size;
  // The elements this PE reduces: one-shot all of them (of its block), two-shot its share.
  size_t first = scatter ? static_cast<size_t>(t.my_pe) * count : 0, n = count;
  if (!one_shot && !scatter) {
    const size_t per = ((count + t.size - 1) / t.size + V - 1) / V * V;
    first = min(count, per * static_cast<size_t>(t.my_pe));
    n = min(count, first + per) - first;
  }
  size_t begin, end;
  part_slice(n, V, p, &begin, &end);
  auto slot_of = [&](int i) { return reinterpret_cast<T *>(half + static_cast<size_t>(i) * slot) + begin; };
  if (one_shot) {
    /* Every part takes part in its round, also with an empty slice: every collective ends with a full
     * round, which the scratch halves rely on. */
    for (int k = 1; k < t.size; ++k) {
      const int j = (t.my_pe + k) % t.size;
      copy_bytes<S, K::copy>(member_address(t, slot_of(t.my_pe), j),
                             source + (scatter ? static_cast<size_t>(j) * count : 0) + begin,
                             (end - begin) * sizeof(T));
    }
  }
  part_round<S>(t, p, epoch);
  const T *own = source + first + begin;
  T *out = dest + (scatter ? 0 : first) + begin;
  reduce_range<S, K::reduce, Op, T>(
      end - begin, t.size,
      [&](int i) -> const T * { return one_shot ? (i == t.my_pe ? own : slot_of(i)) : member_address(t, own, i); },
      one_shot || scatter ? 1 : t.size, [&](int d) { return one_shot || scatter ? out : member_address(t, out, d); });
  if (one_shot) {
    Group<S>::sync();
    finish_parts<S>(t, p, epoch);
  } else {
    closing_round<S>(t, p, epoch + 1);
  }
}

/* The (op, type) index of NVSHM_FOR_EACH_REDUCE_OP_TYPE, which names the host reduction of a
 * NVSHM_PROXY_COLLECTIVE request; UINT32_MAX for a pair the host API does not have (maxloc). */
template <ROp Op, typename T>
__host__ __device__ constexpr uint32_t reduce_index() {
  uint32_t i = 0, found = UINT32_MAX;
#define NVSHM_REDUCE_INDEX(OP, NAME, TT)                                                        \
  if (found == UINT32_MAX && Op == ROp::NVSHM_ROP(OP) && std::is_same<T, TT>::value) found = i; \
  ++i;
  NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_REDUCE_INDEX)
#undef NVSHM_REDUCE_INDEX
  return found;
}
__device__ __noinline__ static void fail_remote_maxloc() {
  printf("nvshmem device collective on PE %d: maxloc reductions on teams with remote members are not supported\n",
         state().my_pe);
  __trap();
}

template <Scope S, ROp Op, typename T, class K = ApiBatches<S>>
__device__ __forceinline__ int reduce(nvshmem_team_t team, T *dest, const T *source, size_t count, bool scatter,
                                      Parts p = one_part(), size_t one_shot_max = kOneShotMaxBytes,
                                      size_t ll_max = kLLReduceMaxBytes<S>) {
  const nvshm_team_device &t = team_or_trap(team);
  if (t.remote) {
    constexpr uint32_t index = reduce_index<Op, T>();
    if constexpr (index == UINT32_MAX) {
      fail_remote_maxloc();
    } else if (p.index == 0) {
      proxy_collective<S>(scatter ? NVSHM_PROXY_COLL_REDUCESCATTER : NVSHM_PROXY_COLL_REDUCE, team, dest, source, count,
                          index);
    }
    return 0;
  }
  const size_t bytes = count * sizeof(T);
  if (ll_fits(t, dest, source, bytes, kLLChunk<T>, ll_max))
    reduce_ll<S, K, Op, T>(t, dest, source, count, scatter, p);
  else
    reduce_shots<S, K, Op, T>(t, dest, source, count, scatter, p,
                              bytes <= one_shot_max && bytes <= scratch_slot_bytes(t));
  return 0;
}

}  // namespace nvshm_dev

#endif /* NVSHMEM_DETAIL_DEVICE_COLLECTIVES_CUH */
