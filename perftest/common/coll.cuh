/* The programs of the collective perftests (perftest/device/coll, perftest/host/coll): each test
 * file names its collective and calls run_coll. Public API only, so the same sources build against
 * NVIDIA's NVSHMEM (tools/perf-compare.sh).
 *
 * Sizes are bytes per PE (-b/-e/-f); element type -d (int32, int64, float, double; default int32 for
 * device tests as NVSHMEM's, int for ours on stream), reduce op -o. On-stream tests enqueue -n calls
 * (or, with --cudagraph, capture them once and time one graph launch); device tests run -n calls in
 * one kernel per scope (thread, warp, block; the subjob of each row). Reported: latency per call (us),
 * algbw = bytes / latency and busbw = algbw * the factor of the collective. */
#ifndef PERFTEST_COMMON_COLL_CUH
#define PERFTEST_COMMON_COLL_CUH

#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstring>
#include <string>

#include "perftest.h"

namespace perftest {

enum class Coll { alltoall, broadcast, fcollect, reduction, reducescatter, barrier, barrier_all, sync, sync_all };
enum class Where { device, on_stream };

inline bool is_sync(Coll c) {
  return c == Coll::barrier || c == Coll::barrier_all || c == Coll::sync || c == Coll::sync_all;
}
/* busbw / algbw (NVSHMEM's factors): reduction 2(n-1)/n, broadcast 1, the others (n-1)/n. */
inline double bus_factor(Coll c, int n) {
  if (c == Coll::reduction) return 2.0 * (n - 1) / n;
  if (c == Coll::broadcast) return 1.0;
  return static_cast<double>(n - 1) / n;
}

/* ---- one call of a collective, by element type and op ---- */
#define PERFTEST_COLL_TYPES(X) X(int32, int32_t) X(int64, int64_t) X(float, float) X(double, double)
#define PERFTEST_REDUCE_OPS(X, NAME, T) X(NAME, T, sum) X(NAME, T, prod) X(NAME, T, min) X(NAME, T, max)
#define PERFTEST_BITWISE_OPS(X, NAME, T) X(NAME, T, and) X(NAME, T, or) X(NAME, T, xor)

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
          default:                                                                           \
            fail("-o %s is not defined for -d " #NAME, kOps[a.op]);                          \
        }                                                                                    \
    }                                                                                        \
  }
#define PERFTEST_NO_OPS(X, NAME, T)
PERFTEST_STREAM_CALL(int32, int32_t, PERFTEST_BITWISE_OPS)
PERFTEST_STREAM_CALL(int64, int64_t, PERFTEST_BITWISE_OPS)
PERFTEST_STREAM_CALL(float, float, PERFTEST_NO_OPS)
PERFTEST_STREAM_CALL(double, double, PERFTEST_NO_OPS)

inline size_t type_size(const std::string &t) {
  if (t == "int32" || t == "int" || t == "float") return 4;
  if (t == "int64" || t == "long" || t == "double") return 8;
  fail("-d %s: this test knows int32 (int), int64 (long), float and double", t.c_str());
}
inline int op_index(const std::string &op) {
  for (int i = 0; i < 7; ++i)
    if (op == kOps[i]) return i;
  fail("-o %s: not one of sum, prod, min, max, and, or, xor", op.c_str());
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

/* The whole on-stream program. */
inline int run_coll_on_stream(int argc, char **argv, const char *job, const char *what, Coll coll) {
  const unsigned features =
      is_sync(coll)
          ? kCudaGraph
          : kCudaGraph | kDatatype | (coll == Coll::reduction || coll == Coll::reducescatter ? kReduceOp : 0u);
  Options opt = parse_options(argc, argv, job, what, features);
  if (is_sync(coll)) opt.min_size = opt.max_size = 0;
  init(job);
  require_device_heap();
  const int npes = n_pes();
  const size_t elem = is_sync(coll) ? 1 : type_size(opt.datatype);
  const int op = op_index(opt.reduce_op);
  const size_t per_pe_blocks = coll == Coll::alltoall || coll == Coll::reducescatter ? npes : 1;
  const size_t dest_blocks = coll == Coll::alltoall || coll == Coll::fcollect ? npes : 1;
  void *source = nvshmem_malloc(opt.max_size * per_pe_blocks + 16);
  void *dest = nvshmem_malloc(opt.max_size * dest_blocks + 16);
  if (!source || !dest) fail("nvshmem_malloc of %zu bytes failed", opt.max_size * npes);
  PERFTEST_CUDA_CHECK(cudaMemset(source, 1, opt.max_size * per_pe_blocks));
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer;
  std::string name = std::string(job) + "___" + (is_sync(coll) ? "" : opt.datatype) +
                     (coll == Coll::reduction || coll == Coll::reducescatter ? "_" + opt.reduce_op : "");
  if (is_sync(coll)) name = job;
  Report report(name, {{"latency", "us", true}, {"algbw", "GB/s"}, {"busbw", "GB/s"}});
  const std::vector<size_t> all = is_sync(coll) ? std::vector<size_t>{0} : sizes(opt);
  for (size_t size : all) {
    const CollArgs args{coll, op, dest, source, size / (elem ? elem : 1)};
    if (!is_sync(coll) && args.count == 0) continue;
    cudaGraphExec_t exec = nullptr;
    if (opt.cudagraph) {
      cudaGraph_t graph;
      PERFTEST_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < opt.iters; ++i) enqueue_on_stream(opt, args, stream);
      PERFTEST_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
      PERFTEST_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      PERFTEST_CUDA_CHECK(cudaGraphDestroy(graph));
    }
    const double seconds = time_runs(opt, true, stream, timer, size, [&](size_t, int iters) {
      if (exec && iters == opt.iters) {
        PERFTEST_CUDA_CHECK(cudaGraphLaunch(exec, stream));
      } else {
        for (int i = 0; i < iters; ++i) enqueue_on_stream(opt, args, stream);
      }
      PERFTEST_LAUNCH_CHECK();
    });
    if (exec) PERFTEST_CUDA_CHECK(cudaGraphExecDestroy(exec));
    const double us = seconds / opt.iters * 1e6;
    const size_t reported = size * (coll == Coll::alltoall || coll == Coll::fcollect || coll == Coll::reducescatter
                                        ? static_cast<size_t>(npes)
                                        : 1);
    const double algbw = us > 0 ? reported / us / 1e3 : 0.0;
    report.add(reported, {us, algbw, algbw * bus_factor(coll, npes)}, true);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return finalize();
}

}  // namespace perftest

#endif /* PERFTEST_COMMON_COLL_CUH */
