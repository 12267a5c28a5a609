// SPDX-License-Identifier: BSD-3-Clause
/* The program of the device collective perftests (perftest/device/coll): the calls of each
 * collective in thread, warp and block scope, their kernel, and run_coll_device; the rest of the
 * program (options, setup, tables) is coll.h, shared with the on-stream tests. */
#ifndef PERFTEST_COMMON_COLL_CUH
#define PERFTEST_COMMON_COLL_CUH

#include "coll.h"

namespace perftest {

/* The device call of NAME in scope S: nvshmem_NAME (thread), nvshmemx_NAME_warp, nvshmemx_NAME_block. */
enum class Scope { thread, warp, block };
constexpr const char *kScopeNames[] = {"thread", "warp", "block"};
#define PERFTEST_SCOPED(S, NAME, ...)       \
  do {                                      \
    if constexpr (S == Scope::thread)       \
      nvshmem_##NAME(__VA_ARGS__);          \
    else if constexpr (S == Scope::warp)    \
      nvshmemx_##NAME##_warp(__VA_ARGS__);  \
    else                                    \
      nvshmemx_##NAME##_block(__VA_ARGS__); \
  } while (0)
#define PERFTEST_DEVICE_REDUCE_CASE(NAME, T, OP)                                    \
  case PERFTEST_OP_INDEX_##OP:                                                      \
    if constexpr (C == Coll::reduction)                                             \
      PERFTEST_SCOPED(S, NAME##_##OP##_reduce, NVSHMEM_TEAM_WORLD, d, s, n);        \
    else                                                                            \
      PERFTEST_SCOPED(S, NAME##_##OP##_reducescatter, NVSHMEM_TEAM_WORLD, d, s, n); \
    break;
/* Device_<type>::call<C, S>: one call of data collective C in scope S (op: reductions only). */
#define PERFTEST_DEVICE_CALL(NAME, T, BITWISE)                                      \
  struct Device_##NAME {                                                            \
    template <Coll C, Scope S>                                                      \
    __device__ static void call(int op, void *dest, const void *source, size_t n) { \
      T *d = static_cast<T *>(dest);                                                \
      const T *s = static_cast<const T *>(source);                                  \
      if constexpr (C == Coll::alltoall) {                                          \
        PERFTEST_SCOPED(S, NAME##_alltoall, NVSHMEM_TEAM_WORLD, d, s, n);           \
      } else if constexpr (C == Coll::broadcast) {                                  \
        PERFTEST_SCOPED(S, NAME##_broadcast, NVSHMEM_TEAM_WORLD, d, s, n, 0);       \
      } else if constexpr (C == Coll::fcollect) {                                   \
        PERFTEST_SCOPED(S, NAME##_fcollect, NVSHMEM_TEAM_WORLD, d, s, n);           \
      } else {                                                                      \
        switch (op) {                                                               \
          PERFTEST_REDUCE_OPS(PERFTEST_DEVICE_REDUCE_CASE, NAME, T)                 \
          BITWISE(PERFTEST_DEVICE_REDUCE_CASE, NAME, T)                             \
        }                                                                           \
      }                                                                             \
    }                                                                               \
  };
PERFTEST_DEVICE_CALL(int32, int32_t, PERFTEST_BITWISE_OPS)
PERFTEST_DEVICE_CALL(int64, int64_t, PERFTEST_BITWISE_OPS)
PERFTEST_DEVICE_CALL(float, float, PERFTEST_NO_OPS)
PERFTEST_DEVICE_CALL(double, double, PERFTEST_NO_OPS)
/* Barriers and syncs over all PEs (barrier_all, sync_all) or NVSHMEM_TEAM_WORLD (barrier, sync). */
struct Device_sync {
  template <Coll C, Scope S>
  __device__ static void call(int, void *, const void *, size_t) {
    if constexpr (C == Coll::barrier)
      PERFTEST_SCOPED(S, barrier, NVSHMEM_TEAM_WORLD);
    else if constexpr (C == Coll::barrier_all)
      PERFTEST_SCOPED(S, barrier_all, );
    else if constexpr (C == Coll::sync)
      PERFTEST_SCOPED(S, team_sync, NVSHMEM_TEAM_WORLD);
    else
      PERFTEST_SCOPED(S, sync_all, );
  }
};

template <class D, Coll C, Scope S>
__global__ void coll_kernel(int op, void *dest, const void *source, size_t count, int iters) {
  for (int i = 0; i < iters; ++i) D::template call<C, S>(op, dest, source, count);
}

/* f(Device_<type>{}) for -d. */
template <class F>
void with_device_type(const std::string &t, F &&f) {
  if (t == "int32" || t == "int")
    f(Device_int32{});
  else if (t == "int64" || t == "long")
    f(Device_int64{});
  else if (t == "float")
    f(Device_float{});
  else
    f(Device_double{});
}

/* The device tables of collective C with the call of D, one per scope. */
template <class D, Coll C>
void device_tables(const CollSetup &s, const char *job, GpuTimer &timer) {
  const std::string subjob = is_sync(C) ? kCollNames[static_cast<int>(C)] : data_subjob(s.opt, C);
  const auto scope_tables = [&](auto kernel, Scope scope) {
    const unsigned threads = scope == Scope::thread ? 1u : scope == Scope::warp ? 32u : s.opt.threads;
    coll_table(s, C, std::string(job) + "___" + subjob + "_" + kScopeNames[static_cast<int>(scope)], false,
               [&](const CollArgs &a) {
                 return RunSeconds{time_runs(s.opt, true, s.stream, timer, 0, [&](size_t, int iters) {
                   int op = a.op;
                   void *dest = a.dest;
                   const void *source = a.source;
                   size_t count = a.count;
                   void *args[] = {&op, &dest, &source, &count, &iters};
                   const int status = nvshmemx_collective_launch(reinterpret_cast<const void *>(kernel), dim3(1),
                                                                 dim3(threads), args, 0, s.stream);
                   if (status != 0) fail("nvshmemx_collective_launch failed (%d)", status);
                   PERFTEST_LAUNCH_CHECK();
                 })};
               });
  };
  scope_tables(coll_kernel<D, C, Scope::thread>, Scope::thread);
  scope_tables(coll_kernel<D, C, Scope::warp>, Scope::warp);
  scope_tables(coll_kernel<D, C, Scope::block>, Scope::block);
}

/* The whole device program: -n calls in one kernel of one block per timed run, for each scope; for
 * barriers and syncs, each collective of Cs in turn (e.g. barrier and barrier_all). */
template <Coll... Cs>
int run_coll_device(int argc, char **argv, const char *job, const char *what) {
  constexpr Coll kFirst[] = {Cs...};
  CollSetup s = coll_setup(argc, argv, job, what, kFirst[0], kThreads);
  GpuTimer timer;
  if constexpr (is_sync(kFirst[0]))
    (device_tables<Device_sync, Cs>(s, job, timer), ...);
  else
    with_device_type(s.opt.datatype, [&](auto d) { (device_tables<decltype(d), Cs>(s, job, timer), ...); });
  return coll_finish(s);
}

}  // namespace perftest

#endif /* PERFTEST_COMMON_COLL_CUH */
