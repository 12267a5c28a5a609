// SPDX-License-Identifier: BSD-3-Clause
// The tile API (nvshmemx::tile_*, NVSHMEM 3.4.5) on 2 PEs: every collective in every scope (thread,
// warp, warpgroup, block), float and half (bfloat16 for the reductions), the algorithm values, every
// root, put/get to the neighbour. A kernel runs one group over all tiles of a matrix (several tile
// calls before one tile_collective_wait); the matrix's size is not a multiple of the tile's, so the
// last tiles are clipped by the boundary; layouts: column-major with a padded leading dimension
// (16-byte vector path), row-major with an odd one (element path, dst in another layout), and
// strides with gaps. Random inputs, poisoned outputs, a host reference of every element (padding and
// clipped elements must keep the poison).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <device/tile/nvshmemx_tile_api.hpp>
#include <nvshmemx.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "gpu_test.hpp"

namespace {

enum Sc { kThread, kWarp, kWarpgroup, kBlock };
const char *scope_name(Sc s) {
  static const char *names[] = {"thread", "warp", "warpgroup", "block"};
  return names[s];
}
// Threads launched per scope; the group that calls: thread 0, warp 1, warpgroup 1, the block.
unsigned block_threads(Sc s) {
  return s == kThread ? 32 : s == kWarp ? 64 : 256;
}
template <Sc S>
__device__ bool in_group() {
  if (S == kThread) return threadIdx.x == 0;
  if (S == kWarp) return threadIdx.x >= 32 && threadIdx.x < 64;
  if (S == kWarpgroup) return threadIdx.x >= 128;
  return true;
}
template <Sc S>
__device__ bool group_leader() {
  return S == kThread ? true : S == kWarp ? threadIdx.x == 32 : S == kWarpgroup ? threadIdx.x == 128 : threadIdx.x == 0;
}

// kReduceRoot: tile_<op>_reduce with a root, NVSHMEM 3.4.5's spelling of the rooted reduce.
enum Kind { kReduce, kRooted, kAllgather, kBroadcast, kPut, kGet, kAllreduce, kReduceRoot };
enum Op { kSum, kMax, kMin };
const char *kind_name(Kind k) {
  static const char *names[] = {"reduce", "rooted_reduce", "allgather", "broadcast",
                                "put",    "get",           "allreduce", "reduce with root"};
  return names[k];
}
const char *op_name(Op o) {
  static const char *names[] = {"sum", "max", "min"};
  return names[o];
}

// A matrix cut into tiles: `full` is the boundary, tiles[d] = ceil(full[d] / tile[d]).
struct Geom {
  const char *name;
  int rank;
  int full[3];
  int tile[3];
  int sstride[3];
  int dstride[3];
  // Filled by finish():
  int gather = -1;  // allgather: the dimension along which dst tiles are `members` times longer; else -1
  int members = 1;  // team size
  int tiles[3] = {};
  int ntiles = 0;
};

Geom finish(Geom g, int gather, int members) {
  g.gather = gather;
  g.members = members;
  g.ntiles = 1;
  for (int d = 0; d < g.rank; ++d) {
    g.tiles[d] = (g.full[d] + g.tile[d] - 1) / g.tile[d];
    g.ntiles *= g.tiles[d];
  }
  for (int d = g.rank; d < 3; ++d) g.full[d] = g.tile[d] = g.tiles[d] = 1, g.sstride[d] = g.dstride[d] = 0;
  return g;
}
// Column-major with a padded leading dimension: interior and clipped tiles take the 16-byte path.
Geom col_major(int gather = -1, int members = 1) {
  return finish(Geom{"column-major ld 72", 2, {40, 52}, {16, 24}, {1, 72}, {1, 72}}, gather, members);
}
// Row-major with an odd leading dimension, dst column-major: the element path.
Geom row_major(int gather = -1, int members = 1) {
  const int dld = gather == 0 ? 8 * 5 * members + 3 : 41;
  return finish(Geom{"row-major ld 47, dst column-major", 2, {37, 45}, {8, 20}, {47, 1}, {1, dld}}, gather, members);
}
// Strides with gaps in both dimensions.
Geom gaps(int gather = -1, int members = 1) {
  const int dld = gather == 0 ? 3 * 12 * 3 * members + 5 : 110;
  return finish(Geom{"strides (2, 74), dst (3, ...)", 2, {30, 26}, {12, 10}, {2, 74}, {3, dld}}, gather, members);
}
// Exact multiple of the tile, for the calls without clipping.
Geom exact() {
  return finish(Geom{"column-major 48x48 ld 56", 2, {48, 48}, {16, 24}, {1, 56}, {1, 56}}, -1, 1);
}
Geom cube() {
  return finish(Geom{"3-D 6x7x9 padded", 3, {6, 7, 9}, {4, 4, 5}, {1, 8, 72}, {1, 8, 72}}, -1, 1);
}

// dst tile extent along d.
__host__ __device__ int dst_tile(const Geom &g, int d) {
  return g.tile[d] * (d == g.gather ? g.members : 1);
}
// Tile ti's first element: matrix coordinate and offsets in the src and dst storage.
__host__ __device__ void tile_origin(const Geom &g, int ti, int *start, long long *soff, long long *doff) {
  *soff = *doff = 0;
  for (int d = 0; d < 3; ++d) {
    const int t = ti % g.tiles[d];
    ti /= g.tiles[d];
    start[d] = t * g.tile[d];
    *soff += static_cast<long long>(start[d]) * g.sstride[d];
    *doff += static_cast<long long>(t) * dst_tile(g, d) * g.dstride[d];
  }
}
size_t storage(const Geom &g, bool dst) {
  long long last = 0;
  for (int d = 0; d < g.rank; ++d)
    last += static_cast<long long>(g.tiles[d] * (dst ? dst_tile(g, d) : g.tile[d]) - 1) *
            (dst ? g.dstride[d] : g.sstride[d]);
  return static_cast<size_t>(last + 1);
}

template <int R>
__device__ auto tup(const int *v) {
  if constexpr (R == 2)
    return nvshmemx::make_shape(v[0], v[1]);
  else
    return nvshmemx::make_shape(v[0], v[1], v[2]);
}
template <int R>
__device__ auto strides(const int *v) {
  if constexpr (R == 2)
    return nvshmemx::make_stride(v[0], v[1]);
  else
    return nvshmemx::make_stride(v[0], v[1], v[2]);
}

struct NoClip {};

// Calls NAME in scope S (the plain, _warp, _warpgroup or _block form) with template arguments TARGS.
#define TILE_BY_SCOPE(RC, NAME, TARGS, ...)               \
  {                                                       \
    if constexpr (S == kThread)                           \
      RC = nvshmemx::NAME TARGS(__VA_ARGS__);             \
    else if constexpr (S == kWarp)                        \
      RC = nvshmemx::NAME##_warp TARGS(__VA_ARGS__);      \
    else if constexpr (S == kWarpgroup)                   \
      RC = nvshmemx::NAME##_warpgroup TARGS(__VA_ARGS__); \
    else                                                  \
      RC = nvshmemx::NAME##_block TARGS(__VA_ARGS__);     \
  }
#define COLL_TARGS <ST, DT, C, A>
#define PUT_TARGS <ST, DT, C, nvshmemx::PEER_PUSH_NBI>
#define GET_TARGS <ST, DT, C, nvshmemx::tile_algo_t::REMOTE_PULL_NBI>
#define WAIT_TARGS <A>

template <Kind K, Sc S, Op O, nvshmemx::tile_coll_algo_t A, class ST, class DT, class C>
__device__ int call(nvshmem_team_t team, ST s, DT d, C st, C bd, int root, int pe) {
  constexpr bool two_shot = A == nvshmemx::NVLS_TWO_SHOT_PUSH_NBI || A == nvshmemx::NVLS_TWO_SHOT_PULL_NBI;
  int rc = -1;
  if constexpr (K == kReduce && O == kSum) {
    TILE_BY_SCOPE(rc, tile_sum_reduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kReduce && O == kMax) {
    TILE_BY_SCOPE(rc, tile_max_reduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kReduce && O == kMin) {
    TILE_BY_SCOPE(rc, tile_min_reduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kAllreduce && O == kSum) {
    if (two_shot)
      TILE_BY_SCOPE(rc, tile_sum_allreduce, COLL_TARGS, team, s, d, st, bd, root, 0)
    else
      TILE_BY_SCOPE(rc, tile_sum_allreduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kAllreduce && O == kMax) {
    if (two_shot)
      TILE_BY_SCOPE(rc, tile_max_allreduce, COLL_TARGS, team, s, d, st, bd, root, 0)
    else
      TILE_BY_SCOPE(rc, tile_max_allreduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kAllreduce && O == kMin) {
    if (two_shot)
      TILE_BY_SCOPE(rc, tile_min_allreduce, COLL_TARGS, team, s, d, st, bd, root, 0)
    else
      TILE_BY_SCOPE(rc, tile_min_allreduce, COLL_TARGS, team, s, d, st, bd, uint64_t{0})
  } else if constexpr (K == kRooted && O == kSum) {
    TILE_BY_SCOPE(rc, tile_sum_rooted_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kRooted && O == kMax) {
    TILE_BY_SCOPE(rc, tile_max_rooted_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kRooted && O == kMin) {
    TILE_BY_SCOPE(rc, tile_min_rooted_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kReduceRoot && O == kSum) {
    TILE_BY_SCOPE(rc, tile_sum_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kReduceRoot && O == kMax) {
    TILE_BY_SCOPE(rc, tile_max_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kReduceRoot && O == kMin) {
    TILE_BY_SCOPE(rc, tile_min_reduce, COLL_TARGS, team, s, d, st, bd, root, 0)
  } else if constexpr (K == kAllgather) {
    TILE_BY_SCOPE(rc, tile_allgather, COLL_TARGS, team, s, d, st, bd, 0)
  } else if constexpr (K == kBroadcast) {
    TILE_BY_SCOPE(rc, tile_broadcast, COLL_TARGS, team, s, d, st, bd, 0)
  } else if constexpr (K == kPut) {
    TILE_BY_SCOPE(rc, tile_put, PUT_TARGS, s, d, st, bd, pe, 0)
  } else {
    TILE_BY_SCOPE(rc, tile_get, GET_TARGS, s, d, st, bd, pe, 0)
  }
  return rc;
}

// One group runs the tile call on every tile of the matrix, then (collectives) one
// tile_collective_wait; every nonzero return is counted in *errors. `active`: this PE calls the
// broadcast (it is the root). Static: the tile shape is ConstInt<16> x ConstInt<24>, unit stride
// ConstInt<1> (col_major() only).
template <Kind K, Sc S, typename T, Op O, nvshmemx::tile_coll_algo_t A, int R, bool Clip, bool Static>
__global__ void tile_kernel(Geom g, nvshmem_team_t team, T *src, T *dst, int root, bool active, int pe, int *errors) {
  if (!in_group<S>()) return;
  int dtile[3];
  for (int d = 0; d < 3; ++d) dtile[d] = dst_tile(g, d);
  auto layouts = [&]() {
    if constexpr (Static) {
      static_assert(R == 2, "static shapes in 2-D only");
      return cuda::std::make_tuple(nvshmemx::make_layout(nvshmemx::make_shape(ConstInt<16>{}, ConstInt<24>{}),
                                                         nvshmemx::make_stride(ConstInt<1>{}, g.sstride[1])),
                                   nvshmemx::make_layout(nvshmemx::make_shape(ConstInt<16>{}, ConstInt<24>{}),
                                                         nvshmemx::make_stride(ConstInt<1>{}, g.dstride[1])));
    } else {
      return cuda::std::make_tuple(nvshmemx::make_layout(tup<R>(g.tile), strides<R>(g.sstride)),
                                   nvshmemx::make_layout(tup<R>(dtile), strides<R>(g.dstride)));
    }
  }();
  using ST = nvshmemx::Tensor<T, cuda::std::decay_t<decltype(cuda::std::get<0>(layouts))>>;
  using DT = nvshmemx::Tensor<T, cuda::std::decay_t<decltype(cuda::std::get<1>(layouts))>>;
  int failures = 0;
  if (K != kBroadcast || active) {
    for (int ti = 0; ti < g.ntiles; ++ti) {
      int start[3];
      long long soff, doff;
      tile_origin(g, ti, start, &soff, &doff);
      ST s(src + soff, cuda::std::get<0>(layouts));
      DT d(dst + doff, cuda::std::get<1>(layouts));
      int rc;
      if constexpr (Clip)
        rc = call<K, S, O, A>(team, s, d, tup<R>(start), tup<R>(g.full), root, pe);
      else
        rc = call<K, S, O, A>(team, s, d, NoClip{}, NoClip{}, root, pe);
      failures += rc != 0;
    }
  }
  if constexpr (K == kPut || K == kGet) {
    if (group_leader<S>()) nvshmem_quiet();
  } else {
    int rc;
    TILE_BY_SCOPE(rc, tile_collective_wait, WAIT_TARGS, team, 0)
    failures += rc != 0;
  }
  if (failures) atomicAdd(errors, failures);
}
#undef COLL_TARGS
#undef PUT_TARGS
#undef GET_TARGS
#undef WAIT_TARGS

// ---- host side ----
template <typename T>
float to_f(T v) {
  if constexpr (std::is_same<T, half>::value)
    return __half2float(v);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return __bfloat162float(v);
  else if constexpr (std::is_same<T, int4>::value)
    return static_cast<float>(v.x) / 16.0f;
  else
    return static_cast<float>(v);
}
template <typename T>
T from_f(float v) {
  if constexpr (std::is_same<T, half>::value)
    return __float2half_rn(v);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value)
    return __float2bfloat16_rn(v);
  else if constexpr (std::is_same<T, int4>::value) {  // data movement only: four different words
    const int i = static_cast<int>(v * 16.0f);
    return make_int4(i, i + 1000, -i, i ^ 0x5a5a);
  } else
    return static_cast<T>(v);
}
const char *type_name(float) {
  return "float";
}
const char *type_name(half) {
  return "half";
}
const char *type_name(__nv_bfloat16) {
  return "bfloat16";
}
const char *type_name(int4) {
  return "int4";
}

// What the library computes: half and bfloat16 combine in float and round once per step.
template <typename T>
T host_combine(Op o, T a, T b) {
  if constexpr (!std::is_same<T, float>::value) {
    return from_f<T>(host_combine<float>(o, to_f(a), to_f(b)));
  } else {
    if (o == kSum) return a + b;
    if (o == kMax) return a < b ? b : a;
    return b < a ? b : a;
  }
}

// Member `pe`'s src storage for one case: multiples of 1/16 in [-8, 8) ([-4, 4) for bfloat16), exact in every
// tested type, and so is every partial sum of up to 4 members: a team with remote members reduces on the host,
// which combines half and bfloat16 in float and rounds once (docs/collectives.md, "Tile API"), so the bits
// agree with the reference's rounding per member only where no partial sum rounds.
template <typename T>
std::vector<T> input_of(int pe, size_t n, int salt) {
  std::mt19937_64 rng(static_cast<uint64_t>(pe) * 1000003u + static_cast<uint64_t>(salt) * 7919u + 5);
  const int span = std::is_same<T, __nv_bfloat16>::value ? 128 : 256;
  std::vector<T> v(n);
  for (auto &x : v) x = from_f<T>(static_cast<float>(static_cast<int>(rng() % span) - span / 2) / 16.0f);
  return v;
}

struct Buffers {
  void *src, *dst;
  int *errors;
};
constexpr size_t kBufferBytes = size_t{1} << 20;
Buffers buffers() {
  static Buffers b = [] {
    Buffers x{nvshmem_malloc(kBufferBytes), nvshmem_malloc(kBufferBytes), nullptr};
    EXPECT_EQ(cudaMalloc(&x.errors, sizeof(int)), cudaSuccess);
    return x;
  }();
  return b;
}

int g_salt = 0;

// Runs one case on `team` (NVSHMEM_TEAM_WORLD, or NVSHMEMX_TEAM_SAME_MYPE_NODE: this PE alone on one node, one
// PE of each node across nodes) and checks every element of this PE's dst storage against the host reference.
template <Kind K, Sc S, typename T, Op O, nvshmemx::tile_coll_algo_t A, int R = 2, bool Clip = true,
          bool Static = false>
void run_case(Geom g, int root, nvshmem_team_t team = NVSHMEM_TEAM_WORLD) {
  const int n_pes = nvshmem_n_pes(), me = nvshmem_my_pe();
  const int size = nvshmem_team_n_pes(team), my_index = nvshmem_team_my_pe(team);
  ASSERT_GT(size, 0);
  std::vector<int> members(size);  // world PE of each member
  for (int m = 0; m < size; ++m) members[m] = nvshmem_team_translate_pe(team, m, NVSHMEM_TEAM_WORLD);
  ASSERT_EQ(g.members, K == kAllgather ? size : g.members);
  const size_t sn = storage(g, false), dn = storage(g, true);
  ASSERT_LE(sn * sizeof(T), kBufferBytes);
  ASSERT_LE(dn * sizeof(T), kBufferBytes);
  const int salt = ++g_salt;
  std::vector<std::vector<T>> in(n_pes);
  for (int p = 0; p < n_pes; ++p) in[p] = input_of<T>(p, sn, salt);
  const Buffers b = buffers();
  T *src = static_cast<T *>(b.src), *dst = static_cast<T *>(b.dst);
  CUDA_CHECK(cudaMemcpy(src, in[me].data(), sn * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, gpu_test::kPoison, dn * sizeof(T)));
  CUDA_CHECK(cudaMemset(b.errors, 0, sizeof(int)));
  gpu_test::barrier();
  const int peer = (me + 1) % n_pes;
  tile_kernel<K, S, T, O, A, R, Clip, Static>
      <<<1, block_threads(S)>>>(g, team, src, dst, root, my_index == root, peer, b.errors);
  LAUNCH_CHECK();
  gpu_test::barrier();  // puts from the neighbour have landed

  // The reference: poison, then every in-bounds element of every tile.
  std::vector<unsigned char> expected_bytes(dn * sizeof(T), gpu_test::kPoison);
  T *expected = reinterpret_cast<T *>(expected_bytes.data());
  for (int ti = 0; ti < g.ntiles; ++ti) {
    int start[3];
    long long soff, doff;
    tile_origin(g, ti, start, &soff, &doff);
    for (int c2 = 0; c2 < g.tile[2]; ++c2)
      for (int c1 = 0; c1 < g.tile[1]; ++c1)
        for (int c0 = 0; c0 < g.tile[0]; ++c0) {
          const int c[3] = {c0, c1, c2};
          bool inside = true;
          long long si = soff, di = doff;
          for (int d = 0; d < 3; ++d) {
            inside = inside && (!Clip || start[d] + c[d] < g.full[d]);
            si += static_cast<long long>(c[d]) * g.sstride[d];
            di += static_cast<long long>(c[d]) * g.dstride[d];
          }
          if (!inside) continue;
          if (K == kReduce || K == kAllreduce || ((K == kRooted || K == kReduceRoot) && my_index == root)) {
            T acc = in[members[0]][si];
            for (int m = 1; m < size; ++m) acc = host_combine<T>(O, acc, in[members[m]][si]);
            expected[di] = acc;
          } else if (K == kAllgather) {
            const long long slot = g.gather < 0 ? 0 : static_cast<long long>(g.tile[g.gather]) * g.dstride[g.gather];
            for (int m = 0; m < size; ++m) expected[di + m * slot] = in[members[m]][si];
          } else if (K == kBroadcast) {
            expected[di] = in[members[root]][si];
          } else if (K == kPut) {
            expected[di] = in[(me + n_pes - 1) % n_pes][si];
          } else if (K == kGet) {
            expected[di] = in[peer][si];
          }
        }
  }
  const std::string what = std::string(kind_name(K)) +
                           (K <= kRooted || K >= kAllreduce ? std::string("/") + op_name(O) : "") + " " +
                           scope_name(S) + " " + type_name(T{}) + " algo " + std::to_string(static_cast<int>(A)) + " " +
                           g.name + (Clip ? "" : " unclipped") + (Static ? " ConstInt shape" : "") + " root " +
                           std::to_string(root) + " team " + std::to_string(team) + " on PE " + std::to_string(me);
  int errors = -1;
  CUDA_CHECK(cudaMemcpy(&errors, b.errors, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(errors, 0) << what << ": nonzero return";
  const std::vector<unsigned char> got = gpu_test::to_host(dst, dn * sizeof(T));
  for (size_t k = 0; k < dn; ++k) {
    if (memcmp(got.data() + k * sizeof(T), expected_bytes.data() + k * sizeof(T), sizeof(T)) != 0) {
      T v;
      memcpy(&v, got.data() + k * sizeof(T), sizeof(T));
      ADD_FAILURE() << what << ": dst element " << k << " of " << dn << " is " << to_f(v) << ", expected "
                    << to_f(expected[k]) << " (bytes "
                    << (expected_bytes[k * sizeof(T)] == gpu_test::kPoison ? "poison)" : "data)");
      break;
    }
  }
  gpu_test::barrier();
}

constexpr auto kOneShotPull = nvshmemx::NVLS_ONE_SHOT_PULL_NBI;
constexpr auto kOneShotPush = nvshmemx::NVLS_ONE_SHOT_PUSH_NBI;
constexpr auto kTwoShotPush = nvshmemx::NVLS_TWO_SHOT_PUSH_NBI;
constexpr auto kTwoShotPull = nvshmemx::NVLS_TWO_SHOT_PULL_NBI;

// Every scope of one (kind, type, op, algo) on the three 2-D layouts.
template <Kind K, typename T, Op O, nvshmemx::tile_coll_algo_t A>
void every_scope(int root) {
  for (const Geom &g : {col_major(), row_major(), gaps()}) {
    run_case<K, kThread, T, O, A>(g, root);
    run_case<K, kWarp, T, O, A>(g, root);
    run_case<K, kWarpgroup, T, O, A>(g, root);
    run_case<K, kBlock, T, O, A>(g, root);
  }
}
template <typename T, nvshmemx::tile_coll_algo_t A>
void every_reduce_op() {
  every_scope<kReduce, T, kSum, A>(0);
  every_scope<kReduce, T, kMax, A>(0);
  every_scope<kReduce, T, kMin, A>(nvshmem_n_pes() - 1);
}

TEST(TileReduce, FloatOneShot) {
  every_reduce_op<float, kOneShotPull>();
}
TEST(TileReduce, FloatTwoShot) {
  every_reduce_op<float, kTwoShotPush>();
}
TEST(TileReduce, HalfOneShot) {
  every_reduce_op<half, kOneShotPull>();
}
TEST(TileReduce, HalfTwoShot) {
  every_reduce_op<half, kTwoShotPush>();
}
TEST(TileReduce, Bfloat16) {
  for (const Geom &g : {col_major(), row_major()}) {
    run_case<kReduce, kBlock, __nv_bfloat16, kSum, kOneShotPull>(g, 0);
    run_case<kReduce, kBlock, __nv_bfloat16, kMax, kTwoShotPull>(g, 0);
    run_case<kReduce, kBlock, __nv_bfloat16, kMin, kOneShotPull>(g, 0);
  }
}
TEST(TileReduce, OtherAlgorithms) {
  for (const Geom &g : {col_major(), gaps()}) {
    run_case<kReduce, kWarp, float, kSum, kOneShotPush>(g, 0);
    run_case<kReduce, kWarp, float, kSum, kTwoShotPull>(g, 0);
  }
}
TEST(TileReduce, ThreeDimensions) {
  run_case<kReduce, kBlock, float, kSum, kOneShotPull, 3>(cube(), 0);
  run_case<kReduce, kBlock, half, kMax, kTwoShotPush, 3>(cube(), 0);
}
TEST(TileReduce, WithoutClipping) {
  run_case<kReduce, kBlock, float, kSum, kOneShotPull, 2, false>(exact(), 0);
}
TEST(TileReduce, ConstIntShape) {
  run_case<kReduce, kBlock, half, kSum, kOneShotPull, 2, true, true>(col_major(), 0);
  run_case<kReduce, kBlock, half, kSum, kTwoShotPush, 2, true, true>(col_major(), 0);
}
TEST(TileReduce, SameMypeNodeTeam) {
  run_case<kReduce, kBlock, float, kSum, kOneShotPull>(col_major(), 0, NVSHMEMX_TEAM_SAME_MYPE_NODE);
  run_case<kReduce, kBlock, float, kMax, kTwoShotPush>(row_major(), 0, NVSHMEMX_TEAM_SAME_MYPE_NODE);
}

// NVSHMEM 3.4.5's name of the all-reduce (tile_<op>_allreduce): every op and scope, both overloads.
TEST(TileAllreduce, Nvshmem345Names) {
  for (const Geom &g : {col_major(), row_major()}) {
    run_case<kAllreduce, kThread, float, kSum, kOneShotPull>(g, 0);
    run_case<kAllreduce, kWarp, float, kMax, kOneShotPull>(g, 0);
    run_case<kAllreduce, kWarpgroup, half, kMin, kTwoShotPush>(g, 0);
    run_case<kAllreduce, kBlock, half, kSum, kTwoShotPush>(g, 0);
    run_case<kAllreduce, kBlock, float, kMax, kTwoShotPull>(g, 0);
    run_case<kAllreduce, kWarp, float, kMin, kOneShotPush>(g, 0);
  }
}

// Rooted reduce: every root, every op and scope, one-shot and two-shot.
template <typename T, Op O, nvshmemx::tile_coll_algo_t A>
void every_root() {
  for (int root = 0; root < nvshmem_n_pes(); ++root) {
    for (const Geom &g : {col_major(), row_major()}) {
      run_case<kRooted, kThread, T, O, A>(g, root);
      run_case<kRooted, kWarp, T, O, A>(g, root);
      run_case<kRooted, kWarpgroup, T, O, A>(g, root);
      run_case<kRooted, kBlock, T, O, A>(g, root);
    }
  }
}
TEST(TileRootedReduce, FloatOneShot) {
  every_root<float, kSum, kOneShotPull>();
  every_root<float, kMax, kOneShotPull>();
  every_root<float, kMin, kOneShotPull>();
}
TEST(TileRootedReduce, FloatTwoShot) {
  every_root<float, kSum, kTwoShotPush>();
  every_root<float, kMax, kTwoShotPush>();
  every_root<float, kMin, kTwoShotPush>();
}
// NVSHMEM 3.4.5's spelling of the rooted reduce: tile_<op>_reduce with a root writes the root's dst
// only; the other members' dst tiles keep their poison.
TEST(TileRootedReduce, Nvshmem345ReduceWithRoot) {
  for (int root = 0; root < nvshmem_n_pes(); ++root)
    for (const Geom &g : {col_major(), row_major()}) {
      run_case<kReduceRoot, kThread, float, kSum, kOneShotPull>(g, root);
      run_case<kReduceRoot, kWarp, float, kMax, kTwoShotPush>(g, root);
      run_case<kReduceRoot, kWarpgroup, half, kMin, kOneShotPull>(g, root);
      run_case<kReduceRoot, kBlock, float, kSum, kTwoShotPush>(g, root);
    }
}
TEST(TileRootedReduce, Half) {
  for (int root = 0; root < nvshmem_n_pes(); ++root) {
    run_case<kRooted, kBlock, half, kSum, kOneShotPull>(gaps(), root);
    run_case<kRooted, kBlock, half, kMax, kTwoShotPush>(col_major(), root);
    run_case<kRooted, kBlock, half, kMin, kOneShotPull>(row_major(), root);
  }
}

// Allgather along dimension 1 (column-major) and dimension 0 (row-major, gaps).
template <typename T, nvshmemx::tile_coll_algo_t A>
void allgather_every_scope() {
  const int n = nvshmem_n_pes();
  for (const Geom &g : {col_major(1, n), row_major(0, n), gaps(0, n)}) {
    run_case<kAllgather, kThread, T, kSum, A>(g, 0);
    run_case<kAllgather, kWarp, T, kSum, A>(g, 0);
    run_case<kAllgather, kWarpgroup, T, kSum, A>(g, 0);
    run_case<kAllgather, kBlock, T, kSum, A>(g, 0);
  }
}
TEST(TileAllgather, FloatPush) {
  allgather_every_scope<float, kOneShotPush>();
}
TEST(TileAllgather, FloatPull) {
  allgather_every_scope<float, kOneShotPull>();
}
TEST(TileAllgather, HalfPush) {
  allgather_every_scope<half, kTwoShotPush>();
}
TEST(TileAllgather, HalfPull) {
  allgather_every_scope<half, kTwoShotPull>();
}
// A 16-byte element type: no 16-byte unit grouping; on a team with remote members the results are read
// back as 4-byte words (any element type, as the API promises).
TEST(TileAllgather, Int4) {
  const int n = nvshmem_n_pes();
  run_case<kAllgather, kBlock, int4, kSum, kOneShotPush>(col_major(1, n), 0);
  run_case<kAllgather, kWarp, int4, kSum, kOneShotPull>(row_major(0, n), 0);
}
TEST(TileAllgather, SameMypeNodeTeam) {
  run_case<kAllgather, kBlock, float, kSum, kOneShotPush>(
      col_major(1, nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE)), 0, NVSHMEMX_TEAM_SAME_MYPE_NODE);
}

// Broadcast: the root alone calls it, every PE waits.
template <typename T>
void broadcast_every_scope() {
  for (int root = 0; root < nvshmem_n_pes(); ++root) {
    for (const Geom &g : {col_major(), gaps()}) {
      run_case<kBroadcast, kThread, T, kSum, kOneShotPush>(g, root);
      run_case<kBroadcast, kWarp, T, kSum, kOneShotPush>(g, root);
      run_case<kBroadcast, kWarpgroup, T, kSum, kOneShotPush>(g, root);
      run_case<kBroadcast, kBlock, T, kSum, kOneShotPush>(g, root);
    }
  }
}
TEST(TileBroadcast, Float) {
  broadcast_every_scope<float>();
}
TEST(TileBroadcast, Half) {
  broadcast_every_scope<half>();
}
TEST(TileBroadcast, Int4) {
  for (int root = 0; root < nvshmem_n_pes(); ++root)
    run_case<kBroadcast, kBlock, int4, kSum, kOneShotPush>(gaps(), root);
}
TEST(TileBroadcast, SameMypeNodeTeam) {
  run_case<kBroadcast, kWarp, half, kSum, kOneShotPush>(row_major(), 0, NVSHMEMX_TEAM_SAME_MYPE_NODE);
}

// put to the next PE, get from the next PE.
template <Kind K, typename T>
void copy_every_scope() {
  for (const Geom &g : {col_major(), row_major(), gaps()}) {
    run_case<K, kThread, T, kSum, kOneShotPush>(g, 0);
    run_case<K, kWarp, T, kSum, kOneShotPush>(g, 0);
    run_case<K, kWarpgroup, T, kSum, kOneShotPush>(g, 0);
    run_case<K, kBlock, T, kSum, kOneShotPush>(g, 0);
  }
}
TEST(TilePut, Float) {
  copy_every_scope<kPut, float>();
}
TEST(TilePut, Half) {
  copy_every_scope<kPut, half>();
}
TEST(TileGet, Float) {
  copy_every_scope<kGet, float>();
}
TEST(TileGet, Half) {
  copy_every_scope<kGet, half>();
}
TEST(TilePut, ThreeDimensions) {
  run_case<kPut, kBlock, float, kSum, kOneShotPush, 3>(cube(), 0);
}

}  // namespace
