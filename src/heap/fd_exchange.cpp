// SPDX-License-Identifier: BSD-3-Clause
#include "heap/fd_exchange.hpp"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/log.hpp"

namespace nvshm {
namespace {
constexpr const char *kWhere = "heap fd exchange";

struct Message {
  uint64_t tag;
  int32_t pe;
};

// One Message plus room for one descriptor, as a msghdr for sendmsg/recvmsg.
struct Envelope {
  Message msg{};
  iovec iov{&msg, sizeof msg};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr header{};
  Envelope() {
    header.msg_iov = &iov;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  Envelope(const Envelope &) = delete;
  Envelope &operator=(const Envelope &) = delete;
};

sockaddr_un socket_address(uint64_t tag, int pe, socklen_t *len) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // Abstract namespace: leading NUL, no file to clean up.
  int n = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "nvshmem-%016llx-%d",
                   static_cast<unsigned long long>(tag), pe);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return addr;
}

Status send_fd(uint64_t tag, int to_pe, int from_pe, int fd) {
  socklen_t len;
  sockaddr_un addr = socket_address(tag, to_pe, &len);
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || connect(s, reinterpret_cast<sockaddr *>(&addr), len) != 0) {
    log_error(kWhere, "cannot connect to PE %d's socket: %s", to_pe, strerror(errno));
    if (s >= 0) close(s);
    return Status::internal;
  }
  Envelope e;
  e.msg = {tag, from_pe};
  cmsghdr *cm = CMSG_FIRSTHDR(&e.header);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &fd, sizeof fd);
  ssize_t sent = sendmsg(s, &e.header, MSG_NOSIGNAL);
  close(s);
  if (sent != static_cast<ssize_t>(sizeof e.msg)) {
    log_error(kWhere, "sending the heap descriptor to PE %d failed: %s", to_pe, strerror(errno));
    return Status::internal;
  }
  return Status::ok;
}

// Receive one descriptor on an accepted connection; returns the sender PE or -1.
int receive_fd(int conn, uint64_t tag, int *fd) {
  Envelope e;
  ssize_t got = recvmsg(conn, &e.header, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  cmsghdr *cm = CMSG_FIRSTHDR(&e.header);
  if (got != static_cast<ssize_t>(sizeof e.msg) || e.msg.tag != tag || !cm || cm->cmsg_type != SCM_RIGHTS) return -1;
  memcpy(fd, CMSG_DATA(cm), sizeof *fd);
  return e.msg.pe;
}
}  // namespace

Status exchange_fds(Bootstrap &boot, const NodeInfo &node, int my_fd, int timeout_s, std::vector<int> *fds) {
  const int me = boot.rank();
  // A tag shared by the job: PE 0's random number.
  uint64_t mine = 0;
  if (getrandom(&mine, sizeof mine, 0) != sizeof mine) mine = static_cast<uint64_t>(getpid()) << 20 ^ time(nullptr);
  std::vector<uint64_t> tags(boot.size());
  NVSHM_TRY(boot.allgather(&mine, tags.data(), sizeof mine));
  const uint64_t tag = tags[0];

  socklen_t len;
  sockaddr_un addr = socket_address(tag, me, &len);
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
      listen(listener, static_cast<int>(node.pes.size())) != 0) {
    log_error(kWhere, "cannot open this PE's socket: %s", strerror(errno));
    if (listener >= 0) close(listener);
    // Still join the barrier so that the other PEs fail on their own instead of waiting.
    (void)boot.barrier();
    return Status::internal;
  }
  Status st = boot.barrier();  // every node PE listens now
  for (std::size_t i = 0; st == Status::ok && i < node.pes.size(); ++i)
    if (node.pes[i] != me) st = send_fd(tag, node.pes[i], me, my_fd);

  fds->assign(node.pes.size(), -1);
  std::size_t pending = node.pes.size() - 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (st == Status::ok && pending > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{listener, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      std::string missing;
      for (std::size_t i = 0; i < node.pes.size(); ++i)
        if (node.pes[i] != me && (*fds)[i] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(node.pes[i]);
      log_error(kWhere, "no heap descriptor from PE(s) %s within %d s (NVSHMEM_BOOTSTRAP_TIMEOUT)", missing.c_str(),
                timeout_s);
      st = Status::timeout;
      break;
    }
    int conn = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    int fd = -1;
    int from = receive_fd(conn, tag, &fd);
    close(conn);
    std::size_t index = 0;
    while (index < node.pes.size() && node.pes[index] != from) ++index;
    if (from < 0 || index == node.pes.size() || (*fds)[index] >= 0) {
      log_error(kWhere, "malformed descriptor message (sender PE %d)", from);
      if (fd >= 0) close(fd);
      continue;
    }
    (*fds)[index] = fd;
    --pending;
  }
  close(listener);
  if (st != Status::ok) {
    for (int &fd : *fds)
      if (fd >= 0) close(fd), fd = -1;
  }
  return st;
}

}  // namespace nvshm
