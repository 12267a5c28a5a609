// SPDX-License-Identifier: BSD-3-Clause
// Host blocking collectives across real processes: every collective, type and reduction op from
// the tables in nvshmem_detail/type_lists.h, on WORLD, a strided team (the odd PEs) and 1-PE teams,
// with random data checked against a host reference and poisoned outputs. Run under nvshmrun with
// 1, 2, 3, 4 and 8 PEs.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "pe_test.hpp"

namespace {
using pe_test::poison_local;
using pe_test::read_local;
using pe_test::write_local;

constexpr std::size_t kBufferBytes = 1 << 16;
enum class Op { and_, or_, xor_, min, max, sum, prod };

struct Buffers {
  void *source = nullptr, *dest = nullptr;
};
const Buffers &buffers() {
  static Buffers b{nvshmem_malloc(kBufferBytes), nvshmem_malloc(kBufferBytes)};
  return b;
}

// The teams every collective runs on: WORLD, the odd PEs (PE 0 alone in a 1-PE job; stride 2),
// and 1-PE teams (the x-teams of a 2d split with xrange 1). Created once, collectively.
const std::vector<nvshmem_team_t> &teams() {
  static std::vector<nvshmem_team_t> list = [] {
    const int n = nvshmem_n_pes();
    std::vector<nvshmem_team_t> out{NVSHMEM_TEAM_WORLD};
    nvshmem_team_t odd = NVSHMEM_TEAM_INVALID, single = NVSHMEM_TEAM_INVALID, column = NVSHMEM_TEAM_INVALID;
    const int start = n > 1 ? 1 : 0;
    EXPECT_EQ(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, start, 2, (n - start + 1) / 2, nullptr, 0, &odd), 0);
    EXPECT_EQ(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 1, nullptr, 0, &single, nullptr, 0, &column), 0);
    out.push_back(odd);  // NVSHMEM_TEAM_INVALID on the even PEs: skipped there
    out.push_back(single);
    return out;
  }();
  return list;
}

int salt_counter = 0;  // the same sequence on every PE: every PE runs the same calls

template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return static_cast<double>(v);
}
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// Element k of world PE `pe`'s source for call `salt`: random bits for integers; for floating
// point, values whose sums and products are exact in every format (quarters in [-4, 4], or +-1, +-2
// for products), so the reference is exact and the check can be tight.
template <typename T>
std::vector<T> values(int pe, int salt, std::size_t n, Op op) {
  std::mt19937_64 rng(static_cast<uint64_t>(pe) * 1000003u + static_cast<uint64_t>(salt) * 7919u + 5);
  std::vector<T> v(n);
  for (auto &x : v) {
    const uint64_t r = rng();
    if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(r);
    } else if (op == Op::prod) {
      const double choices[] = {-2, -1, 1, 2};
      x = from_double<T>(choices[r % 4]);
    } else {
      x = from_double<T>(static_cast<double>(static_cast<int>(r % 33) - 16) / 4);
    }
  }
  return v;
}

template <typename T>
void expect_bytes(const std::vector<unsigned char> &got, const std::vector<T> &want, const char *what) {
  ASSERT_EQ(got.size(), want.size() * sizeof(T));
  EXPECT_EQ(memcmp(got.data(), want.data(), got.size()), 0) << what;
}

template <typename T>
using RootedFn = int (*)(nvshmem_team_t, T *, const T *, size_t, int);
template <typename T>
using CollectFn = int (*)(nvshmem_team_t, T *, const T *, size_t);

int world_of(nvshmem_team_t team, int index) {
  return nvshmem_team_translate_pe(team, index, NVSHMEM_TEAM_WORLD);
}

template <typename T>
void check_broadcast(RootedFn<T> fn, const char *name) {
  for (nvshmem_team_t team : teams()) {
    const int salt = ++salt_counter;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    const std::size_t nelems = 1 + static_cast<std::size_t>(salt) % 61;
    const int root = salt % n;
    T *src = static_cast<T *>(buffers().source), *dst = static_cast<T *>(buffers().dest);
    const auto mine = values<T>(nvshmem_my_pe(), salt, nelems, Op::sum);
    write_local(src, mine.data(), nelems * sizeof(T));
    const bool in_place = me == root && salt % 3 == 0;
    if (!in_place) poison_local(dst, nelems * sizeof(T));
    ASSERT_EQ(fn(team, in_place ? src : dst, src, nelems, root), 0) << name;
    expect_bytes(read_local(in_place ? src : dst, nelems * sizeof(T)),
                 values<T>(world_of(team, root), salt, nelems, Op::sum), name);
  }
}

template <typename T>
void check_fcollect(CollectFn<T> fn, const char *name) {
  for (nvshmem_team_t team : teams()) {
    const int salt = ++salt_counter;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team);
    const std::size_t nelems = 1 + static_cast<std::size_t>(salt) % 37;
    T *src = static_cast<T *>(buffers().source), *dst = static_cast<T *>(buffers().dest);
    const auto mine = values<T>(nvshmem_my_pe(), salt, nelems, Op::sum);
    write_local(src, mine.data(), nelems * sizeof(T));
    poison_local(dst, n * nelems * sizeof(T));
    ASSERT_EQ(fn(team, dst, src, nelems), 0) << name;
    std::vector<T> want;
    for (int i = 0; i < n; ++i) {
      const auto part = values<T>(world_of(team, i), salt, nelems, Op::sum);
      want.insert(want.end(), part.begin(), part.end());
    }
    expect_bytes(read_local(dst, n * nelems * sizeof(T)), want, name);
  }
}

template <typename T>
void check_alltoall(CollectFn<T> fn, const char *name) {
  for (nvshmem_team_t team : teams()) {
    const int salt = ++salt_counter;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    const std::size_t nelems = 1 + static_cast<std::size_t>(salt) % 23;
    T *src = static_cast<T *>(buffers().source), *dst = static_cast<T *>(buffers().dest);
    const auto mine = values<T>(nvshmem_my_pe(), salt, n * nelems, Op::sum);
    write_local(src, mine.data(), n * nelems * sizeof(T));
    poison_local(dst, n * nelems * sizeof(T));
    ASSERT_EQ(fn(team, dst, src, nelems), 0) << name;
    std::vector<T> want;
    for (int i = 0; i < n; ++i) {  // block `me` of member i's source
      const auto theirs = values<T>(world_of(team, i), salt, n * nelems, Op::sum);
      want.insert(want.end(), theirs.begin() + me * nelems, theirs.begin() + (me + 1) * nelems);
    }
    expect_bytes(read_local(dst, n * nelems * sizeof(T)), want, name);
  }
}

template <typename T>
T combine(T a, T b, Op op) {
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case Op::and_:
        return static_cast<T>(a & b);
      case Op::or_:
        return static_cast<T>(a | b);
      case Op::xor_:
        return static_cast<T>(a ^ b);
      case Op::min:
        return a < b ? a : b;
      case Op::max:
        return a < b ? b : a;
      case Op::sum:
        return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      case Op::prod:
        return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    }
    return a;
  } else {
    const double x = to_double(a), y = to_double(b);
    switch (op) {
      case Op::min:
        return from_double<T>(std::fmin(x, y));
      case Op::max:
        return from_double<T>(std::fmax(x, y));
      case Op::sum:
        return from_double<T>(x + y);
      case Op::prod:
        return from_double<T>(x * y);
      default:
        return a;
    }
  }
}

template <typename T>
void expect_reduced(const std::vector<unsigned char> &got_bytes, const std::vector<T> &want, const char *name) {
  ASSERT_EQ(got_bytes.size(), want.size() * sizeof(T));
  std::vector<T> got(want.size());
  memcpy(got.data(), got_bytes.data(), got_bytes.size());
  const double tol = sizeof(T) >= 4 ? 1e-6 : 1e-2;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if constexpr (std::is_integral_v<T>) {
      ASSERT_EQ(got[k], want[k]) << name << " element " << k;
    } else {
      const double g = to_double(got[k]), w = to_double(want[k]);
      ASSERT_LE(std::fabs(g - w), tol * std::fmax(1.0, std::fabs(w)))
          << name << " element " << k << ": " << g << " vs " << w;
    }
  }
}

template <typename T>
void check_reduce(CollectFn<T> reduce, CollectFn<T> scatter, Op op, const char *name) {
  for (nvshmem_team_t team : teams()) {
    const int salt = ++salt_counter;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    const std::size_t nreduce = 1 + static_cast<std::size_t>(salt) % 29;
    T *src = static_cast<T *>(buffers().source), *dst = static_cast<T *>(buffers().dest);
    std::vector<std::vector<T>> sources(n);
    for (int i = 0; i < n; ++i) sources[i] = values<T>(world_of(team, i), salt, n * nreduce, op);
    auto reference = [&](std::size_t first) {
      std::vector<T> want(nreduce);
      for (std::size_t k = 0; k < nreduce; ++k) {
        want[k] = sources[0][first + k];
        for (int i = 1; i < n; ++i) want[k] = combine(want[k], sources[i][first + k], op);
      }
      return want;
    };
    // reduce over the first nreduce elements (in place every third call)
    const bool in_place = salt % 3 == 0;
    write_local(src, sources[me].data(), n * nreduce * sizeof(T));
    if (!in_place) poison_local(dst, nreduce * sizeof(T));
    ASSERT_EQ(reduce(team, in_place ? src : dst, src, nreduce), 0) << name;
    expect_reduced(read_local(in_place ? src : dst, nreduce * sizeof(T)), reference(0), name);
    // reducescatter: block `me` of the reduction of n blocks
    write_local(src, sources[me].data(), n * nreduce * sizeof(T));
    poison_local(dst, nreduce * sizeof(T));
    ASSERT_EQ(scatter(team, dst, src, nreduce), 0) << name << "scatter";
    expect_reduced(read_local(dst, nreduce * sizeof(T)), reference(me * nreduce), name);
  }
}

TEST(HostColl, BarrierAndSync) {
  for (nvshmem_team_t team : teams()) {
    if (team == NVSHMEM_TEAM_INVALID) continue;
    for (int i = 0; i < 20; ++i) {
      EXPECT_EQ(nvshmem_barrier(team), 0);
      EXPECT_EQ(nvshmem_team_sync(team), 0);
    }
  }
  nvshmem_sync_all();
  nvshmem_barrier_all();
}

// Data put by one PE before a barrier is seen by its target after it.
TEST(HostColl, BarrierCompletesPuts) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *slot = static_cast<int *>(buffers().dest);
  for (int round = 1; round <= 5; ++round) {
    const int value = round * 100 + me;
    nvshmem_int_put_nbi(slot, &value, 1, (me + 1) % n);
    ASSERT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
    int got = 0;
    nvshmem_int_get(&got, slot, 1, me);
    EXPECT_EQ(got, round * 100 + (me + n - 1) % n);
    ASSERT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
  }
}

TEST(HostColl, Broadcast) {
#define X(NAME, T) check_broadcast<T>(nvshmem_##NAME##_broadcast, "nvshmem_" #NAME "_broadcast");
  NVSHM_FOR_EACH_COLL_TYPE(X)
#undef X
  check_broadcast<unsigned char>([](nvshmem_team_t t, unsigned char *d, const unsigned char *s, size_t n,
                                    int root) { return nvshmem_broadcastmem(t, d, s, n, root); },
                                 "nvshmem_broadcastmem");
}

// 64 KiB from every root of every team, twice each (a fresh destination, then the root in place): at
// this size (over NVSHMEM_HOST_COLL_RELAY_MIN) a team of several nodes with more members than nodes moves the
// data through one member per node (docs/collectives-host.md); across fake hosts (2 x 2) that path runs.
TEST(HostColl, LargeBroadcastFromEveryRoot) {
  const std::size_t nelems = kBufferBytes / sizeof(uint64_t);
  int salt = 100000;  // not salt_counter: a PE outside a team skips its calls
  for (nvshmem_team_t team : teams()) {
    salt += 1000;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
    for (int root = 0; root < n; ++root)
      for (const bool in_place : {false, true}) {
        ++salt;
        auto *src = static_cast<uint64_t *>(buffers().source), *dst = static_cast<uint64_t *>(buffers().dest);
        const auto mine = values<uint64_t>(nvshmem_my_pe(), salt, nelems, Op::sum);
        write_local(src, mine.data(), kBufferBytes);
        poison_local(dst, kBufferBytes);
        uint64_t *to = in_place && me == root ? src : dst;
        ASSERT_EQ(nvshmem_uint64_broadcast(team, to, src, nelems, root), 0);
        expect_bytes(read_local(to, kBufferBytes), values<uint64_t>(world_of(team, root), salt, nelems, Op::sum),
                     "nvshmem_uint64_broadcast of 64 KiB");
      }
  }
}

// A 64 KiB sum over every team, into a fresh destination and in place (dest == source): the reduction
// through node leaders across fake hosts (2 x 2), the flat one elsewhere.
TEST(HostColl, LargeReduceInPlaceAndNot) {
  const std::size_t nelems = kBufferBytes / sizeof(uint64_t);
  int salt = 200000;  // not salt_counter: a PE outside a team skips its calls
  for (nvshmem_team_t team : teams()) {
    salt += 1000;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team);
    for (const bool in_place : {false, true}) {
      ++salt;
      auto *src = static_cast<uint64_t *>(buffers().source), *dst = static_cast<uint64_t *>(buffers().dest);
      const auto mine = values<uint64_t>(nvshmem_my_pe(), salt, nelems, Op::sum);
      write_local(src, mine.data(), kBufferBytes);
      poison_local(dst, kBufferBytes);
      uint64_t *to = in_place ? src : dst;
      ASSERT_EQ(nvshmem_uint64_sum_reduce(team, to, src, nelems), 0);
      std::vector<uint64_t> want(nelems, 0);
      for (int i = 0; i < n; ++i) {
        const auto part = values<uint64_t>(world_of(team, i), salt, nelems, Op::sum);
        for (std::size_t k = 0; k < nelems; ++k) want[k] += part[k];
      }
      expect_bytes(read_local(to, kBufferBytes), want, "nvshmem_uint64_sum_reduce of 64 KiB");
    }
  }
}

TEST(HostColl, Fcollect) {
#define X(NAME, T) check_fcollect<T>(nvshmem_##NAME##_fcollect, "nvshmem_" #NAME "_fcollect");
  NVSHM_FOR_EACH_COLL_TYPE(X)
#undef X
  check_fcollect<unsigned char>([](nvshmem_team_t t, unsigned char *d, const unsigned char *s,
                                   size_t n) { return nvshmem_fcollectmem(t, d, s, n); },
                                "nvshmem_fcollectmem");
}

// 64 KiB from every member of every team, three times in a row on fresh values (a member that copied a
// leader's `dest` late would see the next round's blocks): through node leaders across fake hosts (2 x 2),
// flat elsewhere.
TEST(HostColl, LargeFcollectRoundsInARow) {
  const std::size_t nelems = kBufferBytes / sizeof(uint64_t);
  auto *dst = static_cast<uint64_t *>(nvshmem_malloc(kBufferBytes * nvshmem_n_pes()));
  ASSERT_NE(dst, nullptr);
  int salt = 300000;  // not salt_counter: a PE outside a team skips its calls
  for (nvshmem_team_t team : teams()) {
    salt += 1000;
    if (team == NVSHMEM_TEAM_INVALID) continue;
    const int n = nvshmem_team_n_pes(team);
    for (int round = 0; round < 3; ++round) {
      ++salt;
      auto *src = static_cast<uint64_t *>(buffers().source);
      const auto mine = values<uint64_t>(nvshmem_my_pe(), salt, nelems, Op::sum);
      write_local(src, mine.data(), kBufferBytes);
      poison_local(dst, kBufferBytes * n);
      ASSERT_EQ(nvshmem_uint64_fcollect(team, dst, src, nelems), 0);
      std::vector<uint64_t> want;
      for (int i = 0; i < n; ++i) {
        const auto part = values<uint64_t>(world_of(team, i), salt, nelems, Op::sum);
        want.insert(want.end(), part.begin(), part.end());
      }
      expect_bytes(read_local(dst, kBufferBytes * n), want, "nvshmem_uint64_fcollect of 64 KiB a member");
    }
  }
  nvshmem_free(dst);
}

TEST(HostColl, Alltoall) {
#define X(NAME, T) check_alltoall<T>(nvshmem_##NAME##_alltoall, "nvshmem_" #NAME "_alltoall");
  NVSHM_FOR_EACH_COLL_TYPE(X)
#undef X
  check_alltoall<unsigned char>([](nvshmem_team_t t, unsigned char *d, const unsigned char *s,
                                   size_t n) { return nvshmem_alltoallmem(t, d, s, n); },
                                "nvshmem_alltoallmem");
}

#define OP_and Op::and_
#define OP_or Op::or_
#define OP_xor Op::xor_
#define OP_min Op::min
#define OP_max Op::max
#define OP_sum Op::sum
#define OP_prod Op::prod
TEST(HostColl, ReduceAndReducescatterEveryOpAndType) {
#define X(OP, NAME, T)                                                                            \
  check_reduce<T>(nvshmem_##NAME##_##OP##_reduce, nvshmem_##NAME##_##OP##_reducescatter, OP_##OP, \
                  "nvshmem_" #NAME "_" #OP "_reduce");
  NVSHM_FOR_EACH_REDUCE_OP_TYPE(X)
#undef X
}

// NVSHMEM 3.7's NVSHMEM_TEAM_MC_SHARED (NVSHMEM_TEAM_SHARED's PEs here): a sum reduction on it of random
// data gives the sums computed locally from its members' data.
TEST(HostColl, McSharedTeamReduces) {
  const int me = nvshmem_my_pe();
  constexpr size_t kCount = 300;
  long *src = static_cast<long *>(nvshmem_malloc(kCount * sizeof(long)));
  long *dst = static_cast<long *>(nvshmem_malloc(kCount * sizeof(long)));
  ASSERT_TRUE(src && dst);
  const auto data = [](int pe) {
    const auto bytes = pe_test::random_bytes(kCount * sizeof(long), pe, 61);
    std::vector<long> v(kCount);
    memcpy(v.data(), bytes.data(), bytes.size());
    for (long &x : v) x %= 1000003;
    return v;
  };
  pe_test::write_local(src, data(me).data(), kCount * sizeof(long));
  pe_test::poison_local(dst, kCount * sizeof(long));
  ASSERT_EQ(nvshmem_long_sum_reduce(NVSHMEM_TEAM_MC_SHARED, dst, src, kCount), 0);
  std::vector<long> expect(kCount, 0);
  for (int pe : pe_test::shared_pes()) {
    const auto v = data(pe);
    for (size_t i = 0; i < kCount; ++i) expect[i] += v[i];
  }
  std::vector<long> got(kCount);
  memcpy(got.data(), pe_test::read_local(dst, kCount * sizeof(long)).data(), kCount * sizeof(long));
  EXPECT_EQ(got, expect);
  nvshmem_barrier_all();
  nvshmem_free(dst);
  nvshmem_free(src);
}

TEST(HostColl, InvalidArgumentsGiveAnError) {
  int *dst = static_cast<int *>(buffers().dest);
  int local[4] = {};
  EXPECT_NE(nvshmem_int_broadcast(NVSHMEM_TEAM_INVALID, dst, dst, 1, 0), 0);
  EXPECT_NE(nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, dst, dst, 1, nvshmem_n_pes()), 0);  // root out of range
  EXPECT_NE(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, local, dst, 1), 0);                // dest not symmetric
  EXPECT_NE(nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, dst, local, 1), 0);                  // source not symmetric
  EXPECT_EQ(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);                                      // the team still works
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
