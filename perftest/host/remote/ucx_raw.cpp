// SPDX-License-Identifier: BSD-3-Clause
/* ucx_raw: what UCX itself gives between the same two PEs, beside `lat` and `bw` (docs/remote.md).
 *
 * UCP is called directly on a buffer this program maps itself (ucp_mem_map; taken from the symmetric heap
 * so that it is memory of the same kind, and puts pass its handle as the library's puts from the heap
 * do); NVSHMEM only carries the exchange of worker addresses and remote keys and the barriers. The UCP set-up is the
 * library engine's: thread mode multi, endpoints with peer error handling, UCX_ATOMIC_MODE=cpu unless the user set it,
 * and a progress thread on every PE (NVSHMEM_REMOTE_PROGRESS=spin polls, anything else sleeps on the worker's file
 * descriptor), so that both programs run under the same conditions. For each size PE 0 reports, timed as `lat` and `bw`
 * time theirs: put_flush (ucp_put_nbx + ucp_ep_flush_nbx, the library's putmem + quiet), get (ucp_get_nbx, the
 * library's getmem), fadd (8-byte ucp_atomic_op_nbx ADD with reply, the library's fetch_add) in microseconds per
 * operation, the median of -r runs of -n operations; and bw (-n puts in flight, then one flush: the library's
 * putmem_nbi loop + quiet) in GB/s, the median of -r runs of one such batch. PE 1 verifies the data. */
#include <nvshmem.h>
#include <poll.h>
#include <sched.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "perftest.h"

namespace {

constexpr const char *kJob = "ucx_raw";
constexpr size_t kBlobMax = 4096;

void check(ucs_status_t s, const char *what) {
  if (s != UCS_OK) perftest::fail("%s: %s", what, ucs_status_string(s));
}

// Completes a request of a *_nbx call, progressing the worker; yields the CPU every 64 rounds, as the
// engine's waits do (on a machine with fewer cores than threads the other PE's threads need it).
void wait(ucp_worker_h worker, ucs_status_ptr_t r, const char *what) {
  if (r == nullptr) return;
  if (UCS_PTR_IS_ERR(r)) perftest::fail("%s: %s", what, ucs_status_string(UCS_PTR_STATUS(r)));
  ucs_status_t s;
  for (unsigned polls = 0; (s = ucp_request_check_status(r)) == UCS_INPROGRESS; ++polls) {
    ucp_worker_progress(worker);
    if ((polls & 63) == 63) sched_yield();
  }
  ucp_request_free(r);
  check(s, what);
}

}  // namespace

int main(int argc, char **argv) {
  const perftest::Options opt = perftest::parse_options(
      argc, argv, kJob, "raw UCP put+flush, get, fetch-add latency (us) and put bandwidth (GB/s), PE 0 to PE 1", 0);
  perftest::init(kJob);
  perftest::require_pes(2);
  const int me = perftest::my_pe(), peer = 1 - me;

  ucp_config_t *config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
  if (!getenv("UCX_ATOMIC_MODE")) check(ucp_config_modify(config, "ATOMIC_MODE", "cpu"), "ucp_config_modify");
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
  ucp_context_h context = nullptr;
  check(ucp_init(&params, config, &context), "ucp_init");
  ucp_config_release(config);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_MULTI;
  ucp_worker_h worker = nullptr;
  check(ucp_worker_create(context, &wp, &worker), "ucp_worker_create");

  // The registered buffer: the source or destination of the data, then the atomic word.
  // In the symmetric heap, so that it is memory of the library's kind (on the CPU backend shared memory
  // from a memfd); mapped by this program's own UCX context.
  const std::size_t words = (opt.max_size + 7) / 8 + 1;
  auto *memory = static_cast<uint64_t *>(nvshmem_calloc(words, sizeof(uint64_t)));
  if (!memory) perftest::fail("nvshmem_calloc of %zu bytes failed (raise NVSHMEM_SYMMETRIC_SIZE)", words * 8);
  char *buffer = reinterpret_cast<char *>(memory);
  uint64_t *word = memory + words - 1;
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = buffer;
  mp.length = words * sizeof(uint64_t);
  ucp_mem_h memh = nullptr;
  check(ucp_mem_map(context, &mp, &memh), "ucp_mem_map");

  // Blob: base address, address length, rkey length, address, rkey; exchanged through the heap.
  ucp_address_t *address = nullptr;
  size_t address_len = 0, rkey_len = 0;
  void *rkey_buf = nullptr;
  check(ucp_worker_get_address(worker, &address, &address_len), "ucp_worker_get_address");
  check(ucp_rkey_pack(context, memh, &rkey_buf, &rkey_len), "ucp_rkey_pack");
  std::vector<char> mine(kBlobMax, 0), theirs(kBlobMax);
  const uint64_t header[3] = {reinterpret_cast<uint64_t>(buffer), address_len, rkey_len};
  if (sizeof header + address_len + rkey_len > kBlobMax) perftest::fail("UCX blob larger than %zu bytes", kBlobMax);
  memcpy(mine.data(), header, sizeof header);
  memcpy(mine.data() + sizeof header, address, address_len);
  memcpy(mine.data() + sizeof header + address_len, rkey_buf, rkey_len);
  ucp_worker_release_address(worker, address);
  ucp_rkey_buffer_release(rkey_buf);
  char *blobs = static_cast<char *>(nvshmem_malloc(kBlobMax));
  nvshmem_putmem(blobs, mine.data(), kBlobMax, me);
  nvshmem_barrier_all();
  nvshmem_getmem(theirs.data(), blobs, kBlobMax, peer);
  uint64_t their_header[3];
  memcpy(their_header, theirs.data(), sizeof their_header);
  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;  // as the library's endpoints (and a forced close needs it)
  ep_params.address = reinterpret_cast<const ucp_address_t *>(theirs.data() + sizeof their_header);
  ucp_ep_h ep = nullptr;
  check(ucp_ep_create(worker, &ep_params, &ep), "ucp_ep_create");
  ucp_rkey_h rkey = nullptr;
  check(ucp_ep_rkey_unpack(ep, theirs.data() + sizeof their_header + their_header[1], &rkey), "ucp_ep_rkey_unpack");
  const uint64_t remote = their_header[0];
  const uint64_t remote_word = remote + (reinterpret_cast<char *>(word) - buffer);

  // Every PE's progress, as the library's engine does it.
  const char *mode = getenv("NVSHMEM_REMOTE_PROGRESS");
  const bool spin = mode && strcmp(mode, "spin") == 0;
  std::atomic<bool> stop{false};
  std::thread progress([&] {
    int efd = -1;
    if (!spin) check(ucp_worker_get_efd(worker, &efd), "ucp_worker_get_efd");
    while (!stop.load()) {
      if (ucp_worker_progress(worker) != 0) continue;
      if (spin) {
        sched_yield();
        continue;
      }
      if (ucp_worker_arm(worker) == UCS_ERR_BUSY) continue;
      pollfd p{efd, POLLIN, 0};
      poll(&p, 1, 100);
    }
  });

  // PE 0's source pattern; PE 1 checks it arrived.
  std::vector<char> pattern(opt.max_size), got(opt.max_size);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<char>(i * 31 + 7);
  if (me == 0) memcpy(buffer, pattern.data(), opt.max_size);
  ucp_request_param_t none{};
  // Puts from the registered buffer carry its memory handle, as the library's do from its heap.
  ucp_request_param_t mapped{};
  mapped.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH;
  mapped.memh = memh;
  ucp_request_param_t amo{};
  amo.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
  amo.datatype = ucp_dt_make_contig(8);
  uint64_t one = 1, reply = 0, adds = 0;
  amo.reply_buffer = &reply;

  perftest::Report report(
      kJob, {{"put_flush", "us", true}, {"get", "us", true}, {"fadd", "us", true}, {"bw", "GB/s", false}});
  for (size_t size : perftest::sizes(opt)) {
    if (me == 1) memset(buffer, 0x5A, size);
    // Microseconds per operation on PE 0 (-r runs of -n operations, the median), as `lat` times them.
    auto time_op = [&](auto &&op) { return perftest::pe0_seconds_per_call(opt, op) * 1e6; };
    const double put_us = time_op([&] {
      wait(worker, ucp_put_nbx(ep, buffer, size, remote, rkey, &mapped), "ucp_put_nbx");
      wait(worker, ucp_ep_flush_nbx(ep, &none), "ucp_ep_flush_nbx");
    });
    bool ok = me != 1 || memcmp(buffer, pattern.data(), size) == 0;
    if (!ok) fprintf(stderr, "%s: PE 1: the data of %zu bytes did not arrive (put_flush)\n", kJob, size);
    const double get_us = time_op([&] { wait(worker, ucp_get_nbx(ep, got.data(), size, remote, rkey, &none), "get"); });
    const double fadd_us = time_op([&] {
      wait(worker, ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &one, 1, remote_word, rkey, &amo), "fetch-add");
      if (reply != adds++)
        perftest::fail("fetch-add returned %llu, not %llu", (unsigned long long)reply, (unsigned long long)(adds - 1));
    });
    // Bandwidth as `bw` times it: a warm-up batch of -w puts, then -r runs of one batch of -n puts in
    // flight and one flush, each after a barrier; GB/s of the median run.
    auto put_batch = [&](int count) {
      for (int i = 0; i < count; ++i) {
        ucs_status_ptr_t r = ucp_put_nbx(ep, buffer, size, remote, rkey, &mapped);
        if (UCS_PTR_IS_ERR(r)) perftest::fail("ucp_put_nbx: %s", ucs_status_string(UCS_PTR_STATUS(r)));
        if (r) ucp_request_free(r);
      }
      wait(worker, ucp_ep_flush_nbx(ep, &none), "ucp_ep_flush_nbx");
    };
    if (me == 1) memset(buffer, 0x5A, size);
    nvshmem_barrier_all();
    if (me == 0) put_batch(opt.warmup);
    std::vector<double> seconds;
    for (int run = 0; run < opt.runs; ++run) {
      nvshmem_barrier_all();
      if (me == 0) seconds.push_back(perftest::host_seconds([&] { put_batch(opt.iters); }));
    }
    nvshmem_barrier_all();  // PE 0's batches are flushed: PE 1 may look
    if (me == 1 && memcmp(buffer, pattern.data(), size) != 0) {
      fprintf(stderr, "%s: PE 1: the data of %zu bytes did not arrive (bw)\n", kJob, size);
      ok = false;
    }
    const double bw = me == 0 ? perftest::gbps(static_cast<double>(size) * opt.iters, perftest::median(seconds)) : 0.0;
    report.add(size, {put_us, get_us, fadd_us, bw}, ok);
  }
  stop.store(true);
  ucp_worker_signal(worker);
  progress.join();
  nvshmem_barrier_all();
  ucp_rkey_destroy(rkey);
  ucp_request_param_t close{};
  close.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  close.flags = UCP_EP_CLOSE_FLAG_FORCE;
  wait(worker, ucp_ep_close_nbx(ep, &close), "ucp_ep_close_nbx");
  ucp_mem_unmap(context, memh);
  ucp_worker_destroy(worker);
  ucp_cleanup(context);
  nvshmem_free(blobs);
  nvshmem_free(memory);
  return perftest::finalize();
}
