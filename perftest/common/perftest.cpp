// SPDX-License-Identifier: BSD-3-Clause
/* The perftest harness (perftest.h). Public NVSHMEM API only. */
#include "perftest.h"

#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <thread>

#include <nvshmem.h>
#include <nvshmemx.h>

namespace perftest {
namespace {

struct State {
  std::string job = "perftest";
  bool initialized = false;
  bool heap_on_device = false;
  int failures = 0;           // failed correctness checks on this PE
  double *scratch = nullptr;  // symmetric, 2 doubles, for sum_over_pes
  time_t started = 0;         // wall clock at init, to tell a stale unique-id file
} g;

constexpr int kUidTimeoutSeconds = 60;
// A unique-id file older than this many seconds before our start is left over from another job.
constexpr int kUidStaleSeconds = 30;

std::string pe_label() {
  if (g.initialized) return std::to_string(nvshmem_my_pe());
  const char *rank = getenv("NVSHMRUN_RANK");
  return rank ? rank : "?";
}

[[noreturn]] void usage_error(const char *job, const char *format, ...) __attribute__((format(printf, 2, 3)));
void usage_error(const char *job, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: ", job);
  vfprintf(stderr, format, args);
  fprintf(stderr, " (-h for help)\n");
  va_end(args);
  exit(2);
}

/* A byte count or a count: decimal digits and an optional k/m/g/t suffix (powers of 1024). */
bool parse_number(const char *text, size_t *out) {
  if (!text || !*text || *text == '-' || *text == '+') return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long value = strtoull(text, &end, 10);
  if (errno != 0 || end == text) return false;
  int shift = 0;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    case 't':
    case 'T':
      shift = 40;
      break;
    default:
      return false;
  }
  if (*end != '\0' && end[1] != '\0') return false;
  if (shift > 0 && value > (ULLONG_MAX >> shift)) return false;
  *out = static_cast<size_t>(value << shift);
  return true;
}

size_t number_arg(const char *job, const char *option, const char *text, size_t min, size_t max) {
  size_t value = 0;
  if (!parse_number(text, &value))
    usage_error(job, "option %s: '%s' is not a number (k/m/g/t suffixes allowed)", option, text);
  if (value < min || value > max) usage_error(job, "option %s: %zu is outside [%zu, %zu]", option, value, min, max);
  return value;
}

void print_help(const char *job, const char *what, unsigned features) {
  const Options d;
  printf("%s: %s\n\n", job, what);
  printf("usage: nvshmrun -n 2 %s [options]\n\n", job);
  printf("  -b, --min_size N        smallest message in bytes (default %zu; k/m/g/t suffixes)\n", d.min_size);
  printf("  -e, --max_size N        largest message in bytes (default %zuM)\n", d.max_size >> 20);
  printf("  -f, --step N            factor between message sizes (default %zu)\n", d.step);
  printf("  -n, --iters N           operations per timed run (default %d)\n", d.iters);
  printf("  -w, --warmup_iters N    operations before the timed runs (default %d)\n", d.warmup);
  if (features & kGrid) printf("  -c, --ctas N            thread blocks of the kernel (default %d)\n", d.ctas);
  if (features & (kGrid | kThreads)) printf("  -t, --threads_per_cta N threads per block (default %d)\n", d.threads);
  if (features & kBidir) printf("      --bidir             both PEs send at once; the sum is reported\n");
  if (features & kDatatype) printf("  -d, --datatype T        element type (default %s)\n", d.datatype.c_str());
  if (features & kReduceOp)
    printf("  -o, --reduce_op OP      sum, prod, min, max, and, or, xor (default %s)\n", d.reduce_op.c_str());
  if (features & kCudaGraph)
    printf("      --cudagraph         capture the -n calls in a CUDA graph, time its launch\n");
  if (features & kNoQuiet)
    printf(
        "      --no_quiet          no quiet after each operation (one after the loop): a blocking call's own time\n");
  printf("  -r, --runs N            timed runs per size; the median is reported (default %d)\n", d.runs);
  printf("      --no_check          skip the correctness check\n");
  printf("  -h, --help              this text\n\n");
  printf("Environment: NVSHMEM_MACHINE_READABLE_OUTPUT=1 adds '&&&& PERF' lines; PERFTEST_JSON=<file> appends\n");
  printf("one JSON object per value to <file>; PERFTEST_BOOTSTRAP=uid with PERFTEST_UID_FILE=<path> initialises\n");
  printf("through a unique id (see docs/perftest.md).\n");
}

int env_int(const char *name) {
  const char *text = getenv(name);
  size_t value = 0;
  if (!text) fail("%s is not set (PERFTEST_BOOTSTRAP=uid needs a launcher that sets it, e.g. nvshmrun)", name);
  if (!parse_number(text, &value) || value > INT_MAX) fail("%s='%s' is not a non-negative integer", name, text);
  return static_cast<int>(value);
}

void select_gpu() {
  const char *local = getenv("NVSHMRUN_LOCAL_RANK");
  if (!local) return;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();  // no GPU here: the library runs its CPU backend
    return;
  }
  size_t rank = 0;
  if (!parse_number(local, &rank) || rank > INT_MAX)
    fail("NVSHMRUN_LOCAL_RANK='%s' is not a non-negative integer", local);
  PERFTEST_CUDA_CHECK(cudaSetDevice(static_cast<int>(rank % static_cast<size_t>(count))));
}

/* PE 0: write the id to a temporary file, then rename it into place, so readers never see half. */
void publish_uid(const std::string &path, const nvshmemx_uniqueid_t &id) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fail("cannot create %s: %s", temp.c_str(), strerror(errno));
  const char *bytes = reinterpret_cast<const char *>(&id);
  size_t done = 0;
  while (done < sizeof(id)) {
    ssize_t n = write(fd, bytes + done, sizeof(id) - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write %s: %s", temp.c_str(), strerror(errno));
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) fail("cannot write %s: %s", temp.c_str(), strerror(errno));
  if (rename(temp.c_str(), path.c_str()) != 0)
    fail("cannot rename %s to %s: %s", temp.c_str(), path.c_str(), strerror(errno));
}

/* The other PEs: poll for a complete, fresh id file. */
void read_uid(const std::string &path, nvshmemx_uniqueid_t *id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kUidTimeoutSeconds);
  for (;;) {
    int fd = open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
      struct stat st;
      bool fresh = fstat(fd, &st) == 0 && st.st_size == static_cast<off_t>(sizeof(*id)) &&
                   st.st_mtime >= g.started - kUidStaleSeconds;
      bool complete = fresh && read(fd, id, sizeof(*id)) == static_cast<ssize_t>(sizeof(*id));
      close(fd);
      if (complete) return;
    }
    if (std::chrono::steady_clock::now() > deadline)
      fail("no unique id in %s after %d s: is PE 0 running, with the same PERFTEST_UID_FILE?", path.c_str(),
           kUidTimeoutSeconds);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void init_with_uid() {
  const int rank = env_int("NVSHMRUN_RANK");
  const int size = env_int("NVSHMRUN_SIZE");
  const char *file = getenv("PERFTEST_UID_FILE");
  if (!file || !*file) fail("PERFTEST_BOOTSTRAP=uid needs PERFTEST_UID_FILE, a path all PEs can read");
  if (rank >= size) fail("NVSHMRUN_RANK=%d is not below NVSHMRUN_SIZE=%d", rank, size);
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) {
    if (nvshmemx_get_uniqueid(&id) != 0) fail("nvshmemx_get_uniqueid failed");
    publish_uid(file, id);
  } else {
    read_uid(file, &id);
  }
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr) != 0) fail("nvshmemx_set_attr_uniqueid_args failed");
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) fail("nvshmemx_init_attr (unique id) failed");
  g.initialized = true;
  nvshmem_barrier_all();  // every PE has read the file
  if (rank == 0) unlink(file);
}

/* splitmix64: a fast, well-mixed stream of 64-bit words from a seed. */
void fill_pattern(unsigned char *out, size_t bytes, int pe) {
  uint64_t state = 0x243F6A8885A308D3ull ^ (static_cast<uint64_t>(pe + 1) * 0x9E3779B97F4A7C15ull);
  for (size_t offset = 0; offset < bytes; offset += sizeof(uint64_t)) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    memcpy(out + offset, &z, std::min(sizeof(z), bytes - offset));
  }
}

}  // namespace

void cuda_check(cudaError_t err, const char *what, const char *file, int line) {
  if (err != cudaSuccess)
    fail("%s failed at %s:%d: %s (%s)", what, file, line, cudaGetErrorString(err), cudaGetErrorName(err));
}

void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: PE %s: ", g.job.c_str(), pe_label().c_str());
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
  fflush(stderr);
  if (g.initialized) nvshmem_global_exit(1);
  exit(1);
}

Options parse_options(int argc, char **argv, const char *job, const char *what, unsigned features) {
  g.job = job;
  enum : int { kOptBidir = 1000, kOptNoCheck, kOptCudaGraph, kOptNoQuiet };
  static const struct option long_options[] = {
      {"min_size", required_argument, nullptr, 'b'},
      {"max_size", required_argument, nullptr, 'e'},
      {"step", required_argument, nullptr, 'f'},
      {"iters", required_argument, nullptr, 'n'},
      {"warmup_iters", required_argument, nullptr, 'w'},
      {"ctas", required_argument, nullptr, 'c'},
      {"threads_per_cta", required_argument, nullptr, 't'},
      {"runs", required_argument, nullptr, 'r'},
      {"bidir", no_argument, nullptr, kOptBidir},
      {"no_check", no_argument, nullptr, kOptNoCheck},
      {"datatype", required_argument, nullptr, 'd'},
      {"reduce_op", required_argument, nullptr, 'o'},
      {"cudagraph", no_argument, nullptr, kOptCudaGraph},
      {"no_quiet", no_argument, nullptr, kOptNoQuiet},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  Options opt;
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":b:e:f:n:w:c:t:r:d:o:h", long_options, nullptr)) != -1) {
    const char *name = argv[optind - 1];
    switch (c) {
      case 'b':
        opt.min_size = number_arg(job, "-b", optarg, 1, SIZE_MAX);
        break;
      case 'e':
        opt.max_size = number_arg(job, "-e", optarg, 1, SIZE_MAX);
        break;
      case 'f':
        opt.step = number_arg(job, "-f", optarg, 2, SIZE_MAX);
        break;
      case 'n':
        opt.iters = static_cast<int>(number_arg(job, "-n", optarg, 1, INT_MAX));
        break;
      case 'w':
        opt.warmup = static_cast<int>(number_arg(job, "-w", optarg, 0, INT_MAX));
        break;
      case 'r':
        opt.runs = static_cast<int>(number_arg(job, "-r", optarg, 1, INT_MAX));
        break;
      case 'c':
        if (!(features & kGrid)) usage_error(job, "option -c is not used by this test");
        opt.ctas = static_cast<int>(number_arg(job, "-c", optarg, 1, INT_MAX));
        break;
      case 't':
        if (!(features & (kGrid | kThreads))) usage_error(job, "option -t is not used by this test");
        opt.threads = static_cast<int>(number_arg(job, "-t", optarg, 1, 1024));
        break;
      case kOptBidir:
        if (!(features & kBidir)) usage_error(job, "option --bidir is not used by this test");
        opt.bidir = true;
        break;
      case kOptNoCheck:
        opt.check = false;
        break;
      case 'd':
        if (!(features & kDatatype)) usage_error(job, "option -d is not used by this test");
        opt.datatype = optarg;
        break;
      case 'o':
        if (!(features & kReduceOp)) usage_error(job, "option -o is not used by this test");
        opt.reduce_op = optarg;
        break;
      case kOptCudaGraph:
        if (!(features & kCudaGraph)) usage_error(job, "option --cudagraph is not used by this test");
        opt.cudagraph = true;
        break;
      case kOptNoQuiet:
        if (!(features & kNoQuiet)) usage_error(job, "option --no_quiet is not used by this test");
        opt.quiet = false;
        break;
      case 'h':
        print_help(job, what, features);
        exit(0);
      case ':':
        usage_error(job, "option %s needs a value", name);
      default:
        usage_error(job, "unknown option %s", name);
    }
  }
  if (optind < argc) usage_error(job, "unexpected argument '%s'", argv[optind]);
  if (opt.min_size > opt.max_size) usage_error(job, "-b %zu is larger than -e %zu", opt.min_size, opt.max_size);
  return opt;
}

std::vector<size_t> sizes(const Options &opt) {
  std::vector<size_t> out;
  for (size_t size = opt.min_size; size <= opt.max_size; size *= opt.step) {
    out.push_back(size);
    if (size > SIZE_MAX / opt.step) break;
  }
  return out;
}

void init(const char *job) {
  g.job = job;
  g.started = time(nullptr);
  select_gpu();
  const char *boot = getenv("PERFTEST_BOOTSTRAP");
  if (!boot || !*boot || strcmp(boot, "default") == 0) {
    nvshmem_init();
    g.initialized = true;
  } else if (strcmp(boot, "uid") == 0) {
    init_with_uid();
  } else {
    fail("PERFTEST_BOOTSTRAP='%s': expected 'uid' or nothing", boot);
  }
  g.scratch = static_cast<double *>(nvshmem_malloc(2 * sizeof(double)));
  if (!g.scratch) fail("nvshmem_malloc of %zu bytes failed", 2 * sizeof(double));
  cudaPointerAttributes attributes{};
  g.heap_on_device =
      cudaPointerGetAttributes(&attributes, g.scratch) == cudaSuccess && attributes.type == cudaMemoryTypeDevice;
  (void)cudaGetLastError();  // the query fails where no GPU is visible: a host heap
}

int finalize() {
  nvshmem_free(g.scratch);
  g.scratch = nullptr;
  nvshmem_finalize();
  g.initialized = false;
  return g.failures ? 1 : 0;
}

int my_pe() {
  return nvshmem_my_pe();
}
int n_pes() {
  return nvshmem_n_pes();
}
void barrier_all() {
  nvshmem_barrier_all();
}
bool heap_on_device() {
  return g.heap_on_device;
}

void require_pes(int n) {
  if (nvshmem_n_pes() == n) return;
  if (nvshmem_my_pe() == 0)
    fprintf(stderr, "%s: needs exactly %d PEs, this job has %d (start it with: nvshmrun -n %d %s ...)\n", g.job.c_str(),
            n, nvshmem_n_pes(), n, g.job.c_str());
  finalize();
  exit(1);
}

void require_device_heap() {
  if (g.heap_on_device) return;
  if (nvshmem_my_pe() == 0)
    fprintf(stderr, "%s: skipped: needs the symmetric heap in GPU memory; the library runs its CPU backend here\n",
            g.job.c_str());
  finalize();
  exit(kSkipStatus);
}

void copy_to_symmetric(void *dest, const void *source, size_t bytes) {
  if (g.heap_on_device)
    PERFTEST_CUDA_CHECK(cudaMemcpy(dest, source, bytes, cudaMemcpyHostToDevice));
  else
    memcpy(dest, source, bytes);
}

void copy_from_symmetric(void *dest, const void *source, size_t bytes) {
  if (g.heap_on_device)
    PERFTEST_CUDA_CHECK(cudaMemcpy(dest, source, bytes, cudaMemcpyDeviceToHost));
  else
    memcpy(dest, source, bytes);
}

double sum_over_pes(double value) {
  copy_to_symmetric(&g.scratch[0], &value, sizeof(value));
  nvshmem_barrier_all();
  double total = value;
  for (int pe = 0; pe < nvshmem_n_pes(); ++pe) {
    if (pe == nvshmem_my_pe()) continue;
    nvshmem_getmem(&g.scratch[1], &g.scratch[0], sizeof(double), pe);
    double theirs = 0;
    copy_from_symmetric(&theirs, &g.scratch[1], sizeof(theirs));
    total += theirs;
  }
  nvshmem_barrier_all();  // nobody overwrites scratch[0] before every PE has read it
  return total;
}

Payload::Payload(const Options &opt, void *source, int from_pe) : enabled_(opt.check) {
  if (!enabled_) return;
  std::vector<unsigned char> mine(opt.max_size);
  fill_pattern(mine.data(), mine.size(), nvshmem_my_pe());
  copy_to_symmetric(source, mine.data(), mine.size());
  if (from_pe >= 0) {
    expected_.resize(opt.max_size);
    fill_pattern(expected_.data(), expected_.size(), from_pe);
  }
}

void Payload::poison(void *dest, size_t bytes) const {
  if (!enabled_ || expected_.empty()) return;
  // Every byte differs from the expected one, so any byte the operation did not write shows.
  std::vector<unsigned char> inverse(expected_.begin(), expected_.begin() + static_cast<ptrdiff_t>(bytes));
  for (unsigned char &b : inverse) b = static_cast<unsigned char>(~b);
  copy_to_symmetric(dest, inverse.data(), bytes);
}

bool Payload::verify(const void *dest, size_t bytes) const {
  if (!enabled_ || expected_.empty()) return true;
  std::vector<unsigned char> got(bytes);
  copy_from_symmetric(got.data(), dest, bytes);
  if (memcmp(got.data(), expected_.data(), bytes) == 0) return true;
  size_t first = bytes, wrong = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (got[i] == expected_[i]) continue;
    if (first == bytes) first = i;
    ++wrong;
  }
  fprintf(
      stderr,
      "%s: PE %d: check FAILED at size %zu: %zu of %zu bytes differ, first at offset %zu (0x%02x, expected 0x%02x)\n",
      g.job.c_str(), nvshmem_my_pe(), bytes, wrong, bytes, first, got[first], expected_[first]);
  ++g.failures;
  return false;
}

Report::Report(std::string job, std::vector<Column> columns) : job_(std::move(job)), columns_(std::move(columns)) {
  const char *env = getenv("NVSHMEM_MACHINE_READABLE_OUTPUT");
  machine_readable_ = env && strcmp(env, "1") == 0;
  if (nvshmem_my_pe() != 0) return;
  if (const char *path = getenv("PERFTEST_JSON"); path && *path) {
    json_ = fopen(path, "a");
    if (!json_) fail("cannot open PERFTEST_JSON=%s: %s", path, strerror(errno));
  }
  printf("#%s\n%-14s", job_.c_str(), "size(B)");
  for (const Column &column : columns_) printf(" %16s", (column.metric + "(" + column.unit + ")").c_str());
  printf("\n");
  fflush(stdout);
}

void Report::add(size_t size, const std::vector<double> &values, bool check_ok) {
  const double failed_pes = sum_over_pes(check_ok ? 0.0 : 1.0);
  if (nvshmem_my_pe() != 0) return;
  printf("%-14zu", size);
  for (double value : values) printf(" %16.2f", value);
  if (failed_pes > 0) printf("  check FAILED on %d PE(s)", static_cast<int>(failed_pes));
  printf("\n");
  if (machine_readable_)
    for (size_t i = 0; i < values.size() && i < columns_.size(); ++i)
      printf("&&&& PERF %s___size__%zu___%s %.3f %c%s\n", job_.c_str(), size, columns_[i].metric.c_str(), values[i],
             columns_[i].lower_is_better ? '-' : '+', columns_[i].unit.c_str());
  fflush(stdout);
  if (!json_) return;
  // Job, metric and unit names are ours (letters, digits, '_', '/', '(' ')'): no JSON escaping needed.
  for (size_t i = 0; i < values.size() && i < columns_.size(); ++i)
    fprintf(json_,
            "{\"test\": \"%s\", \"library\": \"%s\", \"pes\": %d, \"size\": %zu, \"metric\": \"%s\", \"unit\": \"%s\", "
            "\"lower_is_better\": %s, \"value\": %.4f, \"check\": %s}\n",
            job_.c_str(), NVSHMEM_VENDOR_STRING, nvshmem_n_pes(), size, columns_[i].metric.c_str(),
            columns_[i].unit.c_str(), columns_[i].lower_is_better ? "true" : "false", values[i],
            failed_pes > 0 ? "false" : "true");
  fflush(json_);
}

Report::~Report() {
  if (json_) fclose(json_);
}

double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  const size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + static_cast<ptrdiff_t>(mid), samples.end());
  if (samples.size() % 2) return samples[mid];
  const double upper = samples[mid];
  return (*std::max_element(samples.begin(), samples.begin() + static_cast<ptrdiff_t>(mid)) + upper) / 2;
}

GpuTimer::GpuTimer() {
  PERFTEST_CUDA_CHECK(cudaEventCreate(&start_));
  PERFTEST_CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void GpuTimer::start(cudaStream_t stream) {
  PERFTEST_CUDA_CHECK(cudaEventRecord(start_, stream));
}

double GpuTimer::stop_seconds(cudaStream_t stream) {
  PERFTEST_CUDA_CHECK(cudaEventRecord(stop_, stream));
  PERFTEST_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  PERFTEST_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms / 1e3;
}

int run_one_sided(int argc, char **argv, const OneSidedTest &t, const OneSidedLaunch &launch) {
  const Options opt = parse_options(argc, argv, t.job, t.what, t.features | (t.latency ? 0u : unsigned{kGrid}));
  init(t.job);
  require_pes(2);
  require_device_heap();
  const int me = my_pe();
  void *source = nvshmem_malloc(opt.max_size);
  void *dest = nvshmem_malloc(opt.max_size);
  if (!source || !dest) fail("nvshmem_malloc of 2 x %zu bytes failed", opt.max_size);
  const Payload payload(opt, source, me == t.receiver ? 1 - me : -1);
  cudaStream_t stream;
  PERFTEST_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer;
  Report::Column column{"bw", "GB/s"};
  if (t.latency) column = {opt.quiet ? "latency" : "latency_no_quiet", "us", true};
  Report report(t.job, {column});
  for (size_t size : sizes(opt)) {
    const size_t bytes = size < t.granule ? t.granule : size / t.granule * t.granule;
    if (me == t.receiver) payload.poison(dest, bytes);
    const double s = time_runs(opt, me == 0, stream, timer, size, [&](size_t, int iters) {
      launch(dest, source, bytes, iters, stream, opt);
      PERFTEST_LAUNCH_CHECK();
    });
    const bool ok = me != t.receiver || payload.verify(dest, bytes);
    const double mine = me != 0 ? 0 : t.latency ? s / opt.iters * 1e6 : gbps(static_cast<double>(bytes) * opt.iters, s);
    report.add(bytes, {sum_over_pes(mine)}, ok);
  }
  PERFTEST_CUDA_CHECK(cudaStreamDestroy(stream));
  nvshmem_free(dest);
  nvshmem_free(source);
  return finalize();
}

}  // namespace perftest
