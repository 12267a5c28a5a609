// SPDX-License-Identifier: BSD-3-Clause
// The C++ layer on the host interface, under nvshmrun with 1, 2 and 4 PEs (CPU backend without a GPU,
// GPU heap with one): runtime lifetime orders, double init, init methods, buffer moves and checks,
// generic templates and aliases for every RMA type. Every test starts and ends with no live runtime;
// every PE runs the same collective calls in the same order.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cstdint>
#include <cstring>
#include <nvshmem/nvshmem.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using nvshmem::Error;
using nvshmem::InitMethod;
using nvshmem::Op;
using nvshmem::Runtime;
using nvshmem::SymmetricBuffer;
using nvshmem::Team;
using nvshmem::UniqueTeam;

bool runtime_down() {
  return nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED && !Runtime::is_live();
}

// Deterministic bytes for element i of PE `pe`'s data.
template <class T>
std::vector<T> pattern(std::size_t n, int pe, int salt) {
  std::vector<T> v(n);
  std::vector<unsigned char> bytes(n * sizeof(T));
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>((i * 131 + static_cast<std::size_t>(pe) * 17 + salt * 7 + 1) & 0x7f);
  if (n) std::memcpy(static_cast<void *>(v.data()), bytes.data(), bytes.size());
  return v;
}
template <class T>
bool same_bytes(const std::vector<T> &a, const std::vector<T> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(ErrorType, CarriesStatusCallAndMessage) {
  const Error e(NVSHMEMX_ERROR_OUT_OF_MEMORY, "nvshmem_malloc", "no room");
  EXPECT_EQ(e.status(), NVSHMEMX_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(e.call(), "nvshmem_malloc");
  EXPECT_EQ(e.message(), "no room");
  EXPECT_STREQ(e.what(), "nvshmem_malloc: no room (NVSHMEMX_ERROR_OUT_OF_MEMORY)");
  EXPECT_STREQ(nvshmem::status_name(12345), "NVSHMEMX_ERROR_<unknown>");
}

TEST(InitMethodType, SameDescribeAndIdBytes) {
  nvshmemx_uniqueid_t raw = NVSHMEMX_UNIQUEID_INITIALIZER;
  for (int i = 0; i < NVSHMEM_UNIQUEID_INTERNAL_SIZE; ++i) raw.internal[i] = static_cast<char>(i);
  const nvshmem::UniqueId id(raw);
  const auto bytes = id.bytes();
  static_assert(bytes.size() == 128, "the unique id is 128 bytes");
  EXPECT_EQ(nvshmem::UniqueId::from_bytes(bytes.data(), bytes.size()), id);
  EXPECT_THROW((void)nvshmem::UniqueId::from_bytes(bytes.data(), 12), Error);
  EXPECT_THROW((void)nvshmem::UniqueId::from_bytes(nullptr, 128), Error);

  EXPECT_TRUE(InitMethod::from_environment().same(InitMethod::from_environment()));
  EXPECT_FALSE(InitMethod::from_environment().same(InitMethod::from_environment().with_device(1)));
  EXPECT_FALSE(InitMethod::from_environment().same(InitMethod::single_pe()));
  EXPECT_TRUE(InitMethod::unique_id(id, 1, 4).same(InitMethod::unique_id(id, 1, 4)));
  EXPECT_FALSE(InitMethod::unique_id(id, 1, 4).same(InitMethod::unique_id(id, 2, 4)));
  EXPECT_FALSE(InitMethod::unique_id(id, 1, 4).same(InitMethod::unique_id(nvshmem::UniqueId(), 1, 4)));
  EXPECT_EQ(InitMethod::unique_id(id, 1, 4).with_device(2).describe(), "unique_id(rank 1 of 4), CUDA device 2");
  EXPECT_EQ(InitMethod::single_pe().describe(), "single_pe");
  int comm = 0;
  EXPECT_EQ(nvshmem::MpiComm::from_raw(&comm).raw(), &comm);
  EXPECT_EQ(InitMethod::mpi_comm(nvshmem::MpiComm::from_raw(&comm)).comm(), &comm);
}

TEST(RuntimeLifetime, InitQueriesCopiesAndRelease) {
  ASSERT_TRUE(runtime_down());
  {
    Runtime rt = Runtime::init();
    EXPECT_TRUE(rt.valid());
    EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    EXPECT_EQ(rt.my_pe(), nvshmem_my_pe());
    EXPECT_EQ(rt.n_pes(), nvshmem_n_pes());
    EXPECT_EQ(rt.team_my_pe(NVSHMEM_TEAM_WORLD), rt.my_pe());
    EXPECT_EQ(rt.team_n_pes(NVSHMEM_TEAM_WORLD), rt.n_pes());
    EXPECT_EQ(rt.team_n_pes(NVSHMEM_TEAM_SHARED), nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED));
    EXPECT_EQ(nvshmem::my_pe(), rt.my_pe());
    EXPECT_EQ(nvshmem::n_pes(), rt.n_pes());
    const nvshmem::Version v = rt.version();
    EXPECT_EQ(v.spec_major, NVSHMEM_MAJOR_VERSION);
    EXPECT_EQ(v.spec_minor, NVSHMEM_MINOR_VERSION);
    EXPECT_EQ(v.library_name.rfind("NVSHMEM v", 0), 0u) << v.library_name;
    if (v.header_major >= 0) {
      EXPECT_EQ(v.header_major, v.library_major);
    }
    rt.barrier_all();
    rt.sync_all();
    rt.quiet();
    rt.fence();

    Runtime copy = rt;                // a cheap handle on the same state
    Runtime again = Runtime::init();  // same method: a handle, no second init
    Runtime moved = std::move(copy);  // moved-from handle is empty
    EXPECT_FALSE(copy.valid());       // NOLINT(bugprone-use-after-move): the defined moved-from state
    EXPECT_THROW((void)copy.my_pe(), Error);
    EXPECT_EQ(again.my_pe(), rt.my_pe());
    rt.barrier_all();
  }
  EXPECT_TRUE(runtime_down()) << "the last handle's release finalizes";
}

TEST(RuntimeLifetime, SecondInitWithDifferentMethodThrows) {
  Runtime rt = Runtime::init(InitMethod::from_environment());
  try {
    (void)Runtime::init(InitMethod::single_pe());
    ADD_FAILURE() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.call(), "Runtime::init");
    EXPECT_NE(e.message().find("from_environment is live"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("single_pe"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Runtime::init(InitMethod::from_environment().with_device(7)), Error);
  EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED) << "the live runtime is untouched";
  rt.barrier_all();
}

TEST(RuntimeLifetime, InitFromAnotherThreadJoinsTheLiveRuntime) {
  std::optional<Runtime> rt(Runtime::init());
  int other_pe = -1;
  std::thread t([&] {
    Runtime joined = Runtime::init();  // same method: a handle, no communication
    other_pe = joined.my_pe();
  });
  t.join();
  EXPECT_EQ(other_pe, rt->my_pe());
  rt->barrier_all();
  rt.reset();
  EXPECT_TRUE(runtime_down());
}

TEST(RuntimeLifetime, CApiRuntimeIsNotAdopted) {
  nvshmem_init();
  EXPECT_THROW((void)Runtime::init(), Error);
  nvshmem_finalize();
  EXPECT_TRUE(runtime_down());
}

TEST(RuntimeLifetime, MpiCommInitThrowsTheLibraryStatus) {
  EXPECT_THROW((void)Runtime::init(InitMethod::mpi_comm(nvshmem::MpiComm::from_raw(nullptr))), Error);
  // A communicator that is not usable here (no MPI_Init in this test): the library refuses it, with
  // NVSHMEMX_ERROR_NOT_SUPPORTED where it has no MPI bootstrap (or no MPI library), or
  // NVSHMEMX_ERROR_INVALID_VALUE where it finds MPI not initialised. Either way init throws its status.
  alignas(8) unsigned char not_a_comm[8] = {};
  try {
    (void)Runtime::init(InitMethod::mpi_comm(nvshmem::MpiComm::from_raw(not_a_comm)));
    ADD_FAILURE() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.call(), "nvshmemx_init_attr");
    EXPECT_TRUE(e.status() == NVSHMEMX_ERROR_NOT_SUPPORTED || e.status() == NVSHMEMX_ERROR_INVALID_VALUE) << e.what();
  }
  EXPECT_TRUE(runtime_down());
  Runtime rt = Runtime::init();  // a failed init leaves nothing behind
  rt.barrier_all();
}

TEST(RuntimeLifetime, SinglePeIgnoresTheLauncher) {
  Runtime rt = Runtime::init(InitMethod::single_pe());
  EXPECT_EQ(rt.n_pes(), 1);
  EXPECT_EQ(rt.my_pe(), 0);
  auto buf = SymmetricBuffer<int>::allocate(rt, 4);
  buf.p(0, 3, 42);
  EXPECT_EQ(buf.g(0, 3), 42);
}

// The unique-id method across the launcher's processes: rank 0 generates the id and spreads its bytes
// through a file named after the launcher's process (all PEs are its children).
TEST(RuntimeLifetime, UniqueIdAcrossProcesses) {
  const char *rank_env = std::getenv("NVSHMRUN_RANK"), *size_env = std::getenv("NVSHMRUN_SIZE");
  const int rank = rank_env ? std::atoi(rank_env) : 0, size = size_env ? std::atoi(size_env) : 1;
  // The launcher's session id (fresh per run) keeps a stale file of an earlier run from being read.
  const char *session = std::getenv("NVSHMRUN_UNIQUEID");
  const std::string tag = session ? std::to_string(std::hash<std::string>{}(session)) : "0";
  const std::string path = "/tmp/nvshm_cpp_uid_" + std::to_string(rank_env ? getppid() : getpid()) + "_" + tag;
  nvshmem::UniqueId id;
  if (rank == 0) {
    id = nvshmem::UniqueId::generate();
    const auto bytes = id.bytes();
    const std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
    ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
  } else {
    std::array<unsigned char, nvshmem::UniqueId::size> bytes{};
    bool read = false;
    for (int tries = 0; tries < 3000 && !read; ++tries) {
      if (FILE *f = std::fopen(path.c_str(), "rb")) {
        read = std::fread(bytes.data(), 1, bytes.size(), f) == bytes.size();
        std::fclose(f);
      }
      if (!read) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(read) << "no unique id from rank 0 in " << path;
    id = nvshmem::UniqueId::from_bytes(bytes.data(), bytes.size());
  }
  {
    const InitMethod method = InitMethod::unique_id(id, rank, size);
    Runtime rt = Runtime::init(method);
    EXPECT_EQ(rt.my_pe(), rank);
    EXPECT_EQ(rt.n_pes(), size);
    Runtime same = Runtime::init(method);  // same method: a handle
    EXPECT_THROW((void)Runtime::init(InitMethod::unique_id(id, rank, size).with_device(5)), Error);
    EXPECT_THROW((void)Runtime::init(InitMethod::from_environment()), Error);
    auto buf = SymmetricBuffer<int>::allocate(rt, 1);
    buf.p((rank + 1) % size, 0, rank);
    rt.barrier_all();
    EXPECT_EQ(buf.g(rank, 0), (rank + size - 1) % size);
    rt.barrier_all();
    if (rank == 0) std::remove(path.c_str());
  }
  EXPECT_TRUE(runtime_down());
}

TEST(RuntimeLifetime, BufferOutlivesRuntimeHandle) {
  SymmetricBuffer<int> buf;
  {
    Runtime rt = Runtime::init();
    buf = SymmetricBuffer<int>::allocate(rt, 8);
  }
  EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED) << "the buffer keeps the runtime";
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  buf.p((me + 1) % n, 0, 1000 + me);
  buf.runtime().barrier_all();
  EXPECT_EQ(buf.g(me, 0), 1000 + (me + n - 1) % n);
  buf.runtime().barrier_all();
  buf.reset();  // collective free, then the last owner finalizes
  EXPECT_TRUE(runtime_down());
}

TEST(RuntimeLifetime, ReinitAfterFullRelease) {
  for (int round = 0; round < 3; ++round) {
    Runtime rt = Runtime::init();
    auto buf = SymmetricBuffer<long>::zeroed(rt, 16);
    EXPECT_EQ(buf.to_vector(), std::vector<long>(16, 0));
    rt.barrier_all();
  }
  EXPECT_TRUE(runtime_down());
}

TEST(RuntimeLifetime, FailedModuleRegistrationThrowsAndHoldsNothing) {
  {
    Runtime rt = Runtime::init();
    // No module (and, on the CPU backend, no GPU heap): the library refuses; init's status is thrown.
    try {
      auto reg = rt.register_module(nullptr);
      ADD_FAILURE() << "no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.call(), "nvshmemx_cumodule_init");
      EXPECT_NE(e.status(), NVSHMEMX_SUCCESS);
    }
    rt.barrier_all();
  }
  EXPECT_TRUE(runtime_down());
}

TEST(Buffer, MoveSemantics) {
  Runtime rt = Runtime::init();
  auto a = SymmetricBuffer<int>::allocate(rt, 10);
  int *const p = a.data();
  ASSERT_NE(p, nullptr);
  SymmetricBuffer<int> b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the defined moved-from state
  EXPECT_EQ(a.size(), 0u);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.bytes(), 10 * sizeof(int));
  auto c = SymmetricBuffer<int>::allocate(rt, 3);
  c = std::move(b);  // frees c's 3 ints (collective) and takes b's
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  c = std::move(c);              // self-move keeps the buffer (the clang test passes -Wno-self-move)
  EXPECT_EQ(c.data(), p);
  SymmetricBuffer<int> empty = SymmetricBuffer<int>::allocate(rt, 0);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  static_assert(!std::is_copy_constructible_v<SymmetricBuffer<int>>);
  static_assert(!std::is_copy_assignable_v<SymmetricBuffer<int>>);
  static_assert(std::is_nothrow_move_constructible_v<SymmetricBuffer<int>>);
  static_assert(!std::is_copy_constructible_v<nvshmem::ModuleRegistration>);
  static_assert(!std::is_move_constructible_v<nvshmem::ModuleRegistration>);
  static_assert(std::is_trivially_copyable_v<nvshmem::DeviceView<int>>);
}

TEST(Buffer, SizeOverflowAndExhaustionThrow) {
  Runtime rt = Runtime::init();
  try {
    (void)SymmetricBuffer<std::int64_t>::allocate(rt, SIZE_MAX / 4);
    ADD_FAILURE() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.call(), "SymmetricBuffer::allocate");
    EXPECT_NE(e.message().find("overflow"), std::string::npos);
  }
  EXPECT_THROW((void)SymmetricBuffer<double>::zeroed(rt, SIZE_MAX / 2), Error);
  try {
    (void)SymmetricBuffer<char>::allocate(rt, std::size_t{1} << 44);  // 16 TiB: past any test heap
    ADD_FAILURE() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), NVSHMEMX_ERROR_OUT_OF_MEMORY);
  }
  auto ok = SymmetricBuffer<int>::allocate(rt, 4);  // the heap is still usable on every PE
  EXPECT_EQ(ok.size(), 4u);
}

TEST(Buffer, RangeAndPeChecks) {
  Runtime rt = Runtime::init();
  auto buf = SymmetricBuffer<int>::allocate(rt, 4);
  int v[8] = {};
  const int me = rt.my_pe();
  EXPECT_THROW(buf.put(me, v, 5), Error);
  EXPECT_THROW(buf.put(me, v, 2, 3), Error);
  EXPECT_THROW(buf.get(me, v, 1, 4), Error);
  EXPECT_THROW(buf.get(me, v, SIZE_MAX, 1), Error);
  EXPECT_THROW(buf.put(rt.n_pes(), v, 1), Error);
  EXPECT_THROW(buf.get(-1, v, 1), Error);
  EXPECT_THROW((void)buf.peer(rt.n_pes()), Error);
  EXPECT_NO_THROW(buf.put(me, v, 0, 4));  // an empty range at the end is fine
  int *self = buf.peer(me);
  EXPECT_TRUE(self == nullptr || self != nullptr);  // may be null where the heap is not load/store reachable
}

TEST(Buffer, RingWithHostRanges) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kCount = 1000;
  auto src = SymmetricBuffer<int>::allocate(rt, kCount);
  auto dst = SymmetricBuffer<int>::zeroed(rt, kCount);
  std::vector<int> mine(kCount);
  for (std::size_t i = 0; i < kCount; ++i) mine[i] = me * 100000 + static_cast<int>(i);
  src.copy_from_host(mine);
  EXPECT_EQ(src.to_vector(), mine);
  rt.barrier_all();
  dst.put(right, mine.data(), kCount / 2);                               // blocking
  dst.put_nbi(right, mine.data() + kCount / 2, kCount / 2, kCount / 2);  // completes at quiet
  rt.quiet();
  rt.barrier_all();
  std::vector<int> expect(kCount);
  for (std::size_t i = 0; i < kCount; ++i) expect[i] = left * 100000 + static_cast<int>(i);
  EXPECT_EQ(dst.to_vector(), expect);
  std::vector<int> from_right(kCount);
  src.get(right, from_right.data(), kCount);
  src.get_nbi(right, from_right.data(), 1, 0);
  rt.quiet();
  EXPECT_EQ(from_right[kCount - 1], right * 100000 + static_cast<int>(kCount - 1));
  std::array<int, 3> three = {7, 8, 9};
  dst.copy_from_host(three, 10);
  int out[3] = {};
  dst.copy_to_host(out, 3, 10);
  EXPECT_EQ(out[2], 9);
  rt.barrier_all();
}

struct Particle {  // not an RMA type: moved as bytes (putmem/getmem)
  double x, y;
  int id;
};

TEST(Buffer, NonRmaTypeMovesBytes) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  auto buf = SymmetricBuffer<Particle>::zeroed(rt, 2);
  buf.p((me + 1) % n, 1, Particle{1.5, -2.5, me});
  rt.barrier_all();
  const Particle got = buf.g(me, 1);
  EXPECT_EQ(got.id, (me + n - 1) % n);
  EXPECT_EQ(got.x, 1.5);
  EXPECT_EQ(buf.g(me, 0).id, 0);
  rt.barrier_all();
}

struct alignas(64) Wide {
  char bytes[64];
};

TEST(Buffer, OverAlignedTypeIsAligned) {
  Runtime rt = Runtime::init();
  auto a = SymmetricBuffer<Wide>::allocate(rt, 3);
  auto z = SymmetricBuffer<Wide>::zeroed(rt, 2);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(z.data()) % 64, 0u);
  EXPECT_EQ(z.g(rt.my_pe(), 1).bytes[63], 0);
}

// Every RMA type: the generic templates (nvshmem::put<T>, ...) and the prefix-stripped aliases
// (nvshmem::<name>_put, ...), generated from the C API's own table.
template <class T>
void exercise_type(const Runtime &rt, const char *name) {
  SCOPED_TRACE(name);
  const int me = rt.my_pe(), n = rt.n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr std::size_t kCount = 33;
  auto buf = SymmetricBuffer<T>::zeroed(rt, 4 * kCount);
  T *const sym = buf.data();
  const std::vector<T> mine = pattern<T>(kCount, me, 1), from_left = pattern<T>(kCount, left, 1);
  const std::vector<T> from_right_src = pattern<T>(kCount, right, 2);
  nvshmem::put(sym, mine.data(), kCount, right);               // generic, blocking
  nvshmem::put_nbi(sym + kCount, mine.data(), kCount, right);  // generic, nbi
  nvshmem::p(sym + 2 * kCount, mine[3], right);                // generic scalar
  buf.copy_from_host(pattern<T>(kCount, me, 2).data(), kCount, 3 * kCount);
  nvshmem::quiet();
  rt.barrier_all();
  std::vector<T> got(kCount);
  nvshmem::get(got.data(), sym, kCount, me);
  EXPECT_TRUE(same_bytes(got, from_left));
  nvshmem::get_nbi(got.data(), sym + kCount, kCount, me);
  nvshmem::quiet();
  EXPECT_TRUE(same_bytes(got, from_left));
  const T scalar = nvshmem::g(sym + 2 * kCount, me);
  EXPECT_EQ(std::memcmp(&scalar, &from_left[3], sizeof(T)), 0);
  nvshmem::get(got.data(), sym + 3 * kCount, kCount, right);
  EXPECT_TRUE(same_bytes(got, from_right_src));
  rt.barrier_all();
  // Strided: every other element of mine into right's first kCount/2 slots, read back strided.
  nvshmem::iput(sym, mine.data(), 1, 2, kCount / 2, right);
  rt.barrier_all();
  std::vector<T> strided(kCount, T{}), expect(kCount, T{});
  nvshmem::iget(strided.data(), sym, 2, 1, kCount / 2, me);
  for (std::size_t i = 0; i < kCount / 2; ++i) expect[2 * i] = from_left[2 * i];
  EXPECT_TRUE(same_bytes(strided, expect));
  rt.barrier_all();
}

TEST(Generic, EveryRmaTypeThroughTemplates) {
  Runtime rt = Runtime::init();
#define NVSHM_TEST_TYPE(NAME, T) exercise_type<T>(rt, #NAME);
  NVSHM_FOR_EACH_RMA_TYPE(NVSHM_TEST_TYPE)
#undef NVSHM_TEST_TYPE
}

TEST(Aliases, EveryRmaTypeThroughAliases) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  const int right = (me + 1) % n;
#define NVSHM_TEST_ALIAS(NAME, T)                                                                \
  {                                                                                              \
    SCOPED_TRACE(#NAME);                                                                         \
    T *sym = static_cast<T *>(nvshmem::calloc(8, sizeof(T)));                                    \
    ASSERT_NE(sym, nullptr);                                                                     \
    const std::vector<T> mine = pattern<T>(4, me, 3), left = pattern<T>(4, (me + n - 1) % n, 3); \
    nvshmem::NAME##_put(sym, mine.data(), 2, right);                                             \
    nvshmem::NAME##_put_nbi(sym + 2, mine.data() + 2, 1, right);                                 \
    nvshmem::NAME##_p(sym + 3, mine[3], right);                                                  \
    nvshmem::quiet();                                                                            \
    nvshmem::barrier_all();                                                                      \
    std::vector<T> got(4);                                                                       \
    nvshmem::NAME##_get(got.data(), sym, 3, me);                                                 \
    nvshmem::NAME##_get_nbi(got.data() + 3, sym + 3, 1, me);                                     \
    nvshmem::quiet();                                                                            \
    EXPECT_TRUE(same_bytes(got, left));                                                          \
    const T one = nvshmem::NAME##_g(sym + 1, me);                                                \
    EXPECT_EQ(std::memcmp(&one, &left[1], sizeof(T)), 0);                                        \
    nvshmem::barrier_all();                                                                      \
    nvshmem::free(sym);                                                                          \
  }
  NVSHM_FOR_EACH_RMA_TYPE(NVSHM_TEST_ALIAS)
#undef NVSHM_TEST_ALIAS
  // Sized and byte forms.
  auto *words = static_cast<std::uint32_t *>(nvshmem::malloc(4 * sizeof(std::uint32_t)));
  const std::uint32_t w[2] = {0xdeadbeef, static_cast<std::uint32_t>(me)};
  nvshmem::put32(words, w, 2, right);
  nvshmem::putmem(words + 2, w, sizeof w, right);
  nvshmem::sync_all();
  nvshmem::barrier_all();
  std::uint32_t r[4] = {};
  nvshmem::getmem(r, words, sizeof r, me);
  EXPECT_EQ(r[0], 0xdeadbeefu);
  EXPECT_EQ(r[1], static_cast<std::uint32_t>((me + n - 1) % n));
  EXPECT_EQ(r[3], r[1]);
  EXPECT_EQ(nvshmem::ptr(words, me) == nullptr, nvshmem_ptr(words, me) == nullptr);
  EXPECT_EQ(nvshmem::mc_ptr(NVSHMEM_TEAM_WORLD, words), nullptr);
  // User buffers through aliases: a registered local buffer as a put source.
  std::uint32_t local[2] = {7u, 9u};
  EXPECT_EQ(nvshmem::buffer_register(local, sizeof local), 0);
  nvshmem::putmem(words + 2, local, sizeof local, me);
  EXPECT_EQ(nvshmem::buffer_unregister(local), 0);
  EXPECT_EQ(nvshmem::buffer_register(local, sizeof local), 0);
  EXPECT_EQ(nvshmem::buffer_unregister_all(), 0);
  EXPECT_NE(nvshmem::buffer_unregister(local), 0);
  std::uint32_t back[2] = {};
  nvshmem::getmem(back, words + 2, sizeof back, me);
  EXPECT_EQ(back[0], 7u);
  EXPECT_EQ(back[1], 9u);
  nvshmem::barrier_all();
  // Signals and atomics through aliases.
  auto *sig = static_cast<std::uint64_t *>(nvshmem::calloc(1, sizeof(std::uint64_t)));
  nvshmem::signal_op(sig, 3, NVSHMEM_SIGNAL_ADD, right);
  nvshmem::int_atomic_add(reinterpret_cast<int *>(words + 3), 1, right);
  nvshmem::barrier_all();
  EXPECT_EQ(nvshmem::signal_fetch(sig), 3u);
  EXPECT_EQ(nvshmem::uint64_atomic_fetch(sig, me), 3u);
  nvshmem::barrier_all();
  nvshmem::free(sig);
  nvshmem::barrier_all();
  nvshmem::free(words);
}

// Every AMO type: the generic atomics (nvshmem/atomic.hpp) against PE 0's word.
template <class T>
void arith_type(const Runtime &rt, const char *name) {
  SCOPED_TRACE(name);
  const int n = rt.n_pes();
  auto word = SymmetricBuffer<T>::zeroed(rt, 1);
  nvshmem::atomic_add(word.data(), static_cast<T>(2), 0);
  nvshmem::atomic_inc(word.data(), 0);
  (void)nvshmem::atomic_fetch_add(word.data(), static_cast<T>(1), 0);
  (void)nvshmem::atomic_fetch_inc(word.data(), 0);
  rt.barrier_all();
  EXPECT_EQ(nvshmem::atomic_fetch(word.data(), 0), static_cast<T>(5 * n));
  rt.barrier_all();
  if (rt.my_pe() == 0) {
    EXPECT_EQ(nvshmem::atomic_compare_swap(word.data(), static_cast<T>(5 * n), static_cast<T>(7), 0),
              static_cast<T>(5 * n));
    EXPECT_EQ(nvshmem::atomic_swap(word.data(), static_cast<T>(9), 0), static_cast<T>(7));
  }
  rt.barrier_all();
  EXPECT_EQ(nvshmem::atomic_fetch(word.data(), 0), static_cast<T>(9));
  rt.barrier_all();
}
template <class T>
void logic_type(const Runtime &rt, const char *name) {
  SCOPED_TRACE(name);
  const int me = rt.my_pe(), n = rt.n_pes();
  auto word = SymmetricBuffer<T>::zeroed(rt, 1);
  nvshmem::atomic_or(word.data(), static_cast<T>(T{1} << me), 0);
  rt.barrier_all();
  const T all = static_cast<T>((T{1} << n) - 1);
  EXPECT_EQ(nvshmem::atomic_fetch(word.data(), 0), all);
  rt.barrier_all();
  (void)nvshmem::atomic_fetch_xor(word.data(), static_cast<T>(T{1} << me), 0);
  rt.barrier_all();
  EXPECT_EQ(nvshmem::atomic_fetch_and(word.data(), static_cast<T>(0), 0), static_cast<T>(0));
  rt.barrier_all();
}
template <class T>
void extended_type(const Runtime &rt, const char *name) {
  SCOPED_TRACE(name);
  auto word = SymmetricBuffer<T>::zeroed(rt, 1);
  if (rt.my_pe() == 0) nvshmem::atomic_set(word.data(), static_cast<T>(1.5), 0);
  rt.barrier_all();
  EXPECT_EQ(nvshmem::atomic_fetch(word.data(), 0), static_cast<T>(1.5));
  rt.barrier_all();
}

TEST(Buffer, AtomicMembers) {
  Runtime rt = Runtime::init();
  const int n = rt.n_pes();
  auto counters = SymmetricBuffer<long>::zeroed(rt, 2);
  counters.atomic_add(0, 1, 3);
  EXPECT_GE(counters.atomic_fetch_add(0, 1, 1), 3);
  rt.barrier_all();
  EXPECT_EQ(counters.atomic_fetch(0, 1), 4L * n);
  rt.barrier_all();
  if (rt.my_pe() == 0) {
    EXPECT_EQ(counters.atomic_compare_swap(0, 1, 4L * n, 7), 4L * n);
    EXPECT_EQ(counters.atomic_swap(0, 1, 8), 7);
    counters.atomic_set(0, 0, 9);
  }
  rt.barrier_all();
  EXPECT_EQ(counters.atomic_fetch(0, 0), 9);
  EXPECT_EQ(counters.atomic_fetch(0, 1), 8);
  EXPECT_THROW(counters.atomic_add(0, 2, 1), Error);
  rt.barrier_all();
}

TEST(Generic, EveryAmoTypeThroughTemplates) {
  Runtime rt = Runtime::init();
#define NVSHM_TEST_ARITH(NAME, T) arith_type<T>(rt, #NAME);
  NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_TEST_ARITH)
#undef NVSHM_TEST_ARITH
#define NVSHM_TEST_LOGIC(NAME, T) logic_type<T>(rt, #NAME);
  NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_TEST_LOGIC)
#undef NVSHM_TEST_LOGIC
  extended_type<float>(rt, "float");
  extended_type<double>(rt, "double");
}

// ---- teams and collectives ----

// PE `pe`'s random data for a collective (regenerated by every PE to compute the expected result).
std::vector<std::uint64_t> random_words(std::size_t n, int pe, int salt) {
  std::mt19937_64 gen(0x5eed0000u + static_cast<unsigned>(pe) * 7919u + static_cast<unsigned>(salt));
  std::vector<std::uint64_t> v(n);
  for (auto &x : v) x = gen();
  return v;
}

TEST(Teams, SplitNeedsALiveRuntime) {
  ASSERT_TRUE(runtime_down());
  try {
    (void)Team::world().split_strided(0, 1, 1);
    FAIL() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.call(), "Team::split_strided");
  }
}

TEST(Teams, PredefinedSplitTranslateAndDestroy) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  EXPECT_EQ(Team::world().my_pe(), me);
  EXPECT_EQ(Team::world().n_pes(), n);
  EXPECT_EQ(rt.team_n_pes(Team::world()), n);
  EXPECT_EQ(rt.team_my_pe(Team::shared()), nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED));
  EXPECT_EQ(Team::node().n_pes(), nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE));
  EXPECT_FALSE(Team().valid());
  EXPECT_EQ(Team().my_pe(), -1);

  // The even PEs of the world.
  const int n_even = (n + 1) / 2;
  UniqueTeam evens = Team::world().split_strided(0, 2, n_even);
  EXPECT_EQ(evens->valid(), me % 2 == 0);
  if (me % 2 == 0) {
    EXPECT_EQ(evens->my_pe(), me / 2);
    EXPECT_EQ(evens->n_pes(), n_even);
    EXPECT_EQ(rt.team_my_pe(evens), me / 2);
    EXPECT_EQ(evens->translate(evens->my_pe(), Team::world()), me);
    EXPECT_EQ(Team::world().translate(me, evens), me / 2);
  } else {
    EXPECT_EQ(Team::world().translate(me, evens), -1);
  }
  EXPECT_EQ(Team::world().translate(n, Team::world()), -1);

  // Rows of two and columns (split_2d).
  const int xrange = n < 2 ? 1 : 2;
  auto [row, column] = Team::world().split_2d(xrange);
  EXPECT_EQ(row->my_pe(), me % xrange);
  EXPECT_EQ(column->my_pe(), me / xrange);
  EXPECT_EQ(column->n_pes(), (n + xrange - 1 - me % xrange) / xrange);
  EXPECT_EQ(row->translate(0, Team::world()), me - me % xrange);

  // Moves: the moved-from team is invalid; reset destroys (collective over the members).
  UniqueTeam moved = std::move(evens);
  EXPECT_FALSE(evens->valid());
  EXPECT_EQ(moved->valid(), me % 2 == 0);
  moved.reset();
  EXPECT_FALSE(moved->valid());
  rt.barrier(Team::world());

  // Bad arguments fail alike on every PE.
  try {
    (void)Team::world().split_strided(0, 0, 1);
    FAIL() << "no exception";
  } catch (const Error &e) {
    EXPECT_NE(e.status(), NVSHMEMX_SUCCESS);
    EXPECT_EQ(e.call(), "nvshmem_team_split_strided");
  }
  rt.barrier_all();
}

TEST(Teams, UniqueTeamOutlivesTheRuntimeHandle) {
  UniqueTeam all;
  {
    Runtime rt = Runtime::init();
    all = Team::world().split_strided(0, 1, rt.n_pes());
  }
  EXPECT_TRUE(Runtime::is_live());
  EXPECT_EQ(all->n_pes(), nvshmem_n_pes());
  nvshmem::team_sync(all);
  all.reset();  // destroys the team, then finalizes
  EXPECT_TRUE(runtime_down());
}

TEST(Teams, UniqueIdNeedsALiveRuntime) {
  ASSERT_TRUE(runtime_down());
  for (const char *call : {"TeamUniqueId::generate", "UniqueTeam::init"}) {
    try {
      if (std::string(call) == "UniqueTeam::init")
        (void)UniqueTeam::init(nvshmem::TeamUniqueId(1), 1, 0);
      else
        (void)nvshmem::TeamUniqueId::generate();
      FAIL() << "no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
      EXPECT_EQ(e.call(), call);
    }
  }
}

// Teams of arbitrary PEs from a team unique id (spread with a buffer broadcast), their
// configuration, and a collective over them; the configuration of a split.
TEST(Teams, UniqueTeamFromAnIdAndConfig) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  // A fresh id made by `root`, spread to every PE with a buffer broadcast.
  auto spread = [&](int root) {
    auto word = SymmetricBuffer<std::uint64_t>::zeroed(rt, 1);
    if (me == root) word.p(me, 0, nvshmem::TeamUniqueId::generate().raw());
    word.broadcast(Team::world(), root);
    return nvshmem::TeamUniqueId(word.g(me, 0));
  };
  const nvshmem::TeamUniqueId id = spread(n - 1);
  EXPECT_NE(id, nvshmem::TeamUniqueId());

  // Every PE, in reverse world order, with a configuration.
  nvshmem_team_config_t cfg = NVSHMEM_TEAM_CONFIG_INITIALIZER;
  cfg.num_contexts = 3;
  UniqueTeam reversed = UniqueTeam::init(id, n, n - 1 - me, &cfg, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS);
  ASSERT_TRUE(reversed->valid());
  EXPECT_EQ(reversed->my_pe(), n - 1 - me);
  EXPECT_EQ(reversed->n_pes(), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(reversed->translate(i, Team::world()), n - 1 - i);
  const nvshmem_team_config_t got = reversed->config();
  EXPECT_EQ(got.num_contexts, 3);
  EXPECT_EQ(got.uniqueid, id.raw());

  // fcollect over it gathers in team (reverse world) order.
  constexpr std::size_t kLen = 100;
  auto part = SymmetricBuffer<std::uint64_t>::allocate(rt, kLen);
  auto all = SymmetricBuffer<std::uint64_t>::allocate(rt, kLen * n);
  part.copy_from_host(random_words(kLen, me, 7));
  all.copy_from_host(std::vector<std::uint64_t>(kLen * n, 0xdeadbeefdeadbeefull));
  rt.barrier_all();
  all.fcollect(reversed, part);
  std::vector<std::uint64_t> expect;
  for (int i = 0; i < n; ++i) {
    const std::vector<std::uint64_t> theirs = random_words(kLen, n - 1 - i, 7);
    expect.insert(expect.end(), theirs.begin(), theirs.end());
  }
  EXPECT_EQ(all.to_vector(), expect);

  // A second id, made by PE 0: the team {PE n-1, PE 0} (indices 0 and 1); the others take no part.
  const nvshmem::TeamUniqueId id2 = spread(0);
  EXPECT_NE(id2, id);
  if (n >= 2 && (me == 0 || me == n - 1)) {
    UniqueTeam ends = UniqueTeam::init(id2, 2, me == n - 1 ? 0 : 1);
    EXPECT_EQ(ends->my_pe(), me == n - 1 ? 0 : 1);
    EXPECT_EQ(ends->n_pes(), 2);
    EXPECT_EQ(ends->translate(0, Team::world()), n - 1);
    EXPECT_EQ(ends->translate(1, Team::world()), 0);
    EXPECT_EQ(ends->config().uniqueid, id2.raw());
    // A reduction over the pair through a buffer member (both members call it).
    part.copy_from_host(random_words(kLen, me, 8));
    all.copy_from_host(std::vector<std::uint64_t>(kLen * n, 0xdeadbeefdeadbeefull));
    nvshmem::team_sync(ends);
    all.reduce<Op::sum>(ends, part);
    const std::vector<std::uint64_t> a0 = random_words(kLen, 0, 8), a1 = random_words(kLen, n - 1, 8);
    const std::vector<std::uint64_t> got_sum = all.to_vector();
    for (std::size_t i = 0; i < kLen; ++i) ASSERT_EQ(got_sum[i], a0[i] + a1[i]) << i;
    for (std::size_t i = kLen; i < kLen * n; ++i) ASSERT_EQ(got_sum[i], 0xdeadbeefdeadbeefull) << i;
  }  // ends: destroyed by its two members
  rt.barrier_all();

  // A split's configuration; NVSHMEM_TEAM_INVALID has none.
  UniqueTeam evens = Team::world().split_strided(0, 2, (n + 1) / 2, &cfg, NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS);
  if (evens->valid()) {
    EXPECT_EQ(evens->config().num_contexts, 3);
  }
  try {
    (void)Team().config();
    FAIL() << "no exception";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.call(), "Team::config");
  }
  // Bad ids and arguments fail on the caller before any communication.
  for (auto bad : {std::make_pair(nvshmem::TeamUniqueId(), 0), std::make_pair(id, n)}) {
    try {
      (void)UniqueTeam::init(bad.first, n, bad.second);
      FAIL() << "no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
      EXPECT_EQ(e.call(), "nvshmemx_team_init");
    }
  }
  rt.barrier_all();
}

// Sum and broadcast with random 64-bit data over the world and over a split team; alltoall,
// fcollect and reducescatter over the world. Outputs are poisoned first.
TEST(Collectives, RandomDataThroughTheGenerics) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr std::size_t kLen = 1000;
  const std::vector<std::uint64_t> poison(kLen * n, 0xdeadbeefdeadbeefull);
  auto src = SymmetricBuffer<std::uint64_t>::allocate(rt, kLen * n);
  auto dst = SymmetricBuffer<std::uint64_t>::allocate(rt, kLen * n);
  src.copy_from_host(random_words(kLen * n, me, 1));
  auto check = [&](const std::vector<std::uint64_t> &expect, const char *what) {
    const std::vector<std::uint64_t> got = dst.to_vector();
    for (std::size_t i = 0; i < expect.size(); ++i) ASSERT_EQ(got[i], expect[i]) << what << " element " << i;
  };

  // Sum over the world (wrapping).
  dst.copy_from_host(poison);
  rt.barrier_all();
  nvshmem::reduce<Op::sum>(Team::world(), dst.data(), src.data(), kLen);
  std::vector<std::uint64_t> sum(kLen, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> theirs = random_words(kLen * n, pe, 1);
    for (std::size_t i = 0; i < kLen; ++i) sum[i] += theirs[i];
  }
  check(sum, "world sum");

  // Broadcast from the last PE.
  dst.copy_from_host(poison);
  rt.barrier_all();
  nvshmem::broadcast(Team::world(), dst.data(), src.data(), kLen, n - 1);
  const std::vector<std::uint64_t> root_data = random_words(kLen * n, n - 1, 1);
  check(std::vector<std::uint64_t>(root_data.begin(), root_data.begin() + kLen), "broadcast");

  // XOR over the even PEs, broadcast inside that team from its last member.
  UniqueTeam evens = Team::world().split_strided(0, 2, (n + 1) / 2);
  dst.copy_from_host(poison);
  rt.barrier_all();
  if (evens->valid()) {
    nvshmem::reduce<Op::xor_>(evens, dst.data(), src.data(), kLen);
    std::vector<std::uint64_t> x(kLen, 0);
    for (int pe = 0; pe < n; pe += 2) {
      const std::vector<std::uint64_t> theirs = random_words(kLen * n, pe, 1);
      for (std::size_t i = 0; i < kLen; ++i) x[i] ^= theirs[i];
    }
    check(x, "evens xor");
    const int root = evens->n_pes() - 1;
    nvshmem::broadcast(evens, dst.data(), src.data(), kLen, root);
    const std::vector<std::uint64_t> r = random_words(kLen * n, evens->translate(root, Team::world()), 1);
    check(std::vector<std::uint64_t>(r.begin(), r.begin() + kLen), "evens broadcast");
  }
  evens.reset();

  // fcollect, alltoall and a max reducescatter over the world.
  dst.copy_from_host(poison);
  rt.barrier_all();
  nvshmem::fcollect(Team::world(), dst.data(), src.data(), kLen);
  std::vector<std::uint64_t> all;
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> theirs = random_words(kLen * n, pe, 1);
    all.insert(all.end(), theirs.begin(), theirs.begin() + kLen);
  }
  check(all, "fcollect");
  nvshmem::alltoall(Team::world(), dst.data(), src.data(), kLen);
  std::vector<std::uint64_t> blocks;
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> theirs = random_words(kLen * n, pe, 1);
    blocks.insert(blocks.end(), theirs.begin() + me * kLen, theirs.begin() + (me + 1) * kLen);
  }
  check(blocks, "alltoall");
  nvshmem::reducescatter<Op::max>(Team::world(), dst.data(), src.data(), kLen);
  std::vector<std::uint64_t> mx(kLen, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> theirs = random_words(kLen * n, pe, 1);
    for (std::size_t i = 0; i < kLen; ++i) mx[i] = std::max(mx[i], theirs[me * kLen + i]);
  }
  check(mx, "reducescatter max");
  rt.barrier_all();
}

// Every type of the sum table and every type of the collective table, through the generics and
// (for int) the aliases. Values are small random integers so every type sums exactly.
template <class T>
T small(int v) {
  return static_cast<T>(static_cast<float>(v));
}
template <class T>
void sum_and_broadcast(const Runtime &rt, const char *name) {
  SCOPED_TRACE(name);
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr std::size_t kLen = 37;
  auto src = SymmetricBuffer<T>::allocate(rt, kLen);
  auto dst = SymmetricBuffer<T>::allocate(rt, kLen);
  auto values = [&](int pe) {
    std::mt19937 gen(1000u + static_cast<unsigned>(pe));
    std::vector<int> v(kLen);
    for (int &x : v) x = static_cast<int>(gen() % 8);
    return v;
  };
  std::vector<T> mine(kLen), expect(kLen);
  std::vector<int> total(kLen, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = values(pe);
    for (std::size_t i = 0; i < kLen; ++i) total[i] += v[i];
  }
  const std::vector<int> my_values = values(me);
  for (std::size_t i = 0; i < kLen; ++i) mine[i] = small<T>(my_values[i]), expect[i] = small<T>(total[i]);
  src.copy_from_host(mine);
  dst.copy_from_host(std::vector<T>(kLen, small<T>(99)));
  rt.barrier_all();
  nvshmem::reduce<Op::sum>(Team::world(), dst.data(), src.data(), kLen);
  EXPECT_TRUE(same_bytes(dst.to_vector(), expect));
  if constexpr (nvshmem::is_collective_type<T>) {
    nvshmem::broadcast(Team::world(), dst.data(), src.data(), kLen, 0);
    std::vector<T> root(kLen);
    const std::vector<int> v0 = values(0);
    for (std::size_t i = 0; i < kLen; ++i) root[i] = small<T>(v0[i]);
    EXPECT_TRUE(same_bytes(dst.to_vector(), root));
  }
  rt.barrier_all();
}

TEST(Collectives, EverySumTypeThroughTemplates) {
  Runtime rt = Runtime::init();
#define NVSHM_TEST_SUM(NAME, T) sum_and_broadcast<T>(rt, #NAME);
  NVSHM_FOR_EACH_REDUCE_STANDARD_TYPE(NVSHM_TEST_SUM)
#undef NVSHM_TEST_SUM
}

TEST(Collectives, AliasesAndBufferMembers) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  auto words = SymmetricBuffer<int>::zeroed(rt, 2);
  words.copy_from_host(std::vector<int>{me + 1, 0});
  rt.barrier_all();
  ASSERT_EQ(nvshmem::int_sum_reduce(NVSHMEM_TEAM_WORLD, words.data() + 1, words.data(), 1), 0);
  EXPECT_EQ(words.g(me, 1), n * (n + 1) / 2);
  ASSERT_EQ(nvshmem::barrier(NVSHMEM_TEAM_WORLD), 0);
  EXPECT_EQ(nvshmem::team_translate_pe(NVSHMEM_TEAM_WORLD, me, NVSHMEM_TEAM_WORLD), me);

  // Bitwise atomics and signals through SymmetricBuffer members.
  auto bits = SymmetricBuffer<std::uint64_t>::zeroed(rt, 2);
  rt.barrier_all();
  bits.atomic_or(0, 0, std::uint64_t{1} << me);
  bits.signal_op(0, 1, 1, NVSHMEM_SIGNAL_ADD);
  rt.barrier_all();
  if (me == 0) {
    EXPECT_EQ(bits.atomic_fetch(0, 0), (std::uint64_t{1} << n) - 1);
    EXPECT_EQ(bits.signal_fetch(1), static_cast<std::uint64_t>(n));
    EXPECT_EQ(bits.atomic_fetch_xor(0, 0, 1), (std::uint64_t{1} << n) - 1);
    EXPECT_EQ(bits.atomic_fetch_and(0, 0, 1), (std::uint64_t{1} << n) - 2);
  }
  EXPECT_THROW(bits.atomic_and(0, 2, 1), Error);
  EXPECT_THROW(bits.signal_op(n, 0, 1, NVSHMEM_SIGNAL_SET), Error);
  rt.barrier(Team::world());
}

// The collective members of SymmetricBuffer with random data: reduce (from another buffer and in
// place), broadcast (both forms), fcollect, alltoall, reducescatter over the world and a split team.
TEST(Collectives, BufferMembersWithRandomData) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr std::size_t kLen = 257;
  const std::size_t total = kLen * n;
  const std::uint64_t kPoison = 0xdeadbeefdeadbeefull;
  auto theirs = [&](int pe) { return random_words(total, pe, 3); };
  auto src = SymmetricBuffer<std::uint64_t>::allocate(rt, total);
  auto dst = SymmetricBuffer<std::uint64_t>::allocate(rt, total);
  auto part = SymmetricBuffer<std::uint64_t>::allocate(rt, kLen);
  src.copy_from_host(theirs(me));
  part.copy_from_host(theirs(me).data(), kLen);
  auto refill = [&](const std::vector<std::uint64_t> &v) {
    dst.copy_from_host(v);
    rt.barrier_all();  // no PE's collective writes into a copy before its owner refilled it
  };
  const std::vector<std::uint64_t> poison(total, kPoison);

  refill(poison);
  dst.reduce<Op::sum>(Team::world(), src);
  std::vector<std::uint64_t> expect(total, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> v = theirs(pe);
    for (std::size_t i = 0; i < total; ++i) expect[i] += v[i];
  }
  EXPECT_EQ(dst.to_vector(), expect) << "reduce<sum>";

  refill(theirs(me));
  dst.reduce<Op::max>(Team::world());  // in place
  std::fill(expect.begin(), expect.end(), 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> v = theirs(pe);
    for (std::size_t i = 0; i < total; ++i) expect[i] = std::max(expect[i], v[i]);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "reduce<max> in place";

  refill(poison);
  dst.broadcast(Team::world(), src, n - 1);
  EXPECT_EQ(dst.to_vector(), theirs(n - 1)) << "broadcast";
  refill(theirs(me));
  dst.broadcast(Team::world(), 0);  // in place
  EXPECT_EQ(dst.to_vector(), theirs(0)) << "broadcast in place";

  refill(poison);
  dst.fcollect(Team::world(), part);
  expect.clear();
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> v = theirs(pe);
    expect.insert(expect.end(), v.begin(), v.begin() + kLen);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "fcollect";

  refill(poison);
  dst.alltoall(Team::world(), src);
  expect.clear();
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> v = theirs(pe);
    expect.insert(expect.end(), v.begin() + me * kLen, v.begin() + (me + 1) * kLen);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "alltoall";

  refill(poison);
  dst.reducescatter<Op::xor_>(Team::world(), src);
  expect.assign(total, kPoison);
  std::fill(expect.begin(), expect.begin() + kLen, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<std::uint64_t> v = theirs(pe);
    for (std::size_t i = 0; i < kLen; ++i) expect[i] ^= v[me * kLen + i];
  }
  EXPECT_EQ(dst.to_vector(), expect) << "reducescatter<xor> (the rest untouched)";

  // Over the even PEs; on the others the team is NVSHMEM_TEAM_INVALID, refused before any call.
  UniqueTeam evens = Team::world().split_strided(0, 2, (n + 1) / 2);
  refill(poison);
  if (evens->valid()) {
    dst.reduce<Op::sum>(evens, part);
    expect.assign(total, kPoison);
    std::fill(expect.begin(), expect.begin() + kLen, 0);
    for (int pe = 0; pe < n; pe += 2) {
      const std::vector<std::uint64_t> v = theirs(pe);
      for (std::size_t i = 0; i < kLen; ++i) expect[i] += v[i];
    }
    EXPECT_EQ(dst.to_vector(), expect) << "evens reduce<sum>";
  } else {
    try {
      dst.reduce<Op::sum>(evens, part);
      FAIL() << "no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
      EXPECT_EQ(e.call(), "SymmetricBuffer::reduce");
    }
  }
  evens.reset();
  rt.barrier_all();

  // Misuse is refused on every PE alike, before any communication.
  auto refused = [](const std::function<void()> &call, const char *name) {
    try {
      call();
      ADD_FAILURE() << name << ": no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE) << name;
      EXPECT_EQ(e.call(), name);
    }
  };
  auto one = SymmetricBuffer<std::uint64_t>::allocate(rt, 1);
  refused([&] { one.broadcast(Team::world(), part, 0); }, "SymmetricBuffer::broadcast");
  refused([&] { dst.fcollect(Team::world(), dst); }, "SymmetricBuffer::fcollect");
  refused([&] { one.fcollect(Team::world(), part); }, "SymmetricBuffer::fcollect");
  refused([&] { one.reduce<Op::sum>(Team::world(), part); }, "SymmetricBuffer::reduce");
  refused([&] { dst.alltoall(Team::world(), dst); }, "SymmetricBuffer::alltoall");
  refused([&] { one.reducescatter<Op::sum>(Team::world(), src); }, "SymmetricBuffer::reducescatter");
  if (n > 1) refused([&] { dst.alltoall(Team::world(), part); }, "SymmetricBuffer::alltoall");  // 257: not n blocks
  refused([&] { dst.broadcast(Team(), 0); }, "SymmetricBuffer::broadcast");
  rt.barrier_all();
}

// A type outside the collective table goes through the byte forms (broadcastmem, fcollectmem,
// alltoallmem), as members and as the Team generics.
struct Record {
  std::uint32_t id;
  std::uint16_t a, b;
};
bool operator==(const Record &x, const Record &y) {
  return x.id == y.id && x.a == y.a && x.b == y.b;
}

TEST(Collectives, ByteFormsForOtherTypes) {
  static_assert(!nvshmem::is_collective_type<Record>, "Record is outside the collective table");
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr std::size_t kLen = 5;
  auto record = [](int pe, std::size_t i) {
    return Record{static_cast<std::uint32_t>(pe * 1000 + i), static_cast<std::uint16_t>(pe),
                  static_cast<std::uint16_t>(i * 3 + 1)};
  };
  std::vector<Record> mine(kLen * n);
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = record(me, i);
  auto src = SymmetricBuffer<Record>::allocate(rt, kLen * n);
  auto dst = SymmetricBuffer<Record>::allocate(rt, kLen * n);
  src.copy_from_host(mine);
  const std::vector<Record> poison(kLen * n, Record{0xffffffffu, 0xffff, 0xffff});
  dst.copy_from_host(poison);
  rt.barrier_all();

  dst.alltoall(Team::world(), src);
  std::vector<Record> expect;
  for (int pe = 0; pe < n; ++pe)
    for (std::size_t i = 0; i < kLen; ++i) expect.push_back(record(pe, me * kLen + i));
  EXPECT_EQ(dst.to_vector(), expect) << "alltoall (alltoallmem)";

  rt.barrier_all();
  dst.broadcast(Team::world(), src, n - 1);
  expect.clear();
  for (std::size_t i = 0; i < kLen * n; ++i) expect.push_back(record(n - 1, i));
  EXPECT_EQ(dst.to_vector(), expect) << "broadcast (broadcastmem)";

  rt.barrier_all();
  nvshmem::fcollectmem(Team::world(), dst.data(), src.data(), kLen * sizeof(Record));
  expect.clear();
  for (int pe = 0; pe < n; ++pe)
    for (std::size_t i = 0; i < kLen; ++i) expect.push_back(record(pe, i));
  EXPECT_EQ(dst.to_vector(), expect) << "fcollectmem(Team, ...)";
  rt.barrier_all();
}

// put_signal_on_stream's argument checks come first, on either heap kind (tests/cpp/test_cpp_gpu.cu moves
// data with it).
TEST(Buffer, PutSignalOnStreamChecksItsArguments) {
  Runtime rt = Runtime::init();
  const int n = rt.n_pes();
  auto data = SymmetricBuffer<float>::allocate(rt, 8);
  auto signals = SymmetricBuffer<std::uint64_t>::zeroed(rt, 2);
  const std::vector<float> local(8, 1.0f);
  cudaStream_t stream = nullptr;
  auto expect_refused = [](const std::function<void()> &call, const char *name) {
    try {
      call();
      ADD_FAILURE() << "no exception";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), NVSHMEMX_ERROR_INVALID_VALUE);
      EXPECT_EQ(e.call(), name);
    }
  };
  expect_refused([&] { data.put_signal_on_stream(0, local.data(), 4, signals, 2, 1, NVSHMEM_SIGNAL_SET, stream); },
                 "SymmetricBuffer::put_signal_on_stream");
  expect_refused([&] { data.put_signal_on_stream(n, local.data(), 4, signals, 0, 1, NVSHMEM_SIGNAL_SET, stream); },
                 "SymmetricBuffer::put_signal_on_stream");
  expect_refused(
      [&] { data.put_signal_nbi_on_stream(0, local.data(), 8, signals, 0, 1, NVSHMEM_SIGNAL_ADD, stream, 1); },
      "SymmetricBuffer::put_signal_nbi_on_stream");
  rt.barrier_all();
}

}  // namespace

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
