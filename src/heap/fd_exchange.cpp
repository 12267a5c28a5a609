// SPDX-License-Identifier: BSD-3-Clause
#include "heap/fd_exchange.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "common/log.hpp"
#include "heap/symmetric_heap.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "heap fd exchange";
using Clock = std::chrono::steady_clock;

// What every PE contributes to the exchange's one bootstrap allgather; the job's tag (socket names)
// and secret are PE 0's. The bootstrap is authenticated by the launcher, so only PEs of this job
// learn the secret. (The PEs' pids, to check who connects, come from node discovery.)
struct Keys {
  uint64_t tag;
  uint8_t secret[32];
};

// One SOCK_SEQPACKET message, with the descriptor in SCM_RIGHTS.
struct Message {
  uint64_t tag;
  int32_t pe;
  uint8_t secret[32];
};

bool random_bytes(void *out, std::size_t bytes) {
  return getrandom(out, bytes, 0) == static_cast<ssize_t>(bytes);
}

// Constant time: the time taken does not depend on where a forged secret first differs.
bool same_secret(const uint8_t *a, const uint8_t *b) {
  uint8_t diff = 0;
  for (std::size_t i = 0; i < sizeof(Message::secret); ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

sockaddr_un socket_address(uint64_t tag, int pe, socklen_t *len) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // Abstract namespace: leading NUL, no file to clean up. The name is public (/proc/net/unix);
  // what makes a connection trusted is checked on it (see exchange_fds).
  int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "nvshmem-%016llx-%d",
                   static_cast<unsigned long long>(tag), pe);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return addr;
}

long ms_left(Clock::time_point deadline) {
  return std::max<long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
}

// The process at the other end of a Unix socket, as the kernel saw it at connect (or listen).
ucred peer_credentials(int s) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) cred = ucred{-1, static_cast<uid_t>(-1), 0};
  return cred;
}

// Why a process is not the expected PE (nullptr when it is): the same user always, and the same pid
// where it is known (0: the PE is in another pid namespace, where the kernel shows pids translated).
const char *credential_mismatch(const ucred &cred, int64_t expected_pid) {
  if (cred.uid != geteuid()) return "a different user";
  if (expected_pid != 0 && cred.pid != expected_pid) return "a different process";
  return nullptr;
}

// One message and room for one descriptor, laid out for sendmsg and recvmsg. Neither copyable nor
// movable: the header points into it.
struct Frame {
  Message m;
  iovec iov{&m, sizeof m};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
  explicit Frame(const Message &message) : m(message) {
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  Frame(const Frame &) = delete;
  Frame &operator=(const Frame &) = delete;
};

Status send_fd(int to_pe, int64_t peer_pid, const Message &msg, int fd, Clock::time_point deadline) {
  socklen_t len;
  sockaddr_un addr = socket_address(msg.tag, to_pe, &len);
  int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s < 0) {
    log_error(kWhere, "cannot create a socket to send the heap descriptor to PE %d: %s", to_pe, strerror(errno));
    return Status::internal;
  }
  // A full backlog (EAGAIN) is retried until the deadline; anything else is final.
  int rc;
  while ((rc = connect(s, reinterpret_cast<sockaddr *>(&addr), len)) != 0 && errno == EAGAIN && ms_left(deadline) > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (rc != 0) {
    log_error(
        kWhere, "cannot connect to PE %d's socket: %s", to_pe,
        errno == EAGAIN ? "its backlog stayed full until the timeout (NVSHMEM_BOOTSTRAP_TIMEOUT)" : strerror(errno));
    close(s);
    return errno == EAGAIN ? Status::timeout : Status::internal;
  }
  // Check who listens before handing over the secret and the descriptor: the name is public, and
  // names are per network namespace, so a PE of this node in another one would reach a stranger.
  const ucred cred = peer_credentials(s);
  if (const char *why = credential_mismatch(cred, peer_pid)) {
    log_error(kWhere,
              "PE %d's socket is held by pid %d (uid %u), %s than PE %d (pid %lld, uid %u); another process took its "
              "name: the heap descriptor is not sent",
              to_pe, static_cast<int>(cred.pid), static_cast<unsigned>(cred.uid), why, to_pe,
              static_cast<long long>(peer_pid), static_cast<unsigned>(geteuid()));
    close(s);
    return Status::peer_failed;
  }
  Frame frame(msg);
  msghdr &header = frame.header;
  cmsghdr *cm = CMSG_FIRSTHDR(&header);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &fd, sizeof fd);
  ssize_t sent;
  while ((sent = sendmsg(s, &header, MSG_NOSIGNAL)) < 0 && errno == EAGAIN) {
    pollfd p{s, POLLOUT, 0};
    if (poll(&p, 1, static_cast<int>(std::min<long>(ms_left(deadline), 100))) <= 0 && ms_left(deadline) == 0) break;
  }
  const int err = errno;
  close(s);
  if (sent != static_cast<ssize_t>(sizeof frame.m)) {
    log_error(
        kWhere, "sending the heap descriptor to PE %d failed: %s", to_pe,
        sent < 0 && err == EAGAIN ? "not accepted before the timeout (NVSHMEM_BOOTSTRAP_TIMEOUT)" : strerror(err));
    return Status::internal;
  }
  return Status::ok;
}

// An accepted connection whose message has not arrived yet.
struct Pending {
  int fd;
  ucred cred;
};

// Closes every descriptor carried by a message that is rejected.
void close_received(msghdr &header) {
  for (cmsghdr *cm = CMSG_FIRSTHDR(&header); cm; cm = CMSG_NXTHDR(&header, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < n; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
      close(fd);
    }
  }
}

// Reads the one message of a connection (its data has arrived) and checks it. Returns the node index
// of the sender and sets *fd; -1 after logging why it was rejected; -2 when nothing has arrived yet.
int receive_fd(const Pending &conn, const NodeInfo &node, const Message &expected, const std::vector<int> &fds,
               LogLimiter &limiter, int *fd) {
  Frame frame(Message{});
  const Message &m = frame.m;
  msghdr &header = frame.header;
  const ssize_t got = recvmsg(conn.fd, &header, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return -2;  // nothing yet: keep waiting
  const char *why = nullptr;
  std::size_t index = node.pes.size();
  cmsghdr *cm = got > 0 ? CMSG_FIRSTHDR(&header) : nullptr;
  if (got <= 0)
    why = "closed without a message";
  else if (got != static_cast<ssize_t>(sizeof m) || (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
    why = "malformed message";
  else if (m.tag != expected.tag || !same_secret(m.secret, expected.secret))
    why = "wrong job secret";
  else {
    for (index = 0; index < node.pes.size() && node.pes[index] != m.pe;) ++index;
    if (index == node.pes.size() || m.pe == node.pes[node.my_index])
      why = "claims a PE that is not a peer on this node";
    else if (fds[index] >= 0)
      why = "claims a PE whose descriptor already arrived";
    else if (credential_mismatch(conn.cred, node.pids[index]))
      why = "not the process of the PE it claims";
    else if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
             cm->cmsg_len != CMSG_LEN(sizeof(int)))
      why = "no descriptor in the message";
  }
  if (why) {
    close_received(header);
    limiter.error(kWhere, "rejected a connection from pid %d (uid %u) claiming PE %d: %s",
                  static_cast<int>(conn.cred.pid), static_cast<unsigned>(conn.cred.uid),
                  got == static_cast<ssize_t>(sizeof m) ? m.pe : -1, why);
    return -1;
  }
  memcpy(fd, CMSG_DATA(cm), sizeof *fd);
  return static_cast<int>(index);
}
}  // namespace

Status exchange_fds(Bootstrap &boot, const NodeInfo &node, int my_fd, int timeout_s, std::vector<int> *fds) {
  const int me = boot.rank();
  Keys mine{};
  Status st = Status::ok;
  if (!random_bytes(&mine.tag, sizeof mine.tag) || !random_bytes(mine.secret, sizeof mine.secret)) {
    log_error(kWhere, "getrandom failed: %s; cannot make the job secret", strerror(errno));
    st = Status::internal;  // still take part in the rounds below, which end every PE's exchange
  }
  std::vector<Keys> ids(boot.size());
  NVSHM_TRY(boot.allgather(&mine, ids.data(), sizeof mine));
  Message msg;
  memset(&msg, 0, sizeof msg);
  msg.tag = ids[0].tag;
  msg.pe = me;
  memcpy(msg.secret, ids[0].secret, sizeof msg.secret);
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);

  socklen_t len;
  sockaddr_un addr = socket_address(msg.tag, me, &len);
  int listener = st == Status::ok ? socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0) : -1;
  if (st == Status::ok && (listener < 0 || bind(listener, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
                           listen(listener, static_cast<int>(node.pes.size()) + 8) != 0)) {
    log_error(kWhere, "cannot open this PE's socket @%s: %s%s", addr.sun_path + 1, strerror(errno),
              errno == EADDRINUSE ? " (another process holds its name)" : "");
    st = Status::internal;
  }
  // Every node PE listens now, or none sends: a name held by another process must not receive descriptors.
  st = agree(boot, st);
  for (std::size_t i = 0; st == Status::ok && i < node.pes.size(); ++i)
    if (node.pes[i] != me) st = send_fd(node.pes[i], node.pids[i], msg, my_fd, deadline);

  // Accept connections as they come and read each one's message when it arrives, so that a silent or
  // slow stranger never holds up the PEs behind it. At most kMaxPending unidentified connections are
  // kept: past that the oldest is dropped (PEs send at once after connecting).
  const std::size_t kMaxPending = node.pes.size() + 8;
  LogLimiter limiter(5, 1.0);
  fds->assign(node.pes.size(), -1);
  std::size_t pending = st == Status::ok ? node.pes.size() - 1 : 0;
  std::vector<Pending> conns;
  while (st == Status::ok && pending > 0) {
    std::vector<pollfd> polled{{listener, POLLIN, 0}};
    for (const Pending &c : conns) polled.push_back({c.fd, POLLIN, 0});
    const long left = ms_left(deadline);
    if (left == 0 || poll(polled.data(), polled.size(), static_cast<int>(std::min<long>(left, 1000))) < 0) {
      if (left > 0 && errno == EINTR) continue;
      if (left > 0) {
        log_error(kWhere, "poll failed: %s", strerror(errno));
        st = Status::internal;
        break;
      }
      std::string missing;
      for (std::size_t i = 0; i < node.pes.size(); ++i)
        if (node.pes[i] != me && (*fds)[i] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(node.pes[i]);
      std::string silent;
      if (!conns.empty())
        silent = "; " + std::to_string(conns.size()) + " connection(s) sent nothing (first from pid " +
                 std::to_string(conns.front().cred.pid) + ")";
      log_error(kWhere, "no heap descriptor from PE(s) %s within %d s (NVSHMEM_BOOTSTRAP_TIMEOUT)%s", missing.c_str(),
                timeout_s, silent.c_str());
      st = Status::timeout;
      break;
    }
    // Messages first: they free slots.
    std::vector<Pending> kept;
    for (std::size_t k = 0; k < conns.size(); ++k) {
      if (!polled[k + 1].revents) {
        kept.push_back(conns[k]);
        continue;
      }
      int fd = -1;
      const int index = receive_fd(conns[k], node, msg, *fds, limiter, &fd);
      if (index == -2) {
        kept.push_back(conns[k]);
        continue;
      }
      close(conns[k].fd);
      if (index >= 0) (*fds)[index] = fd, --pending;
    }
    conns.swap(kept);
    if (!(polled[0].revents & POLLIN)) continue;
    for (;;) {
      int conn = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (conn < 0) {
        if (errno == EMFILE || errno == ENFILE) {
          limiter.error(kWhere, "accept failed: %s; retrying", strerror(errno));
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        break;
      }
      const ucred cred = peer_credentials(conn);
      if (cred.uid != geteuid()) {
        limiter.error(kWhere, "rejected a connection from pid %d (uid %u): a different user than this job's (uid %u)",
                      static_cast<int>(cred.pid), static_cast<unsigned>(cred.uid), static_cast<unsigned>(geteuid()));
        close(conn);
        continue;
      }
      if (conns.size() == kMaxPending) {
        limiter.error(kWhere, "dropped a connection from pid %d that sent nothing: more than %zu connections waiting",
                      static_cast<int>(conns.front().cred.pid), kMaxPending);
        close(conns.front().fd);
        conns.erase(conns.begin());
      }
      conns.push_back({conn, cred});
    }
  }
  for (const Pending &c : conns) close(c.fd);
  if (listener >= 0) close(listener);
  if (st != Status::ok) {
    for (int &fd : *fds)
      if (fd >= 0) close(fd), fd = -1;
  }
  return st;
}

}  // namespace nvshm
