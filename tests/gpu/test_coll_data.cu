// SPDX-License-Identifier: BSD-3-Clause
// barrier, team_sync, broadcast, fcollect and alltoall on every team of coll_test::teams(), every
// type of the collective list, thread/warp/block scope and on_stream (also replayed in a graph);
// barrier_warpgroup.
#include "coll_test.hpp"

namespace {
using namespace coll_test;

// World PEs of the members of a team (at most 8 members).
struct Members {
  int size, me;
  int world[8];
};
Members members(nvshmem_team_t team) {
  Members m{nvshmem_team_n_pes(team), nvshmem_team_my_pe(team), {}};
  for (int i = 0; i < m.size && i < 8; ++i) m.world[i] = nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_WORLD);
  return m;
}

// One step of the barrier test: write step-stamped values into slot `me` of every member, then the
// barrier (or quiet + team_sync); afterwards every slot holds its member's stamp.
__device__ void stamp(int *slots, int step, const Members &m) {
  for (int i = 0; i < m.size; ++i) nvshmem_int_p(slots + m.me, step * 100 + m.me, m.world[i]);
}
__device__ void verify(const int *slots, int step, const Members &m, int *errors) {
  for (int i = 0; i < m.size; ++i) *errors += slots[i] != step * 100 + i;
}
template <int Scope>
__device__ void group_barrier(nvshmem_team_t team, bool sync) {
  if (Scope == kThread) {
    if (threadIdx.x == 0) {
      if (sync) nvshmem_quiet();
      sync ? nvshmem_team_sync(team) : nvshmem_barrier(team);
    }
  } else if (Scope == kWarp) {
    if (threadIdx.x < 32) {
      if (sync && threadIdx.x == 0) nvshmem_quiet();
      sync ? nvshmemx_team_sync_warp(team) : nvshmemx_barrier_warp(team);
    }
  } else {
    if (sync && threadIdx.x == 0) nvshmem_quiet();
    sync ? nvshmemx_team_sync_block(team) : nvshmemx_barrier_block(team);
  }
  __syncthreads();
}
constexpr int kSteps = 20;
template <int Scope>
__global__ void barrier_kernel(nvshmem_team_t team, bool sync, int *slots, Members m, int *errors) {
  for (int step = 1; step <= kSteps; ++step) {
    if (threadIdx.x == 0) stamp(slots, step, m);
    group_barrier<Scope>(team, sync);
    if (threadIdx.x == 0) verify(slots, step, m, errors);
    group_barrier<Scope>(team, sync);  // nobody stamps the next step before every member verified
  }
}
// The on-stream steps: the step number lives on the device, so a replayed graph advances it.
__global__ void stamp_kernel(int *slots, const int *step, Members m) {
  stamp(slots, *step, m);
}
__global__ void verify_kernel(const int *slots, int *step, Members m, int *errors) {
  verify(slots, *step, m, errors);
  ++*step;
}

TEST(CollBarrier, EveryScopeAndTeam) {
  int *slots = static_cast<int *>(nvshmem_calloc(8, sizeof(int)));
  int *state = nullptr;  // [0] errors, [1] step
  CUDA_CHECK(cudaMalloc(&state, 2 * sizeof(int)));
  for (nvshmem_team_t team : teams()) {
    const Members m = members(team);
    for (bool sync : {false, true}) {
      for (Mode mode : kModes) {
        CUDA_CHECK(cudaMemset(state, 0, sizeof(int)));
        const int one = 1;
        CUDA_CHECK(cudaMemcpy(state + 1, &one, sizeof(int), cudaMemcpyHostToDevice));
        gpu_test::barrier();
        run(
            mode,
            [&](unsigned threads) {
              if (mode == kThread) barrier_kernel<kThread><<<1, threads>>>(team, sync, slots, m, state);
              if (mode == kWarp) barrier_kernel<kWarp><<<1, threads>>>(team, sync, slots, m, state);
              if (mode == kBlock) barrier_kernel<kBlock><<<1, threads>>>(team, sync, slots, m, state);
            },
            [&](cudaStream_t s) {
              for (int step = 0; step < (mode == kGraph ? 1 : kSteps); ++step) {
                stamp_kernel<<<1, 1, 0, s>>>(slots, state + 1, m);
                if (sync) {
                  nvshmemx_quiet_on_stream(s);
                  nvshmemx_team_sync_on_stream(team, s);
                } else {
                  nvshmemx_barrier_on_stream(team, s);
                }
                verify_kernel<<<1, 1, 0, s>>>(slots, state + 1, m, state);
                sync ? nvshmemx_team_sync_on_stream(team, s) : nvshmemx_barrier_on_stream(team, s);
              }
            });
        int errors = -1;
        CUDA_CHECK(cudaMemcpy(&errors, state, sizeof(int), cudaMemcpyDeviceToHost));
        EXPECT_EQ(errors, 0) << describe(sync ? "team_sync" : "barrier", team, mode, 0);
        gpu_test::barrier();
      }
    }
  }
  CUDA_CHECK(cudaFree(state));
  nvshmem_free(slots);
}

// nvshmemx_barrier_warpgroup: the last warpgroup of the block runs the barrier steps (its named
// barrier is 8 + its index), the other threads return at once.
__global__ void warpgroup_barrier_kernel(nvshmem_team_t team, int *slots, Members m, int *errors) {
  const unsigned first = blockDim.x - 128;
  if (threadIdx.x < first) return;
  for (int step = 1; step <= kSteps; ++step) {
    if (threadIdx.x == first) stamp(slots, step, m);
    nvshmemx_barrier_warpgroup(team);
    if (threadIdx.x == first) verify(slots, step, m, errors);
    nvshmemx_barrier_warpgroup(team);
  }
}

TEST(CollBarrier, Warpgroup) {
  int *slots = static_cast<int *>(nvshmem_calloc(8, sizeof(int)));
  int *errors = nullptr;
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  for (nvshmem_team_t team : teams()) {
    for (unsigned threads : {128u, 384u, 1024u}) {
      CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
      gpu_test::barrier();
      warpgroup_barrier_kernel<<<1, threads>>>(team, slots, members(team), errors);
      LAUNCH_CHECK();
      int h = -1;
      CUDA_CHECK(cudaMemcpy(&h, errors, sizeof(int), cudaMemcpyDeviceToHost));
      EXPECT_EQ(h, 0) << "barrier_warpgroup team " << team << " block of " << threads << " on PE " << nvshmem_my_pe();
      gpu_test::barrier();
    }
  }
  CUDA_CHECK(cudaFree(errors));
  nvshmem_free(slots);
}

// ---- broadcast, fcollect, alltoall: one struct per type calls every named form ----
// The device scopes run for the first name of each size of type in the list (coll_test.hpp says why);
// the device names of every type take its C type.
enum Coll { kBroadcast, kFcollect, kAlltoall };
NVSHM_TEST_DEFINE_FIRST_NAME(first_name, NVSHM_FOR_EACH_COLL_TYPE)
struct SameSize {
  template <typename T, typename U>
  static constexpr bool same(int) {
    return sizeof(T) == sizeof(U);
  }
};
#define NVSHM_TEST_COLL_SIGNATURES(PREFIX, NAME, SUFFIX, T)                                                        \
  static_assert(std::is_same<decltype(PREFIX##NAME##_broadcast##SUFFIX),                                           \
                             int(nvshmem_team_t, T *, const T *, size_t, int)>::value,                             \
                #NAME "_broadcast" #SUFFIX " takes " #T);                                                          \
  static_assert(                                                                                                   \
      std::is_same<decltype(PREFIX##NAME##_fcollect##SUFFIX), int(nvshmem_team_t, T *, const T *, size_t)>::value, \
      #NAME "_fcollect" #SUFFIX " takes " #T);                                                                     \
  static_assert(                                                                                                   \
      std::is_same<decltype(PREFIX##NAME##_alltoall##SUFFIX), int(nvshmem_team_t, T *, const T *, size_t)>::value, \
      #NAME "_alltoall" #SUFFIX " takes " #T);
#define NVSHM_TEST_COLL_CALLS(NAME, T)                                                                          \
  NVSHM_TEST_COLL_SIGNATURES(nvshmem_, NAME, , T)                                                               \
  NVSHM_TEST_COLL_SIGNATURES(nvshmemx_, NAME, _warp, T)                                                         \
  NVSHM_TEST_COLL_SIGNATURES(nvshmemx_, NAME, _block, T)                                                        \
  struct Calls_##NAME {                                                                                         \
    using type = T;                                                                                             \
    static constexpr const char *name = #NAME;                                                                  \
    static constexpr bool device_scopes = same_name(first_name<SameSize, T>(0), #NAME);                         \
    template <int Scope>                                                                                        \
    __device__ static void call(Coll c, nvshmem_team_t team, T *d, const T *s, size_t n, int root) {            \
      if (Scope == kThread) {                                                                                   \
        if (c == kBroadcast) nvshmem_##NAME##_broadcast(team, d, s, n, root);                                   \
        if (c == kFcollect) nvshmem_##NAME##_fcollect(team, d, s, n);                                           \
        if (c == kAlltoall) nvshmem_##NAME##_alltoall(team, d, s, n);                                           \
      } else if (Scope == kWarp) {                                                                              \
        if (c == kBroadcast) nvshmemx_##NAME##_broadcast_warp(team, d, s, n, root);                             \
        if (c == kFcollect) nvshmemx_##NAME##_fcollect_warp(team, d, s, n);                                     \
        if (c == kAlltoall) nvshmemx_##NAME##_alltoall_warp(team, d, s, n);                                     \
      } else {                                                                                                  \
        if (c == kBroadcast) nvshmemx_##NAME##_broadcast_block(team, d, s, n, root);                            \
        if (c == kFcollect) nvshmemx_##NAME##_fcollect_block(team, d, s, n);                                    \
        if (c == kAlltoall) nvshmemx_##NAME##_alltoall_block(team, d, s, n);                                    \
      }                                                                                                         \
    }                                                                                                           \
    static void on_stream(Coll c, nvshmem_team_t team, T *d, const T *s, size_t n, int root, cudaStream_t st) { \
      if (c == kBroadcast) nvshmemx_##NAME##_broadcast_on_stream(team, d, s, n, root, st);                      \
      if (c == kFcollect) nvshmemx_##NAME##_fcollect_on_stream(team, d, s, n, st);                              \
      if (c == kAlltoall) nvshmemx_##NAME##_alltoall_on_stream(team, d, s, n, st);                              \
    }                                                                                                           \
  };
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_TEST_COLL_CALLS)
#undef NVSHM_TEST_COLL_CALLS
// The byte forms, as a type of one byte.
struct Calls_mem {
  using type = unsigned char;
  static constexpr const char *name = "mem";
  static constexpr bool device_scopes = true;
  template <int Scope>
  __device__ static void call(Coll c, nvshmem_team_t team, unsigned char *d, const unsigned char *s, size_t n,
                              int root) {
    if (Scope == kThread) {
      if (c == kBroadcast) nvshmem_broadcastmem(team, d, s, n, root);
      if (c == kFcollect) nvshmem_fcollectmem(team, d, s, n);
      if (c == kAlltoall) nvshmem_alltoallmem(team, d, s, n);
    } else if (Scope == kWarp) {
      if (c == kBroadcast) nvshmemx_broadcastmem_warp(team, d, s, n, root);
      if (c == kFcollect) nvshmemx_fcollectmem_warp(team, d, s, n);
      if (c == kAlltoall) nvshmemx_alltoallmem_warp(team, d, s, n);
    } else {
      if (c == kBroadcast) nvshmemx_broadcastmem_block(team, d, s, n, root);
      if (c == kFcollect) nvshmemx_fcollectmem_block(team, d, s, n);
      if (c == kAlltoall) nvshmemx_alltoallmem_block(team, d, s, n);
    }
  }
  static void on_stream(Coll c, nvshmem_team_t team, unsigned char *d, const unsigned char *s, size_t n, int root,
                        cudaStream_t st) {
    if (c == kBroadcast) nvshmemx_broadcastmem_on_stream(team, d, s, n, root, st);
    if (c == kFcollect) nvshmemx_fcollectmem_on_stream(team, d, s, n, st);
    if (c == kAlltoall) nvshmemx_alltoallmem_on_stream(team, d, s, n, st);
  }
};

template <class C, int Scope>
__global__ void coll_kernel(Coll c, nvshmem_team_t team, typename C::type *d, const typename C::type *s, size_t n,
                            int root) {
  if (Scope == kBlock || (Scope == kWarp && threadIdx.x < 32) || threadIdx.x == 0)
    C::template call<Scope>(c, team, d, s, n, root);
}

// Source bytes of member `member` (per salt): what every PE can recompute for any member.
std::vector<unsigned char> source_of(int member, size_t bytes, int salt) {
  return gpu_test::random_bytes(bytes, member, salt);
}

template <class C>
void check_coll(Coll c, nvshmem_team_t team, Mode mode, size_t n) {
  using T = typename C::type;
  const int size = nvshmem_team_n_pes(team), me = nvshmem_team_my_pe(team);
  const size_t bytes = n * sizeof(T);
  const int salt = static_cast<int>(c) * 31 + static_cast<int>(n % 1000);
  const int root = size - 1;
  const size_t src_bytes = c == kAlltoall ? bytes * size : bytes;
  const size_t dest_bytes = c == kBroadcast ? bytes : bytes * size;
  prepare(source_of(me, src_bytes, salt), dest_bytes);
  std::vector<unsigned char> expected(dest_bytes);
  for (int i = 0; i < size; ++i) {
    const std::vector<unsigned char> src = source_of(i, src_bytes, salt);
    if (c == kBroadcast && i == root) memcpy(expected.data(), src.data(), bytes);
    if (c == kFcollect) memcpy(expected.data() + i * bytes, src.data(), bytes);
    if (c == kAlltoall) memcpy(expected.data() + i * bytes, src.data() + me * bytes, bytes);
  }
  T *d = reinterpret_cast<T *>(buffers().dest);
  const T *s = reinterpret_cast<const T *>(buffers().source);
  run(
      mode,
      [&](unsigned threads) {
        if constexpr (C::device_scopes) {
          if (mode == kThread) coll_kernel<C, kThread><<<1, threads>>>(c, team, d, s, n, root);
          if (mode == kWarp) coll_kernel<C, kWarp><<<1, threads>>>(c, team, d, s, n, root);
          if (mode == kBlock) coll_kernel<C, kBlock><<<1, threads>>>(c, team, d, s, n, root);
        }
      },
      [&](cudaStream_t st) { C::on_stream(c, team, d, s, n, root, st); });
  static const char *names[] = {"broadcast", "fcollect", "alltoall"};
  check(describe((std::string(C::name) + "_" + names[c]).c_str(), team, mode, n), expected,
        [](unsigned char a, unsigned char b) { return a == b; });
}

// Sizes in elements: tiny, odd (unaligned tails), 40 KiB (LL words on a stream, split over 10
// blocks, each with its own slice and flags; also replayed in a graph) and large enough for several blocks of the round
// path on a stream (thread and warp scope skip the two largest: they only take time).
template <class C>
void check_all(Coll c) {
  using T = typename C::type;
  const size_t ll_blocks = (size_t{40} << 10) / sizeof(T);
  const size_t large = (size_t{1} << 20) / sizeof(T) + 3;
  for (nvshmem_team_t team : teams())
    for (Mode mode : kModes)
      for (size_t n : {size_t{1}, size_t{37}, size_t{1000}, ll_blocks, large})
        if ((C::device_scopes || mode >= kStream) &&
            (n < ll_blocks || mode == kBlock || mode == kStream || (mode == kGraph && n == ll_blocks)))
          check_coll<C>(c, team, mode, n);
}

#define NVSHM_TEST_COLL(NAME, T)                                                  \
  TEST(CollData, NAME) {                                                          \
    for (Coll c : {kBroadcast, kFcollect, kAlltoall}) check_all<Calls_##NAME>(c); \
  }
NVSHM_FOR_EACH_COLL_TYPE(NVSHM_TEST_COLL)
NVSHM_TEST_COLL(mem, unsigned char)
#undef NVSHM_TEST_COLL

}  // namespace
