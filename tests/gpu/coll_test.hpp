// SPDX-License-Identifier: BSD-3-Clause
// Shared machinery of the collective tests (test_coll_*.cu): the teams and modes each collective
// runs in, symmetric buffers, launching a device-scope kernel or an on-stream call (also captured in
// a CUDA graph and replayed), and checks against a host reference.
#pragma once
#include <nvshmemx.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "gpu_test.hpp"

namespace coll_test {

// True when `local` is true on any PE: a host reduction over the world, which every PE calls.
inline bool on_any_pe(bool local) {
  static int *words = static_cast<int *>(nvshmem_malloc(2 * sizeof(int)));
  const int mine = local ? 1 : 0;
  int any = 1;
  EXPECT_EQ(cudaMemcpy(words, &mine, sizeof mine, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(nvshmem_int_max_reduce(NVSHMEM_TEAM_WORLD, words + 1, words, 1), 0);
  EXPECT_EQ(cudaMemcpy(&any, words + 1, sizeof any, cudaMemcpyDeviceToHost), cudaSuccess);
  return any != 0;
}

// Whether a member of `team` is outside NVSHMEM_TEAM_SHARED (another node), on this PE.
inline bool has_remote_member(nvshmem_team_t team) {
  for (int i = 0; i < nvshmem_team_n_pes(team); ++i)
    if (nvshmem_team_translate_pe(team, i, NVSHMEM_TEAM_SHARED) < 0) return true;
  return false;
}

// The teams every collective is tested on: the world, the predefined team of the PEs with this PE's index on
// their node (this PE alone on one node), a split of the world with every PE (a team slot made at run time,
// its members in world order), this PE's team of the two stride-2 splits (the PEs of its parity: one PE with
// 2 PEs, two with 4) and, in a job of several nodes of more than one PE (NVSHMEM_NUM_CLIQUES), NVSHMEMX_TEAM_NODE:
// a team of mapped members beside remote PEs. The list is the same on every PE; it is made once per process, at
// the first call, which every PE reaches in the same test.
inline std::vector<nvshmem_team_t> teams() {
  static const std::vector<nvshmem_team_t> list = [] {
    std::vector<nvshmem_team_t> l{NVSHMEM_TEAM_WORLD, NVSHMEMX_TEAM_SAME_MYPE_NODE};
    const int n = nvshmem_n_pes(), node = nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE);
    if (n < 2) return l;
    if (!on_any_pe(node < 2 || node == n)) l.push_back(NVSHMEMX_TEAM_NODE);
    nvshmem_team_t all = NVSHMEM_TEAM_INVALID, even = NVSHMEM_TEAM_INVALID, odd = NVSHMEM_TEAM_INVALID;
    const int rc = nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &all) |
                   nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &even) |
                   nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd);
    if (rc != 0 || all == NVSHMEM_TEAM_INVALID || (even == NVSHMEM_TEAM_INVALID) == (odd == NVSHMEM_TEAM_INVALID)) {
      fprintf(stderr, "coll_test: splitting the world into test teams failed on PE %d\n", nvshmem_my_pe());
      nvshmem_global_exit(1);
    }
    l.push_back(all);
    l.push_back(even != NVSHMEM_TEAM_INVALID ? even : odd);
    return l;
  }();
  return list;
}

// The device scopes of a typed collective run for one name per distinct machine code: every device
// name is a one-line call of one template over (scope, [op,] T), and T reaches the machine code only
// as its size (the data collectives move bytes: nelems * sizeof(T)) or through the reduction's
// combine<Op, T> (one operator on two values of T). So the names whose types give the same code are
// one test of it: the data collectives per size of T, the reductions per type, except that integers
// of one width give the same bits for the bitwise ops, sum and product whatever their signedness
// (min and max are per width and signedness). Compiling the other names' kernels again cost over a
// third of the GPU tests' build and tested no other code (docs/build.md). Every name's device
// functions are checked at compile time to take its own C type, and its on_stream entry points
// (distinct functions of the library) run every case at run time.
constexpr bool same_name(const char *a, const char *b) {
  return *a == *b && (*a == '\0' || same_name(a + 1, b + 1));
}
// NVSHM_TEST_DEFINE_FIRST_NAME(FUNC, FOR_EACH): FUNC<Same, T>(key) is the first name of FOR_EACH (an
// X(NAME, TYPE) list) whose type U gives the same device code as T: Same::same<T, U>(key).
#define NVSHM_TEST_FIRST_NAME_(NAME, TYPE) \
  if (first == nullptr && Same::template same<T, TYPE>(key)) first = #NAME;
#define NVSHM_TEST_DEFINE_FIRST_NAME(FUNC, FOR_EACH) \
  template <class Same, typename T>                  \
  constexpr const char *FUNC(int key) {              \
    const char *first = nullptr;                     \
    FOR_EACH(NVSHM_TEST_FIRST_NAME_)                 \
    return first;                                    \
  }

enum Mode { kThread, kWarp, kBlock, kStream, kGraph };
constexpr Mode kModes[] = {kThread, kWarp, kBlock, kStream, kGraph};
inline const char *mode_name(Mode m) {
  static const char *names[] = {"thread", "warp", "block", "on_stream", "on_stream in a graph"};
  return names[m];
}
// Replays of each captured graph: 100, or NVSHM_TEST_GRAPH_REPLAYS. tools/gpu-check.sh sets 2 under
// compute-sanitizer, where each replay of the same graph checks the same code again and the 100
// replays of the 48 graphs per type made racecheck of test_device_coll take about 3 minutes a type.
inline int graph_replays() {
  static const int n = [] {
    const char *v = getenv("NVSHM_TEST_GRAPH_REPLAYS");
    return v && atoi(v) > 0 ? atoi(v) : 100;
  }();
  return n;
}

// Symmetric source and destination of kBufferBytes each, allocated once per process.
constexpr size_t kBufferBytes = size_t{8} << 20;
struct Buffers {
  char *source;
  char *dest;
};
inline Buffers buffers() {
  static Buffers b{static_cast<char *>(nvshmem_malloc(kBufferBytes)),
                   static_cast<char *>(nvshmem_malloc(kBufferBytes))};
  return b;
}

// The threads of the device-scope kernel: the first thread, warp or the block calls.
inline unsigned block_threads(Mode m) {
  return m == kThread ? 1 : m == kWarp ? 32 : 256;
}

// Runs one collective in `mode`: `kernel_launch(threads)` launches the device-scope kernel on the
// default stream; `stream_call(stream)` enqueues the on_stream form. Every CUDA call and launch is
// checked.
template <class KernelLaunch, class StreamCall>
void run(Mode mode, KernelLaunch kernel_launch, StreamCall stream_call) {
  if (mode <= kBlock) {
    kernel_launch(block_threads(mode));
    LAUNCH_CHECK();
    return;
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  if (mode == kStream) {
    stream_call(stream);
    CUDA_CHECK(cudaGetLastError());
  } else {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    stream_call(stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < graph_replays(); ++i) CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// Fills this PE's source with `bytes`, poisons `dest_bytes` of its destination, then a barrier.
inline void prepare(const std::vector<unsigned char> &source, size_t dest_bytes) {
  const Buffers b = buffers();
  ASSERT_LE(source.size(), kBufferBytes);
  ASSERT_LE(dest_bytes, kBufferBytes);
  CUDA_CHECK(cudaMemcpy(b.source, source.data(), source.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(b.dest, gpu_test::kPoison, dest_bytes));
  gpu_test::barrier();
}

// What a case is, for failure messages.
inline std::string describe(const char *what, nvshmem_team_t team, Mode mode, size_t nelems) {
  return std::string(what) + " team " + std::to_string(team) + " " + mode_name(mode) + " nelems " +
         std::to_string(nelems) + " on PE " + std::to_string(nvshmem_my_pe());
}

// Reports the first differing element of the destination, then a barrier.
template <typename T, class Equal>
void check(const std::string &what, const std::vector<T> &expected, Equal equal) {
  std::vector<T> got(expected.size());
  CUDA_CHECK(cudaMemcpy(got.data(), buffers().dest, expected.size() * sizeof(T), cudaMemcpyDeviceToHost));
  for (size_t k = 0; k < expected.size(); ++k) {
    if (!equal(got[k], expected[k])) {
      ADD_FAILURE() << what << ": element " << k << " of " << expected.size() << " differs";
      break;
    }
  }
  gpu_test::barrier();
}

}  // namespace coll_test
