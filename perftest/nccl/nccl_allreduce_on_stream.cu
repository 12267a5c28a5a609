// SPDX-License-Identifier: BSD-3-Clause
/* nccl_allreduce_on_stream: NCCL's all-reduce, timed exactly like reduction_on_stream (same options,
 * sizes, buffers, timing and table name "reduction_on_stream___float_sum"), so tools/perf-compare.py
 * can put NCCL beside our float-sum reduce_on_stream (issue 5). NVSHMEM only starts the job, carries
 * NCCL's unique id and provides the buffers. Built by perf-compare against NCCL and NVIDIA's NVSHMEM;
 * not part of the CMake build. */
#include <nccl.h>

#include "coll.h"

#define NCCL_CHECK(call)                                                                 \
  do {                                                                                   \
    const ncclResult_t r = (call);                                                       \
    if (r != ncclSuccess) perftest::fail("%s failed: %s", #call, ncclGetErrorString(r)); \
  } while (0)

int main(int argc, char **argv) {
  using namespace perftest;
  CollSetup s = coll_setup(argc, argv, "reduction_on_stream", "NCCL all-reduce latency (us) and bandwidth",
                           Coll::reduction, kCudaGraph);
  if (s.opt.datatype != "float" || s.opt.reduce_op != "sum") fail("this test times -d float -o sum only");

  // PE 0's unique id reaches every PE through a symmetric buffer (on-stream broadcast from PE 0).
  ncclUniqueId id{};
  if (my_pe() == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  auto *sym_id = static_cast<ncclUniqueId *>(nvshmem_malloc(sizeof(ncclUniqueId)));
  if (!sym_id) fail("nvshmem_malloc of the NCCL unique id failed");
  copy_to_symmetric(sym_id, &id, sizeof id);
  barrier_all();
  nvshmemx_broadcastmem_on_stream(NVSHMEM_TEAM_WORLD, sym_id, sym_id, sizeof id, 0, s.stream);
  PERFTEST_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  copy_from_symmetric(&id, sym_id, sizeof id);
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, s.npes, id, my_pe()));

  GpuTimer timer;
  coll_table(s, Coll::reduction, "reduction_on_stream___float_sum", true, [&](const CollArgs &args) {
    return time_on_stream(s, timer, [&] {
      NCCL_CHECK(ncclAllReduce(args.source, args.dest, args.count, ncclFloat, ncclSum, comm, s.stream));
    });
  });
  PERFTEST_CUDA_CHECK(cudaStreamSynchronize(s.stream));
  NCCL_CHECK(ncclCommDestroy(comm));
  nvshmem_free(sym_id);
  return coll_finish(s);
}
