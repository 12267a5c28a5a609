// SPDX-License-Identifier: BSD-3-Clause
#include "remote/proxy.hpp"

#include <sched.h>

#include <chrono>
#include <string>
#include <utility>

#include "common/log.hpp"
#include "cuda/driver.hpp"

namespace nvshm {
namespace {

constexpr const char *kWhere = "proxy";

static_assert(static_cast<int>(AtomicOp::fetch) == NVSHM_PROXY_AMO_FETCH &&
                  static_cast<int>(AtomicOp::set) == NVSHM_PROXY_AMO_SET &&
                  static_cast<int>(AtomicOp::swap) == NVSHM_PROXY_AMO_SWAP &&
                  static_cast<int>(AtomicOp::compare_swap) == NVSHM_PROXY_AMO_COMPARE_SWAP &&
                  static_cast<int>(AtomicOp::add) == NVSHM_PROXY_AMO_ADD &&
                  static_cast<int>(AtomicOp::and_) == NVSHM_PROXY_AMO_AND &&
                  static_cast<int>(AtomicOp::or_) == NVSHM_PROXY_AMO_OR &&
                  static_cast<int>(AtomicOp::xor_) == NVSHM_PROXY_AMO_XOR &&
                  static_cast<int>(AtomicOp::float_add) == NVSHM_PROXY_AMO_FLOAT_ADD,
              "nvshm_proxy_amo follows AtomicOp");

// `names[i]`, or "?" past the end.
template <std::size_t N>
const char *name_of(const char *const (&names)[N], unsigned i) {
  return i < N ? names[i] : "?";
}

const char *op_name(uint32_t op) {
  static const char *const names[] = {"?",    "put",  "get",   "inline put", "atomic",      "put_signal",
                                      "iput", "iget", "fence", "quiet",      "global_exit", "collective"};
  return name_of(names, op);
}

// One line of the trace: the operation and what it names.
std::string describe(const nvshm_proxy_request &r) {
  static const char *const amos[] = {"fetch", "set", "swap", "compare_swap", "add", "and", "or", "xor", "float add"};
  static const char *const colls[] = {"broadcast", "fcollect", "alltoall", "reduce", "reducescatter", "tile push"};
  char line[160];
  const auto offset = static_cast<unsigned long long>(r.offset);
  const auto bytes = static_cast<unsigned long long>(r.bytes);
  switch (r.op) {
    case NVSHM_PROXY_FENCE:
    case NVSHM_PROXY_QUIET:
      return op_name(r.op);
    case NVSHM_PROXY_GLOBAL_EXIT:
      snprintf(line, sizeof line, "global_exit with status %d", static_cast<int>(r.value));
      break;
    case NVSHM_PROXY_COLLECTIVE:
      snprintf(line, sizeof line, "%s on team %d", name_of(colls, r.aux & 7), r.pe);
      break;
    case NVSHM_PROXY_ATOMIC:
      snprintf(line, sizeof line, "atomic %s of %u bytes at offset %#llx of PE %d", name_of(amos, r.aux & 0xff),
               r.aux >> 8, offset, r.pe);
      break;
    case NVSHM_PROXY_PUT_SIGNAL:
      snprintf(line, sizeof line, "put_signal of %llu bytes at offset %#llx of PE %d, signal %s at offset %#llx", bytes,
               offset, r.pe, name_of(amos, r.aux), static_cast<unsigned long long>(r.extra));
      break;
    case NVSHM_PROXY_IPUT:
    case NVSHM_PROXY_IGET:
      snprintf(line, sizeof line, "%s of %llu elements of %u bytes at offset %#llx of PE %d", op_name(r.op), bytes,
               r.aux, offset, r.pe);
      break;
    default:
      snprintf(line, sizeof line, "%s of %llu bytes at offset %#llx of PE %d", op_name(r.op), bytes, offset, r.pe);
  }
  return line;
}

void store_release(uint64_t *p, uint64_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

// The completion record of `ticket`: its value, then its tag (the producer waits for the tag).
void write_record(nvshm_proxy_channel &ch, uint64_t ticket, uint64_t value) {
  nvshm_proxy_done &d = ch.done[ticket % NVSHM_PROXY_ENTRIES];
  __atomic_store_n(&d.value, value, __ATOMIC_RELAXED);
  store_release(&d.tag, ticket + 1);
}

}  // namespace

Proxy::Proxy(RemoteEngine &engine, nvshm_proxy_channel *channels, int n_channels, int n_pes, int batch_max,
             CUcontext context, void (*global_exit)(int), Status (*collective)(const nvshm_proxy_request &))
    : engine_(engine),
      global_exit_(global_exit),
      collective_(collective),
      channels_(channels),
      n_channels_(n_channels),
      n_pes_(n_pes),
      batch_max_(batch_max),
      cursors_(n_channels),
      context_(context) {
  for (Cursor &c : cursors_) {
    c.acked_by_producer.assign(NVSHM_PROXY_ENTRIES, true);
    c.collective_running.reset(new std::atomic<bool>[NVSHM_PROXY_ENTRIES]());
  }
  thread_ = std::thread([this] { loop(); });
}

Proxy::~Proxy() {
  stop();
}

void Proxy::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  thread_.join();
  for (auto &[team, w] : teams_) {  // each runs what it holds, then ends
    {
      std::lock_guard<std::mutex> lock(w->mutex);
      w->stop = true;
    }
    w->wake.notify_one();
    w->thread.join();
  }
}

void Proxy::start_collective(int c, uint64_t ticket, const nvshm_proxy_request &r) {
  std::unique_ptr<TeamWorker> &w = teams_[r.pe];
  if (!w) {
    w = std::make_unique<TeamWorker>();
    w->thread = std::thread([this, worker = w.get()] { team_loop(*worker); });
  }
  cursors_[c].collective_running[ticket % NVSHM_PROXY_ENTRIES].store(true, std::memory_order_relaxed);
  if (r.flags & NVSHM_PROXY_DONE) cursors_[c].acked_by_producer[ticket % NVSHM_PROXY_ENTRIES] = false;
  {
    std::lock_guard<std::mutex> lock(w->mutex);
    w->jobs.push_back({r, c, ticket});
  }
  w->wake.notify_one();
}

void Proxy::team_loop(TeamWorker &w) {
  ContextGuard guard(context_);  // host collectives copy to and from GPU memory
  for (;;) {
    TeamWorker::Job job;
    {
      std::unique_lock<std::mutex> lock(w.mutex);
      w.wake.wait(lock, [&] { return w.stop || !w.jobs.empty(); });
      if (w.jobs.empty()) return;  // stopping, and everything handed over ran
      job = w.jobs.front();
      w.jobs.pop_front();
    }
    nvshm_proxy_channel &ch = channels_[job.channel];
    // The host collective's own messages name it, the team and the cause.
    if (collective_(job.request) != Status::ok) __atomic_store_n(&ch.error, 1, __ATOMIC_RELAXED);
    const unsigned e = job.ticket % NVSHM_PROXY_ENTRIES;
    if (job.request.flags & NVSHM_PROXY_DONE) write_record(ch, job.ticket, 0);
    cursors_[job.channel].collective_running[e].store(false, std::memory_order_release);
  }
}

void Proxy::loop() {
  loop_id_.store(std::this_thread::get_id());  // settle() on this thread returns at once
  ContextGuard guard(context_);                // the staged path copies to and from GPU memory on this thread
  unsigned idle = 0;
  for (;;) {
    const bool stopping = stop_.load(std::memory_order_acquire);
    int taken = 0;
    for (int c = 0; c < n_channels_; ++c) {
      taken += drain(c);
      release(c);
    }
    watch_engine();
    if (stopping && !taken) break;  // every request written before the stop was executed
    if (taken) {
      idle = 0;
    } else if (++idle < 1024) {
      sched_yield();
    } else if (nbi_pending_) {
      // Idle a while after atomics issued without waiting: complete them, so that a PE that stopped answering
      // (a hung process the network does not report) fails the device's waits within the engine's timeout.
      nbi_pending_ = false;
      if (engine_.quiet() != Status::ok) fail_every_channel("completing atomics and signals issued without waiting");
    } else {  // long idle: give the cores back, at 50 us of added latency for the next request
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

int Proxy::drain(int c) {
  nvshm_proxy_channel &ch = channels_[c];
  Cursor &cur = cursors_[c];
  int taken = 0;
  for (; taken < batch_max_; ++taken) {
    nvshm_proxy_request r;
    const uint64_t t = cur.head.load(std::memory_order_relaxed);
    if (!nvshm_proxy_decode(ch.entries[t % NVSHM_PROXY_ENTRIES], t, &r)) break;
    uint64_t value = 0;
    if (r.op == NVSHM_PROXY_QUIET && !in_quiet_) {
      // A quiet covers every channel: first take what the other channels already hold (requests other
      // blocks wrote before they synchronised with this one).
      in_quiet_ = true;
      for (int other = 0; other < n_channels_; ++other)
        if (other != c)
          while (drain(other) == batch_max_) {
          }
      in_quiet_ = false;
    }
    trace(c, t, r);
    if (r.op == NVSHM_PROXY_COLLECTIVE) {  // waits for other PEs: on its team's thread
      start_collective(c, t, r);
      cur.head.store(t + 1, std::memory_order_release);
      continue;
    }
    if (execute(r, &value) != Status::ok) {
      __atomic_store_n(&ch.error, 1, __ATOMIC_RELAXED);
      trace_[(traced_ - 1) % kTraceDepth].failed = true;
      tell_trace(true);
    }
    if (r.flags & NVSHM_PROXY_DONE) {
      write_record(ch, t, value);
      cur.acked_by_producer[t % NVSHM_PROXY_ENTRIES] = false;
    }
    cur.head.store(t + 1, std::memory_order_release);
  }
  return taken;
}

Status Proxy::settle(const char *call) const {
  if (std::this_thread::get_id() == loop_id_.load()) return Status::ok;
  for (int c = 0; c < n_channels_; ++c) {
    const nvshm_proxy_channel &ch = channels_[c];
    const std::atomic<uint64_t> &head = cursors_[c].head;
    // The end of what is written: entries decode only with their own ticket's lap, so the scan stops at
    // the first entry not yet written (or written again after the proxy took it: executed either way).
    const uint64_t start = head.load(std::memory_order_acquire);
    uint64_t end = start;
    nvshm_proxy_request r;
    while (end - start < NVSHM_PROXY_ENTRIES && nvshm_proxy_decode(ch.entries[end % NVSHM_PROXY_ENTRIES], end, &r))
      ++end;
    const uint64_t began = nvshm_proxy_now_ns();
    while (head.load(std::memory_order_acquire) < end) {
      if (nvshm_proxy_now_ns() - began > ch.timeout_ns) {
        log_error(kWhere, "%s: the proxy did not execute channel %d's requests %llu to %llu within %.3g s", call, c,
                  static_cast<unsigned long long>(head.load()), static_cast<unsigned long long>(end - 1),
                  static_cast<double>(ch.timeout_ns) * 1e-9);
        return Status::timeout;
      }
      sched_yield();
    }
  }
  return Status::ok;
}

void Proxy::fail_every_channel(const char *why) {
  log_error(kWhere, "%s: every device wait on the proxy fails from now on", why);
  for (int c = 0; c < n_channels_; ++c) __atomic_store_n(&channels_[c].error, 1, __ATOMIC_RELAXED);
  tell_trace(true);
}

void Proxy::trace(int c, uint64_t ticket, const nvshm_proxy_request &r) {
  trace_[traced_++ % kTraceDepth] = Taken{r, c, ticket, false};
}

void Proxy::tell_trace(bool failure) {
  if (failure ? std::exchange(failure_traced_, true) : !log_enabled(LogLevel::warn)) return;
  const uint64_t first = traced_ > kTraceDepth ? traced_ - kTraceDepth : 0;
  std::string text;
  for (uint64_t i = first; i < traced_; ++i) {
    const Taken &t = trace_[i % kTraceDepth];
    text += "\n  channel " + std::to_string(t.channel) + ", request " + std::to_string(t.ticket) + ": " +
            describe(t.request) + (t.failed ? "  <- failed" : "");
  }
  if (failure)
    log_error(kWhere, "the last %llu requests the proxy took, oldest first:%s",
              static_cast<unsigned long long>(traced_ - first), text.c_str());
  else
    log_msg(LogLevel::warn, kWhere, "device-initiated global exit; the last %llu requests the proxy took:%s",
            static_cast<unsigned long long>(traced_ - first), text.c_str());
}

void Proxy::watch_engine() {
  const int lost = engine_.unreachable_count();
  const uint64_t failed = engine_.unwaited_failures();
  if (lost == unreachable_seen_ && failed == failures_seen_) return;
  fail_every_channel(lost != unreachable_seen_ ? "a remote PE became unreachable (logged above)"
                                               : "an operation issued without waiting failed (logged above)");
  unreachable_seen_ = lost;
  failures_seen_ = failed;
}

void Proxy::release(int c) {
  nvshm_proxy_channel &ch = channels_[c];
  Cursor &cur = cursors_[c];
  const uint64_t before = cur.released;
  while (cur.released < cur.head.load(std::memory_order_relaxed)) {
    const unsigned e = cur.released % NVSHM_PROXY_ENTRIES;
    if (cur.collective_running[e].load(std::memory_order_acquire)) break;  // its record is not written yet
    if (!cur.acked_by_producer[e]) {
      if (__atomic_load_n(&ch.done[e].tag, __ATOMIC_ACQUIRE) != 0) break;  // its producer has not read it yet
      cur.acked_by_producer[e] = true;
    }
    ++cur.released;
  }
  if (cur.released != before) store_release(&ch.released, cur.released);
}

Status Proxy::execute(const nvshm_proxy_request &r, uint64_t *value) {
  const bool done = r.flags & NVSHM_PROXY_DONE;
  const bool needs_pe = r.op != NVSHM_PROXY_FENCE && r.op != NVSHM_PROXY_QUIET && r.op != NVSHM_PROXY_GLOBAL_EXIT;
  if (needs_pe && (r.pe < 0 || r.pe >= n_pes_)) {
    log_error(kWhere, "a request (%s) names PE %d of %d", op_name(r.op), r.pe, n_pes_);
    return Status::invalid_value;
  }
  void *local = reinterpret_cast<void *>(r.local);
  Status st = Status::ok;
  switch (r.op) {
    case NVSHM_PROXY_GLOBAL_EXIT:  // the job ends (requests not yet taken are not executed, as on the host)
      tell_trace(false);
      global_exit_(static_cast<int>(r.value));
      return Status::internal;  // global_exit_ does not return
    case NVSHM_PROXY_PUT:
      st = done ? engine_.put_local(r.pe, r.offset, local, r.bytes) : engine_.put_nbi(r.pe, r.offset, local, r.bytes);
      break;
    case NVSHM_PROXY_GET:
      if (r.bytes == 0) break;  // moves nothing, whatever the pointers (a group's get of 0 bytes into NULL)
      if (local == nullptr) {   // `g`: 1 to 8 bytes, returned in the completion record
        if (!done || r.bytes > sizeof *value) {
          log_error(kWhere, "a get of %llu bytes from PE %d into the completion record (1 to 8 bytes, waited for)",
                    static_cast<unsigned long long>(r.bytes), r.pe);
          return Status::invalid_value;
        }
        st = engine_.get(value, r.pe, r.offset, r.bytes);
        break;
      }
      st = done ? engine_.get(local, r.pe, r.offset, r.bytes) : engine_.get_nbi(local, r.pe, r.offset, r.bytes);
      break;
    case NVSHM_PROXY_PUT_INLINE:
      if (r.bytes == 0 || r.bytes > sizeof r.value) {
        log_error(kWhere, "an inline put of %llu bytes to PE %d (1 to 8 bytes are carried inline)",
                  static_cast<unsigned long long>(r.bytes), r.pe);
        return Status::invalid_value;
      }
      st = engine_.put_local(r.pe, r.offset, &r.value, r.bytes);  // the value lives in this frame
      break;
    case NVSHM_PROXY_ATOMIC: {  // without DONE: non-fetching, complete at the next quiet
      const AtomicArgs args{static_cast<AtomicOp>(r.aux & 0xff), r.aux >> 8, r.value, r.cond};
      st = done ? engine_.atomic(r.pe, r.offset, args, value) : engine_.atomic_nbi(r.pe, r.offset, args);
      nbi_pending_ |= !done;
      break;
    }
    case NVSHM_PROXY_PUT_SIGNAL:
      // The signal is ordered after the data: an order point for the PE between the two.
      st = done ? engine_.put_local(r.pe, r.offset, local, r.bytes) : engine_.put_nbi(r.pe, r.offset, local, r.bytes);
      if (st == Status::ok) st = engine_.fence();
      if (st == Status::ok) {
        st = engine_.atomic_nbi(r.pe, r.extra, AtomicArgs{static_cast<AtomicOp>(r.aux), 8, r.value, 0});
        nbi_pending_ = true;
      }
      break;
    case NVSHM_PROXY_IPUT:
    case NVSHM_PROXY_IGET: {
      const std::size_t elem = r.aux;
      const auto remote_stride = static_cast<std::ptrdiff_t>(r.cond),
                 local_stride = static_cast<std::ptrdiff_t>(r.extra);
      char *l = static_cast<char *>(local);
      for (uint64_t i = 0; i < r.bytes && st == Status::ok; ++i) {
        const std::size_t at = r.offset + static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) * remote_stride);
        void *e = l + static_cast<std::ptrdiff_t>(i) * local_stride;
        st = r.op == NVSHM_PROXY_IPUT ? engine_.put_nbi(r.pe, at, e, elem) : engine_.get_nbi(e, r.pe, at, elem);
      }
      if (st == Status::ok && done) st = engine_.quiet();
      break;
    }
    case NVSHM_PROXY_FENCE:
      st = engine_.fence();
      break;
    case NVSHM_PROXY_QUIET:
      st = engine_.quiet();
      nbi_pending_ = false;  // completed (or failed into this channel)
      break;
    default:
      log_error(kWhere, "a request with operation %u (not one of this library's)", r.op);
      return Status::invalid_value;
  }
  if (st != Status::ok) {
    log_error(kWhere, "a device-initiated %s of %llu bytes at offset %llu of PE %d failed", op_name(r.op),
              static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(r.offset), r.pe);
    if (st == Status::timeout) hint_lazy_loading();
  }
  return st;
}

void Proxy::hint_lazy_loading() {
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (!context_ || lazy_hint_given_.exchange(true) || driver().cuModuleGetLoadingMode(&mode) != CUDA_SUCCESS ||
      mode != CU_MODULE_LAZY_LOADING)
    return;
  log_error(kWhere,
            "CUDA lazy loading is on: a kernel's first launch while another kernel waits for a remote PE hangs a "
            "job so; set CUDA_MODULE_LOADING=EAGER or load each kernel first (cudaFuncGetAttributes) "
            "(docs/remote.md, \"First launches\")");
}

}  // namespace nvshm
