// SPDX-License-Identifier: BSD-3-Clause
// The host proxy (docs/proxy.md): one thread per PE that drains the proxy channels (rings of requests
// to remote PEs, include/nvshmem_detail/proxy_ring.h, written by device code) and executes each
// request with the remote engine, writing completion records where the producer waits for them.
// May use: what remote/ uses. See src/remote/README.md.
#pragma once
#include <cuda.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nvshmem_detail/proxy_ring.h"
#include "remote/engine.hpp"

namespace nvshm {

class Proxy {
 public:
  // Starts the thread. `channels` (host view) stay valid and zeroed before the first request, except
  // each channel's timeout_ns, which the caller sets; `batch_max` requests of a channel are taken per
  // round (NVSHMEM_PROXY_REQUEST_BATCH_MAX); `context` is made current on the thread (GPU heap);
  // `global_exit` ends the process with a status (nvshmem_global_exit), for a GLOBAL_EXIT request;
  // `collective` runs a COLLECTIVE request (a host collective on the request's team) and returns its status:
  // on a thread of the request's team, which runs that team's collectives in the order the proxy takes them,
  // while the proxy goes on with the other requests and other teams' collectives run on their own threads.
  Proxy(RemoteEngine &engine, nvshm_proxy_channel *channels, int n_channels, int n_pes, int batch_max,
        CUcontext context, void (*global_exit)(int), Status (*collective)(const nvshm_proxy_request &));
  ~Proxy();  // stop()
  // Stops the threads once they have executed every request written before the call; the object stays
  // valid meanwhile, so that a collective still running on a team thread may settle (the runtime's host
  // collectives reach the proxy through the runtime). Idempotent; not concurrent with itself.
  void stop();
  Proxy(const Proxy &) = delete;
  Proxy &operator=(const Proxy &) = delete;

  // Returns once the thread has executed every request written into a channel before the call (those of
  // kernels that completed before a host quiet or barrier: the host's quiet then covers them, as a user
  // of NVSHMEM expects after a kernel, a stream synchronisation and nvshmem_barrier_all). A request still
  // being written is not waited for, nor a collective still running (its kernel waits for it; the host
  // collective that runs it settles too). On the proxy's own thread returns at once. Status::timeout,
  // logged with `call`, after the channels' timeout_ns.
  Status settle(const char *call) const;

 private:
  struct Cursor {
    std::atomic<uint64_t> head{0};        // next ticket to take: those below it are executed (settle)
    uint64_t released = 0;                // tickets below it are free (published in the channel)
    std::vector<bool> acked_by_producer;  // per entry: no completion record is waiting to be read
    std::unique_ptr<std::atomic<bool>[]> collective_running;  // per entry: its collective has not finished
  };
  // The collectives of one team, run in order on the team's thread.
  struct TeamWorker {
    struct Job {
      nvshm_proxy_request request;
      int channel;
      uint64_t ticket;
    };
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<Job> jobs;
    bool stop = false;
    std::thread thread;
  };
  void loop();
  // Hands the collective of `ticket` on channel `c` to its team's thread (made at the team's first one).
  void start_collective(int c, uint64_t ticket, const nvshm_proxy_request &r);
  void team_loop(TeamWorker &w);
  // Takes up to batch_max requests of channel `c`; returns how many.
  int drain(int c);
  // Executes `r`; *value receives an atomic's old value. Logs failures with the operation and the PE.
  Status execute(const nvshm_proxy_request &r, uint64_t *value);
  // Frees the entries taken whose completion records (if any) the producer has read.
  void release(int c);
  // Raises every channel's error word (each device wait on a channel watches it: a request's record, a
  // quiet, a leader's signal) after logging `why`.
  void fail_every_channel(const char *why);
  // fail_every_channel() when the engine reports a PE unreachable that it had not before, or a failure of an
  // operation no one waits for (a signal): the device's waits end with the proxy's message instead of
  // waiting for that PE or that signal until the launcher's timeout.
  void watch_engine();
  // Notes request `r` (ticket `ticket` of channel `c`) as taken, in the trace of the last ones.
  void trace(int c, uint64_t ticket, const nvshm_proxy_request &r);
  // Logs the trace, oldest first, marking the request that failed (if any): at the first failure the proxy
  // sees, as an error, and before a device-initiated global exit, as a warning (NVSHMEM_DEBUG=WARN).
  void tell_trace(bool failure);
  // After a device-initiated request timed out on a GPU heap: when CUDA's lazy loading is on, names it as the
  // likely cause, once per process (docs/remote.md, "First launches").
  void hint_lazy_loading();

  RemoteEngine &engine_;
  void (*const global_exit_)(int);
  Status (*const collective_)(const nvshm_proxy_request &);
  nvshm_proxy_channel *const channels_;
  const int n_channels_, n_pes_, batch_max_;
  std::vector<Cursor> cursors_;
  bool in_quiet_ = false;       // draining the other channels before a quiet marker
  bool nbi_pending_ = false;    // atomics issued with atomic_nbi since the engine's last quiet on this thread
  int unreachable_seen_ = 0;    // engine_.unreachable_count() when last looked at
  uint64_t failures_seen_ = 0;  // engine_.unwaited_failures() when last looked at
  // The last kTraceDepth requests taken (SCALE-OUT 6.9): what the device asked for just before a failure.
  // The proxy thread's.
  struct Taken {
    nvshm_proxy_request request;
    int channel;
    uint64_t ticket;
    bool failed;
  };
  static constexpr int kTraceDepth = 16;
  std::array<Taken, kTraceDepth> trace_{};
  uint64_t traced_ = 0;          // requests noted in trace_ since the start
  bool failure_traced_ = false;  // the trace was logged for a failure (once per proxy)
  std::atomic<bool> stop_{false};
  std::atomic<bool> lazy_hint_given_{false};
  const CUcontext context_;                           // made current on every thread of the proxy
  std::atomic<std::thread::id> loop_id_{};            // the draining thread's, set before it makes team threads
  std::map<int, std::unique_ptr<TeamWorker>> teams_;  // by team handle; the proxy thread's (the destructor's after it)
  std::thread thread_;
};

}  // namespace nvshm
