// SPDX-License-Identifier: BSD-3-Clause
// The host interface across real processes: queries, the heap's regression cases, every typed,
// sized and byte RMA form, quiet, fence, barrier_all and sync_all, on random data with poisoned
// destinations. Run under nvshmrun with 1, 2, 3, 4 and 8 PEs.
#include <cstdlib>
#include <string>

#include "pe_test.hpp"

namespace {
using pe_test::poison_local;
using pe_test::random_bytes;
using pe_test::read_local;
using pe_test::write_local;

TEST(HostQuery, PeAndTeams) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const char *size = getenv("NVSHMRUN_SIZE");
  EXPECT_EQ(n, size ? atoi(size) : 1);
  EXPECT_GE(me, 0);
  EXPECT_LT(me, n);
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD), me);
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD), n);
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), static_cast<int>(pe_test::node_pes().size()));
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), me - pe_test::node_pes().front());
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED), static_cast<int>(pe_test::shared_pes().size()));
  // NVSHMEM 3.7's multicast-shared team: NVSHMEM_TEAM_SHARED's PEs here (no multicast), in slot 6.
  EXPECT_EQ(NVSHMEM_TEAM_MC_SHARED, 6);
  EXPECT_EQ(NVSHMEM_TEAMS_MIN, 7);
  EXPECT_EQ(nvshmem_team_n_pes(NVSHMEM_TEAM_MC_SHARED), static_cast<int>(pe_test::shared_pes().size()));
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_MC_SHARED), nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED));
  EXPECT_EQ(nvshmem_team_translate_pe(NVSHMEM_TEAM_MC_SHARED, 0, NVSHMEM_TEAM_WORLD), pe_test::shared_pes().front());
  EXPECT_EQ(nvshmem_team_sync(NVSHMEM_TEAM_MC_SHARED), 0);
  EXPECT_EQ(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID), -1);
  EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
  int major = 0, minor = 0;
  nvshmem_info_get_version(&major, &minor);
  EXPECT_EQ(major * 10 + minor, 13);
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_name(name);
  EXPECT_STREQ(name, NVSHMEM_VENDOR_STRING);
  // The NVSHMEM interface level (3.8.0 or later), what NVSHMEM code gates on; our release apart.
  int vmaj = -1, vmin = -1, vpatch = -1;
  nvshmemx_vendor_get_version_info(&vmaj, &vmin, &vpatch);
  EXPECT_EQ(vmaj * 10000 + vmin * 100 + vpatch, NVSHMEM_VENDOR_VERSION);
  EXPECT_GE(NVSHMEM_VENDOR_VERSION, 30800);
  EXPECT_EQ(std::string(name),
            "NVSHMEM v" + std::to_string(vmaj) + "." + std::to_string(vmin) + "." + std::to_string(vpatch));
  int rmaj = -1, rmin = -1, rpatch = -1;
  nvshm_get_release_version(&rmaj, &rmin, &rpatch);
  EXPECT_EQ(rmaj * 10000 + rmin * 100 + rpatch, NVSHM_RELEASE_VERSION);
  EXPECT_EQ(std::to_string(rmaj) + "." + std::to_string(rmin) + "." + std::to_string(rpatch), NVSHM_RELEASE_STRING);
  int provided = -1;
  nvshmem_query_thread(&provided);
  EXPECT_EQ(provided, NVSHMEM_THREAD_MULTIPLE);
}

TEST(HostHeap, ZeroSizesGiveNull) {
  EXPECT_EQ(nvshmem_malloc(0), nullptr);
  EXPECT_EQ(nvshmem_align(64, 0), nullptr);
  EXPECT_EQ(nvshmem_calloc(0, 8), nullptr);
  EXPECT_EQ(nvshmem_calloc(8, 0), nullptr);
  nvshmem_free(nullptr);
  nvshmem_barrier_all();
}

// NVSHMEM 3.8 RMA regions of the host: one at a time per PE, hints recorded, nonblocking RMA inside keeps
// its semantics (random data arrives after quiet + barrier), and the documented errors with messages.
TEST(HostRegion, BookkeepingErrorsAndRmaInside) {
  using testing::internal::CaptureStderr;
  using testing::internal::GetCapturedStderr;
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int active = -1;
  ASSERT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 0);
  nvshmemx_region_attrs_t attrs = NVSHMEMX_REGION_ATTRS_INITIALIZER;
  static_assert(sizeof(nvshmemx_region_attrs_t) == 64, "NVIDIA's layout");
  attrs.hints = NVSHMEMX_REGION_HINT_BATCH_RMA;
  nvshmemx_region_handle_t region = 0;
  ASSERT_EQ(nvshmemx_region_start(&region, &attrs), 0);
  ASSERT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active), 0);
  EXPECT_EQ(active, 1);
  ASSERT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 1);
  const size_t bytes = 4096 + 8;
  unsigned char *sym = static_cast<unsigned char *>(nvshmem_malloc(bytes));
  ASSERT_NE(sym, nullptr);
  poison_local(sym, bytes);
  nvshmem_barrier_all();
  const auto src = random_bytes(bytes, me, 51);
  nvshmem_putmem_nbi(sym, src.data(), bytes, (me + 1) % n);
  CaptureStderr();
  nvshmemx_region_handle_t second = 0;
  EXPECT_EQ(nvshmemx_region_start(&second, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_region_stop(region + 1), NVSHMEMX_ERROR_INVALID_VALUE);
  std::string err = GetCapturedStderr();
  EXPECT_NE(err.find("nvshmemx_region_start: region " + std::to_string(region) + " is still open"), std::string::npos)
      << err;
  EXPECT_NE(err.find("does not name the open region, " + std::to_string(region)), std::string::npos) << err;
  ASSERT_EQ(nvshmemx_region_stop(region), 0);
  nvshmem_quiet();
  nvshmem_barrier_all();
  EXPECT_EQ(read_local(sym, bytes), random_bytes(bytes, (me + n - 1) % n, 51));
  ASSERT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, &active), 0);
  EXPECT_EQ(active, 0);
  CaptureStderr();
  EXPECT_EQ(nvshmemx_region_stop(region), NVSHMEMX_ERROR_INVALID_VALUE) << "a closed region";
  EXPECT_EQ(nvshmemx_region_start(nullptr, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  attrs.hints = 0x6;
  EXPECT_EQ(nvshmemx_region_start(&second, &attrs), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_region_is_active(0x80, &active), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_NONE, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  err = GetCapturedStderr();
  EXPECT_NE(err.find("no region is open on this PE"), std::string::npos) << err;
  EXPECT_NE(err.find("nvshmemx_region_start: handle is NULL"), std::string::npos) << err;
  EXPECT_NE(err.find("hints 0x6 has bits no NVSHMEMX_REGION_HINT_* names (0x6)"), std::string::npos) << err;
  EXPECT_NE(err.find("nvshmemx_region_is_active: active is NULL"), std::string::npos) << err;
  ASSERT_EQ(nvshmemx_region_start(&second, nullptr), 0);
  EXPECT_GT(second, region) << "handles are not reused";
  ASSERT_EQ(nvshmemx_region_is_active(NVSHMEMX_REGION_HINT_BATCH_RMA, &active), 0);
  EXPECT_EQ(active, 0) << "a region without the hint";
  ASSERT_EQ(nvshmemx_region_stop(second), 0);
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

// NVSHMEM 3.5 nvshmemx_qp_create: every PE reached by loads and stores, so every handle is the default QP;
// bad arguments fail on every PE with a message.
TEST(HostQp, CreateGivesDefaultQps) {
  using testing::internal::CaptureStderr;
  using testing::internal::GetCapturedStderr;
  const int me = nvshmem_my_pe();
  const int count = 3 + static_cast<int>(random_bytes(1, 0, 52)[0] % 13);  // the same on every PE
  nvshmemx_qp_handle_t *qps = nullptr;
  ASSERT_EQ(nvshmemx_qp_create(count, &qps), 0);
  ASSERT_NE(qps, nullptr);
  for (int i = 0; i < count; ++i) EXPECT_EQ(qps[i], NVSHMEMX_QP_DEFAULT) << i;
  EXPECT_EQ(NVSHMEMX_QP_ALL, NVSHMEMX_QP_ANY);
  EXPECT_EQ(NVSHMEMX_PE_ALL, 1 << 15);
  CaptureStderr();
  EXPECT_EQ(nvshmemx_qp_create(me == 0 ? 0 : count, &qps), NVSHMEMX_ERROR_INVALID_VALUE) << "0 QPs on PE 0";
  std::string err = GetCapturedStderr();
  if (me == 0) {
    EXPECT_NE(err.find("nvshmemx_qp_create: num_qps=0"), std::string::npos) << err;
  }
  if (nvshmem_n_pes() > 1) {
    CaptureStderr();
    EXPECT_EQ(nvshmemx_qp_create(count + me, &qps), NVSHMEMX_ERROR_INVALID_VALUE) << "counts differ";
    err = GetCapturedStderr();
    EXPECT_NE(err.find("num_qps differs between PEs"), std::string::npos) << err;
  }
  nvshmem_barrier_all();
}

TEST(HostHeap, BadAlignmentIsAnError) {
  EXPECT_EQ(nvshmem_align(3, 64), nullptr);
  EXPECT_EQ(nvshmem_align(12, 64), nullptr);
  EXPECT_EQ(nvshmem_align(0, 64), nullptr);
  void *ok = nvshmem_align(4096, 100);
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ok) % 4096, 0u);
  nvshmem_free(ok);
}

// Issue 33: powers of two below sizeof(void*) are rounded up to it (as NVIDIA's library accepts them).
TEST(HostHeap, SmallPowerOfTwoAlignmentsAreRoundedUp) {
  for (std::size_t alignment : {1, 2, 4}) {
    void *p = nvshmem_align(alignment, 24);
    ASSERT_NE(p, nullptr) << alignment;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % sizeof(void *), 0u);
    nvshmem_free(p);
  }
}

TEST(HostHeap, MallocAndCallocAlignTo256Bytes) {
  // Odd sizes in a row: each block still starts on a 256-byte boundary (as cudaMalloc's do).
  void *blocks[4] = {nvshmem_malloc(16), nvshmem_malloc(100), nvshmem_calloc(3, 7), nvshmem_malloc(4096 + 64)};
  for (void *b : blocks) {
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u) << b;
  }
  for (int i = 3; i >= 0; --i) nvshmem_free(blocks[i]);
}

TEST(HostHeap, PastTheHeapGivesNullEverywhereAndTheHeapStillWorks) {
  EXPECT_EQ(nvshmem_malloc(std::size_t{1} << 42), nullptr);
  EXPECT_EQ(nvshmem_calloc(std::size_t{1} << 40, 1 << 10), nullptr);
  EXPECT_EQ(nvshmem_calloc(SIZE_MAX / 2, 4), nullptr);  // overflow
  nvshmem_barrier_all();
  int *p = static_cast<int *>(nvshmem_malloc(sizeof(int) * 16));
  ASSERT_NE(p, nullptr);
  nvshmem_int_p(p, 42, (nvshmem_my_pe() + 1) % nvshmem_n_pes());
  nvshmem_barrier_all();
  EXPECT_EQ(nvshmem_int_g(p, nvshmem_my_pe()), 42);
  nvshmem_free(p);
}

TEST(HostHeap, MismatchedSizesGiveNullOnEveryPe) {
  if (nvshmem_n_pes() < 2) GTEST_SKIP() << "needs 2 PEs";
  void *p = nvshmem_malloc(1024 + 64 * nvshmem_my_pe());
  EXPECT_EQ(p, nullptr);
  nvshmem_barrier_all();
  void *q = nvshmem_malloc(1024);
  EXPECT_NE(q, nullptr);
  nvshmem_free(q);
}

TEST(HostHeap, CallocZeroesAndLayoutIsSymmetric) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const std::size_t bytes = 10000;
  void *dirty = nvshmem_malloc(bytes);
  ASSERT_NE(dirty, nullptr);
  poison_local(dirty, bytes);
  nvshmem_barrier_all();
  nvshmem_free(dirty);
  unsigned char *clean = static_cast<unsigned char *>(nvshmem_calloc(bytes / 4, 4));
  ASSERT_EQ(clean, dirty) << "the allocator is first fit: the same block comes back";
  const auto got = read_local(clean, bytes);
  EXPECT_EQ(std::vector<unsigned char>(bytes, 0), got);
  // Same offsets on every PE: each PE publishes its address to PE 0.
  uint64_t *where = static_cast<uint64_t *>(nvshmem_malloc(sizeof(uint64_t) * n));
  const uint64_t mine = reinterpret_cast<uint64_t>(clean) - reinterpret_cast<uint64_t>(where);
  nvshmem_uint64_p(where + me, mine, 0);
  nvshmem_barrier_all();
  if (me == 0) {
    for (int pe = 0; pe < n; ++pe) EXPECT_EQ(nvshmem_uint64_g(where + pe, 0), mine) << "PE " << pe;
  }
  for (int pe = 0; pe < n; ++pe) EXPECT_EQ(nvshmem_ptr(clean, pe) != nullptr, pe_test::peer_mapped(pe)) << "PE " << pe;
  EXPECT_EQ(nvshmem_ptr(&mine, 0), nullptr);
  EXPECT_EQ(nvshmem_ptr(clean, n), nullptr);
  nvshmem_free(where);
  nvshmem_free(clean);
}

template <typename T>
struct TypedRma {
  void (*put)(T *, const T *, size_t, int);
  void (*get)(T *, const T *, size_t, int);
  void (*put_nbi)(T *, const T *, size_t, int);
  void (*get_nbi)(T *, const T *, size_t, int);
  void (*p)(T *, const T, int);
  T (*g)(const T *, int);
};

// Sections of dst: put, put_nbi, p (element 0 and element count-1). Gets into private memory.
template <typename T>
void run_typed(const TypedRma<T> &f, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const std::size_t count = 131 + salt, bytes = count * sizeof(T);
  T *src = static_cast<T *>(nvshmem_malloc(bytes));
  T *dst = static_cast<T *>(nvshmem_malloc(3 * bytes));
  ASSERT_TRUE(src && dst);
  const auto mine = random_bytes(bytes, me, salt);
  write_local(src, mine.data(), bytes);
  poison_local(dst, 3 * bytes);
  nvshmem_barrier_all();

  std::vector<T> local(count);
  memcpy(local.data(), mine.data(), bytes);
  f.put(dst, local.data(), count, right);
  f.put_nbi(dst + count, local.data(), count, right);
  nvshmem_quiet();
  f.p(dst + 2 * count, local[0], right);
  f.p(dst + 3 * count - 1, local[count - 1], right);
  std::vector<T> got(count), got_nbi(count);
  f.get(got.data(), src, count, right);
  f.get_nbi(got_nbi.data(), src, count, right);
  nvshmem_quiet();
  const T last = f.g(src + count - 1, right);
  nvshmem_barrier_all();

  const auto from_left = random_bytes(bytes, left, salt), from_right = random_bytes(bytes, right, salt);
  const auto result = read_local(dst, 3 * bytes);
  EXPECT_EQ(memcmp(result.data(), from_left.data(), bytes), 0) << "put";
  EXPECT_EQ(memcmp(result.data() + bytes, from_left.data(), bytes), 0) << "put_nbi";
  EXPECT_EQ(memcmp(result.data() + 2 * bytes, from_left.data(), sizeof(T)), 0) << "p first";
  EXPECT_EQ(memcmp(result.data() + 3 * bytes - sizeof(T), from_left.data() + bytes - sizeof(T), sizeof(T)), 0)
      << "p last";
  EXPECT_EQ(result[2 * bytes + sizeof(T)], 0xA5) << "p wrote past its element";
  EXPECT_EQ(memcmp(got.data(), from_right.data(), bytes), 0) << "get";
  EXPECT_EQ(memcmp(got_nbi.data(), from_right.data(), bytes), 0) << "get_nbi";
  EXPECT_EQ(memcmp(&last, from_right.data() + bytes - sizeof(T), sizeof(T)), 0) << "g";
  nvshmem_barrier_all();
  nvshmem_free(dst);
  nvshmem_free(src);
}

#define HOST_TYPED_TEST(NAME, T)                                                                                  \
  TEST(HostRma, Typed_##NAME) {                                                                                   \
    run_typed<T>({nvshmem_##NAME##_put, nvshmem_##NAME##_get, nvshmem_##NAME##_put_nbi, nvshmem_##NAME##_get_nbi, \
                  nvshmem_##NAME##_p, nvshmem_##NAME##_g},                                                        \
                 static_cast<int>(sizeof(T)));                                                                    \
  }
NVSHM_FOR_EACH_RMA_TYPE(HOST_TYPED_TEST)
#undef HOST_TYPED_TEST

using SizedFn = void (*)(void *, const void *, size_t, int);
void run_sized(SizedFn put, SizedFn get, SizedFn put_nbi, SizedFn get_nbi, std::size_t elem) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const std::size_t count = 77, bytes = count * elem;
  void *src = nvshmem_malloc(bytes), *dst = nvshmem_malloc(2 * bytes);
  const auto mine = random_bytes(bytes, me, static_cast<int>(elem));
  write_local(src, mine.data(), bytes);
  poison_local(dst, 2 * bytes);
  nvshmem_barrier_all();
  put(dst, mine.data(), count, right);
  put_nbi(static_cast<char *>(dst) + bytes, mine.data(), count, right);
  std::vector<unsigned char> got(bytes), got_nbi(bytes);
  get(got.data(), src, count, right);
  get_nbi(got_nbi.data(), src, count, right);
  nvshmem_quiet();
  nvshmem_barrier_all();
  const auto result = read_local(dst, 2 * bytes);
  const auto from_left = random_bytes(bytes, left, static_cast<int>(elem));
  const auto from_right = random_bytes(bytes, right, static_cast<int>(elem));
  EXPECT_EQ(memcmp(result.data(), from_left.data(), bytes), 0);
  EXPECT_EQ(memcmp(result.data() + bytes, from_left.data(), bytes), 0);
  EXPECT_EQ(got, from_right);
  EXPECT_EQ(got_nbi, from_right);
  nvshmem_barrier_all();
  nvshmem_free(dst);
  nvshmem_free(src);
}

#define HOST_SIZED_TEST(BITS, T)                                                                                  \
  TEST(HostRma, Sized_##BITS) {                                                                                   \
    run_sized(nvshmem_put##BITS, nvshmem_get##BITS, nvshmem_put##BITS##_nbi, nvshmem_get##BITS##_nbi, sizeof(T)); \
  }
NVSHM_FOR_EACH_RMA_SIZE(HOST_SIZED_TEST)
#undef HOST_SIZED_TEST

TEST(HostRma, MemAllSizesAndOffsets) {
  run_sized(nvshmem_putmem, nvshmem_getmem, nvshmem_putmem_nbi, nvshmem_getmem_nbi, 1);
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const std::size_t cap = (1 << 20) + 64;
  char *dst = static_cast<char *>(nvshmem_malloc(cap));
  const auto mine = random_bytes(cap, me, 1234), theirs = random_bytes(cap, left, 1234);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{3}, std::size_t{4096}, std::size_t{1} << 20}) {
    for (std::size_t offset : {0, 1, 7, 32}) {
      poison_local(dst, cap);
      nvshmem_barrier_all();
      nvshmem_putmem(dst + offset, mine.data() + offset, bytes, right);
      nvshmem_barrier_all();
      const auto result = read_local(dst, cap);
      EXPECT_EQ(memcmp(result.data() + offset, theirs.data() + offset, bytes), 0) << bytes << "@" << offset;
      if (offset) {
        EXPECT_EQ(result[offset - 1], 0xA5);
      }
      EXPECT_EQ(result[offset + bytes], 0xA5);
    }
  }
  nvshmem_barrier_all();
  nvshmem_free(dst);
}

// Every PE writes its round number into every PE's slot, barriers, and checks all slots.
TEST(HostSync, BarrierAndSyncRounds) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *slots = static_cast<int *>(nvshmem_calloc(n, sizeof(int)));
  for (int round = 1; round <= 50; ++round) {
    for (int pe = 0; pe < n; ++pe) nvshmem_int_p(slots + me, round * 1000 + me, pe);
    if (round % 2) {
      nvshmem_barrier_all();
    } else {
      nvshmem_quiet();
      nvshmem_sync_all();
    }
    std::vector<int> seen(n);
    nvshmem_int_get(seen.data(), slots, n, me);
    for (int pe = 0; pe < n; ++pe) ASSERT_EQ(seen[pe], round * 1000 + pe) << "round " << round;
    nvshmem_barrier_all();
  }
  nvshmem_fence();
  nvshmem_free(slots);
}

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
