/* SPDX-License-Identifier: BSD-3-Clause */
/* The perftest harness: options, size sweep, bootstrap, timing, median, correctness check and
 * output, in one place, so each test file holds only its operation.
 *
 * Uses only NVSHMEM's public API (nvshmem.h, nvshmemx.h): the same test sources build against this
 * project and against NVIDIA's NVSHMEM (tools/perf-compare.py). Host-only code: compiles with g++
 * or nvcc; kernels live in the test files. docs/perftest.md describes the options and the output. */
#ifndef PERFTEST_COMMON_PERFTEST_H
#define PERFTEST_COMMON_PERFTEST_H

#include <chrono>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace perftest {

/* Checks a CUDA runtime call; on error prints the call, file, line and CUDA's message, then ends the
 * job (every PE, once initialised). */
#define PERFTEST_CUDA_CHECK(call) ::perftest::cuda_check((call), #call, __FILE__, __LINE__)
/* After every kernel launch: catches launch-configuration errors. */
#define PERFTEST_LAUNCH_CHECK() PERFTEST_CUDA_CHECK(cudaGetLastError())

void cuda_check(cudaError_t err, const char *what, const char *file, int line);
/* Prints "<job>: PE <n>: <message>" to stderr and ends the job with status 1 (nvshmem_global_exit
 * once initialised, so no peer is left waiting). */
[[noreturn]] void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Options a test accepts beyond the common ones (-b -e -f -n -w -r -h). */
enum Feature : unsigned {
  kGrid = 1u << 0,       // -c/--ctas, -t/--threads_per_cta: kernel grid
  kBidir = 1u << 1,      // --bidir: both PEs send, the sum is reported
  kDatatype = 1u << 2,   // -d/--datatype: element type of a collective (int, float, ...)
  kReduceOp = 1u << 3,   // -o/--reduce_op: sum, prod, min, max, and, or, xor
  kCudaGraph = 1u << 4,  // --cudagraph: on-stream calls captured once in a CUDA graph, then replayed
  kThreads = 1u << 5,    // -t/--threads_per_cta alone: threads of a one-block kernel
  kNoQuiet = 1u << 6,    // --no_quiet: the loop's operations without a quiet after each (one after the loop)
};

struct Options {
  size_t min_size = 4;                // -b/--min_size, bytes
  size_t max_size = size_t{4} << 20;  // -e/--max_size, bytes
  size_t step = 2;                    // -f/--step, factor between sizes
  int iters = 10;                     // -n/--iters, operations per timed run
  int warmup = 5;                     // -w/--warmup_iters, operations before the timed runs
  int ctas = 32;                      // -c/--ctas
  int threads = 256;                  // -t/--threads_per_cta
  int runs = 5;                       // -r/--runs (ours): timed runs per size; the median is reported
  bool bidir = false;                 // --bidir
  bool check = true;                  // --no_check (ours) skips the correctness check
  std::string datatype = "int";       // -d/--datatype
  std::string reduce_op = "sum";      // -o/--reduce_op
  bool cudagraph = false;             // --cudagraph
  bool quiet = true;                  // --no_quiet (ours) clears it
};

/* Parses NVSHMEM-style options (numbers take k/m/g/t suffixes, powers of 1024). Prints the help and
 * exits 0 on -h; prints the problem and exits 2 on a bad or unknown option. Call before init. */
Options parse_options(int argc, char **argv, const char *job, const char *what, unsigned features);

/* min_size, min_size*step, ... up to max_size. */
std::vector<size_t> sizes(const Options &opt);

/* Selects the GPU (NVSHMRUN_LOCAL_RANK mod device count, when that variable is set and a GPU is
 * visible), then initialises NVSHMEM: nvshmem_init(), or with PERFTEST_BOOTSTRAP=uid the unique-id
 * bootstrap (rank and size from NVSHMRUN_RANK/NVSHMRUN_SIZE; PE 0 publishes the id through the file
 * named by PERFTEST_UID_FILE). */
void init(const char *job);
/* Frees the harness's symmetric memory, finalises NVSHMEM; returns the exit status for main: 0, or 1
 * when a correctness check failed on this PE. */
int finalize();

int my_pe();
int n_pes();
/* nvshmem_barrier_all (callable from host code that does not include nvshmem.h). */
void barrier_all();
/* Every PE: when the job does not have exactly `n` PEs, PE 0 says so and all exit with status 1. */
void require_pes(int n);
/* Every PE: ends the job with a message and kSkipStatus when the symmetric heap is not in GPU memory (a
 * device test started where the library runs its CPU backend). */
constexpr int kSkipStatus = 77;  // CTest's skip code (tests/NvshmemTests.cmake)
void require_device_heap();
/* True when the symmetric heap lives in GPU memory (decided once, at init). */
bool heap_on_device();

/* Copies between private host memory and this PE's symmetric memory, wherever the heap lives. */
void copy_to_symmetric(void *dest, const void *source, size_t bytes);
void copy_from_symmetric(void *dest, const void *source, size_t bytes);

/* Collective: the sum over all PEs of `value` (host barrier plus host gets; not for timed code). */
double sum_over_pes(double value);

/* Correctness check: every PE's source buffer holds pseudo-random bytes seeded by its PE id; the
 * receiver poisons its destination before a size's runs and verifies it after them. */
class Payload {
 public:
  /* Every PE: fills `source` (symmetric, max_size bytes) with this PE's pattern; keeps the pattern
   * `from_pe` sends, to verify against. Does nothing when checks are off. */
  Payload(const Options &opt, void *source, int from_pe);
  /* Fills the first `bytes` of `dest` (this PE's symmetric destination) with a poison byte. */
  void poison(void *dest, size_t bytes) const;
  /* Compares the first `bytes` of `dest` with the expected pattern; on a mismatch prints the first
   * differing offset and counts a failure for finalize(). Returns true when equal. */
  bool verify(const void *dest, size_t bytes) const;
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::vector<unsigned char> expected_;
};

/* The per-size result table. PE 0 prints a header, then each row as it is added (flushed), as
 * "size(B)  <metric>(<unit>) ..."; with NVSHMEM_MACHINE_READABLE_OUTPUT=1 also one line per value:
 * "&&&& PERF <job>___size__<bytes>___<metric> <value> +<unit>" (+: higher is better). With
 * PERFTEST_JSON=<file>, PE 0 also appends one JSON object per value to <file> (docs/perftest.md):
 * {"test", "library", "pes", "size", "metric", "unit", "lower_is_better", "value", "check"}. */
class Report {
 public:
  struct Column {
    std::string metric;
    std::string unit;
    bool lower_is_better = false;  // latency: the machine-readable line carries '-' instead of '+'
  };
  Report(std::string job, std::vector<Column> columns);
  ~Report();
  Report(const Report &) = delete;
  Report &operator=(const Report &) = delete;
  /* Every PE calls it (it sums the check failures over PEs); only PE 0 prints. */
  void add(size_t size, const std::vector<double> &values, bool check_ok);

 private:
  std::string job_;
  std::vector<Column> columns_;
  bool machine_readable_;
  FILE *json_ = nullptr;  // PERFTEST_JSON, PE 0 only
};

/* Median of a non-empty sample (the mean of the middle two for an even count). */
double median(std::vector<double> samples);

/* Seconds taken by f(), on the host's steady clock. */
template <class F>
double host_seconds(F &&f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/* Host operations timed on PE 0 while the other PEs wait: after a barrier, PE 0 calls op() -w times,
 * then for each of -r runs (each after a barrier) -n times; every PE returns the median seconds per
 * call on PE 0 (0 on the others), after a last barrier. */
template <class F>
double pe0_seconds_per_call(const Options &opt, F &&op) {
  std::vector<double> seconds;
  barrier_all();
  for (int i = 0; my_pe() == 0 && i < opt.warmup; ++i) op();
  for (int run = 0; run < opt.runs; ++run) {
    barrier_all();
    if (my_pe() == 0)
      seconds.push_back(host_seconds([&] {
        for (int i = 0; i < opt.iters; ++i) op();
      }));
  }
  barrier_all();
  return my_pe() == 0 ? median(seconds) / opt.iters : 0.0;
}

/* Two CUDA events around work enqueued on one stream. */
class GpuTimer {
 public:
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer &) = delete;
  GpuTimer &operator=(const GpuTimer &) = delete;
  void start(cudaStream_t stream);
  /* Records the stop event, waits for it, returns the seconds between the two events. */
  double stop_seconds(cudaStream_t stream);

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

/* Runs `launch(size, iters)` (work enqueued on `stream`) on this PE when `active`: -w warm-up
 * iterations, then opt.runs timed launches of -n iterations, each after a host barrier_all of every
 * PE (inactive PEs only take part in the barriers). Returns the median seconds of one timed launch
 * (0 when inactive). Ping-pong tests make both PEs active; they synchronise through their flags. */
template <class Launch>
double time_runs(const Options &opt, bool active, cudaStream_t stream, GpuTimer &timer, size_t size, Launch &&launch) {
  if (active && opt.warmup > 0) {
    launch(size, opt.warmup);
    cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__);
  }
  std::vector<double> seconds;
  for (int run = 0; run < opt.runs; ++run) {
    barrier_all();
    if (!active) continue;
    timer.start(stream);
    launch(size, opt.iters);
    seconds.push_back(timer.stop_seconds(stream));
  }
  barrier_all();
  return active ? median(seconds) : 0.0;
}

/* Bytes per second to GB/s (1e9 bytes). */
inline double gbps(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0.0;
}

/* The whole program of a one-sided transfer test (shmem_p_bw, shmem_g_bw, shmem_st_bw,
 * shmem_put_latency, shmem_get_latency): for each size, PE 0 runs `launch`, which enqueues the test's
 * kernel moving `bytes` between the symmetric `dest`/`source` of PE 0 and PE 1 `iters` times; the
 * receiving PE verifies the data. Bandwidth tests (-c/-t grid) report GB/s = bytes * iterations /
 * kernel time; latency tests report microseconds per iteration. */
struct OneSidedTest {
  const char *job;
  const char *what;       // one line for -h and the report
  int receiver;           // the PE whose `dest` receives the other PE's `source`: 1 put-like, 0 get-like
  bool latency;           // microseconds per iteration, no grid options (else GB/s)
  size_t granule;         // bytes per element: a size is rounded down to it, at least one element
  unsigned features = 0;  // more options (Feature) than -c/-t; with --no_quiet the metric is latency_no_quiet
};
using OneSidedLaunch = std::function<void(void *dest, const void *source, size_t bytes, int iters, cudaStream_t stream,
                                          const Options &opt)>;
int run_one_sided(int argc, char **argv, const OneSidedTest &test, const OneSidedLaunch &launch);

/* Bytes each block of a `ctas`-block grid moves of a `size`-byte message: the message split over the
 * grid, rounded up to 16 bytes (the last blocks may get less, or nothing). */
inline size_t block_slice(size_t size, int ctas) {
  const size_t slice = (size + static_cast<size_t>(ctas) - 1) / static_cast<size_t>(ctas);
  return (slice + 15) / 16 * 16;
}

}  // namespace perftest

#endif /* PERFTEST_COMMON_PERFTEST_H */
