// SPDX-License-Identifier: BSD-3-Clause
// The UCX engine (docs/remote.md): UCP one-sided operations on the peers' registered slots. libucp is
// loaded at run time (common/dl.hpp), so a one-node job never needs it; the types come from libucx-dev's
// headers at build time. One context and one worker per PE (thread mode multi: the calling threads and
// the progress thread all drive it); endpoints and remote keys are made on first use of a PE; a
// progress thread keeps the worker moving, which UCX over TCP needs for other PEs' operations on this
// PE's memory to complete at all. Every wait is bounded by NVSHMEM_BOOTSTRAP_TIMEOUT; a wait that gives
// up closes the PE's endpoint with force, so that UCX completes its requests before their buffers go.
// On the staged path (RemoteOptions::staged: a GPU heap that this UCX cannot register) every operation
// is an active message that the target's engine executes on its own slot through its mapped transport,
// and answers (docs/remote.md, "The staged path").
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <strings.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <set>
#include <shared_mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/dl.hpp"
#include "common/env.hpp"
#include "cuda/driver.hpp"
#include "common/log.hpp"
#include "heap/symmetric_heap.hpp"
#include "remote/bounce_pool.hpp"
#include "remote/engine.hpp"

namespace nvshm {
namespace {

constexpr const char *kUcpLibrary = "libucp.so.0";
constexpr const char *kWhere = "remote engine (UCX)";
// How long a wait that gave up waits for UCX to complete its request once the endpoint is closed.
constexpr int kAbandonSeconds = 2;

// The libucp functions the engine calls, bound once per process; the library is never unloaded.
struct UcpApi {
  decltype(&::ucp_get_version) get_version;
  decltype(&::ucp_config_read) config_read;
  decltype(&::ucp_config_modify) config_modify;
  decltype(&::ucp_config_release) config_release;
  decltype(&::ucp_init_version) init_version;
  decltype(&::ucp_cleanup) cleanup;
  decltype(&::ucp_worker_create) worker_create;
  decltype(&::ucp_worker_destroy) worker_destroy;
  decltype(&::ucp_worker_get_address) worker_get_address;
  decltype(&::ucp_worker_release_address) worker_release_address;
  decltype(&::ucp_worker_progress) worker_progress;
  decltype(&::ucp_worker_get_efd) worker_get_efd;
  decltype(&::ucp_worker_arm) worker_arm;
  decltype(&::ucp_worker_signal) worker_signal;
  decltype(&::ucp_mem_map) mem_map;
  decltype(&::ucp_mem_unmap) mem_unmap;
  decltype(&::ucp_rkey_pack) rkey_pack;
  decltype(&::ucp_rkey_buffer_release) rkey_buffer_release;
  decltype(&::ucp_ep_create) ep_create;
  decltype(&::ucp_ep_close_nbx) ep_close_nbx;
  decltype(&::ucp_ep_flush_nbx) ep_flush_nbx;
  decltype(&::ucp_ep_rkey_unpack) ep_rkey_unpack;
  decltype(&::ucp_rkey_destroy) rkey_destroy;
  decltype(&::ucp_put_nbx) put_nbx;
  decltype(&::ucp_get_nbx) get_nbx;
  decltype(&::ucp_atomic_op_nbx) atomic_op_nbx;
  decltype(&::ucp_worker_set_am_recv_handler) worker_set_am_recv_handler;
  decltype(&::ucp_am_send_nbx) am_send_nbx;
  decltype(&::ucp_request_check_status) request_check_status;
  decltype(&::ucp_request_free) request_free;
  decltype(&::ucs_status_string) status_string;
};

// The bound API, or nullptr (with the message logged) when libucp cannot be loaded.
const UcpApi *ucp_api() {
  static std::mutex mutex;
  static UcpApi api;
  static bool loaded = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded) return &api;
  void *h = dl_open(kUcpLibrary, kWhere, "UCX",
                    "the job has PEs on other nodes (or NVSHMEM_DISABLE_P2P=1): install UCX (Debian: libucx0) or set "
                    "NVSHMEM_REMOTE_TRANSPORT=none for a job on one node");
  if (!h) return nullptr;
  DlBinder bind(h);
  bind(&api.get_version, "ucp_get_version");
  bind(&api.config_read, "ucp_config_read");
  bind(&api.config_modify, "ucp_config_modify");
  bind(&api.config_release, "ucp_config_release");
  bind(&api.init_version, "ucp_init_version");
  bind(&api.cleanup, "ucp_cleanup");
  bind(&api.worker_create, "ucp_worker_create");
  bind(&api.worker_destroy, "ucp_worker_destroy");
  bind(&api.worker_get_address, "ucp_worker_get_address");
  bind(&api.worker_release_address, "ucp_worker_release_address");
  bind(&api.worker_progress, "ucp_worker_progress");
  bind(&api.worker_get_efd, "ucp_worker_get_efd");
  bind(&api.worker_arm, "ucp_worker_arm");
  bind(&api.worker_signal, "ucp_worker_signal");
  bind(&api.mem_map, "ucp_mem_map");
  bind(&api.mem_unmap, "ucp_mem_unmap");
  bind(&api.rkey_pack, "ucp_rkey_pack");
  bind(&api.rkey_buffer_release, "ucp_rkey_buffer_release");
  bind(&api.ep_create, "ucp_ep_create");
  bind(&api.ep_close_nbx, "ucp_ep_close_nbx");
  bind(&api.ep_flush_nbx, "ucp_ep_flush_nbx");
  bind(&api.ep_rkey_unpack, "ucp_ep_rkey_unpack");
  bind(&api.rkey_destroy, "ucp_rkey_destroy");
  bind(&api.put_nbx, "ucp_put_nbx");
  bind(&api.get_nbx, "ucp_get_nbx");
  bind(&api.atomic_op_nbx, "ucp_atomic_op_nbx");
  bind(&api.worker_set_am_recv_handler, "ucp_worker_set_am_recv_handler");
  bind(&api.am_send_nbx, "ucp_am_send_nbx");
  bind(&api.request_check_status, "ucp_request_check_status");
  bind(&api.request_free, "ucp_request_free");
  bind(&api.status_string, "ucs_status_string");
  if (!bind.missing().empty()) {
    log_error(kWhere, "the UCX library '%s' has no %s: UCX 1.10 or later is needed", kUcpLibrary,
              bind.missing().c_str());
    return nullptr;
  }
  loaded = true;
  return &api;
}

// What each PE publishes at init: its slot's base address, then its worker address and packed rkey.
struct BlobHeader {
  uint64_t base;
  uint32_t address_bytes;
  uint32_t rkey_bytes;
};

// The staged path's messages: requests to the PE that owns the slot, and their replies.
constexpr unsigned kStagedAm = 27;                // active message id
constexpr std::size_t kStagedChunk = 256 * 1024;  // bytes of one put or get message
constexpr int kStagedDepth = 4;                   // messages of one put in flight (its pipeline)
constexpr std::size_t kStagedBounces = 16;        // pooled bounce buffers (4 MiB): four puts' pipelines
constexpr uint64_t kStagedNbiWindow = 4096;       // atomic_nbi: requests to a PE not yet answered, at most
enum class StagedOp : uint32_t { put, get, atomic, put_ack, get_reply, atomic_reply };
struct StagedHeader {
  StagedOp op;
  int32_t from;          // PE that sent the message
  uint64_t offset;       // request: byte offset in the target's slot; get_reply: offset in the destination
  uint64_t bytes;        // put, get: bytes of the chunk
  uint64_t token;        // get, atomic: the initiator's record (0: atomic_nbi, none); put: 1 when waited for; echoed
  uint64_t value, cond;  // atomic: operands; atomic_reply: the old value; get: offset in the destination
  uint32_t atomic_op;    // AtomicOp
  uint32_t width;        // AtomicArgs::width; replies: 1 when the target failed to execute the request
};
// The initiator's state of one staged get or atomic, addressed by the reply's token. On a timeout the
// waiter leaves it allocated: a late reply may still arrive and write it. `failed`: the target (or the copy
// into dst) failed to execute it; the waiter reports that itself, so that another thread's completion of the
// same PE cannot take it (a get_nbi, which no one waits for, counts on the peer's errors instead).
struct GetRecord {
  char *dst;
  std::atomic<std::size_t> remaining;  // bytes not yet copied to dst
  bool detached;                       // get_nbi: the last reply frees it
  bool failed = false;                 // written before the byte count that releases it
};
struct AtomicRecord {
  std::atomic<bool> done{false};
  uint64_t old = 0;
  bool failed = false;  // written before done
};
// A 4- or 8-byte atomic as UCP takes it: the opcode, the operand and the reply buffer (compare-swap takes
// the compare value as operand and the new value in the reply buffer, which returns the old one);
// `fetches`: UCP writes the old value into `reply` (always for swap and compare-swap). Both buffers stay
// untouched until the operation completes.
struct UcpAtomic {
  union Word {
    uint32_t w4;
    uint64_t w8;
  };
  ucp_atomic_op_t op = UCP_ATOMIC_OP_ADD;
  Word operand{}, reply{};
  bool fetches = false;
  std::size_t width = 8;
  // `args` of an operation UCP has (not by_cas), on a 4- or 8-byte word; `want_old`: the caller reads it.
  UcpAtomic(const AtomicArgs &args, bool want_old) : fetches(want_old), width(args.width) {
    set(&operand, args.op == AtomicOp::compare_swap ? args.cond : args.op == AtomicOp::fetch ? 0 : args.value);
    switch (args.op) {
      case AtomicOp::fetch:  // OR with 0 reads the word atomically
        op = UCP_ATOMIC_OP_OR;
        fetches = true;
        break;
      case AtomicOp::set:
      case AtomicOp::swap:
        op = UCP_ATOMIC_OP_SWAP;
        fetches = true;
        break;
      case AtomicOp::compare_swap:
        op = UCP_ATOMIC_OP_CSWAP;
        set(&reply, args.value);
        fetches = true;
        break;
      case AtomicOp::add:
      case AtomicOp::float_add:  // not taken here: by_cas
        break;
      case AtomicOp::and_:
        op = UCP_ATOMIC_OP_AND;
        break;
      case AtomicOp::or_:
        op = UCP_ATOMIC_OP_OR;
        break;
      case AtomicOp::xor_:
        op = UCP_ATOMIC_OP_XOR;
        break;
    }
  }
  // UCP has no floating-point atomics and no 2-byte words: those go by update_by_cas.
  static bool by_cas(const AtomicArgs &args) { return args.width == 2 || args.op == AtomicOp::float_add; }
  void set(Word *w, uint64_t v) const {
    if (width == 4)
      w->w4 = static_cast<uint32_t>(v);
    else
      w->w8 = v;
  }
  uint64_t old() const { return width == 4 ? reply.w4 : reply.w8; }
  ucp_request_param_t param() {
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_contig(width);
    if (fetches) {
      p.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
      p.reply_buffer = &reply;
    }
    return p;
  }
};
class UcxEngine;
// A reply built in the handler; freed when UCX has sent it, or by the engine's destructor when the
// worker is destroyed with the send in flight (UCX then calls no callback).
struct Reply {
  StagedHeader header;
  BouncePool::Block data;  // get_reply: header.bytes of data; other replies: none
  UcxEngine *engine = nullptr;
};

class UcxEngine final : public RemoteEngine {
 public:
  UcxEngine(const UcpApi &api, int my_pe, Transport &local, const RemoteOptions &options)
      : api_(api), my_pe_(my_pe), local_(local), opt_(options) {}
  ~UcxEngine() override;
  // Local set-up: context, worker, registration of the slot; *blob receives what the peers need.
  Status open(void *slot, std::size_t slot_bytes, std::vector<char> *blob);
  // Collective: every PE's blob to every PE, then the progress thread starts.
  Status connect(Bootstrap &boot, std::vector<char> mine);

  const char *name() const override { return "UCX"; }
  Status put(int pe, std::size_t offset, const void *local, std::size_t bytes) override;
  Status get(void *local, int pe, std::size_t offset, std::size_t bytes) override;
  Status put_local(int pe, std::size_t offset, const void *local, std::size_t bytes) override;
  Status put_nbi(int pe, std::size_t offset, const void *local, std::size_t bytes) override;
  Status get_nbi(void *local, int pe, std::size_t offset, std::size_t bytes) override;
  Status atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) override;
  Status atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args) override;
  Status update_by_cas(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old);
  Status set_words(const std::vector<WordWrite> &writes) override;
  Status fence() override;
  Status quiet() override;
  void prepare_finalize() override { closing_.store(true); }
  Status register_local(void *addr, std::size_t bytes, const char *call) override;
  void unregister_local(void *addr) override;
  bool registered_local(const void *addr, std::size_t bytes) const override {
    return local_memh(addr, bytes) != nullptr;
  }
  int unreachable_count() const override { return lost_.load(std::memory_order_acquire); }
  uint64_t unwaited_failures() const override { return unwaited_failures_.load(std::memory_order_acquire); }
  bool unreachable(int pe) const override {
    return pe >= 0 && static_cast<std::size_t>(pe) < peers_.size() && peers_[pe].failed.load(std::memory_order_relaxed);
  }

 private:
  struct Peer {
    UcxEngine *engine = nullptr;
    int pe = -1;
    uint64_t base = 0;
    std::vector<char> address, rkey_blob;
    ucp_ep_h ep = nullptr;
    ucp_rkey_h rkey = nullptr;
    std::atomic<bool> connected{false};  // ep and rkey are set (release), read without the lock
    // Held shared while an operation is issued on ep and rkey (issue()), exclusively while close() takes
    // them away: a wait of another thread that gives up on the PE closes them.
    std::shared_mutex ep_mutex;
    std::atomic<bool> failed{false};  // unreachable, or its endpoint was closed (abandon())
    // One-sided path: operations issued and not flushed yet (quiet flushes these endpoints), and a fence
    // after them (the next write to the PE first flushes its endpoint: fence orders per PE).
    std::atomic<bool> unflushed{false}, fence_due{false};
    // Flushes in flight (under flush_mutex_) that serve a fence due on the PE: a write that finds the fence
    // taken by such a flush waits for it.
    std::atomic<int> flushing{0};
    // quiet()'s flushes of the PE in flight: a fence meanwhile is due as well (the flush took `unflushed`,
    // but the operations before the fence are not complete until it ends).
    std::atomic<int> in_quiet{0};
    // Staged path: requests sent to the PE, replies received from it. `errors`: operations no one waits
    // for that failed (replies that said the PE failed to execute the request, atomic_nbi's completions
    // with an error), reported by the next wait on the PE (staged) or the next quiet.
    std::atomic<uint64_t> issued{0}, completed{0}, errors{0};
  };
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline() const { return Clock::now() + std::chrono::seconds(opt_.timeout_s); }
  // The connected peer (endpoint and rkey made on first use), or an error naming the PE and `op`.
  Status peer(int pe, const char *op, Peer **out);
  // peer(), for an operation that writes: first flushes the endpoint when a fence came since its last
  // operations, so that they reach the PE before this one.
  Status writer(int pe, const char *op, Peer **out);
  // Completes `request` (a ucs_status_ptr_t of a *_nbx call) on `pe`, progressing the worker, by
  // `until`; `op` names it in messages. When it does not complete, abandon()s it.
  Status wait(ucs_status_ptr_t request, const char *op, int pe, Clock::time_point until);
  Status wait(ucs_status_ptr_t request, const char *op, int pe) { return wait(request, op, pe, deadline()); }
  // Releases a request that a wait gave up on (timeout, or the PE failed) while UCX may still hold it
  // and its buffers: closes the PE's endpoint with force, which completes the endpoint's outstanding
  // requests with UCS_ERR_CANCELED, and waits for that (kAbandonSeconds at most). The PE counts as
  // failed from then on.
  void abandon(ucs_status_ptr_t request, const char *op, int pe);
  // Closes the endpoint with force (waiting kAbandonSeconds at most), then marks the PE failed.
  void close(Peer &p);
  // Returns op(ep, rkey), the request of a *_nbx call on p's endpoint, which close() cannot take away
  // meanwhile; an endpoint already closed gives UCS_ERR_CANCELED (the PE is failed).
  template <class Op>
  static ucs_status_ptr_t issue(Peer &p, Op op) {
    std::shared_lock<std::shared_mutex> lock(p.ep_mutex);
    return p.ep ? op(p.ep, p.rkey) : UCS_STATUS_PTR(UCS_ERR_CANCELED);
  }
  // A put or get (ucp_put_nbx, ucp_get_nbx) of `bytes` at `offset` of p's slot, through issue().
  template <class Rma, class Local>
  static ucs_status_ptr_t rma(Peer &p, Rma call, Local *local, std::size_t bytes, std::size_t offset,
                              const ucp_request_param_t &param) {
    return issue(p,
                 [&](ucp_ep_h ep, ucp_rkey_h rkey) { return call(ep, local, bytes, p.base + offset, rkey, &param); });
  }
  // An atomic (ucp_atomic_op_nbx) on one word at `offset` of p's slot, through issue().
  ucs_status_ptr_t atomic_op(Peer &p, ucp_atomic_op_t op, const void *operand, std::size_t offset,
                             const ucp_request_param_t &param) {
    return issue(p, [&](ucp_ep_h ep, ucp_rkey_h rkey) {
      return api_.atomic_op_nbx(ep, op, operand, 1, p.base + offset, rkey, &param);
    });
  }
  // A flush of p's endpoint (ucp_ep_flush_nbx), through issue().
  ucs_status_ptr_t flush(Peer &p) {
    ucp_request_param_t param{};
    return issue(p, [&](ucp_ep_h ep, ucp_rkey_h) { return api_.ep_flush_nbx(ep, &param); });
  }
  // Counts a failed operation that no one waits for (p.errors, reported by the next wait on the PE, and
  // unwaited_failures_); returns p.errors before.
  uint64_t unwaited_failed(Peer &p) {
    unwaited_failures_.fetch_add(1, std::memory_order_release);
    return p.errors.fetch_add(1);
  }
  // Marks `p` failed; counts it in lost_ the first time, unless the job is finalizing.
  void mark_failed(Peer &p) {
    if (!p.failed.exchange(true) && !closing_.load()) lost_.fetch_add(1, std::memory_order_release);
  }
  // Hands an operation's request to UCX to complete by itself (it completes at the next flush).
  Status detach(ucs_status_ptr_t request, const char *op, int pe);
  Status failure(ucs_status_t status, const char *op, int pe);
  // Progresses the worker until done() holds, by `until`; `op` and `pe` name it in messages.
  template <class Done>
  Status poll_until(Done done, const char *op, int pe, Clock::time_point until);
  void progress_loop();
  // One round of the worker's progress, then the atomics it received; returns how much happened
  // (ucp_worker_progress's count and the atomics executed).
  unsigned progress() {
    const unsigned n = api_.worker_progress(worker_);
    return deferred_queued_.load(std::memory_order_acquire) ? n + run_deferred_atomics() : n;
  }
  // Executes the staged atomics that staged_serve deferred, in the order they arrived, with one call of the
  // transport (one kernel on a GPU heap), after any batch another thread is executing; answers each; returns
  // how many it executed.
  std::size_t run_deferred_atomics();
  // The memory handle of the registration that holds all of [p, p + bytes) (the slot, or a buffer of
  // register_local), or nullptr.
  ucp_mem_h local_memh(const void *p, std::size_t bytes) const;
  // Request parameters of a put or get whose local side is [p, p + bytes): with its memory handle when
  // one holds it, so that protocols that need registered memory do not register it per operation.
  ucp_request_param_t local_param(const void *p, std::size_t bytes) const {
    ucp_request_param_t param{};
    if (ucp_mem_h memh = local_memh(p, bytes)) {
      param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH;
      param.memh = memh;
    }
    return param;
  }

  // The staged path.
  // `waited`: the caller waits for the acknowledgements (a blocking put), which then report a failure to it alone.
  Status staged_put(int pe, std::size_t offset, const void *local, std::size_t bytes, const char *op, bool waited);
  Status staged_get(void *local, int pe, std::size_t offset, std::size_t bytes, const char *op);
  Status staged_atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old);
  // A request without a record (token 0): its reply counts it complete, and a failure in p.errors.
  Status staged_atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args);
  Status staged_set_words(const std::vector<WordWrite> &writes);
  // Waits until every request sent to `pe` so far has its reply, then reports the caller's own request's
  // failure (`own_failed`, from its record) and those of earlier requests no one waits for (each once).
  Status staged_complete(Peer &p, const char *op, bool own_failed = false);
  // Sends one message; `h` and `data` must stay valid until the returned request completes.
  ucs_status_ptr_t staged_send(ucp_ep_h ep, const StagedHeader &h, const void *data, std::size_t bytes,
                               ucp_request_param_t param);
  // Sends one request to `p` and counts it in p.issued (uncounted again when the send fails at once).
  ucs_status_ptr_t staged_request(Peer &p, const StagedHeader &h, const void *data, std::size_t bytes) {
    p.issued.fetch_add(1);
    const ucs_status_ptr_t request =
        issue(p, [&](ucp_ep_h ep, ucp_rkey_h) { return staged_send(ep, h, data, bytes, {}); });
    if (UCS_PTR_IS_ERR(request)) p.issued.fetch_sub(1);
    return request;
  }
  void staged_reply(ucp_ep_h ep, std::unique_ptr<Reply> r);
  // The reply to request `h` (its header echoed from this PE, with the reply's operation), not yet sent.
  std::unique_ptr<Reply> reply_for(const StagedHeader &h) const;
  // Executes a request on this PE's slot (target side), or takes a reply (initiator side).
  void staged_serve(const StagedHeader &h, const void *data, std::size_t length, ucp_ep_h reply_ep);
  static ucs_status_t on_staged(void *arg, const void *header, std::size_t header_length, void *data,
                                std::size_t length, const ucp_am_recv_param_t *param);

  static void on_peer_error(void *arg, ucp_ep_h ep, ucs_status_t status);

  const UcpApi &api_;
  const int my_pe_;
  Transport &local_;  // reaches this PE's own slot (the staged path executes peers' requests with it)
  const RemoteOptions opt_;
  std::unique_ptr<BouncePool> bounces_;  // the staged path's host buffers (puts' pipelines, get replies)
  char *slot_ = nullptr;
  std::size_t slot_bytes_ = 0;
  std::vector<int> progress_cpus_;  // NVSHMEM_CPU_AFFINITY; empty: the process's
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_mem_h memh_ = nullptr;
  std::vector<Peer> peers_;
  std::mutex connect_mutex_;
  // One-sided path: one endpoint flush at a time (quiet, or a fence's before the next write), so that a
  // caller whose flags another flush took (the proxy's thread, its team threads and the application's
  // threads quiet at once) returns only after that flush.
  std::mutex flush_mutex_;
  std::thread progress_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> closing_{false};
  std::atomic<int> lost_{0};                    // PEs marked failed before prepare_finalize(): unreachable_count()
  std::atomic<uint64_t> unwaited_failures_{0};  // unwaited_failures()
  std::mutex replies_mutex_;
  std::set<Reply *> replies_in_flight_;  // owned; see Reply
  // Staged atomics received and not yet executed (the target side; docs/remote.md, "Batched atomics").
  struct Deferred {
    StagedHeader header;
    ucp_ep_h reply_ep;
  };
  std::mutex deferred_mutex_;
  std::vector<Deferred> deferred_;
  std::atomic<std::size_t> deferred_queued_{0};   // deferred_.size(), read without the lock
  std::atomic<std::size_t> deferred_pending_{0};  // atomics queued or executing
  std::mutex deferred_run_mutex_;                 // batches execute in the order they were taken (not their replies)
  // Local buffers of register_local, by start address: their length and handle.
  struct LocalBuffer {
    std::size_t bytes;
    ucp_mem_h memh;
  };
  mutable std::shared_mutex local_mutex_;
  std::map<const char *, LocalBuffer> local_buffers_;
  std::atomic<std::size_t> local_count_{0};  // local_buffers_.size(), read without the lock
};

Status UcxEngine::failure(ucs_status_t status, const char *op, int pe) {
  if (pe >= 0)
    log_error(kWhere, "%s to PE %d failed: %s", op, pe, api_.status_string(status));
  else
    log_error(kWhere, "%s failed: %s", op, api_.status_string(status));
  // Also peer_failed: an operation that the close of its PE cancelled (another thread's wait gave up on the
  // PE, or it found the endpoint closed: issue()).
  const bool lost = pe >= 0 && peers_[pe].failed.load();
  return lost || status == UCS_ERR_UNREACHABLE || status == UCS_ERR_CONNECTION_RESET ||
                 status == UCS_ERR_ENDPOINT_TIMEOUT
             ? Status::peer_failed
             : Status::internal;
}

Status UcxEngine::open(void *slot, std::size_t slot_bytes, std::vector<char> *blob) {
  std::string hca_list = opt_.hca_list, net_devices;
  NVSHM_TRY(map_nic_to_pe(opt_.hca_pe_mapping, opt_.nic_pe_mapping, opt_.local_rank, &hca_list));
  // The variable the devices come from, and its value (for the messages below).
  const bool by_mapping = !opt_.hca_pe_mapping.empty(), round_robin = !by_mapping && hca_list != opt_.hca_list;
  const char *const devices_from = by_mapping    ? "NVSHMEM_HCA_PE_MAPPING"
                                   : round_robin ? "NVSHMEM_ENABLE_NIC_PE_MAPPING"
                                                 : "NVSHMEM_HCA_LIST";
  const std::string from_value = by_mapping ? opt_.hca_pe_mapping : round_robin ? "1" : opt_.hca_list;
  if (!hca_list.empty()) NVSHM_TRY(ucx_net_devices(hca_list, &net_devices));
  NVSHM_TRY(parse_cpu_list(opt_.cpu_affinity, &progress_cpus_));
  cpu_set_t allowed;
  if (!progress_cpus_.empty() && sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
      std::none_of(progress_cpus_.begin(), progress_cpus_.end(), [&](int cpu) { return CPU_ISSET(cpu, &allowed); })) {
    log_error(kWhere, "NVSHMEM_CPU_AFFINITY=%s: none of these CPUs is allowed to this process (see taskset -p %d)",
              opt_.cpu_affinity.c_str(), static_cast<int>(getpid()));
    return Status::invalid_value;
  }
  ucp_config_t *config = nullptr;
  ucs_status_t s = api_.config_read(nullptr, nullptr, &config);
  if (s != UCS_OK) return failure(s, "ucp_config_read", -1);
  // Network atomics that are atomic with the target CPU's own (UCX's software path where the NIC's are
  // not), unless the user chose otherwise.
  if (!getenv("UCX_ATOMIC_MODE")) (void)api_.config_modify(config, "ATOMIC_MODE", "cpu");
  if (!net_devices.empty()) {
    const char *ucx = getenv("UCX_NET_DEVICES");
    if (ucx && net_devices != ucx)
      NVSHM_WARN(kWhere, "%s=%s overrides UCX_NET_DEVICES=%s", devices_from, from_value.c_str(), ucx);
    if ((s = api_.config_modify(config, "NET_DEVICES", net_devices.c_str())) != UCS_OK) {
      api_.config_release(config);
      return failure(s, devices_from, -1);
    }
    NVSHM_INFO(kWhere, "UCX_NET_DEVICES=%s (%s, local PE %d)", net_devices.c_str(), devices_from, opt_.local_rank);
  }
  // NVIDIA's InfiniBand variables, as UCX's (UCX ignores them where it drives no InfiniBand device).
  const struct {
    const char *variable, *ucx;
    const std::string &value;
    long max;
  } ib[] = {{"NVSHMEM_IB_GID_INDEX", "IB_GID_INDEX", opt_.ib_gid_index, 255},
            {"NVSHMEM_IB_SL", "IB_SL", opt_.ib_sl, 15},
            {"NVSHMEM_IB_TRAFFIC_CLASS", "IB_TRAFFIC_CLASS", opt_.ib_traffic_class, 255}};
  for (const auto &v : ib) {
    if (v.value.empty()) continue;
    long n = -1;
    if (!parse_int(v.value.c_str(), &n) || n < 0 || n > v.max) {
      log_error(kWhere, "%s=%s is not an integer from 0 to %ld", v.variable, v.value.c_str(), v.max);
      api_.config_release(config);
      return Status::invalid_value;
    }
    if ((s = api_.config_modify(config, v.ucx, std::to_string(n).c_str())) != UCS_OK) {
      api_.config_release(config);
      return failure(s, v.variable, -1);
    }
    NVSHM_INFO(kWhere, "UCX_%s=%ld (%s)", v.ucx, n, v.variable);
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = opt_.staged ? UCP_FEATURE_AM | UCP_FEATURE_WAKEUP
                                : UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP;
  s = api_.init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &context_);
  api_.config_release(config);
  if (s != UCS_OK) return failure(s, "ucp_init", -1);
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_MULTI;
  if ((s = api_.worker_create(context_, &wp, &worker_)) != UCS_OK) return failure(s, "ucp_worker_create", -1);
  slot_ = static_cast<char *>(slot);
  slot_bytes_ = slot_bytes;
  if (opt_.staged) {
    bounces_ = std::make_unique<BouncePool>(kStagedChunk, kStagedBounces, opt_.context);
    ucp_am_handler_param_t hp{};
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = kStagedAm;
    hp.cb = on_staged;
    hp.arg = this;
    if ((s = api_.worker_set_am_recv_handler(worker_, &hp)) != UCS_OK)
      return failure(s, "ucp_worker_set_am_recv_handler", -1);
  } else {
    ucp_mem_map_params_t mp{};
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    mp.address = slot;
    mp.length = slot_bytes;
    if ((s = api_.mem_map(context_, &mp, &memh_)) != UCS_OK) return failure(s, "ucp_mem_map of the heap", -1);
  }

  ucp_address_t *address = nullptr;
  std::size_t address_bytes = 0;
  if ((s = api_.worker_get_address(worker_, &address, &address_bytes)) != UCS_OK)
    return failure(s, "ucp_worker_get_address", -1);
  void *rkey = nullptr;  // none on the staged path: peers never address the slot themselves
  std::size_t rkey_bytes = 0;
  if (memh_ && (s = api_.rkey_pack(context_, memh_, &rkey, &rkey_bytes)) != UCS_OK) {
    api_.worker_release_address(worker_, address);
    return failure(s, "ucp_rkey_pack", -1);
  }
  const BlobHeader header{reinterpret_cast<uint64_t>(slot), static_cast<uint32_t>(address_bytes),
                          static_cast<uint32_t>(rkey_bytes)};
  std::vector<char> &mine = *blob;
  mine.resize(sizeof header + address_bytes + rkey_bytes);
  memcpy(mine.data(), &header, sizeof header);
  memcpy(mine.data() + sizeof header, address, address_bytes);
  if (rkey) memcpy(mine.data() + sizeof header + address_bytes, rkey, rkey_bytes);  // none on the staged path
  api_.worker_release_address(worker_, address);
  if (rkey) api_.rkey_buffer_release(rkey);
  return Status::ok;
}

Status UcxEngine::connect(Bootstrap &boot, std::vector<char> mine) {
  // Two rounds: the sizes, then every blob padded to the largest (the bootstrap gathers equal sizes).
  const int n = boot.size();
  const uint64_t my_size = mine.size();
  std::vector<uint64_t> sizes(n);
  NVSHM_TRY(boot.allgather(&my_size, sizes.data(), sizeof my_size));
  const std::size_t width = *std::max_element(sizes.begin(), sizes.end());
  mine.resize(width);
  std::vector<char> all(width * n);
  NVSHM_TRY(boot.allgather(mine.data(), all.data(), width));
  peers_ = std::vector<Peer>(n);
  for (int pe = 0; pe < n; ++pe) {
    const char *blob = all.data() + static_cast<std::size_t>(pe) * width;
    BlobHeader h;
    memcpy(&h, blob, sizeof h);
    Peer &p = peers_[pe];
    p.engine = this;
    p.pe = pe;
    p.base = h.base;
    p.address.assign(blob + sizeof h, blob + sizeof h + h.address_bytes);
    p.rkey_blob.assign(blob + sizeof h + h.address_bytes, blob + sizeof h + h.address_bytes + h.rkey_bytes);
  }
  progress_ = std::thread([this] { progress_loop(); });
  pthread_setname_np(progress_.native_handle(), "nvshm-progress");  // for ps, top and the tests
  if (!progress_cpus_.empty()) {                                    // CPUs that open() found allowed to the process
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : progress_cpus_) CPU_SET(cpu, &set);
    if (const int err = pthread_setaffinity_np(progress_.native_handle(), sizeof set, &set))
      NVSHM_WARN(kWhere, "NVSHMEM_CPU_AFFINITY=%s: placing the progress thread failed (%s)", opt_.cpu_affinity.c_str(),
                 strerror(err));
  }
  unsigned major = 0, minor = 0, release = 0;
  api_.get_version(&major, &minor, &release);
  NVSHM_INFO(kWhere, "UCX %u.%u.%u, %zu-byte init blob per PE, %s progress, %s", major, minor, release, width,
             opt_.spin_progress ? "spin" : "event",
             opt_.staged ? "staged path (peers' engines execute operations on their slots)" : "one-sided RMA");
  return Status::ok;
}

void UcxEngine::progress_loop() {
  ContextGuard context(opt_.context);  // the staged path copies to and from a GPU heap on this thread
  int efd = -1;
  if (!opt_.spin_progress && api_.worker_get_efd(worker_, &efd) != UCS_OK) efd = -1;
  while (!stop_.load(std::memory_order_acquire)) {
    if (progress() != 0) continue;
    if (efd < 0) {  // spin: give the worker's lock to a calling thread between empty rounds
      sched_yield();
      continue;
    }
    if (api_.worker_arm(worker_) == UCS_ERR_BUSY) continue;  // events arrived meanwhile: progress again
    pollfd p{efd, POLLIN, 0};
    (void)poll(&p, 1, 100);
  }
}

ucp_mem_h UcxEngine::local_memh(const void *p, std::size_t bytes) const {
  const char *c = static_cast<const char *>(p);
  if (memh_ && c >= slot_ && bytes <= slot_bytes_ && static_cast<std::size_t>(c - slot_) <= slot_bytes_ - bytes)
    return memh_;
  if (local_count_.load(std::memory_order_acquire) == 0) return nullptr;
  std::shared_lock<std::shared_mutex> lock(local_mutex_);
  auto next = local_buffers_.upper_bound(c);
  if (next == local_buffers_.begin()) return nullptr;
  const auto &[start, buffer] = *std::prev(next);
  return bytes <= buffer.bytes && static_cast<std::size_t>(c - start) <= buffer.bytes - bytes ? buffer.memh : nullptr;
}

Status UcxEngine::register_local(void *addr, std::size_t bytes, const char *call) {
  if (opt_.staged) return Status::ok;  // messages carry copies of the data: nothing addresses the buffer
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = addr;
  mp.length = bytes;
  ucp_mem_h memh = nullptr;
  const ucs_status_t s = api_.mem_map(context_, &mp, &memh);
  if (s != UCS_OK) {  // UCX still takes the buffer, registering it per operation where it must
    NVSHM_WARN(call, "[%p, +%zu): ucp_mem_map failed (%s); operations to remote PEs from and to it still work", addr,
               bytes, api_.status_string(s));
    return Status::ok;
  }
  std::unique_lock<std::shared_mutex> lock(local_mutex_);
  local_buffers_[static_cast<const char *>(addr)] = LocalBuffer{bytes, memh};
  local_count_.store(local_buffers_.size(), std::memory_order_release);
  NVSHM_INFO(call, "[%p, +%zu) mapped with ucp_mem_map for operations to remote PEs", addr, bytes);
  return Status::ok;
}

void UcxEngine::unregister_local(void *addr) {
  std::unique_lock<std::shared_mutex> lock(local_mutex_);
  auto it = local_buffers_.find(static_cast<const char *>(addr));
  if (it == local_buffers_.end()) return;
  api_.mem_unmap(context_, it->second.memh);
  local_buffers_.erase(it);
  local_count_.store(local_buffers_.size(), std::memory_order_release);
}

void UcxEngine::on_peer_error(void *arg, ucp_ep_h, ucs_status_t status) {
  Peer *p = static_cast<Peer *>(arg);
  p->engine->mark_failed(*p);
  if (!p->engine->closing_.load())
    log_error(kWhere, "PE %d is unreachable (%s): its process or the network between us failed", p->pe,
              p->engine->api_.status_string(status));
}

Status UcxEngine::peer(int pe, const char *op, Peer **out) {
  Peer &p = peers_[pe];
  const auto unreachable = [&] {
    log_error(kWhere, "%s to PE %d: the PE is unreachable (reported earlier)", op, pe);
    return Status::peer_failed;
  };
  if (p.failed.load(std::memory_order_relaxed)) return unreachable();
  if (!p.connected.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(connect_mutex_);
    if (p.failed.load()) return unreachable();  // close() ran since the check above: no new endpoint
    if (!p.ep) {
      ucp_ep_params_t ep{};
      ep.field_mask =
          UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
      ep.address = reinterpret_cast<const ucp_address_t *>(p.address.data());
      ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
      ep.err_handler.cb = on_peer_error;
      ep.err_handler.arg = &p;
      const ucs_status_t s = api_.ep_create(worker_, &ep, &p.ep);
      // A transport list without one that every endpoint here can use (UCX_TLS=sm,self: UCX's shared memory
      // has no peer failure handling) is the likely cause: say which variable to change.
      const char *tls = s == UCS_ERR_UNREACHABLE ? getenv("UCX_TLS") : nullptr;
      if (tls)
        log_error(kWhere,
                  "UCX_TLS=%s: the endpoints to remote PEs need a transport with peer failure handling and "
                  "active messages, such as tcp (UCX_TLS=tcp,%s)",
                  tls, tls);
      if (s != UCS_OK) return failure(s, "connecting (ucp_ep_create)", pe);
    }
    if (!p.rkey && !opt_.staged) {
      const ucs_status_t s = api_.ep_rkey_unpack(p.ep, p.rkey_blob.data(), &p.rkey);
      if (s != UCS_OK) return failure(s, "ucp_ep_rkey_unpack", pe);
    }
    p.connected.store(true, std::memory_order_release);
  }
  *out = &p;
  return Status::ok;
}

Status UcxEngine::writer(int pe, const char *op, Peer **out) {
  NVSHM_TRY(peer(pe, op, out));
  Peer &p = **out;
  if (!p.fence_due.load() && p.flushing.load() == 0) return Status::ok;
  std::lock_guard<std::mutex> lock(flush_mutex_);  // a flush that took this PE's fence ends first
  p.flushing.fetch_add(1);                         // before the flag: a writer that finds it clear sees this
  Status st = Status::ok;
  if (p.fence_due.exchange(false)) {
    p.unflushed.store(false, std::memory_order_relaxed);
    st = wait(flush(p), "fence (endpoint flush before the next write)", pe);
  }
  p.flushing.fetch_sub(1);
  return st;
}

template <class Done>
Status UcxEngine::poll_until(Done done, const char *op, int pe, Clock::time_point until) {
  for (unsigned polls = 0;; ++polls) {
    progress();
    if (done()) return Status::ok;
    if (peers_[pe].failed.load(std::memory_order_relaxed)) {
      log_error(kWhere, "%s to PE %d cannot complete: the PE is unreachable", op, pe);
      return Status::peer_failed;
    }
    if ((polls & 63) == 63) {
      if (Clock::now() > until) {
        log_error(kWhere, "%s to PE %d did not complete within %d s (NVSHMEM_BOOTSTRAP_TIMEOUT)", op, pe,
                  opt_.timeout_s);
        return Status::timeout;
      }
      sched_yield();
    }
  }
}

Status UcxEngine::wait(ucs_status_ptr_t request, const char *op, int pe, Clock::time_point until) {
  if (request == nullptr) return Status::ok;
  if (UCS_PTR_IS_ERR(request)) return failure(UCS_PTR_STATUS(request), op, pe);
  ucs_status_t s = UCS_INPROGRESS;
  const Status st =
      poll_until([&] { return (s = api_.request_check_status(request)) != UCS_INPROGRESS; }, op, pe, until);
  if (st != Status::ok) {
    abandon(request, op, pe);
    return st;
  }
  api_.request_free(request);
  return s == UCS_OK ? Status::ok : failure(s, op, pe);
}

void UcxEngine::abandon(ucs_status_ptr_t request, const char *op, int pe) {
  close(peers_[pe]);
  const auto until = Clock::now() + std::chrono::seconds(kAbandonSeconds);
  while (api_.request_check_status(request) == UCS_INPROGRESS && Clock::now() < until) progress();
  if (api_.request_check_status(request) == UCS_INPROGRESS)
    log_error(kWhere,
              "%s to PE %d: UCX still holds the request %d s after its endpoint was closed; its buffer may "
              "still be accessed",
              op, pe, kAbandonSeconds);
  api_.request_free(request);  // UCX releases it when it completes
}

void UcxEngine::close(Peer &p) {
  std::lock_guard<std::mutex> lock(connect_mutex_);
  mark_failed(p);
  ucs_status_ptr_t r = nullptr;
  {
    std::unique_lock<std::shared_mutex> use(p.ep_mutex);  // no operation is being issued on them
    if (p.ep) {
      ucp_request_param_t param{};
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = UCP_EP_CLOSE_FLAG_FORCE;
      r = api_.ep_close_nbx(std::exchange(p.ep, nullptr), &param);
    }
    // After the forced close, which cancels the outstanding operations that use the key, before the endpoint
    // it was unpacked on is gone (the close's request completes below).
    if (p.rkey) api_.rkey_destroy(std::exchange(p.rkey, nullptr));
  }
  if (!UCS_PTR_IS_PTR(r)) return;
  const auto until = Clock::now() + std::chrono::seconds(kAbandonSeconds);
  while (api_.request_check_status(r) == UCS_INPROGRESS && Clock::now() < until) progress();
  api_.request_free(r);
}

Status UcxEngine::detach(ucs_status_ptr_t request, const char *op, int pe) {
  if (request == nullptr) return Status::ok;
  if (UCS_PTR_IS_ERR(request)) return failure(UCS_PTR_STATUS(request), op, pe);
  api_.request_free(request);  // released by UCX when it completes; the next flush waits for it
  return Status::ok;
}

Status UcxEngine::put(int pe, std::size_t offset, const void *local, std::size_t bytes) {
  if (opt_.staged) {
    NVSHM_TRY(staged_put(pe, offset, local, bytes, "put", true));
    return staged_complete(peers_[pe], "put");
  }
  Peer *p = nullptr;
  NVSHM_TRY(writer(pe, "put", &p));
  ucp_request_param_t param = local_param(local, bytes);
  NVSHM_TRY(detach(rma(*p, api_.put_nbx, local, bytes, offset, param), "put", pe));
  return wait(flush(*p), "put (endpoint flush)", pe);
}

Status UcxEngine::get(void *local, int pe, std::size_t offset, std::size_t bytes) {
  if (opt_.staged) return staged_get(local, pe, offset, bytes, "get");
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, "get", &p));
  ucp_request_param_t param = local_param(local, bytes);
  return wait(rma(*p, api_.get_nbx, local, bytes, offset, param), "get", pe);
}

Status UcxEngine::put_local(int pe, std::size_t offset, const void *local, std::size_t bytes) {
  if (opt_.staged) return staged_put(pe, offset, local, bytes, "put", false);  // returns once its chunks have left
  Peer *p = nullptr;
  NVSHM_TRY(writer(pe, "put", &p));
  ucp_request_param_t param = local_param(local, bytes);
  NVSHM_TRY(wait(rma(*p, api_.put_nbx, local, bytes, offset, param), "put", pe));
  p->unflushed.store(true, std::memory_order_release);  // arrives by the next quiet
  return Status::ok;
}

Status UcxEngine::put_nbi(int pe, std::size_t offset, const void *local, std::size_t bytes) {
  if (opt_.staged) return staged_put(pe, offset, local, bytes, "put_nbi", false);
  Peer *p = nullptr;
  NVSHM_TRY(writer(pe, "put_nbi", &p));
  ucp_request_param_t param = local_param(local, bytes);
  NVSHM_TRY(detach(rma(*p, api_.put_nbx, local, bytes, offset, param), "put_nbi", pe));
  p->unflushed.store(true, std::memory_order_release);
  return Status::ok;
}

Status UcxEngine::get_nbi(void *local, int pe, std::size_t offset, std::size_t bytes) {
  if (opt_.staged) return staged_get(local, pe, offset, bytes, "get_nbi");
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, "get_nbi", &p));
  ucp_request_param_t param = local_param(local, bytes);
  NVSHM_TRY(detach(rma(*p, api_.get_nbx, local, bytes, offset, param), "get_nbi", pe));
  p->unflushed.store(true, std::memory_order_release);
  return Status::ok;
}

Status UcxEngine::atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) {
  if (opt_.staged) return staged_atomic(pe, offset, args, old);
  Peer *p = nullptr;
  NVSHM_TRY(writer(pe, "atomic", &p));
  if (UcpAtomic::by_cas(args)) return update_by_cas(pe, offset, args, old);
  UcpAtomic a(args, old != nullptr);
  ucp_request_param_t param = a.param();
  NVSHM_TRY(wait(atomic_op(*p, a.op, &a.operand, offset, param), "atomic", pe));
  if (!a.fetches) {
    // A non-fetching atomic completes locally; the remote side is done once the endpoint is flushed.
    NVSHM_TRY(wait(flush(*p), "atomic (endpoint flush)", pe));
  }
  if (old) *old = a.old();
  return Status::ok;
}

Status UcxEngine::atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args) {
  if (opt_.staged) return staged_atomic_nbi(pe, offset, args);
  if (UcpAtomic::by_cas(args)) return atomic(pe, offset, args, nullptr);
  Peer *p = nullptr;
  NVSHM_TRY(writer(pe, "atomic", &p));
  // The operand and reply buffer live until UCX completes the request: its callback frees them.
  struct InFlight {
    UcpAtomic a;
    Peer *peer;
  };
  auto *f = new InFlight{UcpAtomic(args, false), p};
  ucp_request_param_t param = f->a.param();
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = [](void *request, ucs_status_t status, void *user) {
    auto *done = static_cast<InFlight *>(user);
    Peer &to = *done->peer;
    if (status != UCS_OK && to.engine->unwaited_failed(to) == 0 && !to.engine->closing_.load())
      log_error(kWhere, "atomic to PE %d failed: %s", to.pe, to.engine->api_.status_string(status));
    to.engine->api_.request_free(request);
    delete done;
  };
  param.user_data = f;
  const ucs_status_ptr_t request = atomic_op(*p, f->a.op, &f->a.operand, offset, param);
  if (!UCS_PTR_IS_PTR(request)) delete f;  // completed at once (no callback), or failed to start
  if (UCS_PTR_IS_ERR(request)) return failure(UCS_PTR_STATUS(request), "atomic", pe);
  p->unflushed.store(true, std::memory_order_release);
  return Status::ok;
}

// UCP has no floating-point atomics and no 2-byte words: a compare-and-swap loop on the word, a 2-byte
// one (__half) on the aligned 4-byte word that holds it (the other half is written back as it was
// seen). float_add of every width, and fetch, set and swap of a 2-byte word.
Status UcxEngine::update_by_cas(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) {
  const bool half = args.width == 2;
  const std::size_t at = half ? offset & ~std::size_t{3} : offset, word = half ? 4 : args.width;
  const unsigned shift = half ? static_cast<unsigned>(offset & 2) * 8 : 0;
  const uint64_t mask = args.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (args.width * 8)) - 1;
  uint64_t seen = 0;
  NVSHM_TRY(atomic(pe, at, AtomicArgs{AtomicOp::fetch, word, 0, 0}, &seen));
  for (;;) {
    const uint64_t current = seen >> shift & mask;
    if (args.op == AtomicOp::fetch) {
      if (old) *old = current;
      return Status::ok;
    }
    const uint64_t updated = args.op == AtomicOp::float_add ? float_add_bits(args.width, current, args.value)
                                                            : args.value & mask;  // set, swap
    const uint64_t next = (seen & ~(mask << shift)) | updated << shift;
    uint64_t got = 0;
    NVSHM_TRY(atomic(pe, at, AtomicArgs{AtomicOp::compare_swap, word, next, seen}, &got));
    if (got == seen) {
      if (old) *old = current;
      return Status::ok;
    }
    seen = got;
  }
}

Status UcxEngine::set_words(const std::vector<WordWrite> &writes) {
  if (opt_.staged) return staged_set_words(writes);
  // Swaps (UCP's atomic set), each with its own reply word, then one wait for all of them.
  std::vector<uint64_t> operands(writes.size()), replies(writes.size());
  std::vector<std::pair<int, ucs_status_ptr_t>> requests;
  Status st = Status::ok;
  for (std::size_t i = 0; i < writes.size() && st == Status::ok; ++i) {
    const WordWrite &w = writes[i];
    Peer *p = nullptr;
    st = writer(w.pe, "atomic", &p);
    if (st != Status::ok) break;
    operands[i] = w.value;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.datatype = ucp_dt_make_contig(8);
    param.reply_buffer = &replies[i];
    requests.emplace_back(w.pe, atomic_op(*p, UCP_ATOMIC_OP_SWAP, &operands[i], w.offset, param));
  }
  const auto until = deadline();
  for (auto [pe, request] : requests) {  // every one, also after a failure: they use this frame's words
    const Status s = wait(request, "atomic", pe, until);
    if (st == Status::ok) st = s;
  }
  return st;
}

Status UcxEngine::fence() {
  if (opt_.staged) return quiet();  // an order point per PE: every earlier request has been executed
  // Per PE and deferred: the PEs written since their last flush are flushed before their next write
  // (writer()); no round trip here, and none to PEs not written again.
  for (Peer &p : peers_)
    if (p.unflushed.load(std::memory_order_acquire) || p.in_quiet.load(std::memory_order_acquire) > 0)
      p.fence_due.store(true, std::memory_order_release);
  return Status::ok;
}

Status UcxEngine::quiet() {
  if (opt_.staged) {
    for (Peer &p : peers_) NVSHM_TRY(staged_complete(p, "quiet"));
    return Status::ok;
  }
  // One endpoint flush per PE with operations since its last flush, all in flight at once, one deadline.
  std::lock_guard<std::mutex> lock(flush_mutex_);
  std::vector<std::pair<int, ucs_status_ptr_t>> flushes;
  std::vector<int> fences;  // PEs whose due fence this flush serves: their writers wait for it (writer())
  for (Peer &p : peers_) {
    if (!p.unflushed.load(std::memory_order_relaxed)) continue;  // nothing to flush (nor to count below)
    p.in_quiet.fetch_add(1);  // before the flag: a fence that finds it clear sees this
    if (!p.unflushed.exchange(false, std::memory_order_acq_rel)) {
      p.in_quiet.fetch_sub(1);
      continue;
    }
    if (p.fence_due.load()) {
      p.flushing.fetch_add(1);  // before the flag: a writer that finds it clear sees this
      p.fence_due.store(false);
      fences.push_back(p.pe);
    }
    flushes.emplace_back(p.pe, flush(p));
  }
  const auto until = deadline();
  Status st = Status::ok;
  for (auto [pe, request] : flushes) {
    const Status s = wait(request, "quiet (endpoint flush)", pe, until);
    if (st == Status::ok) st = s;
  }
  for (int pe : fences) peers_[pe].flushing.fetch_sub(1);
  for (auto [pe, request] : flushes) peers_[pe].in_quiet.fetch_sub(1);
  for (Peer &p : peers_)
    if (const uint64_t failed = p.errors.exchange(0)) {
      log_error(kWhere, "quiet: %llu atomics to PE %d failed (issued without waiting; logged above)",
                static_cast<unsigned long long>(failed), p.pe);
      if (st == Status::ok) st = Status::internal;
    }
  return st;
}

ucs_status_ptr_t UcxEngine::staged_send(ucp_ep_h ep, const StagedHeader &h, const void *data, std::size_t bytes,
                                        ucp_request_param_t param) {
  // Eager only: the handler gets the data at once and executes the request inside the callback.
  param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
  return api_.am_send_nbx(ep, kStagedAm, &h, sizeof h, data, bytes, &param);
}

Status UcxEngine::staged_put(int pe, std::size_t offset, const void *local, std::size_t bytes, const char *op,
                             bool waited) {
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, op, &p));
  // A pipeline of bounce buffers: chunk i is copied out of `local` (from GPU memory on a GPU heap)
  // while chunks i - 1, i - 2, ... are on the wire; a bounce is reused once its message has left.
  struct Chunk {
    StagedHeader header{};
    BouncePool::Block bounce;
    ucs_status_ptr_t request = nullptr;
  } chunks[kStagedDepth];
  const char *src = static_cast<const char *>(local);
  Status st = Status::ok;
  for (std::size_t done = 0, i = 0; done < bytes && st == Status::ok; done += kStagedChunk, ++i) {
    Chunk &c = chunks[i % kStagedDepth];
    st = wait(std::exchange(c.request, nullptr), op, pe);
    const std::size_t n = std::min(kStagedChunk, bytes - done);
    if (st != Status::ok) c.bounce.leak();  // UCX may still read it (a wait that gave up)
    if (st == Status::ok && !c.bounce.data()) st = bounces_->take(op, &c.bounce);
    if (st == Status::ok) st = local_.to_host(c.bounce.data(), src + done, n);
    if (st != Status::ok) break;
    c.header = StagedHeader{StagedOp::put, my_pe_, offset + done, n, waited, 0, 0, 0, 0};
    c.request = staged_request(*p, c.header, c.bounce.data(), n);
    if (UCS_PTR_IS_ERR(c.request)) st = failure(UCS_PTR_STATUS(std::exchange(c.request, nullptr)), op, pe);
  }
  for (Chunk &c : chunks) {
    const Status s = wait(c.request, op, pe);
    if (s != Status::ok) c.bounce.leak();
    if (st == Status::ok) st = s;
  }
  return st;
}

Status UcxEngine::staged_get(void *local, int pe, std::size_t offset, std::size_t bytes, const char *op) {
  if (bytes == 0) return Status::ok;
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, op, &p));
  const bool blocking = strcmp(op, "get") == 0;
  auto *record = new GetRecord{static_cast<char *>(local), {bytes}, !blocking};
  for (std::size_t done = 0; done < bytes; done += kStagedChunk) {
    const StagedHeader h{StagedOp::get,
                         my_pe_,
                         offset + done,
                         std::min(kStagedChunk, bytes - done),
                         reinterpret_cast<uint64_t>(record),
                         done,
                         0,
                         0,
                         0};
    NVSHM_TRY(wait(staged_request(*p, h, nullptr, 0), op,
                   pe));  // on failure the record stays: replies to earlier chunks may come
  }
  if (!blocking) return Status::ok;
  NVSHM_TRY(poll_until([&] { return record->remaining.load(std::memory_order_acquire) == 0; }, op, pe, deadline()));
  const bool failed = record->failed;
  delete record;
  return staged_complete(*p, op, failed);
}

Status UcxEngine::staged_atomic(int pe, std::size_t offset, const AtomicArgs &args, uint64_t *old) {
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, "atomic", &p));
  auto *record = new AtomicRecord;
  const StagedHeader h{StagedOp::atomic,
                       my_pe_,
                       offset,
                       0,
                       reinterpret_cast<uint64_t>(record),
                       args.value,
                       args.cond,
                       static_cast<uint32_t>(args.op),
                       static_cast<uint32_t>(args.width)};
  NVSHM_TRY(wait(staged_request(*p, h, nullptr, 0), "atomic", pe));
  NVSHM_TRY(poll_until([&] { return record->done.load(std::memory_order_acquire); }, "atomic", pe, deadline()));
  if (old) *old = record->old;
  const bool failed = record->failed;
  delete record;
  return staged_complete(*p, "atomic", failed);
}

Status UcxEngine::staged_atomic_nbi(int pe, std::size_t offset, const AtomicArgs &args) {
  Peer *p = nullptr;
  NVSHM_TRY(peer(pe, "atomic", &p));
  const StagedHeader h{StagedOp::atomic,
                       my_pe_,
                       offset,
                       0,
                       0,
                       args.value,
                       args.cond,
                       static_cast<uint32_t>(args.op),
                       static_cast<uint32_t>(args.width)};
  // At most kStagedNbiWindow requests to a PE unanswered: a kernel's loop of signals cannot pile up
  // requests and replies without bound at either end.
  const auto below_window = [p] {
    return p->issued.load() - p->completed.load(std::memory_order_acquire) < kStagedNbiWindow;
  };
  if (!below_window()) NVSHM_TRY(poll_until(below_window, "atomic", pe, deadline()));
  return wait(staged_request(*p, h, nullptr, 0), "atomic", pe);  // the send only: `h` lives in this frame
}

Status UcxEngine::staged_set_words(const std::vector<WordWrite> &writes) {
  // The requests all sent, then their sends and replies waited for; the records stay allocated when a
  // wait fails (a late reply still writes its record).
  std::vector<AtomicRecord *> records;
  std::vector<std::pair<int, ucs_status_ptr_t>> sends;
  std::vector<StagedHeader> headers;
  headers.reserve(writes.size());  // each header stays in place until its send completes
  std::set<int> pes;
  Status st = Status::ok;
  for (const WordWrite &w : writes) {
    Peer *p = nullptr;
    st = peer(w.pe, "atomic", &p);
    if (st != Status::ok) break;
    records.push_back(new AtomicRecord);
    headers.push_back(StagedHeader{StagedOp::atomic, my_pe_, w.offset, 0, reinterpret_cast<uint64_t>(records.back()),
                                   w.value, 0, static_cast<uint32_t>(AtomicOp::set), 8});
    sends.emplace_back(w.pe, staged_request(*p, headers.back(), nullptr, 0));
    pes.insert(w.pe);
  }
  const auto until = deadline();
  for (auto [pe, request] : sends) {
    const Status s = wait(request, "atomic", pe, until);
    if (st == Status::ok) st = s;
  }
  for (std::size_t i = 0; i < records.size() && st == Status::ok; ++i)
    st =
        poll_until([r = records[i]] { return r->done.load(std::memory_order_acquire); }, "atomic", writes[i].pe, until);
  if (st != Status::ok) return st;
  std::set<int> failed;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i]->failed) failed.insert(writes[i].pe);
    delete records[i];
  }
  for (int pe : pes) NVSHM_TRY(staged_complete(peers_[pe], "atomic", failed.count(pe) != 0));
  return Status::ok;
}

Status UcxEngine::staged_complete(Peer &p, const char *op, bool own_failed) {
  const uint64_t issued = p.issued.load();
  if (p.completed.load(std::memory_order_acquire) < issued)
    NVSHM_TRY(poll_until([&] { return p.completed.load(std::memory_order_acquire) >= issued; }, op, p.pe, deadline()));
  if (own_failed) log_error(kWhere, "%s to PE %d: the PE failed to execute it (its log says why)", op, p.pe);
  // The failures of requests that no one waits for (puts, get_nbi) go to the first completion that covers them.
  const bool earlier_failed = p.errors.exchange(0) != 0;
  if (earlier_failed)
    log_error(kWhere, "%s to PE %d: the PE failed to execute earlier requests (its log says why)", op, p.pe);
  return own_failed || earlier_failed ? Status::internal : Status::ok;
}

void UcxEngine::staged_reply(ucp_ep_h ep, std::unique_ptr<Reply> r) {
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = [](void *request, ucs_status_t, void *user) {
    auto *reply = static_cast<Reply *>(user);
    UcxEngine &engine = *reply->engine;
    engine.api_.request_free(request);
    std::lock_guard<std::mutex> lock(engine.replies_mutex_);
    engine.replies_in_flight_.erase(reply);
    delete reply;
  };
  param.user_data = r.get();
  r->engine = this;
  // In the set before the send: the callback may run on another thread as soon as it is sent.
  {
    std::lock_guard<std::mutex> lock(replies_mutex_);
    replies_in_flight_.insert(r.get());
  }
  const std::size_t bytes = r->data.data() ? r->header.bytes : 0;  // only a get reply carries a block
  const ucs_status_ptr_t request = staged_send(ep, r->header, r->data.data(), bytes, param);
  if (UCS_PTR_IS_ERR(request))  // the initiator's wait for the reply names the operation too
    log_error(kWhere, "replying to PE %d failed: %s", r->header.from, api_.status_string(UCS_PTR_STATUS(request)));
  if (UCS_PTR_IS_PTR(request)) {
    // The callback frees the reply and the request (ucp_request_free before completion would cancel the
    // callback: UCX then calls none, and the reply and its block would wait for the destructor).
    r.release();
    return;
  }
  std::lock_guard<std::mutex> lock(replies_mutex_);
  replies_in_flight_.erase(r.get());  // sent at once (or failed): r frees the reply
}

void UcxEngine::staged_serve(const StagedHeader &h, const void *data, std::size_t length, ucp_ep_h reply_ep) {
  static const char *const kNames[] = {"put", "get", "atomic"};
  if (h.from < 0 || static_cast<std::size_t>(h.from) >= peers_.size()) {
    log_error(kWhere, "a staged message names PE %d of %zu: not from this job's engine", h.from, peers_.size());
    return;
  }
  Peer &from = peers_[h.from];
  if (h.op == StagedOp::put_ack || h.op == StagedOp::get_reply || h.op == StagedOp::atomic_reply) {
    if (h.op == StagedOp::put_ack && h.width) {
      if (h.token)  // a blocking put's: its own wait reports it
        from.errors.fetch_add(1);
      else
        unwaited_failed(from);
    }
    if (h.op == StagedOp::get_reply) {
      auto *g = reinterpret_cast<GetRecord *>(h.token);
      const bool detached = g->detached;  // read before the last byte count lets a waiter free it
      if (h.width || (length && local_.from_host(g->dst + h.offset, data, length) != Status::ok)) {
        if (detached)
          unwaited_failed(from);
        else
          g->failed = true;
      }
      from.completed.fetch_add(1, std::memory_order_release);
      if (g->remaining.fetch_sub(h.bytes, std::memory_order_acq_rel) == h.bytes && detached) delete g;
      return;
    }
    if (h.op == StagedOp::atomic_reply && h.token == 0 && h.width) unwaited_failed(from);  // atomic_nbi
    if (h.op == StagedOp::atomic_reply && h.token != 0) {
      auto *a = reinterpret_cast<AtomicRecord *>(h.token);
      a->old = h.value;
      a->failed = h.width != 0;
      a->done.store(true, std::memory_order_release);
    }
    from.completed.fetch_add(1, std::memory_order_release);
    return;
  }
  // A request on this PE's slot: execute it, then answer (also when it failed, so the initiator
  // does not wait for the timeout).
  if (h.op > StagedOp::atomic) {
    log_error(kWhere, "a staged message from PE %d has operation %u: not from this library's engine", h.from,
              static_cast<unsigned>(h.op));
    return;
  }
  const char *name = kNames[static_cast<unsigned>(h.op)];
  // A put or get after atomics of this round: those first, so that each initiator's requests execute in
  // the order they came (its `g` after its atomic_add of the word sees the add).
  if (h.op != StagedOp::atomic && deferred_pending_.load(std::memory_order_acquire)) run_deferred_atomics();
  BouncePool::Block reply_data;  // get: the data of its reply
  const std::size_t bytes = h.op == StagedOp::put ? length : h.op == StagedOp::get ? h.bytes : h.width;
  Status st = Status::invalid_value;
  if (h.offset > slot_bytes_ || bytes > slot_bytes_ - h.offset) {
    log_error(kWhere, "PE %d asked for bytes [%llu, +%zu) of this PE's %zu-byte heap slot (%s)", h.from,
              static_cast<unsigned long long>(h.offset), bytes, slot_bytes_, name);
  } else if (h.op == StagedOp::get && bytes > bounces_->block_bytes()) {
    log_error(kWhere, "PE %d asked for %zu bytes in one get message, more than the %zu of the staged path", h.from,
              bytes, bounces_->block_bytes());
  } else if (h.op == StagedOp::atomic && (h.atomic_op > static_cast<uint32_t>(AtomicOp::float_add) ||
                                          (h.width != 2 && h.width != 4 && h.width != 8) || h.offset % h.width != 0)) {
    // Checked here: an unaligned atomic in a kernel would end the target's CUDA context.
    log_error(kWhere, "PE %d asked for atomic operation %u on %u bytes at offset %llu: not an NVSHMEM atomic", h.from,
              h.atomic_op, h.width, static_cast<unsigned long long>(h.offset));
  } else if (h.op == StagedOp::put) {
    st = local_.from_host(slot_ + h.offset, data, length);
  } else if (h.op == StagedOp::get) {
    st = bounces_->take(name, &reply_data);
    if (st == Status::ok) st = local_.to_host(reply_data.data(), slot_ + h.offset, h.bytes);
  } else {  // an atomic: executed with the others this progress round received (run_deferred_atomics)
    std::lock_guard<std::mutex> lock(deferred_mutex_);
    deferred_pending_.fetch_add(1, std::memory_order_release);
    deferred_.push_back({h, reply_ep});
    deferred_queued_.store(deferred_.size(), std::memory_order_release);
    return;
  }
  std::unique_ptr<Reply> r = reply_for(h);
  r->header.offset = h.value;  // get_reply: where the data goes in the destination
  if (st != Status::ok) {
    log_error(kWhere, "executing PE %d's %s of %zu bytes at offset %llu of this PE's slot failed", h.from, name, bytes,
              static_cast<unsigned long long>(h.offset));
    r->header.width = 1;
  } else {
    r->data = std::move(reply_data);
  }
  staged_reply(reply_ep, std::move(r));
}

std::size_t UcxEngine::run_deferred_atomics() {
  std::vector<Deferred> batch;
  std::vector<AtomicJob> jobs;
  Status st = Status::ok;
  {
    // Held while the batch executes, not while its replies are sent: a sender waits for the worker's lock,
    // which a thread in a handler (a put after atomics, below) holds while it waits for this one.
    std::lock_guard<std::mutex> run(deferred_run_mutex_);
    {
      std::lock_guard<std::mutex> lock(deferred_mutex_);
      batch.swap(deferred_);
      deferred_queued_.store(0, std::memory_order_release);
    }
    if (batch.empty()) return 0;  // another thread took them (and has executed them: it held the mutex)
    jobs.reserve(batch.size());
    for (const Deferred &d : batch) {
      const StagedHeader &h = d.header;
      jobs.push_back({slot_ + h.offset, AtomicArgs{static_cast<AtomicOp>(h.atomic_op), h.width, h.value, h.cond}, 0});
    }
    st = local_.atomics(jobs.data(), jobs.size());
    // Executed: a put or get that arrives from now on may run before these replies leave.
    deferred_pending_.fetch_sub(batch.size(), std::memory_order_release);
  }
  if (st != Status::ok)
    log_error(kWhere, "executing a batch of %zu atomics of other PEs on this PE's slot failed", jobs.size());
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const StagedHeader &h = batch[i].header;
    // The reply endpoint is UCX's, outside the handler now, and may be the handle of peers_[h.from].ep: a PE
    // that failed meanwhile may have taken it along, and close() must not take it during the send. Not a
    // blocking lock: this runs inside a handler too, under the worker's lock, which close() waits for while
    // it holds the endpoint's (a PE being closed has failed: no reply).
    Peer &to = peers_[h.from];
    std::shared_lock<std::shared_mutex> use(to.ep_mutex, std::try_to_lock);
    if (!use.owns_lock() || to.failed.load(std::memory_order_relaxed)) continue;
    std::unique_ptr<Reply> r = reply_for(h);
    r->header.value = jobs[i].old;
    r->header.width = st != Status::ok;
    staged_reply(batch[i].reply_ep, std::move(r));
  }
  return batch.size();
}

std::unique_ptr<Reply> UcxEngine::reply_for(const StagedHeader &h) const {
  auto r = std::make_unique<Reply>();
  r->header = h;
  r->header.from = my_pe_;
  r->header.width = 0;
  r->header.op = h.op == StagedOp::put   ? StagedOp::put_ack
                 : h.op == StagedOp::get ? StagedOp::get_reply
                                         : StagedOp::atomic_reply;
  return r;
}

ucs_status_t UcxEngine::on_staged(void *arg, const void *header, std::size_t header_length, void *data,
                                  std::size_t length, const ucp_am_recv_param_t *param) {
  auto *engine = static_cast<UcxEngine *>(arg);
  StagedHeader h;
  if (header_length != sizeof h || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ||
      !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
    log_error(kWhere,
              "a staged message with a %zu-byte header (%zu expected), not eager or without a reply "
              "endpoint: not from this library's engine",
              header_length, sizeof h);
    return UCS_OK;
  }
  memcpy(&h, header, sizeof h);
  engine->staged_serve(h, data, length, param->reply_ep);
  return UCS_OK;  // the data is not kept
}

UcxEngine::~UcxEngine() {
  closing_.store(true);
  if (progress_.joinable()) {
    stop_.store(true, std::memory_order_release);
    api_.worker_signal(worker_);
    progress_.join();
  }
  for (Peer &p : peers_) close(p);
  for (auto &b : local_buffers_) api_.mem_unmap(context_, b.second.memh);  // not unregistered by the user
  if (memh_) api_.mem_unmap(context_, memh_);
  if (worker_) api_.worker_destroy(worker_);
  for (Reply *r : replies_in_flight_) delete r;  // sends the worker never completed
  if (context_) api_.cleanup(context_);
}

// The entries of a comma-separated list, as written (empty ones included).
std::vector<std::string> split_commas(const std::string &list) {
  std::vector<std::string> entries;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t end = list.find(',', at);
    if (end == std::string::npos) end = list.size();
    entries.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return entries;
}

}  // namespace

Status ucx_net_devices(const std::string &hca_list, std::string *out) {
  // A leading ^ excludes the whole list (as UCX's own lists); otherwise every entry says for itself.
  const bool list_excluded = !hca_list.empty() && hca_list[0] == '^';
  std::string devices;
  int included = 0, excluded = 0;
  for (std::string entry : split_commas(hca_list.substr(list_excluded ? 1 : 0))) {
    entry.erase(0, entry.find_first_not_of(" \t"));
    entry.erase(entry.find_last_not_of(" \t") + 1);
    const bool excludes = list_excluded || (!entry.empty() && entry[0] == '^');
    if (!entry.empty() && entry[0] == '^') entry.erase(0, 1);
    if (entry.empty()) continue;
    ++(excludes ? excluded : included);
    devices += (devices.empty() ? "" : ",") + entry;
  }
  if (included && excluded) {
    log_error(kWhere, "NVSHMEM_HCA_LIST=%s both names devices and excludes some: UCX takes a list of one kind",
              hca_list.c_str());
    return Status::invalid_value;
  }
  if (devices.empty()) {
    log_error(kWhere, "NVSHMEM_HCA_LIST=%s names no device", hca_list.c_str());
    return Status::invalid_value;
  }
  *out = (excluded ? "^" : "") + devices;
  return Status::ok;
}

Status map_nic_to_pe(const std::string &pe_mapping, bool enable, int local_rank, std::string *hca_list) {
  if (!pe_mapping.empty()) {  // device:port:count entries
    std::vector<std::pair<std::string, long>> entries;
    long total = 0;
    for (const std::string &entry : split_commas(pe_mapping)) {
      const std::size_t c1 = entry.find(':'), c2 = c1 == std::string::npos ? c1 : entry.find(':', c1 + 1);
      long count = 0;
      if (c2 == std::string::npos || c1 == 0 || !parse_int(entry.c_str() + c2 + 1, &count) || count < 1) {
        log_error(kWhere, "NVSHMEM_HCA_PE_MAPPING=%s: entry '%s' is not device:port:count (count at least 1)",
                  pe_mapping.c_str(), entry.c_str());
        return Status::invalid_value;
      }
      const std::string port = entry.substr(c1 + 1, c2 - c1 - 1);
      entries.emplace_back(entry.substr(0, c1) + (port.empty() ? "" : ":" + port), count);
      total += count;
    }
    long r = local_rank % total;
    for (const auto &[device, count] : entries) {
      if (r < count) {
        *hca_list = device;
        return Status::ok;
      }
      r -= count;
    }
  }
  if (!enable) return Status::ok;
  std::string devices;
  if (hca_list->empty() || ucx_net_devices(*hca_list, &devices) != Status::ok || devices[0] == '^') {
    NVSHM_WARN(kWhere,
               "NVSHMEM_ENABLE_NIC_PE_MAPPING=1 needs NVSHMEM_HCA_LIST naming devices here (or "
               "NVSHMEM_HCA_PE_MAPPING): UCX chooses among the node's devices");
    return Status::ok;
  }
  const std::vector<std::string> names = split_commas(devices);
  *hca_list = names[static_cast<std::size_t>(local_rank) % names.size()];
  return Status::ok;
}

Status parse_cpu_list(const std::string &list, std::vector<int> *cpus) {
  cpus->clear();
  if (list.empty() || !strcasecmp(list.c_str(), "auto")) return Status::ok;
  std::set<int> set;
  const char *p = list.c_str();
  for (;;) {
    char *end = nullptr;
    const long first = strtol(p, &end, 10);
    long last = first;
    bool ok = end != p && first >= 0 && first < CPU_SETSIZE;
    if (ok && *end == '-') {
      p = end + 1;
      last = strtol(p, &end, 10);
      ok = end != p && last >= first && last < CPU_SETSIZE;
    }
    if (!ok || (*end != ',' && *end != '\0')) {
      log_error(kWhere, "NVSHMEM_CPU_AFFINITY=%s is not AUTO or a CPU list such as 3 or 0-3,8 (CPUs below %d)",
                list.c_str(), CPU_SETSIZE);
      return Status::invalid_value;
    }
    for (long cpu = first; cpu <= last; ++cpu) set.insert(static_cast<int>(cpu));
    if (*end == '\0') break;
    p = end + 1;
  }
  cpus->assign(set.begin(), set.end());
  return Status::ok;
}

Status make_ucx_engine(Bootstrap &boot, void *slot, std::size_t slot_bytes, Transport &local,
                       const RemoteOptions &options, std::unique_ptr<RemoteEngine> *out) {
  const UcpApi *api = ucp_api();
  NVSHM_TRY(agree(boot, api ? Status::ok : Status::not_supported));
  auto engine = std::make_unique<UcxEngine>(*api, boot.rank(), local, options);
  std::vector<char> blob;
  NVSHM_TRY(agree(boot, engine->open(slot, slot_bytes, &blob)));
  NVSHM_TRY(engine->connect(boot, std::move(blob)));
  *out = std::move(engine);
  return Status::ok;
}

}  // namespace nvshm
