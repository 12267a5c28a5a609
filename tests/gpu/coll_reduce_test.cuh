// SPDX-License-Identifier: BSD-3-Clause
// The reduce and reducescatter tests of one group of ops (test_coll_reduce_*.cu instantiate it for
// their ops, so the 138 pairs build in parallel): every pair, every team, on_stream (also replayed in
// a graph) and, for the first name of each C++ type in the table, thread/warp/block scope (coll_test.hpp
// says why); integers exact, floating point by relative error.
#pragma once
#include "coll_test.hpp"

namespace coll_reduce_test {
using namespace coll_test;

enum Op { kAnd, kOr, kXor, kMin, kMax, kSum, kProd };
#define NVSHM_TEST_OP_and kAnd
#define NVSHM_TEST_OP_or kOr
#define NVSHM_TEST_OP_xor kXor
#define NVSHM_TEST_OP_min kMin
#define NVSHM_TEST_OP_max kMax
#define NVSHM_TEST_OP_sum kSum
#define NVSHM_TEST_OP_prod kProd

template <typename T>
constexpr bool kFloating =
    std::is_floating_point<T>::value || std::is_same<T, half>::value || std::is_same<T, __nv_bfloat16>::value;

// A floating value as a double, and a double rounded to T: through float for float, half and bfloat16 (the device
// combines those in float), directly for double.
template <typename T>
double as_double(T v) {
  if constexpr (std::is_same<T, double>::value)
    return v;
  else
    return static_cast<float>(v);
}
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same<T, double>::value)
    return v;
  else
    return T(static_cast<float>(v));
}

// The host reference, computed in double for floating types and rounded to T once per step (as
// every step of the device rounds); integers in their own type.
template <typename T>
T ref(Op op, T a, T b) {
  if constexpr (kFloating<T>) {
    const double x = as_double(a), y = as_double(b);
    switch (op) {
      case kMin:
        return y < x ? b : a;
      case kMax:
        return x < y ? b : a;
      case kSum:
        return from_double<T>(x + y);
      default:
        return from_double<T>(x * y);
    }
  } else {
    switch (op) {
      case kAnd:
        return static_cast<T>(a & b);
      case kOr:
        return static_cast<T>(a | b);
      case kXor:
        return static_cast<T>(a ^ b);
      case kMin:
        return b < a ? b : a;
      case kMax:
        return a < b ? b : a;
      case kSum:
        return static_cast<T>(a + b);
      default:
        return static_cast<T>(a * b);
    }
  }
}

// Input element k of member `member`: random bits for the bitwise ops; small values otherwise, so
// products and sums of a few PEs stay in range (floating point: in [0.5, 3)).
template <typename T>
std::vector<T> input(Op op, int member, size_t n, int salt) {
  const std::vector<unsigned char> bits = gpu_test::random_bytes(n * sizeof(T), member, salt);
  std::vector<T> v(n);
  memcpy(v.data(), bits.data(), n * sizeof(T));
  if (op <= kXor) return v;
  for (size_t k = 0; k < n; ++k) {
    const int r = bits[k * sizeof(T)] % 50;
    if constexpr (kFloating<T>)
      v[k] = T(0.5f + r / 20.0f);
    else if (op == kProd)
      v[k] = static_cast<T>(1 + r % 3);
    else
      v[k] = static_cast<T>(std::is_signed<T>::value ? r - 25 : r);
  }
  return v;
}

template <typename T>
bool close(T got, T want) {
  if constexpr (kFloating<T>) {
    const double g = as_double(got), w = as_double(want);
    const double tolerance = sizeof(T) == 2 ? 2e-2 : sizeof(T) == 4 ? 1e-5 : 1e-12;
    return std::fabs(g - w) <= tolerance * std::fabs(w);
  } else {
    return got == want;
  }
}

// The first name of the table (the standard list, whose first part is the bitwise list, so that a
// bitwise op finds a name of its own list) whose type gives op the same device code as T.
NVSHM_TEST_DEFINE_FIRST_NAME(first_name, NVSHM_FOR_EACH_REDUCE_STANDARD_TYPE)
struct SameCombine {
  template <typename T, typename U>
  static constexpr bool same(int op) {
    if constexpr (std::is_integral<T>::value && std::is_integral<U>::value)
      return sizeof(T) == sizeof(U) &&
             ((op != kMin && op != kMax) || std::is_signed<T>::value == std::is_signed<U>::value);
    else
      return std::is_same<T, U>::value;
  }
};

template <class P, int Scope>
__global__ void reduce_kernel(bool scatter, nvshmem_team_t team, typename P::type *d, const typename P::type *s,
                              size_t n) {
  if (Scope == kBlock || (Scope == kWarp && threadIdx.x < 32) || threadIdx.x == 0)
    P::template call<Scope>(scatter, team, d, s, n);
}

// `in_place` (reduce only): dest is also the source, filled with this PE's input first.
template <class P>
void check_pair(nvshmem_team_t team, Mode mode, size_t n, bool scatter, bool in_place = false) {
  using T = typename P::type;
  const int size = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
  const size_t src_n = scatter ? n * size : n;
  const int salt = static_cast<int>(P::op) * 7 + static_cast<int>(n % 1000) + (scatter ? 3 : 0);
  const std::vector<T> mine = input<T>(P::op, me, src_n, salt);
  std::vector<unsigned char> bytes(src_n * sizeof(T));
  memcpy(bytes.data(), mine.data(), bytes.size());
  prepare(bytes, n * sizeof(T));
  std::vector<T> expected;
  for (int i = 0; i < size; ++i) {
    const std::vector<T> in = input<T>(P::op, i, src_n, salt);
    const T *part = in.data() + (scatter ? me * n : 0);
    if (i == 0)
      expected.assign(part, part + n);
    else
      for (size_t k = 0; k < n; ++k) expected[k] = ref<T>(P::op, expected[k], part[k]);
  }
  T *d = reinterpret_cast<T *>(buffers().dest);
  const T *s = reinterpret_cast<const T *>(buffers().source);
  if (in_place) {
    CUDA_CHECK(cudaMemcpy(d, mine.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    gpu_test::barrier();
    s = d;
  }
  run(
      mode,
      [&](unsigned threads) {
        if constexpr (P::device_scopes) {
          if (mode == kThread) reduce_kernel<P, kThread><<<1, threads>>>(scatter, team, d, s, n);
          if (mode == kWarp) reduce_kernel<P, kWarp><<<1, threads>>>(scatter, team, d, s, n);
          if (mode == kBlock) reduce_kernel<P, kBlock><<<1, threads>>>(scatter, team, d, s, n);
        }
      },
      [&](cudaStream_t st) { P::on_stream(scatter, team, d, s, n, st); });
  check(describe((std::string(P::name) + (scatter    ? "_reducescatter"
                                          : in_place ? "_reduce in place"
                                                     : "_reduce"))
                     .c_str(),
                 team, mode, n),
        expected, close<T>);
}

// Sizes: one element, 64 elements (LL words in every scope: at most 1 KiB, whole 4-byte words), an odd
// count (tails; LL on a stream for 4- and 8-byte types); in block scope and on a stream also 40 KiB + 3
// elements (one-shot in the device API; on a stream LL words for 4- and 8-byte types, else one-shot,
// split over several blocks, each with its own slice and flags; also replayed in a graph), 128 KiB + 5
// (past the device API's one-shot limit of 64 KiB: its two-shot path) and 1 MiB + 7, which take many
// blocks on a stream. Both are one-shot on a stream under the default limit (2 MiB); the CTest
// gpu.test_device_coll_reduce.two_shot runs them two-shot (NVSHMEM_REDUCE_ONE_SHOT_MAX=64k).
template <class P>
void check_all() {
  using T = typename P::type;
  const size_t several_blocks = (size_t{40} << 10) / sizeof(T) + 3;
  const size_t two_shot = (size_t{128} << 10) / sizeof(T) + 5;
  const size_t large = (size_t{1} << 20) / sizeof(T) + 7;
  for (bool scatter : {false, true})
    for (nvshmem_team_t team : teams())
      for (Mode mode : kModes)
        for (size_t n : {size_t{1}, size_t{64}, size_t{301}, several_blocks, two_shot, large})
          if ((P::device_scopes || mode >= kStream) &&
              (n <= 301 || mode == kBlock || mode == kStream || (mode == kGraph && n == several_blocks)))
            check_pair<P>(team, mode, n, scatter);
  // In place (dest == source, which OpenSHMEM allows for reductions), on the world, in every path of
  // the block scope and the stream.
  for (Mode mode : {kBlock, kStream})
    for (size_t n : {size_t{64}, size_t{301}, several_blocks, two_shot})
      if (P::device_scopes || mode == kStream) check_pair<P>(NVSHMEM_TEAM_WORLD, mode, n, false, true);
}

}  // namespace coll_reduce_test

// One test per (op, type) pair; the device names of every pair take the pair's C type.
#define NVSHM_TEST_REDUCE_SIGNATURE(FN, T) \
  static_assert(std::is_same<decltype(FN), int(nvshmem_team_t, T *, const T *, size_t)>::value, #FN " takes " #T);
#define NVSHM_TEST_REDUCE_PAIR(OP, NAME, T)                                                                 \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmem_##NAME##_##OP##_reduce, T)                                            \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmem_##NAME##_##OP##_reducescatter, T)                                     \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmemx_##NAME##_##OP##_reduce_warp, T)                                      \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmemx_##NAME##_##OP##_reducescatter_warp, T)                               \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmemx_##NAME##_##OP##_reduce_block, T)                                     \
  NVSHM_TEST_REDUCE_SIGNATURE(nvshmemx_##NAME##_##OP##_reducescatter_block, T)                              \
  namespace coll_reduce_test {                                                                              \
  struct Pair_##OP##_##NAME {                                                                               \
    using type = T;                                                                                         \
    static constexpr Op op = NVSHM_TEST_OP_##OP;                                                            \
    static constexpr const char *name = #NAME "_" #OP;                                                      \
    static constexpr bool device_scopes = same_name(first_name<SameCombine, T>(NVSHM_TEST_OP_##OP), #NAME); \
    template <int Scope>                                                                                    \
    __device__ static void call(bool scatter, nvshmem_team_t team, T *d, const T *s, size_t n) {            \
      if (Scope == kThread)                                                                                 \
        scatter ? nvshmem_##NAME##_##OP##_reducescatter(team, d, s, n)                                      \
                : nvshmem_##NAME##_##OP##_reduce(team, d, s, n);                                            \
      else if (Scope == kWarp)                                                                              \
        scatter ? nvshmemx_##NAME##_##OP##_reducescatter_warp(team, d, s, n)                                \
                : nvshmemx_##NAME##_##OP##_reduce_warp(team, d, s, n);                                      \
      else                                                                                                  \
        scatter ? nvshmemx_##NAME##_##OP##_reducescatter_block(team, d, s, n)                               \
                : nvshmemx_##NAME##_##OP##_reduce_block(team, d, s, n);                                     \
    }                                                                                                       \
    static void on_stream(bool scatter, nvshmem_team_t team, T *d, const T *s, size_t n, cudaStream_t st) { \
      scatter ? nvshmemx_##NAME##_##OP##_reducescatter_on_stream(team, d, s, n, st)                         \
              : nvshmemx_##NAME##_##OP##_reduce_on_stream(team, d, s, n, st);                               \
    }                                                                                                       \
  };                                                                                                        \
  TEST(CollReduce, NAME##_##OP) {                                                                           \
    check_all<Pair_##OP##_##NAME>();                                                                        \
  }                                                                                                         \
  }
