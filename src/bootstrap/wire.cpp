// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/wire.hpp"

#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.hpp"

namespace nvshm::boot {

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

// ---- frames ----
namespace {
void put32(unsigned char *p, std::uint32_t v) {
  v = htobe32(v);
  memcpy(p, &v, 4);
}
void put16(unsigned char *p, std::uint16_t v) {
  v = htobe16(v);
  memcpy(p, &v, 2);
}
std::uint32_t get32(const unsigned char *p) {
  std::uint32_t v;
  memcpy(&v, p, 4);
  return be32toh(v);
}
std::uint16_t get16(const unsigned char *p) {
  std::uint16_t v;
  memcpy(&v, p, 2);
  return be16toh(v);
}
}  // namespace

void encode_header(const FrameHeader &h, unsigned char out[kHeaderBytes]) {
  put32(out, h.magic);
  put16(out + 4, h.type);
  put16(out + 6, h.code);
  put32(out + 8, static_cast<std::uint32_t>(h.rank));
  put32(out + 12, h.seq);
  std::uint64_t len = htobe64(h.length);
  memcpy(out + 16, &len, 8);
}

FrameHeader decode_header(const unsigned char in[kHeaderBytes]) {
  FrameHeader h;
  h.magic = get32(in);
  h.type = get16(in + 4);
  h.code = get16(in + 6);
  h.rank = static_cast<std::int32_t>(get32(in + 8));
  h.seq = get32(in + 12);
  std::uint64_t len;
  memcpy(&len, in + 16, 8);
  h.length = be64toh(len);
  return h;
}

const char *frame_name(std::uint16_t type) {
  switch (static_cast<Frame>(type)) {
    case Frame::hello:
      return "HELLO";
    case Frame::ready:
      return "READY";
    case Frame::contrib:
      return "CONTRIB";
    case Frame::result:
      return "RESULT";
    case Frame::error:
      return "ERROR";
    case Frame::bye:
      return "BYE";
    case Frame::global_exit:
      return "GLOBAL_EXIT";
  }
  return "unknown";
}

// ---- I/O ----
namespace {
// Waits until fd is ready for `events` or the deadline passes.
Io wait_fd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Io::timeout;
    pollfd p{fd, events, 0};
    int n = poll(&p, 1, static_cast<int>(left > 1000 ? 1000 : left + 1));
    if (n > 0) return Io::ok;
    if (n < 0 && errno != EINTR) return Io::error;
  }
}
}  // namespace

Io send_all(int fd, const void *data, std::size_t bytes, Clock::time_point deadline) {
  auto *p = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t n = ::send(fd, p, bytes, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Io w = wait_fd(fd, POLLOUT, deadline);
      if (w != Io::ok) return w;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return (errno == EPIPE || errno == ECONNRESET) ? Io::closed : Io::error;
    }
  }
  return Io::ok;
}

Io recv_all(int fd, void *data, std::size_t bytes, Clock::time_point deadline) {
  auto *p = static_cast<char *>(data);
  while (bytes > 0) {
    ssize_t n = ::recv(fd, p, bytes, 0);
    if (n > 0) {
      p += n;
      bytes -= static_cast<std::size_t>(n);
    } else if (n == 0) {
      return Io::closed;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Io w = wait_fd(fd, POLLIN, deadline);
      if (w != Io::ok) return w;
    } else if (errno != EINTR) {
      return errno == ECONNRESET ? Io::closed : Io::error;
    }
  }
  return Io::ok;
}

Io send_frame(int fd, const FrameHeader &h, const void *payload, Clock::time_point deadline) {
  unsigned char hdr[kHeaderBytes];
  encode_header(h, hdr);
  Io r = send_all(fd, hdr, sizeof hdr, deadline);
  if (r != Io::ok || h.length == 0) return r;
  return send_all(fd, payload, h.length, deadline);
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

bool set_nonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

std::string addr_to_string(const sockaddr *sa) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    auto *in = reinterpret_cast<const sockaddr_in *>(sa);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto *in6 = reinterpret_cast<const sockaddr_in6 *>(sa);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "(unknown address family " + std::to_string(sa->sa_family) + ")";
}

// ---- unique id ----
// Layout of id->internal (big-endian): magic(4) format(2) family(2) port(2) address(16) scope(4)
// secret(16) checksum(4, FNV-1a of the preceding 46 bytes); the rest is zero.
namespace {
constexpr std::uint32_t kUidMagic = 0x4e565549;  // "NVUI"
constexpr std::uint16_t kUidFormat = 1;
constexpr std::size_t kUidUsed = 50;

std::uint32_t fnv1a(const unsigned char *p, std::size_t n) {
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 16777619u;
  return h;
}
}  // namespace

void uid_pack(const UidInfo &info, nvshmemx_uniqueid_t *id) {
  memset(id, 0, sizeof *id);
  id->version = static_cast<int>(NVSHMEMX_UNIQUEID_VERSION);
  auto *p = reinterpret_cast<unsigned char *>(id->internal);
  put32(p, kUidMagic);
  put16(p + 4, kUidFormat);
  if (info.addr.ss_family == AF_INET) {
    auto *in = reinterpret_cast<const sockaddr_in *>(&info.addr);
    put16(p + 6, 4);
    memcpy(p + 8, &in->sin_port, 2);
    memcpy(p + 10, &in->sin_addr, 4);
  } else {
    auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&info.addr);
    put16(p + 6, 6);
    memcpy(p + 8, &in6->sin6_port, 2);
    memcpy(p + 10, &in6->sin6_addr, 16);
    put32(p + 26, in6->sin6_scope_id);
  }
  memcpy(p + 30, info.secret, kSecretBytes);
  put32(p + 46, fnv1a(p, 46));
}

Status uid_unpack(const nvshmemx_uniqueid_t &id, const char *where, UidInfo *info) {
  auto *p = reinterpret_cast<const unsigned char *>(id.internal);
  if (id.version != static_cast<int>(NVSHMEMX_UNIQUEID_VERSION) || get32(p) != kUidMagic ||
      get16(p + 4) != kUidFormat || get32(p + 46) != fnv1a(p, 46)) {
    log_error(where,
              "the unique id is not valid (version 0x%x, expected 0x%x; or its contents are damaged): "
              "pass the id that nvshmemx_get_uniqueid produced, unchanged, to every PE",
              static_cast<unsigned>(id.version), static_cast<unsigned>(NVSHMEMX_UNIQUEID_VERSION));
    return Status::invalid_value;
  }
  for (std::size_t i = kUidUsed; i < sizeof id.internal; ++i) {
    if (p[i] != 0) {
      log_error(where, "the unique id is not valid (unexpected bytes after its contents)");
      return Status::invalid_value;
    }
  }
  *info = UidInfo{};
  std::uint16_t family = get16(p + 6);
  if (family == 4) {
    auto *in = reinterpret_cast<sockaddr_in *>(&info->addr);
    in->sin_family = AF_INET;
    memcpy(&in->sin_port, p + 8, 2);
    memcpy(&in->sin_addr, p + 10, 4);
  } else if (family == 6) {
    auto *in6 = reinterpret_cast<sockaddr_in6 *>(&info->addr);
    in6->sin6_family = AF_INET6;
    memcpy(&in6->sin6_port, p + 8, 2);
    memcpy(&in6->sin6_addr, p + 10, 16);
    in6->sin6_scope_id = get32(p + 26);
  } else {
    log_error(where, "the unique id is not valid (address family %u)", family);
    return Status::invalid_value;
  }
  memcpy(info->secret, p + 30, kSecretBytes);
  return Status::ok;
}

std::string uid_to_hex(const nvshmemx_uniqueid_t &id) {
  static const char digits[] = "0123456789abcdef";
  auto *p = reinterpret_cast<const unsigned char *>(&id);
  std::string s;
  for (std::size_t i = 0; i < sizeof id; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

bool uid_from_hex(const char *text, nvshmemx_uniqueid_t *id) {
  if (!text || strlen(text) != 2 * sizeof *id) return false;
  auto nibble = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  auto *p = reinterpret_cast<unsigned char *>(id);
  for (std::size_t i = 0; i < sizeof *id; ++i) {
    int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    p[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

Status choose_listen_address(const std::string &ifname, const std::string &family_name, bool loopback,
                             sockaddr_storage *out) {
  const char *where = "nvshmemx_get_uniqueid";
  int family;
  if (family_name.empty() || !strcasecmp(family_name.c_str(), "AF_INET")) {
    family = AF_INET;
  } else if (!strcasecmp(family_name.c_str(), "AF_INET6")) {
    family = AF_INET6;
  } else {
    log_error(where, "NVSHMEM_BOOTSTRAP_UID_SOCK_FAMILY='%s' is not AF_INET or AF_INET6", family_name.c_str());
    return Status::invalid_value;
  }
  *out = sockaddr_storage{};
  out->ss_family = static_cast<sa_family_t>(family);
  auto set_loopback = [&] {
    if (family == AF_INET)
      reinterpret_cast<sockaddr_in *>(out)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else
      reinterpret_cast<sockaddr_in6 *>(out)->sin6_addr = in6addr_loopback;
  };
  if (loopback && ifname.empty()) {
    set_loopback();
    return Status::ok;
  }
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0) {
    log_error(where, "getifaddrs failed: %s", strerror(errno));
    return Status::internal;
  }
  const ifaddrs *pick = nullptr;
  std::string seen;
  for (const ifaddrs *a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != family || !(a->ifa_flags & IFF_UP)) continue;
    if (seen.find(a->ifa_name) == std::string::npos) seen += std::string(seen.empty() ? "" : ", ") + a->ifa_name;
    if (!ifname.empty() ? ifname == a->ifa_name : !(a->ifa_flags & IFF_LOOPBACK)) {
      pick = a;
      break;
    }
  }
  if (pick) memcpy(out, pick->ifa_addr, family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
  freeifaddrs(list);
  if (!pick && !ifname.empty()) {
    log_error(where,
              "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME='%s': no interface of that name is up with an %s address "
              "(interfaces with one: %s)",
              ifname.c_str(), family == AF_INET ? "AF_INET" : "AF_INET6", seen.empty() ? "none" : seen.c_str());
    return Status::invalid_value;
  }
  if (!pick) set_loopback();
  return Status::ok;
}

}  // namespace nvshm::boot
