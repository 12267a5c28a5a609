// SPDX-License-Identifier: BSD-3-Clause
/* The tile API of NVSHMEM 3.4.5 (namespace nvshmemx; NVSHMEM docs: "Tile-based collectives",
 * TILE_REDUCTIONS, TILE_ALLGATHER, TILE_BROADCAST, TILE_WAIT, and tile_put/tile_get), without
 * multicast: every algorithm value runs as unicast loads and stores over the symmetric heap
 * (docs/collectives.md, "Tile API", has the mapping and the cost).
 *
 * A tile is a Tensor (tensor.cuh) whose data() is the address of the tile's first element and whose
 * stride is the matrix's. `start_coord` is the matrix coordinate of that element and `boundary` the
 * matrix's extents: element c of the tile exists where start_coord[d] + c[d] < boundary[d] for every
 * dimension d; the others are neither read nor written. A tuple_t that is not a cuda::std::tuple
 * (an empty struct, as NVIDIA's examples pass) means no clipping.
 *
 * Completion (NVIDIA's contract): the collectives may return before the data has moved;
 * tile_collective_wait, called by every member of the team, completes every tile collective this
 * PE issued on the team. Here it is one sync round of the team (collectives.cuh): after it, every
 * member's stores into this PE's dst have landed and no member still reads this PE's src. On a team with
 * a member outside the mapped range every tile collective goes through the host proxy (remote_team and
 * broadcast_remote below) and the wait is a team barrier through it. */
#ifndef NVSHMEM_DETAIL_DEVICE_TILE_CUH
#define NVSHMEM_DETAIL_DEVICE_TILE_CUH

#include <climits>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

#include "nvshmem_detail/device/collectives.cuh"
#include "nvshmem_detail/device/tensor.cuh"

namespace nvshm_dev {
namespace tile {

/* Rank of a cuda::std::tuple type; -1 for any other type (a tuple_t that asks for no clipping). */
template <class T>
struct rank_of : cuda::std::integral_constant<int, -1> {};
template <class... Ts>
struct rank_of<cuda::std::tuple<Ts...>> : cuda::std::integral_constant<int, static_cast<int>(sizeof...(Ts))> {};

template <class Tuple, size_t... I>
__device__ __forceinline__ void load_dims(const Tuple &t, long long *out, cuda::std::index_sequence<I...>) {
  ((out[I] = static_cast<long long>(cuda::std::get<I>(t))), ...);
}
/* The N integers of a shape, stride or coordinate tuple. */
template <int N, class Tuple>
__device__ __forceinline__ void load_dims(const Tuple &t, long long (&out)[N]) {
  static_assert(rank_of<Tuple>::value == N,
                "nvshmemx tile: shapes, strides and coordinates need one entry per dimension");
  load_dims(t, out, cuda::std::make_index_sequence<N>{});
}

/* The part of a tile inside the boundary, its dimensions in iteration order (dimension 0 varies
 * fastest; the dimension of smallest source stride comes first, so that neighbouring threads touch
 * neighbouring addresses). Extents and strides count units: elements, or 16-byte words of elements
 * after to_words. */
template <int N>
struct Box {
  unsigned ext[N];
  long long src[N];
  long long dst[N];
  unsigned count; /* product of ext; 0 when the tile is entirely outside the boundary */
};

__device__ __noinline__ static void fail_tile(const char *what) {
  printf("nvshmemx tile call on PE %d: %s\n", state().my_pe, what);
  __trap();
}

/* The box of a tile of `shape` (clipped by start/bound) with the given source and destination strides. */
template <int N, class Coord>
__device__ __forceinline__ Box<N> make_box(const long long (&shape)[N], const long long (&sstride)[N],
                                           const long long (&dstride)[N], const Coord &start, const Coord &bound) {
  long long ext[N];
  for (int d = 0; d < N; ++d) ext[d] = shape[d];
  if constexpr (rank_of<Coord>::value >= 0) {
    static_assert(rank_of<Coord>::value == N,
                  "nvshmemx tile: start_coord and boundary need one coordinate per dimension");
    long long lo[N], hi[N];
    load_dims<N>(start, lo);
    load_dims<N>(bound, hi);
    for (int d = 0; d < N; ++d) ext[d] = max(0ll, min(ext[d], hi[d] - lo[d]));
  }
  int order[N];
  for (int d = 0; d < N; ++d) {
    int k = d;
    const long long key = sstride[d] < 0 ? -sstride[d] : sstride[d];
    for (; k > 0; --k) {
      const long long prev = sstride[order[k - 1]] < 0 ? -sstride[order[k - 1]] : sstride[order[k - 1]];
      if (prev <= key) break;
      order[k] = order[k - 1];
    }
    order[k] = d;
  }
  Box<N> b;
  unsigned long long count = 1;
  for (int k = 0; k < N; ++k) {
    b.ext[k] = static_cast<unsigned>(ext[order[k]]);
    b.src[k] = sstride[order[k]];
    b.dst[k] = dstride[order[k]];
    count *= static_cast<unsigned long long>(ext[order[k]]);
  }
  if (count > 0xffffffffull) fail_tile("a tile of more than 2^32 - 1 elements");
  b.count = static_cast<unsigned>(count);
  return b;
}

/* Turns an element box into a box of 16-byte words (v elements each) where the innermost dimension
 * is contiguous on both sides and a multiple of v long, every other stride a multiple of v, and
 * every address in `bits` 16-byte aligned. */
template <int N>
__device__ __forceinline__ bool to_words(Box<N> &b, unsigned v, uintptr_t bits) {
  if ((bits & 15) != 0 || b.src[0] != 1 || b.dst[0] != 1 || b.ext[0] % v != 0) return false;
  for (int k = 1; k < N; ++k)
    if (b.ext[k] > 1 && (b.src[k] % v != 0 || b.dst[k] % v != 0)) return false;
  b.ext[0] /= v;
  for (int k = 1; k < N; ++k) {
    b.src[k] /= static_cast<long long>(v);
    b.dst[k] /= static_cast<long long>(v);
  }
  b.count /= v;
  return true;
}

template <typename W>
struct Unit {
  using type = W;
};
/* Calls body(Unit<W>{}, box, v) with W = int4 (v elements per unit) where to_words allows it, else
 * with W = T (v = 1). */
template <typename T, int N, class Body>
__device__ __forceinline__ void with_units(const Box<N> &b, uintptr_t bits, Body &&body) {
  if constexpr (sizeof(T) < 16 && 16 % sizeof(T) == 0) {
    Box<N> w = b;
    if (to_words(w, static_cast<unsigned>(16 / sizeof(T)), bits)) {
      body(Unit<int4>{}, w, static_cast<long long>(16 / sizeof(T)));
      return;
    }
  }
  body(Unit<T>{}, b, 1ll);
}

/* The source and destination offsets (in units) of unit `e` of the box, innermost dimension first. */
template <int N>
__device__ __forceinline__ void box_offsets(const Box<N> &b, unsigned e, long long *so, long long *dof) {
  unsigned r = e;
  *so = 0;
  *dof = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const unsigned c = k + 1 < N ? r % b.ext[k] : r;
    if (k + 1 < N) r /= b.ext[k];
    *so += static_cast<long long>(c) * b.src[k];
    *dof += static_cast<long long>(c) * b.dst[k];
  }
}

/* The group visits units [begin, end) of the box; f(source offset, destination offset) in units. */
template <Scope S, int N, class F>
__device__ __forceinline__ void for_each(const Box<N> &b, unsigned begin, unsigned end, F &&f) {
  for (unsigned e = begin + static_cast<unsigned>(Group<S>::rank()); e < end;
       e += static_cast<unsigned>(Group<S>::size())) {
    long long so, dof;
    box_offsets(b, e, &so, &dof);
    f(so, dof);
  }
}

/* Member `part`'s share [*begin, *end) of `count` units when the members split a box. */
__device__ __forceinline__ void share(unsigned count, int members, int part, unsigned *begin, unsigned *end) {
  const unsigned per = (count + static_cast<unsigned>(members) - 1) / static_cast<unsigned>(members);
  *begin = min(count, per * static_cast<unsigned>(part));
  *end = min(count, *begin + per);
}

template <ROp Op, typename T, typename W>
__device__ __forceinline__ W combine_unit(W a, W b) {
  if constexpr (std::is_same<W, int4>::value && !std::is_same<T, int4>::value)
    return combine16<Op, T>(a, b);
  else
    return combine<Op, T>(a, b);
}

template <class Tensor>
constexpr int rank_of_tensor = rank_of<decltype(cuda::std::declval<const Tensor &>().shape())>::value;

/* Source shape and strides of `src` and destination strides of `dst` (same rank). */
template <int N, class SrcT, class DstT>
__device__ __forceinline__ void geometry(const SrcT &src, const DstT &dst, long long (&shape)[N],
                                         long long (&sstride)[N], long long (&dstride)[N]) {
  static_assert(rank_of_tensor<SrcT> == N && rank_of_tensor<DstT> == N,
                "nvshmemx tile: src and dst tensors need the same rank");
  static_assert(std::is_same<typename SrcT::value_type, typename DstT::value_type>::value,
                "nvshmemx tile: src and dst tensors need the same element type");
  load_dims<N>(src.shape(), shape);
  load_dims<N>(src.stride(), sstride);
  load_dims<N>(dst.stride(), dstride);
}

/* ---- Teams with a member outside the mapped range (t.remote: another node, or NVSHMEM_DISABLE_P2P) ----
 * The group packs its clipped box (elements, in box order) into the team's collective scratch, one proxy request
 * runs the host collective of the packed elements on the team (an fcollect, or an all-reduce of (Op, T)), and
 * the group unpacks the result into dst: the work on the host, the kernel's registers within the budget
 * (docs/collectives.md, "Tile API"). Every member calls (a rooted reduce unpacks on the root only). The
 * scratch holds the packed input at its start and the result after it, the tile in one piece: packing a
 * scratch-full at a time kept the whole box in registers across both loops (70 in a block reduce). */
/* The box with one side's strides made those of its elements packed in box order (unit e at offset e). */
template <int N>
__device__ __forceinline__ Box<N> packed_side(Box<N> b, bool src_side) {
  long long step = 1;
  for (int k = 0; k < N; ++k) {
    (src_side ? b.src[k] : b.dst[k]) = step;
    step *= b.ext[k];
  }
  return b;
}
/* An element the proxy's copy wrote, read past the L1 cache: one relaxed load for 1-8 bytes, else relaxed loads
 * of its 4-byte words (or bytes), so that tiles of any element type (int4, double2, ...) still compile. */
template <typename T>
__device__ __forceinline__ T load_written(const T *p) {
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    return load<Load::relaxed>(p);
  } else {
    using W = cuda::std::conditional_t<alignof(T) % 4 == 0, uint32_t, uint8_t>;
    W w[sizeof(T) / sizeof(W)];
    for (size_t i = 0; i < sizeof(T) / sizeof(W); ++i) w[i] = load<Load::relaxed>(reinterpret_cast<const W *>(p) + i);
    T v;
    memcpy(&v, w, sizeof v);
    return v;
  }
}
/* index: reduce_index<Op, T>() for a reduction, UINT32_MAX for an all-gather (dst slot m at d + m * slot). */
template <Scope S, typename T, int N>
__device__ __forceinline__ void remote_team(nvshmem_team_t team, const nvshm_team_device &t, const Box<N> &b,
                                            const T *s, T *d, uint32_t index, bool unpacks, long long slot) {
  const bool gather = index == UINT32_MAX;
  const size_t cap = t.scratch_bytes / sizeof(T) / (gather ? static_cast<size_t>(t.size) + 1 : 2);
  if (b.count > cap)
    fail_tile(
        "a tile collective on a team with remote members: the tile is larger than the team's scratch allows "
        "(NVSHMEM_REDUCE_SCRATCH_SIZE)");
  T *const in = reinterpret_cast<T *>(t.scratch), *const out = in + cap;
  const unsigned n = b.count;
  for_each<S>(packed_side(b, false), 0, n, [&](long long so, long long dof) { in[dof] = s[so]; });
  if (gather)
    proxy_collective<S>(NVSHM_PROXY_COLL_FCOLLECT, team, out, in, n * sizeof(T), 0);
  else
    proxy_collective<S>(NVSHM_PROXY_COLL_REDUCE, team, out, in, n, index);
  const Box<N> from = packed_side(b, true);
  if (gather)
    for (int m = 0; m < t.size; ++m) {
      const T *part = out + static_cast<size_t>(m) * n;
      T *to = d + m * slot;
      for_each<S>(from, 0, n, [&](long long so, long long dof) { to[dof] = load_written(part + so); });
    }
  else if (unpacks)
    for_each<S>(from, 0, n, [&](long long so, long long dof) { d[dof] = load_written(out + so); });
  Group<S>::sync();  // the group is done with the scratch
}

/* Broadcast on such a team (the root alone calls it, so no host collective serves it): the group packs its tile
 * into the team's scratch behind a header naming the box's extents and destination strides, and one request
 * has the proxy put the rows into every member's dst (NVSHM_PROXY_COLL_TILE_PUSH) and complete them. */
template <Scope S, typename T, int N>
__device__ __forceinline__ void broadcast_remote(nvshmem_team_t team, const nvshm_team_device &t, const Box<N> &b,
                                                 const T *s, T *d) {
  static_assert(2 * N + 1 <= NVSHM_PROXY_TILE_HEADER_WORDS, "nvshmemx tile_broadcast: at most 7 dimensions");
  constexpr size_t kHeader = NVSHM_PROXY_TILE_HEADER_WORDS * sizeof(uint64_t);
  if (t.scratch_bytes < kHeader || b.count > (t.scratch_bytes - kHeader) / sizeof(T))
    fail_tile(
        "tile_broadcast on a team with remote members: the tile is larger than the team's scratch allows "
        "(NVSHMEM_REDUCE_SCRATCH_SIZE)");
  uint64_t *const header = reinterpret_cast<uint64_t *>(t.scratch);
  T *const in = reinterpret_cast<T *>(t.scratch + kHeader);
  if (Group<S>::rank() == 0) {
    header[0] = static_cast<uint64_t>(N) | static_cast<uint64_t>(sizeof(T)) << 8;
    for (int k = 0; k < N; ++k) {
      header[1 + k] = b.ext[k];
      header[1 + N + k] = static_cast<uint64_t>(b.dst[k]);
    }
  }
  for_each<S>(packed_side(b, false), 0, b.count, [&](long long so, long long dof) { in[dof] = s[so]; });
  proxy_collective<S>(NVSHM_PROXY_COLL_TILE_PUSH, team, d, t.scratch, b.count * sizeof(T),
                      static_cast<const void *>(s) != static_cast<const void *>(d));
}

/* Reduction of the tile over the members. Root < 0: all-reduce (every member's dst gets the result),
 * else only the root's dst. One-shot: the PEs that get the result each load the whole tile from
 * every member. Two-shot: the members split the tile; each loads its share from every member and
 * stores the result into every member's dst (all-reduce) or the root's (rooted). Members are
 * combined in team order (member 0 first), so every PE gets the same bits. */
template <Scope S, ROp Op, class SrcT, class DstT, class Coord>
__device__ __forceinline__ int reduce(nvshmem_team_t team, SrcT src, DstT dst, const Coord &start, const Coord &bound,
                                      int root, bool two_shot) {
  using T = typename SrcT::value_type;
  constexpr int N = rank_of_tensor<SrcT>;
  const nvshm_team_device &t = team_or_trap(team);
  if (root >= t.size) fail_tile("rooted_reduce with a root outside the team");
  long long shape[N], sstride[N], dstride[N];
  geometry<N>(src, dst, shape, sstride, dstride);
  const Box<N> box = make_box<N>(shape, sstride, dstride, start, bound);
  const T *s = src.data();
  T *d = dst.data();
  if (t.remote) {
    constexpr uint32_t index = reduce_index<Op, T>();
    if constexpr (index == UINT32_MAX)
      fail_tile("a reduction of this element type on a team with remote members (the host API has none)");
    else
      remote_team<S>(team, t, box, s, d, index, root < 0 || t.my_pe == root, 0);
    return 0;
  }
  nvshm_dev::sync_round<S>(t); /* every member's src is ready */
  const bool everywhere = root < 0;
  uintptr_t bits = reinterpret_cast<uintptr_t>(d);
  for (int i = 0; i < t.size; ++i)
    bits |= reinterpret_cast<uintptr_t>(member_address(t, s, i)) | reinterpret_cast<uintptr_t>(member_address(t, d, i));
  with_units<T>(box, bits, [&](auto unit, const Box<N> &b, long long) {
    using W = typename decltype(unit)::type;
    const W *sw = reinterpret_cast<const W *>(s);
    W *dw = reinterpret_cast<W *>(d);
    unsigned begin = 0, end = b.count;
    if (two_shot)
      share(b.count, t.size, t.my_pe, &begin, &end);
    else if (!everywhere && t.my_pe != root)
      end = 0;
    for_each<S>(b, begin, end, [&](long long so, long long dof) {
      W acc = member_address(t, sw, 0)[so];
      for (int i = 1; i < t.size; ++i) acc = combine_unit<Op, T>(acc, member_address(t, sw, i)[so]);
      if (!two_shot)
        dw[dof] = acc;
      else if (everywhere)
        for (int j = 0; j < t.size; ++j) member_address(t, dw, j)[dof] = acc;
      else
        member_address(t, dw, root)[dof] = acc;
    });
  });
  return 0;
}

/* All-gather: dst has src's shape except along one dimension g, where it is team-size times longer;
 * member m's tile lands at offset m * src_extent[g] along g. Push: each member stores its tile into
 * every member's dst. Pull: after a round, each member loads every member's tile into its own dst. */
template <Scope S, class SrcT, class DstT, class Coord>
__device__ __forceinline__ int allgather(nvshmem_team_t team, SrcT src, DstT dst, const Coord &start,
                                         const Coord &bound, bool pull) {
  using T = typename SrcT::value_type;
  constexpr int N = rank_of_tensor<SrcT>;
  const nvshm_team_device &t = team_or_trap(team);
  long long shape[N], sstride[N], dstride[N], dshape[N];
  geometry<N>(src, dst, shape, sstride, dstride);
  load_dims<N>(dst.shape(), dshape);
  long long slot = 0; /* elements between the tiles of two consecutive members in dst */
  int differing = 0;
  for (int k = 0; k < N; ++k) {
    if (dshape[k] == shape[k]) continue;
    ++differing;
    if (dshape[k] != shape[k] * t.size) differing = N + 1;
    slot = shape[k] * dstride[k];
  }
  if (differing > 1 || (differing == 0 && t.size > 1))
    fail_tile("allgather needs a dst tile of the src tile's shape with one extent multiplied by the team size");
  const Box<N> box = make_box<N>(shape, sstride, dstride, start, bound);
  const T *s = src.data();
  T *d = dst.data();
  if (t.remote) {
    remote_team<S>(team, t, box, s, d, UINT32_MAX, true, slot);
    return 0;
  }
  if (pull) nvshm_dev::sync_round<S>(t); /* every member's src is ready */
  uintptr_t bits = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d) |
                   static_cast<uintptr_t>(slot * static_cast<long long>(sizeof(T)));
  for (int i = 0; i < t.size; ++i)
    bits |= reinterpret_cast<uintptr_t>(member_address(t, s, i)) | reinterpret_cast<uintptr_t>(member_address(t, d, i));
  with_units<T>(box, bits, [&](auto unit, const Box<N> &b, long long v) {
    using W = typename decltype(unit)::type;
    const W *sw = reinterpret_cast<const W *>(s);
    W *dw = reinterpret_cast<W *>(d);
    const long long slot_units = slot / v;
    if (pull) {
      for_each<S>(b, 0, b.count, [&](long long so, long long dof) {
        for (int m = 0; m < t.size; ++m) dw[m * slot_units + dof] = member_address(t, sw, m)[so];
      });
    } else {
      W *mine = dw + t.my_pe * slot_units;
      for_each<S>(b, 0, b.count, [&](long long so, long long dof) {
        const W x = sw[so];
        for (int k = 1; k <= t.size; ++k) member_address(t, mine, (t.my_pe + k) % t.size)[dof] = x;
      });
    }
  });
  return 0;
}

/* Broadcast from the calling PE: it stores its src tile into the dst tile of every member. */
template <Scope S, class SrcT, class DstT, class Coord>
__device__ __forceinline__ int broadcast(nvshmem_team_t team, SrcT src, DstT dst, const Coord &start,
                                         const Coord &bound) {
  using T = typename SrcT::value_type;
  constexpr int N = rank_of_tensor<SrcT>;
  const nvshm_team_device &t = team_or_trap(team);
  if (t.my_pe < 0) fail_tile("broadcast called by a PE outside the team");
  long long shape[N], sstride[N], dstride[N];
  geometry<N>(src, dst, shape, sstride, dstride);
  const Box<N> box = make_box<N>(shape, sstride, dstride, start, bound);
  const T *s = src.data();
  T *d = dst.data();
  if (t.remote) {
    broadcast_remote<S>(team, t, box, s, d);
    return 0;
  }
  uintptr_t bits = reinterpret_cast<uintptr_t>(s);
  for (int i = 0; i < t.size; ++i) bits |= reinterpret_cast<uintptr_t>(member_address(t, d, i));
  with_units<T>(box, bits, [&](auto unit, const Box<N> &b, long long) {
    using W = typename decltype(unit)::type;
    const W *sw = reinterpret_cast<const W *>(s);
    W *dw = reinterpret_cast<W *>(d);
    const bool skip_self = static_cast<const void *>(s) == static_cast<const void *>(d);
    for_each<S>(b, 0, b.count, [&](long long so, long long dof) {
      const W x = sw[so];
      for (int k = 1; k <= t.size; ++k) {
        const int j = (t.my_pe + k) % t.size;
        if (j != t.my_pe || !skip_self) member_address(t, dw, j)[dof] = x;
      }
    });
  });
  return 0;
}

/* A tile copy with a PE outside the mapped range, through the proxy (docs/proxy.md): the group synchronises,
 * its rank 0 asks for one transfer per row of the box (its innermost dimension: a put or get where the row is
 * contiguous on both sides, else a strided iput or iget of its elements), none waited for, then a QUIET
 * marker waited for: on return the put's source may be reused and the get's data is in dst. `s` and `d`
 * are the caller's addresses (the symmetric one untranslated); the local tile is in global memory (the
 * proxy thread copies it; shared memory traps with a message). */
template <Scope S, bool Put, typename T, int N>
__device__ __forceinline__ void copy_remote(const Box<N> &b, const T *s, T *d, int pe) {
  Group<S>::sync();
  if (Group<S>::rank() == 0 && b.count > 0) {
    if (!__isGlobal(Put ? static_cast<const void *>(s) : static_cast<const void *>(d)))
      fail_tile("tile_put/tile_get with a remote PE: the local tile must be in global memory (the proxy copies it)");
    const bool rows_contiguous = b.src[0] == 1 && b.dst[0] == 1;
    const uint32_t op =
        rows_contiguous ? (Put ? NVSHM_PROXY_PUT : NVSHM_PROXY_GET) : (Put ? NVSHM_PROXY_IPUT : NVSHM_PROXY_IGET);
    const uint64_t n = b.ext[0], bytes = rows_contiguous ? n * sizeof(T) : n;
    const uint64_t remote_stride = static_cast<uint64_t>((Put ? b.dst[0] : b.src[0]) * sizeof(T)),
                   local_stride = static_cast<uint64_t>((Put ? b.src[0] : b.dst[0]) * sizeof(T));
    for (unsigned first = 0; first < b.count; first += b.ext[0]) {  // each row's first element
      long long so, dof;
      box_offsets(b, first, &so, &dof);
      const T *from = s + so;
      T *to = d + dof;
      (void)proxy_call<Scope::thread>(proxy_code(op, 0, rows_contiguous ? 0 : sizeof(T)), pe, Put ? to : from,
                                      Put ? from : to, bytes, 0, remote_stride, local_stride);
    }
    proxy_quiet_now();
  }
  Group<S>::sync();
}

/* Peer copy of a tile: put stores the local src tile into dst on `pe`; get loads src on `pe` into
 * the local dst tile. Both end with a group sync: on return the group's loads and stores are done
 * (a put is delivered like a blocking put: visible to others after nvshmem_quiet or a barrier). */
template <Scope S, bool Put, class SrcT, class DstT, class Coord>
__device__ __forceinline__ int copy(SrcT src, DstT dst, const Coord &start, const Coord &bound, int pe) {
  using T = typename SrcT::value_type;
  constexpr int N = rank_of_tensor<SrcT>;
  long long shape[N], sstride[N], dstride[N];
  geometry<N>(src, dst, shape, sstride, dstride);
  const Box<N> box = make_box<N>(shape, sstride, dstride, start, bound);
  if (remote_pe(pe)) {
    copy_remote<S, Put>(box, src.data(), dst.data(), pe);
    return 0;
  }
  const T *s = Put ? src.data() : peer_address(static_cast<const T *>(src.data()), pe);
  T *d = Put ? peer_address(dst.data(), pe) : dst.data();
  const uintptr_t bits = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d);
  with_units<T>(box, bits, [&](auto unit, const Box<N> &b, long long) {
    using W = typename decltype(unit)::type;
    const W *sw = reinterpret_cast<const W *>(s);
    W *dw = reinterpret_cast<W *>(d);
    for_each<S>(b, 0, b.count, [&](long long so, long long dof) { dw[dof] = sw[so]; });
  });
  Group<S>::sync();
  return 0;
}

/* tile_collective_wait: one sync round of the team. */
template <Scope S>
__device__ __forceinline__ int wait(nvshmem_team_t team) {
  const nvshm_team_device &t = team_or_trap(team);
  if (t.remote) return nvshm_dev::team_barrier<S>(team, true);
  Group<S>::sync();
  nvshm_dev::sync_round<S>(t);
  return 0;
}

__host__ __device__ constexpr bool is_two_shot(nvshmemx::tile_coll_algo_t algo) {
  return algo == nvshmemx::NVLS_TWO_SHOT_PUSH_NBI || algo == nvshmemx::NVLS_TWO_SHOT_PULL_NBI;
}
__host__ __device__ constexpr bool is_pull(nvshmemx::tile_coll_algo_t algo) {
  return algo == nvshmemx::NVLS_ONE_SHOT_PULL_NBI || algo == nvshmemx::NVLS_TWO_SHOT_PULL_NBI;
}

}  // namespace tile
}  // namespace nvshm_dev

/* The scopes of every tile call: the name suffix and the nvshm_dev::Scope. Thread: one thread calls;
 * _warp: the 32 threads of a warp; _warpgroup: the 128 threads of block ranks [128k, 128k + 128) in
 * a block whose size is a multiple of 128; _block: every thread of the block. The threads of a
 * group pass the same arguments. */
#define NVSHM_TILE_SCOPES(X, ...) \
  X(, thread, __VA_ARGS__)        \
  X(_warp, warp, __VA_ARGS__)     \
  X(_warpgroup, warpgroup, __VA_ARGS__) X(_block, block, __VA_ARGS__)

#define NVSHM_TILE_TEMPLATE(ALGO_T) \
  template <typename src_tensor_t, typename dst_tensor_t, typename tuple_t, nvshmemx::ALGO_T algo>

namespace nvshmemx {

/* tile_{sum,max,min}_rooted_reduce[_warp|_warpgroup|_block] (NVSHMEM docs: TILE_REDUCTIONS):
 * reduction of one tile over `team` into the dst tile of team member `root` only; every member
 * calls it with the same root; the other members' dst tiles are not written. Returns 0; complete
 * after tile_collective_wait. One-shot: the root loads the whole tile from every member; two-shot:
 * the members split the tile, each loads its share from every member and stores the result into
 * the root's dst. `flag` is unused (0). */
#define NVSHM_TILE_ROOTED_DEF(SUFFIX, SCOPE, OP)                                                                   \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                            \
  __device__ inline int tile_##OP##_rooted_reduce##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst, \
                                                          tuple_t start_coord, tuple_t boundary, int root,         \
                                                          uint64_t flag) {                                         \
    (void)flag;                                                                                                    \
    return nvshm_dev::tile::reduce<nvshm_dev::Scope::SCOPE, nvshm_dev::ROp::OP>(                                   \
        team, src, dst, start_coord, boundary, root < 0 ? INT_MAX : root, nvshm_dev::tile::is_two_shot(algo));     \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_ROOTED_DEF, sum)
NVSHM_TILE_SCOPES(NVSHM_TILE_ROOTED_DEF, max)
NVSHM_TILE_SCOPES(NVSHM_TILE_ROOTED_DEF, min)
#undef NVSHM_TILE_ROOTED_DEF

/* tile_{sum,max,min}_reduce[_warp|_warpgroup|_block] (NVSHMEM docs: TILE_REDUCTIONS).
 * Without `root` (NVSHMEM 3.5): all-reduce of one tile over `team`; every member calls it with its
 * own src tile and gets the element-wise reduction of all members' src tiles in its dst tile
 * (symmetric tensors of float, half, __nv_bfloat16, or any arithmetic type; src and dst must not
 * overlap). Returns 0; the result is complete after tile_collective_wait. One-shot algorithms: every
 * member loads the whole tile from every member; two-shot: the members split the tile and store their
 * share of the result into every member's dst. `flag` is unused (0).
 * With `root`: NVSHMEM 3.4.5's rooted reduce (3.5's tile_<op>_rooted_reduce): only the root's dst is
 * written, so a 3.4.5 program's other dst tiles stay untouched (docs/compatibility.md). */
#define NVSHM_TILE_REDUCE_DEF(SUFFIX, SCOPE, OP)                                                                     \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                              \
  __device__ inline int tile_##OP##_reduce##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst,          \
                                                   tuple_t start_coord, tuple_t boundary, int root, uint64_t flag) { \
    return tile_##OP##_rooted_reduce##SUFFIX<src_tensor_t, dst_tensor_t, tuple_t, algo>(team, src, dst, start_coord, \
                                                                                        boundary, root, flag);       \
  }                                                                                                                  \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                              \
  __device__ inline int tile_##OP##_reduce##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst,          \
                                                   tuple_t start_coord, tuple_t boundary, uint64_t flag) {           \
    (void)flag;                                                                                                      \
    return nvshm_dev::tile::reduce<nvshm_dev::Scope::SCOPE, nvshm_dev::ROp::OP>(                                     \
        team, src, dst, start_coord, boundary, -1, nvshm_dev::tile::is_two_shot(algo));                              \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_REDUCE_DEF, sum)
NVSHM_TILE_SCOPES(NVSHM_TILE_REDUCE_DEF, max)
NVSHM_TILE_SCOPES(NVSHM_TILE_REDUCE_DEF, min)
#undef NVSHM_TILE_REDUCE_DEF

/* tile_{sum,max,min}_allreduce[_warp|_warpgroup|_block]: NVSHMEM 3.4.5's name of the all-reduce (3.5
 * renamed it tile_<op>_reduce); both overloads, same algorithms; `root` is accepted, as NVIDIA's hint
 * of which PE reduces, and not needed. */
#define NVSHM_TILE_ALLREDUCE_DEF(SUFFIX, SCOPE, OP)                                                            \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                        \
  __device__ inline int tile_##OP##_allreduce##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst, \
                                                      tuple_t start_coord, tuple_t boundary, int root,         \
                                                      uint64_t flag) {                                         \
    (void)root;                                                                                                \
    return tile_##OP##_reduce##SUFFIX<src_tensor_t, dst_tensor_t, tuple_t, algo>(team, src, dst, start_coord,  \
                                                                                 boundary, flag);              \
  }                                                                                                            \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                        \
  __device__ inline int tile_##OP##_allreduce##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst, \
                                                      tuple_t start_coord, tuple_t boundary, uint64_t flag) {  \
    return tile_##OP##_reduce##SUFFIX<src_tensor_t, dst_tensor_t, tuple_t, algo>(team, src, dst, start_coord,  \
                                                                                 boundary, flag);              \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_ALLREDUCE_DEF, sum)
NVSHM_TILE_SCOPES(NVSHM_TILE_ALLREDUCE_DEF, max)
NVSHM_TILE_SCOPES(NVSHM_TILE_ALLREDUCE_DEF, min)
#undef NVSHM_TILE_ALLREDUCE_DEF

/* tile_allgather[_warp|_warpgroup|_block] (NVSHMEM docs: TILE_ALLGATHER): every member of `team`
 * calls it with its src tile; the dst tile has the src tile's shape except along one dimension,
 * where it is team-size times longer, and gets member m's tile at offset m * (src extent) along it,
 * on every member. Any element type. Returns 0; complete after tile_collective_wait. PUSH
 * algorithms: each member stores its tile into every member's dst; PULL: each member loads every
 * member's tile. `flag` is unused (0). */
#define NVSHM_TILE_ALLGATHER_DEF(SUFFIX, SCOPE, UNUSED)                                                 \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                 \
  __device__ inline int tile_allgather##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst, \
                                               tuple_t start_coord, tuple_t boundary, uint64_t flag) {  \
    (void)flag;                                                                                         \
    return nvshm_dev::tile::allgather<nvshm_dev::Scope::SCOPE>(team, src, dst, start_coord, boundary,   \
                                                               nvshm_dev::tile::is_pull(algo));         \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_ALLGATHER_DEF, 0)
#undef NVSHM_TILE_ALLGATHER_DEF

/* tile_broadcast[_warp|_warpgroup|_block] (NVSHMEM docs: TILE_BROADCAST): the calling PE (only it
 * calls; it is the root) stores its src tile into the dst tile of every member of `team`, itself
 * included. Any element type. Returns 0; the members see the tile after every member called
 * tile_collective_wait. Every algorithm value pushes. `flag` is unused (0). */
#define NVSHM_TILE_BROADCAST_DEF(SUFFIX, SCOPE, UNUSED)                                                 \
  NVSHM_TILE_TEMPLATE(tile_coll_algo_t)                                                                 \
  __device__ inline int tile_broadcast##SUFFIX(nvshmem_team_t team, src_tensor_t src, dst_tensor_t dst, \
                                               tuple_t start_coord, tuple_t boundary, uint64_t flag) {  \
    (void)flag;                                                                                         \
    return nvshm_dev::tile::broadcast<nvshm_dev::Scope::SCOPE>(team, src, dst, start_coord, boundary);  \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_BROADCAST_DEF, 0)
#undef NVSHM_TILE_BROADCAST_DEF

/* tile_put[_warp|_warpgroup|_block]: copies the local src tile into the symmetric dst tile on PE
 * `pe` (a world PE). tile_get[_warp|_warpgroup|_block]: copies the symmetric src tile of PE `pe`
 * into the local dst tile. Both tensors have the same shape; any element type. Every tile_algo_t
 * value uses peer loads and stores. Returns 0; on return the group's copy is done (a put is
 * delivered to other PEs' view after nvshmem_quiet, as any put). `flag` is unused (0). */
#define NVSHM_TILE_COPY_DEF(SUFFIX, SCOPE, UNUSED)                                                                  \
  NVSHM_TILE_TEMPLATE(tile_algo_t)                                                                                  \
  __device__ inline int tile_put##SUFFIX(src_tensor_t src, dst_tensor_t dst, tuple_t start_coord, tuple_t boundary, \
                                         int pe, uint64_t flag) {                                                   \
    (void)flag;                                                                                                     \
    return nvshm_dev::tile::copy<nvshm_dev::Scope::SCOPE, true>(src, dst, start_coord, boundary, pe);               \
  }                                                                                                                 \
  NVSHM_TILE_TEMPLATE(tile_algo_t)                                                                                  \
  __device__ inline int tile_get##SUFFIX(src_tensor_t src, dst_tensor_t dst, tuple_t start_coord, tuple_t boundary, \
                                         int pe, uint64_t flag) {                                                   \
    (void)flag;                                                                                                     \
    return nvshm_dev::tile::copy<nvshm_dev::Scope::SCOPE, false>(src, dst, start_coord, boundary, pe);              \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_COPY_DEF, 0)
#undef NVSHM_TILE_COPY_DEF

/* tile_collective_wait[_warp|_warpgroup|_block] (NVSHMEM docs: TILE_WAIT): called by every member of
 * `team` (the same group scope as its tile calls) after its tile collectives on the team; on return
 * this PE's dst tiles of those collectives are complete and its src tiles may be reused. Here it
 * completes the tile collectives of every algorithm, not only `algo`'s. `flag` is unused (0). */
#define NVSHM_TILE_WAIT_DEF(SUFFIX, SCOPE, UNUSED)                                         \
  template <nvshmemx::tile_coll_algo_t algo>                                               \
  __device__ inline int tile_collective_wait##SUFFIX(nvshmem_team_t team, uint64_t flag) { \
    (void)flag;                                                                            \
    return nvshm_dev::tile::wait<nvshm_dev::Scope::SCOPE>(team);                           \
  }
NVSHM_TILE_SCOPES(NVSHM_TILE_WAIT_DEF, 0)
#undef NVSHM_TILE_WAIT_DEF

}  // namespace nvshmemx

#undef NVSHM_TILE_TEMPLATE
#undef NVSHM_TILE_SCOPES

#endif /* NVSHMEM_DETAIL_DEVICE_TILE_CUH */
