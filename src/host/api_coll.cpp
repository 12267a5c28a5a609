// SPDX-License-Identifier: BSD-3-Clause
// Host blocking collectives over a team (docs/collectives.md, "Host path"): every member pulls what
// it needs from the members' symmetric sources through the transport, between two host team
// synchronisations, so they work on both heap kinds. Typed names are generated from the tables in
// nvshmem_detail/type_lists.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/coll_host.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {

bool symmetric(const Runtime &rt, const void *p, std::size_t bytes, const char *call, const char *arg) {
  if (bytes == 0 || rt.heap->contains(p, bytes)) return true;
  log_error(call, "%s=%p (%zu bytes) is not inside the symmetric heap", arg, p, bytes);
  return false;
}

// `bytes` of member `member`'s symmetric `source` into this PE's `local` (a heap or host address).
Status pull(const Runtime &rt, const Team &t, int member, void *local, const void *source, std::size_t bytes) {
  if (bytes == 0) return Status::ok;
  return rt.peers->get(local, rt.peers->target(source, t.world_pe(member)), bytes);
}

// The shape every host collective has: check, sync (every member's source is ready and its dest
// free; every member is in the same call with the same `args`), `gather` (reads the members'
// sources), sync (the sources may be reused), `finish` (writes this PE's dest: after the second sync,
// so dest may alias source). Returns the status (invalid_value after a message on bad arguments).
template <typename Check, typename Gather, typename Finish>
Status collective(nvshmem_team_t team, const char *call, std::initializer_list<CollArg> args, Check check,
                  Gather gather, Finish finish) {
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  const Team *t = rt.teams->find(team, call);
  if (!t) return Status::invalid_value;
  if (!check(rt, *t)) return Status::invalid_value;
  NVSHM_TRY(rt.teams->sync(team, call, args));
  NVSHM_TRY(gather(rt, *t));
  NVSHM_TRY(rt.teams->sync(team, call));
  return finish(rt, *t);
}

// The C entry points' return value: 0, or 1 after a message.
int code(Status st) {
  return st == Status::ok ? 0 : 1;
}

const auto kNothing = [](const Runtime &, const Team &) { return Status::ok; };

// Data through node leaders (docs/collectives-host.md): from NVSHMEM_HOST_COLL_RELAY_MIN bytes per PE on,
// on a team of several nodes with more members than nodes, one member of each node (its leader: lowest team
// index) moves the data across nodes and the node's other members copy the leader's `dest`. Every member
// decides alike (the variable must be the same on every PE, like the other collective thresholds).
// The threshold is one of the arguments of the collectives that use it: members with different values would
// choose different rounds, so the entry sync reports the difference (naming the variable) instead.
CollArg relay_min_arg() {
  const Runtime *rt = runtime();
  return {"NVSHMEM_HOST_COLL_RELAY_MIN", rt ? static_cast<int64_t>(rt->env.host_coll_relay_min) : 0};
}
struct Relay {
  const NodeGroups &groups;
  bool on = false;
  Relay(const Runtime &rt, const Team &t, std::size_t bytes) : groups(t.nodes) {
    on = bytes >= rt.env.host_coll_relay_min && !groups.leaders.empty() &&
         static_cast<std::size_t>(t.size) > groups.leaders.size() + 1;
  }
  int leader() const { return groups.mine.front(); }
  // With the leaders' `dest` written and the team synchronised: copies the leader's `dest` (a member
  // that is not a leader and not `skip`), then synchronises the team so that the leaders' `dest` is free.
  Status copy_from_leader(const Runtime &rt, const Team &t, nvshmem_team_t team, void *dest, std::size_t bytes,
                          bool skip, const char *call) const {
    if (!skip && t.my_index != leader()) NVSHM_TRY(pull(rt, t, leader(), dest, dest, bytes));
    return rt.teams->sync(team, call);
  }
};

// tile_broadcast to a team with remote members (NVSHM_PROXY_COLL_TILE_PUSH, on the proxy's thread): the root's
// packed tile at `packed` (header, then the elements in box order; proxy_ring.h) into `dest` on every member, one
// transfer per row of the box (a put where the destination row is contiguous, else a strided put), then a quiet.
// Not a team synchronisation: the root alone calls it; the members' tile_collective_wait is one.
Status tile_push(nvshmem_team_t team, void *dest, const void *packed, std::size_t bytes, bool self, const char *call) {
  Runtime &rt = require_init(call);
  ContextGuard guard(rt.context);
  const Team *t = rt.teams->find(team, call);
  if (!t) return Status::invalid_value;
  uint64_t h[NVSHM_PROXY_TILE_HEADER_WORDS];
  if (!symmetric(rt, packed, sizeof h + bytes, call, "the packed tile")) return Status::invalid_value;
  NVSHM_TRY(rt.peers->mapped().get(h, packed, sizeof h));
  const int dims = static_cast<int>(h[0] & 0xff);
  const std::size_t elem = h[0] >> 8;
  if (dims < 1 || 2 * dims + 1 > static_cast<int>(NVSHM_PROXY_TILE_HEADER_WORDS) || elem == 0 || bytes % elem) {
    log_error(call, "a packed tile of %d dimensions and %zu-byte elements (%zu bytes): not from this library", dims,
              elem, bytes);
    return Status::invalid_value;
  }
  // The rows: dimension 0 of the box; the offsets (elements) of the destination's first and last elements.
  const uint64_t *ext = h + 1;
  const auto *stride = reinterpret_cast<const int64_t *>(h + 1 + dims);
  std::size_t count = 1;
  int64_t lo = 0, hi = 0;
  for (int k = 0; k < dims; ++k) {
    count *= ext[k];
    const int64_t span = static_cast<int64_t>(ext[k] ? ext[k] - 1 : 0) * stride[k];
    (span < 0 ? lo : hi) += span;
  }
  if (count * elem != bytes) {
    log_error(call, "a packed tile of %zu elements in %zu bytes: not from this library", count, bytes);
    return Status::invalid_value;
  }
  if (count == 0) return Status::ok;
  char *const d = static_cast<char *>(dest);
  if (!symmetric(rt, d + lo * static_cast<int64_t>(elem), static_cast<std::size_t>(hi - lo + 1) * elem, call, "dst"))
    return Status::invalid_value;
  const char *const data = static_cast<const char *>(packed) + sizeof h;
  const std::size_t row = ext[0], rows = count / row;
  for (int k = 0; k < t->size; ++k) {
    const int pe = t->world_pe((t->my_index + 1 + k) % t->size);
    if (pe == rt.boot->rank() && !self) continue;
    for (std::size_t r = 0; r < rows; ++r) {
      int64_t at = 0;  // the row's first element in dst
      for (std::size_t rest = r, k2 = 1; k2 < static_cast<std::size_t>(dims); rest /= ext[k2], ++k2)
        at += static_cast<int64_t>(rest % ext[k2]) * stride[k2];
      const Target to = rt.peers->target(d + at * static_cast<int64_t>(elem), pe);
      const char *from = data + r * row * elem;
      NVSHM_TRY(stride[0] == 1
                    ? rt.peers->put_nbi(to, from, row * elem)
                    : rt.peers->strided(true, to, stride[0] * static_cast<int64_t>(elem), const_cast<char *>(from),
                                        static_cast<std::ptrdiff_t>(elem), elem, row));
    }
  }
  return quiet_pe(rt, call);
}

}  // namespace

namespace nvshm {

Status host_broadcast(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, int root,
                      const char *call) {
  // Through node leaders: the root's node pulls from the root; each other node's leader pulls, and after
  // the second sync the node's other members copy from it.
  std::optional<Relay> relay;
  bool root_here = false;
  return collective(
      team, call, {{"bytes (nelems x element size)", static_cast<int64_t>(bytes)}, {"PE_root", root}, relay_min_arg()},
      [&](const Runtime &rt, const Team &t) {
        if (root < 0 || root >= t.size) {
          log_error(call, "PE_root=%d is not a PE index of team %d (%d PEs)", root, team, t.size);
          return false;
        }
        relay.emplace(rt, t, bytes);
        const std::vector<int> &mine = relay->groups.mine;
        root_here = std::find(mine.begin(), mine.end(), root) != mine.end();
        return symmetric(rt, dest, bytes, call, "dest") && symmetric(rt, source, bytes, call, "source");
      },
      [&](const Runtime &rt, const Team &t) {
        if (t.my_index == root && dest == source) return Status::ok;
        if (relay->on && !root_here && t.my_index != relay->leader()) return Status::ok;  // after the sync
        return pull(rt, t, root, dest, source, bytes);
      },
      [&](const Runtime &rt, const Team &t) {
        return relay->on ? relay->copy_from_leader(rt, t, team, dest, bytes, root_here, call) : Status::ok;
      });
}

Status host_fcollect(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, const char *call) {
  // Through node leaders (from NVSHMEM_HOST_COLL_RELAY_MIN bytes a block): each leader pulls every member's block, its
  // node's over loads and stores and the others' across nodes, and after the second sync the node's other members copy
  // its whole `dest`: a node's blocks cross to each other node once, not once per member there.
  std::optional<Relay> relay;
  return collective(
      team, call, {{"bytes (nelems x element size)", static_cast<int64_t>(bytes)}, relay_min_arg()},
      [&](const Runtime &rt, const Team &t) {
        relay.emplace(rt, t, bytes);
        return symmetric(rt, dest, bytes * t.size, call, "dest") && symmetric(rt, source, bytes, call, "source");
      },
      [&](const Runtime &rt, const Team &t) {
        if (relay->on && t.my_index != relay->leader()) return Status::ok;  // after the sync
        for (int k = 0; k < t.size; ++k) {
          const int member = (t.my_index + k) % t.size;  // members start at different peers
          NVSHM_TRY(pull(rt, t, member, static_cast<char *>(dest) + member * bytes, source, bytes));
        }
        return Status::ok;
      },
      [&](const Runtime &rt, const Team &t) {
        return relay->on ? relay->copy_from_leader(rt, t, team, dest, bytes * t.size, false, call) : Status::ok;
      });
}

Status host_alltoall(nvshmem_team_t team, void *dest, const void *source, std::size_t bytes, const char *call) {
  return collective(
      team, call, {{"bytes (nelems x element size)", static_cast<int64_t>(bytes)}},
      [&](const Runtime &rt, const Team &t) {
        return symmetric(rt, dest, bytes * t.size, call, "dest") &&
               symmetric(rt, source, bytes * t.size, call, "source");
      },
      [&](const Runtime &rt, const Team &t) {
        for (int k = 0; k < t.size; ++k) {
          const int member = (t.my_index + k) % t.size;
          NVSHM_TRY(pull(rt, t, member, static_cast<char *>(dest) + member * bytes,
                         static_cast<const char *>(source) + t.my_index * bytes, bytes));
        }
        return Status::ok;
      },
      kNothing);
}

}  // namespace nvshm

namespace {

// ---- reductions: combined in host memory, in team order, so every member gets the same bits ----
template <typename T>
constexpr bool kLowFloat = std::is_same_v<T, half> || std::is_same_v<T, __nv_bfloat16>;
template <typename T>
using Acc = std::conditional_t<kLowFloat<T>, float, T>;

template <typename T>
Acc<T> widen(T v) {
  if constexpr (std::is_same_v<T, half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return v;
}
template <typename T>
T narrow(Acc<T> v) {
  if constexpr (std::is_same_v<T, half>)
    return __float2half_rn(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(v);
  else
    return v;
}

// Integer sum and product wrap in two's complement (computed in 64-bit unsigned, then truncated).
struct OpSum {
  template <typename A>
  static A apply(A a, A b) {
    if constexpr (std::is_integral_v<A>)
      return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else
      return a + b;
  }
};
struct OpProd {
  template <typename A>
  static A apply(A a, A b) {
    if constexpr (std::is_integral_v<A>)
      return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    else
      return a * b;
  }
};
struct OpMin {
  template <typename A>
  static A apply(A a, A b) {
    return b < a ? b : a;
  }
};
struct OpMax {
  template <typename A>
  static A apply(A a, A b) {
    return a < b ? b : a;
  }
};
struct OpAnd {
  template <typename A>
  static A apply(A a, A b) {
    return static_cast<A>(a & b);
  }
};
struct OpOr {
  template <typename A>
  static A apply(A a, A b) {
    return static_cast<A>(a | b);
  }
};
struct OpXor {
  template <typename A>
  static A apply(A a, A b) {
    return static_cast<A>(a ^ b);
  }
};

// reduce (scatter = false): every member reduces all of `source`; reducescatter: member i reduces
// block i. nreduce counts result elements.
template <typename T, typename Op>
Status reduce(nvshmem_team_t team, T *dest, const T *source, std::size_t nreduce, bool scatter, const char *call) {
  std::vector<Acc<T>> acc;
  std::vector<T> result;
  const std::size_t bytes = nreduce * sizeof(T);
  // Through node leaders (reduce only): the leaders reduce, and after they wrote their `dest` (after the
  // second sync: `dest` may alias `source`), a third sync lets the other members copy it.
  std::optional<Relay> relay;
  return collective(
      team, call, {{"nreduce", static_cast<int64_t>(nreduce)}, relay_min_arg()},
      [&](const Runtime &rt, const Team &t) {
        if (!scatter) relay.emplace(rt, t, bytes);
        return symmetric(rt, dest, bytes, call, "dest") &&
               symmetric(rt, source, scatter ? bytes * t.size : bytes, call, "source");
      },
      [&](const Runtime &rt, const Team &t) {
        if (relay && relay->on && t.my_index != relay->leader()) return Status::ok;  // copies the leader's
        const T *block = source + (scatter ? t.my_index * nreduce : 0);
        std::vector<T> in(nreduce);
        acc.resize(nreduce);
        for (int member = 0; member < t.size; ++member) {
          NVSHM_TRY(pull(rt, t, member, in.data(), block, bytes));
          for (std::size_t k = 0; k < nreduce; ++k)
            acc[k] = member == 0 ? widen(in[k]) : Op::apply(acc[k], widen(in[k]));
        }
        result.resize(nreduce);
        for (std::size_t k = 0; k < nreduce; ++k) result[k] = narrow<T>(acc[k]);
        return Status::ok;
      },
      [&](const Runtime &rt, const Team &t) {
        if (!relay || !relay->on) return bytes ? rt.transport->put(dest, result.data(), bytes) : Status::ok;
        if (t.my_index == relay->leader()) NVSHM_TRY(rt.transport->put(dest, result.data(), bytes));
        NVSHM_TRY(rt.teams->sync(team, call));
        return relay->copy_from_leader(rt, t, team, dest, bytes, false, call);
      });
}

}  // namespace

#define NVSHM_OP_and OpAnd
#define NVSHM_OP_or OpOr
#define NVSHM_OP_xor OpXor
#define NVSHM_OP_min OpMin
#define NVSHM_OP_max OpMax
#define NVSHM_OP_sum OpSum
#define NVSHM_OP_prod OpProd

namespace nvshm {
#define NVSHM_DEFINE_HOST_REDUCE(OP, NAME, T)                                                                          \
  Status host_##NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, std::size_t nreduce, bool scatter, \
                                     const char *call) {                                                               \
    return reduce<T, NVSHM_OP_##OP>(team, dest, source, nreduce, scatter, call);                                       \
  }
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_DEFINE_HOST_REDUCE)
#undef NVSHM_DEFINE_HOST_REDUCE

Status proxy_collective(const nvshm_proxy_request &r) {
  using Reduce = Status (*)(nvshmem_team_t, void *, const void *, std::size_t, bool, const char *);
#define NVSHM_REDUCE_ENTRY(OP, NAME, T)                                                                         \
  [](nvshmem_team_t team, void *d, const void *s, std::size_t n, bool scatter, const char *call) {              \
    return host_##NAME##_##OP##_reduce(team, static_cast<T *>(d), static_cast<const T *>(s), n, scatter, call); \
  },
  static const Reduce kReduce[] = {NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_REDUCE_ENTRY)};
#undef NVSHM_REDUCE_ENTRY
  const nvshmem_team_t team = r.pe;
  const uint32_t kind = r.aux & 7, index = r.aux >> 3;
  void *dest = reinterpret_cast<void *>(r.local);
  const void *source = reinterpret_cast<const void *>(r.extra);
  switch (kind) {
    case NVSHM_PROXY_COLL_BROADCAST:
      return host_broadcast(team, dest, source, r.bytes, static_cast<int>(r.value),
                            "nvshmem broadcast (device, through the proxy)");
    case NVSHM_PROXY_COLL_FCOLLECT:
      return host_fcollect(team, dest, source, r.bytes, "nvshmem fcollect (device, through the proxy)");
    case NVSHM_PROXY_COLL_ALLTOALL:
      return host_alltoall(team, dest, source, r.bytes, "nvshmem alltoall (device, through the proxy)");
    case NVSHM_PROXY_COLL_TILE_PUSH:
      return tile_push(team, dest, source, r.bytes, r.value != 0,
                       "nvshmemx tile_broadcast (device, through the proxy)");
    case NVSHM_PROXY_COLL_REDUCE:
    case NVSHM_PROXY_COLL_REDUCESCATTER:
      if (index < sizeof kReduce / sizeof kReduce[0])
        return kReduce[index](team, dest, source, r.bytes, kind == NVSHM_PROXY_COLL_REDUCESCATTER,
                              kind == NVSHM_PROXY_COLL_REDUCE ? "nvshmem reduce (device, through the proxy)"
                                                              : "nvshmem reducescatter (device, through the proxy)");
      break;
    default:
      break;
  }
  log_error("proxy", "a device collective request of kind %u (index %u) is not one of this library's", kind, index);
  return Status::invalid_value;
}
}  // namespace nvshm

extern "C" {

#define NVSHM_DEFINE_HOST_COLL(NAME, T)                                                                          \
  int nvshmem_##NAME##_broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root) {    \
    return code(host_broadcast(team, dest, source, nelems * sizeof(T), PE_root, "nvshmem_" #NAME "_broadcast")); \
  }                                                                                                              \
  int nvshmem_##NAME##_fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {                  \
    return code(host_fcollect(team, dest, source, nelems * sizeof(T), "nvshmem_" #NAME "_fcollect"));            \
  }                                                                                                              \
  int nvshmem_##NAME##_alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {                  \
    return code(host_alltoall(team, dest, source, nelems * sizeof(T), "nvshmem_" #NAME "_alltoall"));            \
  }
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_DEFINE_HOST_COLL)
#undef NVSHM_DEFINE_HOST_COLL

int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root) {
  return code(host_broadcast(team, dest, source, nelems, PE_root, "nvshmem_broadcastmem"));
}
int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return code(host_fcollect(team, dest, source, nelems, "nvshmem_fcollectmem"));
}
int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return code(host_alltoall(team, dest, source, nelems, "nvshmem_alltoallmem"));
}

#define NVSHM_DEFINE_HOST_REDUCE(OP, NAME, T)                                                                         \
  int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {                 \
    return code(host_##NAME##_##OP##_reduce(team, dest, source, nreduce, false, "nvshmem_" #NAME "_" #OP "_reduce")); \
  }                                                                                                                   \
  int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {          \
    return code(                                                                                                      \
        host_##NAME##_##OP##_reduce(team, dest, source, nreduce, true, "nvshmem_" #NAME "_" #OP "_reducescatter"));   \
  }
NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM_DEFINE_HOST_REDUCE)
#undef NVSHM_DEFINE_HOST_REDUCE

}  // extern "C"
