// SPDX-License-Identifier: BSD-3-Clause
/* The programs of the collective perftests (perftest/device/coll, perftest/host/coll): each test
 * file names its collective and calls run_coll_on_stream (this header) or run_coll_device (coll.cuh).
 * Public API only, so the same sources build against NVIDIA's NVSHMEM (tools/perf-compare.py).
 * This header is the host part, all the on-stream tests need: CMake builds them with
 * NVSHMEM_HOSTLIB_ONLY, which leaves the device interface out of their units (docs/build.md).
 *
 * Sizes are bytes per PE (-b/-e/-f); element type -d (int32 = int, int64 = long, float, double;
 * default int), reduce op -o. On-stream tests enqueue -n calls (or, with --cudagraph, capture them
 * once and time one graph launch); device tests run -n calls in one kernel of one block, started with
 * nvshmemx_collective_launch, one table per scope (thread: 1 thread, warp: 32, block: -t threads).
 * Reported: latency per call (us), algbw = bytes / latency and busbw = algbw * the factor of the
 * collective; the table name is <job>___<type>[_<op>] (data) or <job> (sync) on a stream and
 * <job>___<type>[_<op>]_<scope> or <job>___<collective>_<scope> on the device. */
#ifndef PERFTEST_COMMON_COLL_H
#define PERFTEST_COMMON_COLL_H

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstring>
#include <string>

#include "perftest.h"

namespace perftest {

enum class Coll { alltoall, broadcast, fcollect, reduction, reducescatter, barrier, barrier_all, sync, sync_all };
constexpr const char *kCollNames[] = {"alltoall", "broadcast",   "fcollect", "reduction", "reducescatter",
                                      "barrier",  "barrier_all", "sync",     "sync_all"};

constexpr bool is_sync(Coll c) {
  return c == Coll::barrier || c == Coll::barrier_all || c == Coll::sync || c == Coll::sync_all;
}
constexpr bool is_reduce(Coll c) {
  return c == Coll::reduction || c == Coll::reducescatter;
}
/* busbw / algbw (NVSHMEM's factors): reduction 2(n-1)/n, broadcast 1, the others (n-1)/n. */
inline double bus_factor(Coll c, int n) {
  if (c == Coll::reduction) return 2.0 * (n - 1) / n;
  if (c == Coll::broadcast) return 1.0;
  return static_cast<double>(n - 1) / n;
}

/* ---- one call of a collective, by element type and op ---- */
#define PERFTEST_REDUCE_OPS(X, NAME, T) X(NAME, T, sum) X(NAME, T, prod) X(NAME, T, min) X(NAME, T, max)
#define PERFTEST_BITWISE_OPS(X, NAME, T) X(NAME, T, and) X(NAME, T, or) X(NAME, T, xor)
#define PERFTEST_NO_OPS(X, NAME, T)

/* Arguments of one call: dest/source symmetric, count elements (per PE block for alltoall,
 * fcollect and reducescatter). */
struct CollArgs {
  Coll coll;
  int op;  // index into kOps
  void *dest;
  const void *source;
  size_t count;
};
constexpr const char *kOps[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
constexpr int kFirstBitwiseOp = 4;

#define PERFTEST_OP_INDEX_sum 0
#define PERFTEST_OP_INDEX_prod 1
#define PERFTEST_OP_INDEX_min 2
#define PERFTEST_OP_INDEX_max 3
#define PERFTEST_OP_INDEX_and 4
#define PERFTEST_OP_INDEX_or 5
#define PERFTEST_OP_INDEX_xor 6

/* The on-stream call of type T. */
#define PERFTEST_STREAM_REDUCE_CASE(NAME, T, OP)                                                   \
  case PERFTEST_OP_INDEX_##OP:                                                                     \
    if (a.coll == Coll::reduction)                                                                 \
      nvshmemx_##NAME##_##OP##_reduce_on_stream(NVSHMEM_TEAM_WORLD, d, s, a.count, stream);        \
    else                                                                                           \
      nvshmemx_##NAME##_##OP##_reducescatter_on_stream(NVSHMEM_TEAM_WORLD, d, s, a.count, stream); \
    break;
#define PERFTEST_STREAM_CALL(NAME, T, BITWISE)                                               \
  inline void stream_call_##NAME(const CollArgs &a, cudaStream_t stream) {                   \
    T *d = static_cast<T *>(a.dest);                                                         \
    const T *s = static_cast<const T *>(a.source);                                           \
    switch (a.coll) {                                                                        \
      case Coll::alltoall:                                                                   \
        nvshmemx_##NAME##_alltoall_on_stream(NVSHMEM_TEAM_WORLD, d, s, a.count, stream);     \
        return;                                                                              \
      case Coll::broadcast:                                                                  \
        nvshmemx_##NAME##_broadcast_on_stream(NVSHMEM_TEAM_WORLD, d, s, a.count, 0, stream); \
        return;                                                                              \
      case Coll::fcollect:                                                                   \
        nvshmemx_##NAME##_fcollect_on_stream(NVSHMEM_TEAM_WORLD, d, s, a.count, stream);     \
        return;                                                                              \
      default:                                                                               \
        switch (a.op) {                                                                      \
          PERFTEST_REDUCE_OPS(PERFTEST_STREAM_REDUCE_CASE, NAME, T)                          \
          BITWISE(PERFTEST_STREAM_REDUCE_CASE, NAME, T)                                      \
        }                                                                                    \
    }                                                                                        \
  }
PERFTEST_STREAM_CALL(int32, int32_t, PERFTEST_BITWISE_OPS)
PERFTEST_STREAM_CALL(int64, int64_t, PERFTEST_BITWISE_OPS)
PERFTEST_STREAM_CALL(float, float, PERFTEST_NO_OPS)
PERFTEST_STREAM_CALL(double, double, PERFTEST_NO_OPS)

/* -d and -o, checked: the element size, and the op index (bitwise ops only for integers). */
inline size_t type_size(const std::string &t) {
  if (t == "int32" || t == "int" || t == "float") return 4;
  if (t == "int64" || t == "long" || t == "double") return 8;
  fail("-d %s: this test knows int32 (int), int64 (long), float and double", t.c_str());
}
inline bool is_floating(const std::string &t) {
  return t == "float" || t == "double";
}
inline int op_index(const Options &opt) {
  for (int i = 0; i < 7; ++i) {
    if (opt.reduce_op != kOps[i]) continue;
    if (i >= kFirstBitwiseOp && is_floating(opt.datatype))
      fail("-o %s is not defined for -d %s", kOps[i], opt.datatype.c_str());
    return i;
  }
  fail("-o %s: not one of sum, prod, min, max, and, or, xor", opt.reduce_op.c_str());
}

inline void enqueue_on_stream(const Options &opt, const CollArgs &a, cudaStream_t stream) {
  switch (a.coll) {
    case Coll::barrier:
      nvshmemx_barrier_on_stream(NVSHMEM_TEAM_WORLD, stream);
      return;
    case Coll::barrier_all:
      nvshmemx_barrier_all_on_stream(stream);
      return;
    case Coll::sync:
      nvshmemx_team_sync_on_stream(NVSHMEM_TEAM_WORLD, stream);
      return;
    case Coll::sync_all:
      nvshmemx_sync_all_on_stream(stream);
      return;
    default:
      break;
  }
  const std::string &t = opt.datatype;
  if (t == "int32" || t == "int")
    stream_call_int32(a, stream);
  else if (t == "int64" || t == "long")
    stream_call_int64(a, stream);
  else if (t == "float")
    stream_call_float(a, stream);
  else
    stream_call_double(a, stream);
}

/* ---- the program ---- */

/* What every collective test holds: options, symmetric buffers for -e bytes per PE, a stream. */
struct CollSetup {
  Options opt;
  int npes;
  int op;
  size_t elem;  // bytes per element; 1 for barriers and syncs
  void *source;
  void *dest;
  cudaStream_t stream;
};

/* Parses the options (`features` plus -d for data collectives and -o for reductions), initialises,
 * allocates. Barriers and syncs have one size, 0. */
inline CollSetup coll_setup(int argc, char **argv, const char *job, const char *what, Coll coll, unsigned features) {
  if (!is_sync(coll)) features |= kDatatype | (is_reduce(coll) ? kReduceOp : 0u);
  CollSetup s{};
  s.opt = parse_options(argc, argv, job, what, features);
  if (is_sync(coll)) s.opt.min_size = s.opt.max_size = 0;
  s.elem = is_sync(coll) ? 1 : type_size(s.opt.datatype);
  s.op = op_index(s.opt);
  init(job);
  require_device_heap();
  s.npes = n_pes();
  const size_t per_pe_blocks = coll == Coll::alltoall || coll == Coll::reducescatter ? s.npes : 1;
  const size_t dest_blocks = coll == Coll::alltoall || coll == Coll::fcollect ? s.npes : 1;
  s.source = nvshmem_malloc(s.opt.max_size * per_pe_blocks + 16);
  s.dest = nvshmem_malloc(s.opt.max_size * dest_blocks + 16);
  if (!s.source || !s.dest) fail("nvshmem_malloc of %zu bytes failed", s.opt.max_size * s.npes);
  PERFTEST_CUDA_CHECK(cudaMemset(s.source, 1, s.opt.max_size * per_pe_blocks));
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  return s;
}

inline int coll_finish(CollSetup &s) {
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(s.stream));
  nvshmem_free(s.dest);
  nvshmem_free(s.source);
  return finalize();
}

/* "<type>[_<op>]" of a data collective. */
inline std::string data_subjob(const Options &opt, Coll coll) {
  return opt.datatype + (is_reduce(coll) ? "_" + opt.reduce_op : "");
}

/* Seconds of one timed run of -n calls: on the GPU (events around the run) and, for on-stream calls,
 * on the host (the enqueue loop alone, i.e. what the calls cost the calling thread; 0 elsewhere). */
struct RunSeconds {
  double gpu = 0;
  double host = 0;
};

/* One table: for each size, `median_seconds(args)` times -n calls (time_runs) and returns the median
 * RunSeconds of one timed run; the row gives the latency per call, the bandwidths and, with
 * `host_column`, the host's time per enqueued call ("enqueue"): when it reaches the latency, the
 * calls are bound by the host, not by the GPU. */
template <class MedianSeconds>
void coll_table(const CollSetup &s, Coll coll, const std::string &name, bool host_column,
                MedianSeconds median_seconds) {
  std::vector<Report::Column> columns{{"latency", "us", true}, {"algbw", "GB/s"}, {"busbw", "GB/s"}};
  if (host_column) columns.push_back({"enqueue", "us", true});
  Report report(name, columns);
  for (size_t size : is_sync(coll) ? std::vector<size_t>{0} : sizes(s.opt)) {
    const CollArgs args{coll, s.op, s.dest, s.source, size / s.elem};
    if (!is_sync(coll) && args.count == 0) continue;
    const RunSeconds run = median_seconds(args);
    const double us = run.gpu / s.opt.iters * 1e6;
    const bool per_member = coll == Coll::alltoall || coll == Coll::fcollect || coll == Coll::reducescatter;
    const size_t reported = size * (per_member ? static_cast<size_t>(s.npes) : 1);
    const double algbw = us > 0 ? reported / us / 1e3 : 0.0;
    std::vector<double> values{us, algbw, algbw * bus_factor(coll, s.npes)};
    if (host_column) values.push_back(run.host / s.opt.iters * 1e6);
    report.add(reported, values, true);
  }
}

/* The median RunSeconds of one timed run of -n calls `enqueue()` on the setup's stream; with
 * --cudagraph the calls are captured once and each timed run is one graph launch. */
template <class Enqueue>
RunSeconds time_on_stream(const CollSetup &s, GpuTimer &timer, Enqueue enqueue) {
  cudaGraphExec_t exec = nullptr;
  if (s.opt.cudagraph) {
    cudaGraph_t graph;
    PERFTEST_CUDA_CHECK(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < s.opt.iters; ++i) enqueue();
    PERFTEST_CUDA_CHECK(cudaStreamEndCapture(s.stream, &graph));
    PERFTEST_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    PERFTEST_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  std::vector<double> host;  // one sample per timed run (the first launch is the warm-up, when -w > 0)
  bool warm_up = s.opt.warmup > 0;
  RunSeconds run;
  run.gpu = time_runs(s.opt, true, s.stream, timer, 0, [&](size_t, int iters) {
    const double seconds = host_seconds([&] {
      if (exec && iters == s.opt.iters) {
        PERFTEST_CUDA_CHECK(cudaGraphLaunch(exec, s.stream));
      } else {
        for (int i = 0; i < iters; ++i) enqueue();
      }
    });
    PERFTEST_LAUNCH_CHECK();
    if (!warm_up) host.push_back(seconds);
    warm_up = false;
  });
  run.host = median(host);
  if (exec) PERFTEST_CUDA_CHECK(cudaGraphExecDestroy(exec));
  return run;
}

/* The whole on-stream program. */
inline int run_coll_on_stream(int argc, char **argv, const char *job, const char *what, Coll coll) {
  CollSetup s = coll_setup(argc, argv, job, what, coll, kCudaGraph);
  GpuTimer timer;
  coll_table(s, coll, is_sync(coll) ? std::string(job) : std::string(job) + "___" + data_subjob(s.opt, coll), true,
             [&](const CollArgs &args) {
               return time_on_stream(s, timer, [&] { enqueue_on_stream(s.opt, args, s.stream); });
             });
  return coll_finish(s);
}

}  // namespace perftest

#endif /* PERFTEST_COMMON_COLL_H */
