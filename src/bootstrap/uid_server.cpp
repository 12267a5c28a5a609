// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/uid_server.hpp"

#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/log.hpp"

namespace nvshm::boot {
namespace {
constexpr const char *kWhere = "bootstrap server";
constexpr int kMaxRanks = 1 << 20;
// Strangers: a connection is one until its HELLO is accepted. PEs send HELLO as soon as they have
// connected, so a stranger gets a short deadline, and at most kMaxStrangers are kept: past that (or at
// the descriptor limit) the one accepted first is dropped.
constexpr std::chrono::seconds kHelloWait{10};
constexpr std::size_t kMaxStrangers = 64;
// After an accept failure nothing can free (descriptor limit, no stranger to drop): pause accepting.
constexpr std::chrono::milliseconds kAcceptPause{100};

struct Conn {
  Fd fd;
  std::string peer;  // "address:port", for messages
  int rank = -1;     // -1 until its HELLO is accepted
  bool dead = false, bye = false, told_error = false;
  bool parked = false;  // its HELLO waits for the current session to end (persistent servers)
  int hello_rank = -1, hello_nranks = 0;
  Clock::time_point hello_deadline;
  unsigned char hdr[kHeaderBytes];
  std::size_t hdr_got = 0;
  FrameHeader h;
  bool in_payload = false;
  std::vector<unsigned char> payload;
  std::size_t payload_got = 0;
};

std::string rank_list(const std::vector<int> &ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}
}  // namespace

// Everything the server thread owns; see docs/bootstrap.md for the state machine.
struct UidServer::State {
  UidServer &srv;
  std::chrono::seconds timeout;
  std::vector<std::unique_ptr<Conn>> conns;
  int nranks = -1;              // learned from the first accepted HELLO
  std::vector<Conn *> by_rank;  // connected ranks
  std::vector<char> gone;       // rank said BYE or disconnected
  int hellos = 0;
  bool ready = false;
  Clock::time_point hello_deadline;
  // The current allgather round.
  std::uint32_t seq = 0;
  std::vector<unsigned char> blob;
  std::vector<char> arrived;
  int arrived_count = 0;
  std::uint64_t bytes = 0;
  int first_rank = -1;
  Clock::time_point round_deadline;
  // Once set, the job is broken: every PE is told, and later requests get the same answer.
  Status failed = Status::ok;
  std::string fail_msg;
  // Lines a stranger can provoke (rejections, accept failures) are rate-limited.
  LogLimiter log_limit{10, 10.0};
  Clock::time_point accept_paused_until{};

  State(UidServer &s, long t) : srv(s), timeout(t) {}

  void send(Conn &c, Frame type, Status code, const void *payload, std::size_t len) {
    if (c.dead) return;
    FrameHeader h;
    h.type = static_cast<std::uint16_t>(type);
    h.code = static_cast<std::uint16_t>(code);
    h.seq = seq;
    h.length = len;
    if (send_frame(c.fd.get(), h, payload, Clock::now() + timeout) != Io::ok) lost(c);
  }
  void send_error(Conn &c, Status code, const std::string &msg) {
    c.told_error = true;
    send(c, Frame::error, code, msg.data(), msg.size() > kMaxText ? kMaxText : msg.size());
  }

  // Breaks the job: every connected PE gets the message (clients log it and return `code`).
  void fail(Status code, const std::string &msg) {
    if (failed != Status::ok) return;
    failed = code;
    fail_msg = msg;
    NVSHM_INFO(kWhere, "job failed: %s", msg.c_str());
    for (int r = 0; r < nranks; ++r)
      if (by_rank[r] && !by_rank[r]->dead) send_error(*by_rank[r], code, msg);
    arrived.assign(arrived.size(), 0);
    arrived_count = 0;
  }

  // Refuses a connection: the server logs why (naming the sender's address) and tells the sender.
  void reject(Conn &c, Status code, const std::string &msg) {
    log_limit.error(kWhere, "rejected %s: %s", c.peer.c_str(), msg.c_str());
    send_error(c, code, msg);
    if (c.rank >= 0) {
      fail(code, "PE " + std::to_string(c.rank) + " (" + c.peer + "): " + msg);
      c.bye = true;  // already reported: lost() must not report a crash
    }
    lost(c);
  }

  // A ranked connection ended (disconnect, BYE, send failure or protocol error).
  void lost(Conn &c) {
    if (c.dead) return;
    c.dead = true;
    if (c.rank < 0) return;
    by_rank[c.rank] = nullptr;
    gone[c.rank] = 1;
    if (!c.bye) {
      fail(Status::peer_failed, "PE " + std::to_string(c.rank) + " (" + c.peer +
                                    ") lost its bootstrap connection without finalizing (did it exit or crash?)");
    } else if (arrived_count > 0) {
      fail(Status::peer_failed, "PE " + std::to_string(c.rank) +
                                    " finalized (closed the bootstrap) while other PEs were in a bootstrap round");
    }
  }

  std::vector<int> missing(bool round) const {
    std::vector<int> out;
    for (int r = 0; r < nranks; ++r)
      if (round ? !arrived[r] : !by_rank[r] && !gone[r]) out.push_back(r);
    return out;
  }

  void on_hello(Conn &c) {
    if (c.rank >= 0 || c.parked) return reject(c, Status::invalid_value, "protocol error: a second HELLO");
    const unsigned char *p = c.payload.data();
    unsigned char diff = 0;
    for (std::size_t i = 0; i < kSecretBytes; ++i) diff |= p[i] ^ srv.secret_[i];
    std::uint32_t n;
    memcpy(&n, p + kSecretBytes, 4);
    int nr = static_cast<int>(be32toh(n)), rank = c.h.rank;
    if (diff)
      return reject(c, Status::invalid_value,
                    "wrong secret: the unique id this PE used was not issued by this server (stale or foreign id)");
    if (nr < 1 || nr > kMaxRanks)
      return reject(c, Status::invalid_value, "nranks " + std::to_string(nr) + " is out of range");
    c.hello_rank = rank;
    c.hello_nranks = nr;
    if (srv.persistent_ && nranks > 0 && rank >= 0 && rank < nranks && gone[rank]) {
      // This PE finalized and starts again before the others finalized: next session.
      c.parked = true;
      c.hello_deadline = Clock::now() + timeout;
      return;
    }
    admit(c);
  }

  // Accepts (or refuses) the HELLO of c into the current session.
  void admit(Conn &c) {
    int rank = c.hello_rank, nr = c.hello_nranks;
    if (nranks > 0 && nr != nranks)
      return reject(c, Status::symmetry,
                    "PE " + std::to_string(rank) + " says nranks is " + std::to_string(nr) +
                        " but the PEs that connected before it said " + std::to_string(nranks));
    if (rank < 0 || rank >= nr)
      return reject(c, Status::invalid_value,
                    "rank " + std::to_string(rank) + " is out of range [0, " + std::to_string(nr) + ")");
    if (nranks > 0 && (by_rank[rank] || gone[rank]))
      return reject(c, Status::invalid_value,
                    "rank " + std::to_string(rank) + " is already taken by another connection" +
                        (by_rank[rank] ? " from " + by_rank[rank]->peer : std::string()));
    if (failed != Status::ok) return reject(c, failed, fail_msg);
    if (nranks < 0) {
      nranks = nr;
      by_rank.assign(nr, nullptr);
      gone.assign(nr, 0);
      arrived.assign(nr, 0);
      hello_deadline = Clock::now() + timeout;
      srv.had_clients_ = true;
    }
    c.rank = rank;
    by_rank[rank] = &c;
    if (++hellos == nranks) {
      ready = true;
      for (Conn *k : by_rank)
        if (k) send(*k, Frame::ready, Status::ok, nullptr, 0);
    }
  }

  // Every PE of the session has left: forget it, then admit the HELLOs that were waiting for it.
  void next_session() {
    nranks = -1;
    by_rank.clear();
    gone.clear();
    arrived.clear();
    hellos = 0;
    ready = false;
    seq = 0;
    arrived_count = 0;
    failed = Status::ok;
    fail_msg.clear();
    for (auto &c : conns)
      if (c->parked && !c->dead) {
        c->parked = false;
        admit(*c);
      }
  }

  void on_contrib(Conn &c) {
    if (c.rank < 0 || c.h.rank != c.rank)
      return reject(c, Status::invalid_value, "protocol error: CONTRIB with a wrong rank");
    if (failed != Status::ok) {
      if (!c.told_error) send_error(c, failed, fail_msg);
      return;
    }
    if (!ready) return reject(c, Status::invalid_value, "protocol error: CONTRIB before every PE connected");
    if (arrived[c.rank]) return reject(c, Status::invalid_value, "protocol error: two CONTRIBs in one round");
    if (c.h.seq != seq)
      return reject(
          c, Status::invalid_value,
          "protocol error: CONTRIB for round " + std::to_string(c.h.seq) + " during round " + std::to_string(seq));
    if (c.h.length * static_cast<std::uint64_t>(nranks) > kMaxRound)
      return reject(c, Status::invalid_value,
                    "CONTRIB of " + std::to_string(c.h.length) + " bytes: the result for " + std::to_string(nranks) +
                        " PEs would exceed " + std::to_string(kMaxRound) + " bytes");
    for (int r = 0; r < nranks; ++r)
      if (gone[r])
        return fail(Status::peer_failed,
                    "PE " + std::to_string(r) + " has already finalized; this bootstrap round cannot complete");
    std::uint64_t len = c.h.length;
    if (arrived_count == 0) {
      bytes = len;
      first_rank = c.rank;
      blob.assign(static_cast<std::size_t>(nranks) * len, 0);
      round_deadline = Clock::now() + timeout;
    } else if (len != bytes) {
      return fail(Status::symmetry, "PE " + std::to_string(c.rank) + " passed " + std::to_string(len) +
                                        " bytes but PE " + std::to_string(first_rank) + " passed " +
                                        std::to_string(bytes) +
                                        " bytes to the same bootstrap round; all PEs must pass the same size");
    }
    if (len) memcpy(blob.data() + static_cast<std::size_t>(c.rank) * len, c.payload.data(), len);
    arrived[c.rank] = 1;
    if (++arrived_count < nranks) return;
    for (Conn *k : by_rank)
      if (k) send(*k, Frame::result, Status::ok, blob.data(), blob.size());
    arrived.assign(nranks, 0);
    arrived_count = 0;
    ++seq;
  }

  void on_frame(Conn &c) {
    switch (static_cast<Frame>(c.h.type)) {
      case Frame::hello:
        return on_hello(c);
      case Frame::contrib:
        return on_contrib(c);
      case Frame::bye:
        c.bye = true;
        return lost(c);
      case Frame::global_exit:
        if (srv.on_global_exit_) srv.on_global_exit_(c.rank, c.h.code);
        return;
      default:
        break;
    }
  }

  // Checks a header before its payload is read: magic, type, and a length bound for the type.
  bool header_ok(Conn &c) {
    const FrameHeader &h = c.h;
    std::string why;
    if (h.magic != kFrameMagic) {
      why = "not a bootstrap frame (bad magic)";
    } else if (h.type == static_cast<std::uint16_t>(Frame::hello)) {
      if (h.length != kHelloBytes) why = "HELLO of " + std::to_string(h.length) + " bytes";
    } else if (h.type == static_cast<std::uint16_t>(Frame::contrib)) {
      if (h.length > kMaxBlob)
        why = "CONTRIB of " + std::to_string(h.length) + " bytes (limit " + std::to_string(kMaxBlob) + ")";
    } else if (h.type == static_cast<std::uint16_t>(Frame::bye) ||
               h.type == static_cast<std::uint16_t>(Frame::global_exit)) {
      if (h.length != 0) why = std::string(frame_name(h.type)) + " with a payload";
    } else {
      why = "unexpected frame type " + std::to_string(h.type);
    }
    if (why.empty() && c.rank < 0 && h.type != static_cast<std::uint16_t>(Frame::hello)) why = "no HELLO first";
    if (why.empty()) return true;
    reject(c, Status::invalid_value, "malformed frame: " + why);
    return false;
  }

  // Reads what the socket has; handles each complete frame.
  void on_readable(Conn &c) {
    while (!c.dead) {
      unsigned char *dst = c.in_payload ? c.payload.data() + c.payload_got : c.hdr + c.hdr_got;
      std::size_t want = c.in_payload ? c.payload.size() - c.payload_got : kHeaderBytes - c.hdr_got;
      ssize_t n = ::recv(c.fd.get(), dst, want, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) return lost(c);
      if (c.in_payload) {
        c.payload_got += static_cast<std::size_t>(n);
      } else if ((c.hdr_got += static_cast<std::size_t>(n)) == kHeaderBytes) {
        c.h = decode_header(c.hdr);
        c.hdr_got = 0;
        if (!header_ok(c)) return;
        c.payload.resize(c.h.length);
        c.payload_got = 0;
        c.in_payload = true;
      }
      if (c.in_payload && c.payload_got == c.payload.size()) {
        c.in_payload = false;
        on_frame(c);
      }
    }
  }

  void check_deadlines(Clock::time_point now) {
    for (auto &c : conns)
      if (!c->dead && c->rank < 0 && now >= c->hello_deadline) {
        if (c->parked) {
          std::vector<int> left;
          for (int r = 0; r < nranks; ++r)
            if (!gone[r]) left.push_back(r);
          send_error(*c, Status::timeout,
                     "the previous session of this job has not ended: PEs " + rank_list(left) +
                         " did not finalize within " + std::to_string(timeout.count()) +
                         " s (NVSHMEM_BOOTSTRAP_TIMEOUT)");
        } else {
          NVSHM_WARN(kWhere, "no HELLO from %s within %lld s; closing it", c->peer.c_str(),
                     static_cast<long long>(std::min<std::chrono::seconds>(timeout, kHelloWait).count()));
        }
        c->dead = true;
      }
    if (failed != Status::ok || nranks < 0) return;
    std::string t = std::to_string(timeout.count());
    if (!ready && now >= hello_deadline)
      fail(Status::timeout, "PEs " + rank_list(missing(false)) + " did not connect to the bootstrap within " + t +
                                " s (NVSHMEM_BOOTSTRAP_TIMEOUT); " + std::to_string(hellos) + " of " +
                                std::to_string(nranks) + " PEs connected");
    else if (arrived_count > 0 && now >= round_deadline)
      fail(Status::timeout,
           "PEs " + rank_list(missing(true)) + " did not arrive within " + t + " s (NVSHMEM_BOOTSTRAP_TIMEOUT)");
  }

  // Milliseconds until the nearest deadline, or -1 for none.
  int poll_timeout(Clock::time_point now) const {
    Clock::time_point next = Clock::time_point::max();
    for (auto &c : conns)
      if (!c->dead && c->rank < 0 && c->hello_deadline < next) next = c->hello_deadline;
    if (accept_paused_until > now && accept_paused_until < next) next = accept_paused_until;
    if (failed == Status::ok && nranks > 0) {
      if (!ready && hello_deadline < next) next = hello_deadline;
      if (arrived_count > 0 && round_deadline < next) next = round_deadline;
    }
    if (next == Clock::time_point::max()) return -1;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    return ms < 0 ? 0 : static_cast<int>(ms > 60000 ? 60000 : ms);
  }

  static bool stranger(const Conn &c) { return !c.dead && c.rank < 0 && !c.parked; }

  // Drops the stranger accepted first (closing its socket now); false when there is none.
  bool drop_oldest_stranger(const char *why) {
    for (auto &c : conns) {
      if (!stranger(*c)) continue;
      log_limit.error(kWhere, "dropped %s, which sent no HELLO: %s", c->peer.c_str(), why);
      c->dead = true;
      c->fd.reset();
      return true;
    }
    return false;
  }

  void accept_all() {
    for (;;) {
      sockaddr_storage addr{};
      socklen_t len = sizeof addr;
      int fd = accept4(srv.listen_.get(), reinterpret_cast<sockaddr *>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if ((errno == EMFILE || errno == ENFILE) && drop_oldest_stranger("this process ran out of descriptors"))
          continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
          // The pending connection stays in the backlog and the listener readable: pause, do not spin.
          log_limit.error(kWhere, "accept failed: %s; pausing accepts for %lld ms", strerror(errno),
                          static_cast<long long>(kAcceptPause.count()));
          accept_paused_until = Clock::now() + kAcceptPause;
        }
        return;
      }
      set_nodelay(fd);
      if (static_cast<std::size_t>(std::count_if(conns.begin(), conns.end(), [](auto &k) { return stranger(*k); })) >=
          kMaxStrangers)
        drop_oldest_stranger("too many connections without HELLO");
      auto c = std::make_unique<Conn>();
      c->fd.reset(fd);
      c->peer = addr_to_string(reinterpret_cast<sockaddr *>(&addr));
      c->hello_deadline = Clock::now() + std::min<Clock::duration>(timeout, kHelloWait);
      conns.push_back(std::move(c));
    }
  }
};

Status UidServer::start(const Env &env, const ServerOptions &opts, std::unique_ptr<UidServer> *out) {
  const char *where = "nvshmemx_get_uniqueid";
  if (env.bootstrap_timeout <= 0) {
    log_error(where, "NVSHMEM_BOOTSTRAP_TIMEOUT=%ld must be a positive number of seconds", env.bootstrap_timeout);
    return Status::invalid_value;
  }
  std::unique_ptr<UidServer> s(new UidServer());
  s->timeout_s_ = std::min(env.bootstrap_timeout, kMaxTimeout);
  UidInfo info;
  s->persistent_ = opts.persistent;
  s->on_global_exit_ = opts.on_global_exit;
  NVSHM_TRY(choose_listen_address(env.uid_sock_ifname, env.uid_sock_family, opts.loopback, &info.addr));
  if (getrandom(s->secret_, kSecretBytes, 0) != static_cast<ssize_t>(kSecretBytes)) {
    log_error(where, "getrandom failed: %s", strerror(errno));
    return Status::internal;
  }
  memcpy(info.secret, s->secret_, kSecretBytes);
  auto *sa = reinterpret_cast<sockaddr *>(&info.addr);
  socklen_t len = sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  s->listen_.reset(socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s->listen_ || bind(s->listen_.get(), sa, len) != 0 || listen(s->listen_.get(), SOMAXCONN) != 0 ||
      getsockname(s->listen_.get(), sa, &len) != 0) {
    log_error(where, "cannot listen on %s: %s", addr_to_string(sa).c_str(), strerror(errno));
    return Status::internal;
  }
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) != 0) {
    log_error(where, "pipe2 failed: %s", strerror(errno));
    return Status::internal;
  }
  s->wake_read_.reset(pipefd[0]);
  s->wake_write_.reset(pipefd[1]);
  uid_pack(info, &s->id_);
  NVSHM_INFO(where, "bootstrap server listening on %s", addr_to_string(sa).c_str());
  s->owner_ = getpid();
  s->thread_ = std::thread([p = s.get()] { p->run(); });
  *out = std::move(s);
  return Status::ok;
}

UidServer::~UidServer() {
  stop();
}

bool UidServer::inherited() const {
  return owner_ != getpid();
}

void UidServer::abandon() {
  listen_.reset();
  wake_read_.reset();
  wake_write_.reset();
}

bool UidServer::wait_done(std::chrono::milliseconds limit) {
  auto end = Clock::now() + limit;
  while (!done_.load()) {
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void UidServer::stop() {
  if (!thread_.joinable() || inherited()) return;
  char b = 1;
  ssize_t ignored = write(wake_write_.get(), &b, 1);
  (void)ignored;
  thread_.join();
}

void UidServer::run() {
  State st(*this, timeout_s_);
  std::vector<pollfd> fds;
  for (;;) {
    const short accepting = Clock::now() >= st.accept_paused_until ? POLLIN : 0;
    fds.assign({{wake_read_.get(), POLLIN, 0}, {listen_.get(), accepting, 0}});
    for (auto &c : st.conns) fds.push_back({c->fd.get(), POLLIN, 0});
    int n = poll(fds.data(), fds.size(), st.poll_timeout(Clock::now()));
    if (n < 0 && errno != EINTR) {
      log_error(kWhere, "poll failed: %s", strerror(errno));
      break;
    }
    if (n > 0 && fds[0].revents) break;  // stop()
    if (n > 0 && fds[1].revents) st.accept_all();
    for (std::size_t i = 2; n > 0 && i < fds.size(); ++i)
      if (fds[i].revents) st.on_readable(*st.conns[i - 2]);
    st.check_deadlines(Clock::now());
    // Close what ended; the job is over once every PE that connected has left.
    st.conns.erase(std::remove_if(st.conns.begin(), st.conns.end(), [](auto &c) { return c->dead; }), st.conns.end());
    bool ranked = false;
    for (auto &c : st.conns) ranked |= c->rank >= 0;
    if (st.nranks > 0 && !ranked) {
      if (!persistent_) break;
      st.next_session();
    }
  }
  st.log_limit.flush(kWhere);
  st.conns.clear();
  listen_.reset();
  done_ = true;
}

}  // namespace nvshm::boot
