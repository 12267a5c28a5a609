// SPDX-License-Identifier: BSD-3-Clause
// The host interface's atomics, signals and strided RMA across real processes, every type from the
// type tables, on whichever heap kind the machine has (host shared memory in CI, GPU memory with a
// GPU). Atomics run under contention: several threads on every PE hit the same word on PE 0, and the
// totals must be exact. Run under nvshmrun with 1, 2 and 4 PEs.
#include <algorithm>
#include <thread>
#include <vector>

#include "pe_test.hpp"

namespace {
using pe_test::poison_local;
using pe_test::random_bytes;
using pe_test::read_local;
using pe_test::write_local;

constexpr int kThreads = 4, kRounds = 100;

template <typename T>
T fetch_local(const T *sym) {
  T v;
  nvshmem_getmem(&v, sym, sizeof(T), nvshmem_my_pe());
  return v;
}

// inc, fetch_inc, add, fetch_add from kThreads threads of every PE into PE 0's counter; every
// fetch_inc result is distinct (checked per thread as strictly increasing); one compare_swap wins.
template <typename T>
struct ArithFns {
  void (*inc)(T *, int);
  T (*fetch_inc)(T *, int);
  void (*add)(T *, T, int);
  T (*fetch_add)(T *, T, int);
  T (*compare_swap)(T *, T, T, int);
};
template <typename T>
void run_arith(const ArithFns<T> &f) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  T *sym = static_cast<T *>(nvshmem_calloc(3, sizeof(T)));  // counter, lock, wins
  ASSERT_NE(sym, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> ordered(kThreads, 1);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      T last = static_cast<T>(0);
      for (int r = 0; r < kRounds; ++r) {
        f.inc(sym, 0);
        const T seen = f.fetch_inc(sym, 0);
        if (r > 0 && !(seen > last)) ordered[t] = 0;
        last = seen;
        f.add(sym, static_cast<T>(3), 0);
        (void)f.fetch_add(sym, static_cast<T>(5), 0);
      }
      if (f.compare_swap(sym + 1, static_cast<T>(0), static_cast<T>(me * kThreads + t + 1), 0) == static_cast<T>(0))
        f.add(sym + 2, static_cast<T>(1), 0);
    });
  }
  for (auto &th : threads) th.join();
  nvshmem_barrier_all();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(ordered[t]) << "fetch_inc results of one thread must grow";
  if (me == 0) {
    const long long total = static_cast<long long>(n) * kThreads * kRounds * (1 + 1 + 3 + 5);
    EXPECT_EQ(fetch_local(sym), static_cast<T>(total));
    EXPECT_EQ(fetch_local(sym + 2), static_cast<T>(1)) << "exactly one compare_swap must win";
    const T lock = fetch_local(sym + 1);
    EXPECT_GE(lock, static_cast<T>(1));
    EXPECT_LE(lock, static_cast<T>(n * kThreads));
  }
  nvshmem_barrier_all();
  nvshmem_free(sym);
}
#define HOST_ARITH_TEST(NAME, T)                                                                               \
  TEST(HostAtomics, Arith_##NAME) {                                                                            \
    run_arith<T>({nvshmem_##NAME##_atomic_inc, nvshmem_##NAME##_atomic_fetch_inc, nvshmem_##NAME##_atomic_add, \
                  nvshmem_##NAME##_atomic_fetch_add, nvshmem_##NAME##_atomic_compare_swap});                   \
  }
NVSHM_FOR_EACH_AMO_ARITH_TYPE(HOST_ARITH_TEST)
#undef HOST_ARITH_TEST

// set to the right neighbour, fetch, swap: values made from random bits of the PE's own seed.
template <typename T>
struct FetchFns {
  T (*fetch)(const T *, int);
  void (*set)(T *, T, int);
  T (*swap)(T *, T, int);
};
template <typename T>
T value_of(int pe, int salt) {
  const auto b = random_bytes(sizeof(T), pe, salt);
  T v;
  memcpy(&v, b.data(), sizeof(T));
  if (v != v) v = static_cast<T>(pe + salt);  // no NaN for floating types: they never compare equal
  return v;
}
template <typename T>
void run_fetch(const FetchFns<T> &f, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  T *cell = static_cast<T *>(nvshmem_malloc(sizeof(T)));
  ASSERT_NE(cell, nullptr);
  poison_local(cell, sizeof(T));
  nvshmem_barrier_all();
  f.set(cell, value_of<T>(me, salt), right);
  nvshmem_barrier_all();
  const T from_left = value_of<T>(left, salt);
  const T fetched = f.fetch(cell, me);
  EXPECT_EQ(memcmp(&from_left, &fetched, sizeof(T)), 0) << "fetch after set";
  const T mine = value_of<T>(me, salt + 1);
  const T old = f.swap(cell, mine, me);
  EXPECT_EQ(memcmp(&old, &from_left, sizeof(T)), 0) << "swap returns the old value";
  nvshmem_barrier_all();
  const T theirs = f.fetch(cell, right);  // the right neighbour swapped in its own value
  const T expected = value_of<T>(right, salt + 1);
  EXPECT_EQ(memcmp(&theirs, &expected, sizeof(T)), 0) << "fetch from the right neighbour";
  nvshmem_barrier_all();
  nvshmem_free(cell);
}
#define HOST_FETCH_TEST(NAME, T)                                                                             \
  TEST(HostAtomics, FetchSetSwap_##NAME) {                                                                   \
    run_fetch<T>({nvshmem_##NAME##_atomic_fetch, nvshmem_##NAME##_atomic_set, nvshmem_##NAME##_atomic_swap}, \
                 __LINE__);                                                                                  \
  }
NVSHM_FOR_EACH_AMO_FETCH_TYPE(HOST_FETCH_TEST)
#undef HOST_FETCH_TEST

// Every thread of every PE sets, toggles twice and clears its own bit of PE 0's word with
// or/xor/and; fetch forms return values that contain (or not) the bit as expected.
template <typename T>
struct LogicFns {
  void (*and_)(T *, T, int);
  T (*fetch_and)(T *, T, int);
  void (*or_)(T *, T, int);
  T (*fetch_or)(T *, T, int);
  void (*xor_)(T *, T, int);
  T (*fetch_xor)(T *, T, int);
};
template <typename T>
void run_logic(const LogicFns<T> &f) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int bits_per_pe = kThreads;
  if (n * bits_per_pe > static_cast<int>(8 * sizeof(T))) GTEST_SKIP() << "too many PEs for the word";
  T *word = static_cast<T *>(nvshmem_calloc(1, sizeof(T)));
  ASSERT_NE(word, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> ok(kThreads, 1);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const T bit = static_cast<T>(static_cast<T>(1) << (me * bits_per_pe + t));
      for (int r = 0; r < kRounds; ++r) {
        f.or_(word, bit, 0);
        if (!(f.fetch_xor(word, bit, 0) & bit)) ok[t] = 0;                   // was set: now clear
        f.xor_(word, bit, 0);                                                // set again
        if (!(f.fetch_and(word, static_cast<T>(~bit), 0) & bit)) ok[t] = 0;  // was set: now clear
        if (f.fetch_or(word, bit, 0) & bit) ok[t] = 0;                       // was clear: now set
        f.and_(word, static_cast<T>(~bit), 0);                               // clear
      }
      f.or_(word, bit, 0);
    });
  }
  for (auto &th : threads) th.join();
  nvshmem_barrier_all();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
  if (me == 0) {
    const int used = n * bits_per_pe;
    const T all = used == static_cast<int>(8 * sizeof(T)) ? static_cast<T>(~static_cast<T>(0))
                                                          : static_cast<T>((static_cast<T>(1) << used) - 1);
    EXPECT_EQ(fetch_local(word), all);
  }
  nvshmem_barrier_all();
  nvshmem_free(word);
}
#define HOST_LOGIC_TEST(NAME, T)                                                                                      \
  TEST(HostAtomics, Bitwise_##NAME) {                                                                                 \
    run_logic<T>({nvshmem_##NAME##_atomic_and, nvshmem_##NAME##_atomic_fetch_and, nvshmem_##NAME##_atomic_or,         \
                  nvshmem_##NAME##_atomic_fetch_or, nvshmem_##NAME##_atomic_xor, nvshmem_##NAME##_atomic_fetch_xor}); \
  }
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(HOST_LOGIC_TEST)
#undef HOST_LOGIC_TEST

// NVSHMEM 3.7 floating-point adds from kThreads threads of every PE into PE 0's word: random multiples of
// `unit` from 1 to `span` units, chosen so that every partial sum is exact in F (half: whole numbers up
// to 2048, 4 PEs x 4 threads x 20 rounds x 2 x 3 = 1920; float and double: quarters), so the total is
// exact in any order; the fetch_add results of one thread grow (every addend is positive).
template <typename F>
void run_float_add(void (*add)(F *, F, int), F (*fetch_add)(F *, F, int), double (*to_double)(F), F (*from)(double),
                   double unit, int span, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  constexpr int kFloatRounds = 20;
  F *sym = static_cast<F *>(nvshmem_calloc(1, sizeof(F)));
  ASSERT_NE(sym, nullptr);
  const double start = 2 * unit;
  const F start_value = from(start);
  if (me == 0) nvshmem_putmem(sym, &start_value, sizeof(F), 0);
  nvshmem_barrier_all();
  std::vector<std::vector<double>> addends(kThreads);
  for (int t = 0; t < kThreads; ++t)
    for (unsigned char b : random_bytes(2 * kFloatRounds, me, salt * 31 + t))
      addends[t].push_back(unit * (1 + b % span));
  std::vector<int> ordered(kThreads, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      double last = -1;
      for (int r = 0; r < kFloatRounds; ++r) {
        add(sym, from(addends[t][2 * r]), 0);
        const double seen = to_double(fetch_add(sym, from(addends[t][2 * r + 1]), 0));
        if (seen < start || seen <= last) ordered[t] = 0;
        last = seen;
      }
    });
  for (auto &th : threads) th.join();
  double mine = 0;
  for (const auto &a : addends)
    for (double v : a) mine += v;
  double *sums = static_cast<double *>(nvshmem_calloc(static_cast<size_t>(n), sizeof(double)));
  ASSERT_NE(sums, nullptr);
  nvshmem_double_p(sums + me, mine, 0);
  nvshmem_barrier_all();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(ordered[t]) << "fetch_add results of one thread must grow";
  if (me == 0) {
    double total = start;
    for (int pe = 0; pe < n; ++pe) total += nvshmem_double_g(sums + pe, 0);
    EXPECT_GE(total, start + 2.0 * n * kThreads * kFloatRounds * unit);
    EXPECT_EQ(to_double(fetch_local(sym)), total);
  }
  nvshmem_barrier_all();
  nvshmem_free(sums);
  nvshmem_free(sym);
}
TEST(HostAtomics, FloatAdd) {
  run_float_add<float>(
      nvshmemx_float_atomic_add, nvshmemx_float_atomic_fetch_add, [](float v) -> double { return v; },
      [](double v) { return static_cast<float>(v); }, 0.25, 15, 1);
}
TEST(HostAtomics, DoubleAdd) {
  run_float_add<double>(
      nvshmemx_double_atomic_add, nvshmemx_double_atomic_fetch_add, [](double v) { return v; },
      [](double v) { return v; }, 0.25, 15, 2);
}
TEST(HostAtomics, HalfAdd) {
  run_float_add<__half>(
      nvshmemx_half_atomic_add, nvshmemx_half_atomic_fetch_add, [](__half v) -> double { return __half2float(v); },
      [](double v) { return __float2half_rn(static_cast<float>(v)); }, 1.0, 3, 3);
}

// nvshmem_half_atomic_{swap,set,fetch} on 2-byte words that share 4-byte words with other PEs' and
// threads' words (the remote engine swaps a half by a compare-and-swap on the 4-byte word): thread t of
// PE p owns half p * kThreads + t of PE 0's array and swaps random bit patterns (NaNs too: compared as
// bits) into it; each swap must return the previous one (the first, what PE 0 set), and every word ends
// as its owner's last value.
TEST(HostAtomics, HalfSwapKeepsTheNeighbours) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int slots = n * kThreads;
  __half *sym = static_cast<__half *>(nvshmem_malloc(static_cast<size_t>(slots) * sizeof(__half)));
  ASSERT_NE(sym, nullptr);
  const auto bits_of = [](int pe, int t) { return random_bytes(2 * (kRounds + 1), pe, 600 + t); };
  const auto value = [](const std::vector<unsigned char> &b, int r) {
    __half v;
    memcpy(&v, b.data() + 2 * r, 2);
    return v;
  };
  const auto same = [](__half a, __half b) { return memcmp(&a, &b, 2) == 0; };
  if (me == 0)
    for (int s = 0; s < slots; ++s) nvshmem_half_atomic_set(sym + s, value(bits_of(s / kThreads, s % kThreads), 0), 0);
  nvshmem_barrier_all();
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      const auto b = bits_of(me, t);
      for (int r = 1; r <= kRounds; ++r)
        if (!same(nvshmem_half_atomic_swap(sym + me * kThreads + t, value(b, r), 0), value(b, r - 1))) ++wrong[t];
    });
  for (auto &th : threads) th.join();
  nvshmem_barrier_all();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "swaps that did not return the previous value";
  for (int s = 0; s < slots; ++s)
    EXPECT_TRUE(same(nvshmem_half_atomic_fetch(sym + s, 0), value(bits_of(s / kThreads, s % kThreads), kRounds)))
        << "half " << s << " of PE 0";
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

// NVSHMEM 3.8 nvshmemx_signal_counted_reset: sets this PE's word to 0 after a random value arrived.
TEST(HostSignal, CountedReset) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  ASSERT_NE(sig, nullptr);
  uint64_t value = 1;
  for (unsigned char b : random_bytes(8, (me + n - 1) % n, 41)) value = value * 257 + b;
  uint64_t mine = 1;
  for (unsigned char b : random_bytes(8, me, 41)) mine = mine * 257 + b;
  nvshmemx_signal_op(sig, mine, NVSHMEM_SIGNAL_SET, (me + 1) % n);
  nvshmemx_signal_op(sig + 1, mine, NVSHMEM_SIGNAL_SET, (me + 1) % n);
  nvshmem_barrier_all();
  ASSERT_EQ(nvshmem_signal_fetch(sig), value);
  nvshmemx_signal_counted_reset(sig);
  EXPECT_EQ(nvshmem_signal_fetch(sig), 0u);
  EXPECT_EQ(nvshmem_signal_fetch(sig + 1), value) << "only the named word is reset";
  nvshmem_barrier_all();
  nvshmem_free(sig);
}

// NVSHMEM 3.7 nvshmemx_flush: after put_nbi + flush the source may be overwritten; the target still
// receives the bytes the put was given (checked after a barrier).
TEST(HostOrdering, FlushMakesSourcesReusable) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const size_t bytes = 64 * 1024 + 24;
  unsigned char *sym = static_cast<unsigned char *>(nvshmem_malloc(bytes));
  ASSERT_NE(sym, nullptr);
  poison_local(sym, bytes);
  nvshmem_barrier_all();
  auto src = random_bytes(bytes, me, 43);
  nvshmem_putmem_nbi(sym, src.data(), bytes, (me + 1) % n);
  nvshmemx_flush();
  std::fill(src.begin(), src.end(), static_cast<unsigned char>(0xA5));
  nvshmem_barrier_all();
  EXPECT_EQ(read_local(sym, bytes), random_bytes(bytes, (me + n - 1) % n, 43));
  nvshmem_barrier_all();
  nvshmem_free(sym);
}

// signal_op ADD from every thread of every PE to every PE, SET to self and to a peer, signal_fetch.
TEST(HostSignal, AddFromEveryoneSetToSelfAndPeer) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));
  ASSERT_NE(sig, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r)
        for (int pe = 0; pe < n; ++pe) nvshmemx_signal_op(sig, static_cast<uint64_t>(me + 1), NVSHMEM_SIGNAL_ADD, pe);
    });
  for (auto &th : threads) th.join();
  nvshmemx_signal_op(sig + 1, 1000 + me, NVSHMEM_SIGNAL_SET, me);
  EXPECT_EQ(nvshmem_signal_fetch(sig + 1), 1000u + me) << "SET to self";
  nvshmem_barrier_all();
  EXPECT_EQ(nvshmem_signal_fetch(sig), static_cast<uint64_t>(kThreads) * kRounds * n * (n + 1) / 2);
  nvshmem_barrier_all();
  nvshmemx_signal_op(sig + 1, 2000 + me, NVSHMEM_SIGNAL_SET, (me + 1) % n);
  nvshmem_barrier_all();
  EXPECT_EQ(nvshmem_signal_fetch(sig + 1), 2000u + (me + n - 1) % n) << "SET from the left neighbour";
  nvshmem_barrier_all();
  nvshmem_free(sig);
}

// iput with dst stride 3 / src stride 2 to the right; iget with dst stride 2 / src stride 3 from it.
template <typename T>
using StridedFn = void (*)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
template <typename T>
void run_strided(StridedFn<T> iput, StridedFn<T> iget, int salt) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 37, bytes = 3 * count * sizeof(T);
  T *sym = static_cast<T *>(nvshmem_malloc(bytes));
  ASSERT_NE(sym, nullptr);
  poison_local(sym, bytes);
  const auto src_bytes = random_bytes(bytes, me, salt);
  std::vector<T> src(3 * count);
  memcpy(src.data(), src_bytes.data(), bytes);
  nvshmem_barrier_all();
  iput(sym, src.data(), 3, 2, count, right);
  nvshmem_barrier_all();
  const auto got = read_local(sym, bytes);
  const auto left_bytes = random_bytes(bytes, left, salt);
  for (size_t i = 0; i < 3 * count; ++i) {
    const unsigned char *have = got.data() + i * sizeof(T);
    if (i % 3 == 0) {
      EXPECT_EQ(memcmp(have, left_bytes.data() + (i / 3) * 2 * sizeof(T), sizeof(T)), 0) << "iput element " << i;
    } else {
      EXPECT_EQ(have[0], 0xA5) << "iput wrote between strides at " << i;
    }
  }
  nvshmem_barrier_all();
  std::vector<unsigned char> back(bytes, 0xA5);
  iget(reinterpret_cast<T *>(back.data()), sym, 2, 3, count, right);
  const auto right_bytes = random_bytes(bytes, me, salt);  // what this PE put into the right's copy
  for (size_t i = 0; i < count; ++i)
    EXPECT_EQ(memcmp(back.data() + 2 * i * sizeof(T), right_bytes.data() + 2 * i * sizeof(T), sizeof(T)), 0)
        << "iget element " << i;
  nvshmem_barrier_all();
  nvshmem_free(sym);
}
#define HOST_STRIDED_TEST(NAME, T)                                          \
  TEST(HostRma, Strided_##NAME) {                                           \
    run_strided<T>(nvshmem_##NAME##_iput, nvshmem_##NAME##_iget, __LINE__); \
  }
NVSHM_FOR_EACH_RMA_TYPE(HOST_STRIDED_TEST)
#undef HOST_STRIDED_TEST
#define HOST_SIZED_STRIDED_TEST(BITS, T)                                      \
  TEST(HostRma, Strided_##BITS) {                                             \
    run_strided<T>(reinterpret_cast<StridedFn<T>>(nvshmem_iput##BITS),        \
                   reinterpret_cast<StridedFn<T>>(nvshmem_iget##BITS), BITS); \
  }
NVSHM_FOR_EACH_RMA_SIZE(HOST_SIZED_STRIDED_TEST)
#undef HOST_SIZED_STRIDED_TEST

}  // namespace

int main(int argc, char **argv) {
  return pe_test::pe_test_main(argc, argv);
}
