// SPDX-License-Identifier: BSD-3-Clause
// Internals shared by the rendezvous server, its clients and nvshmrun: file descriptors, the frame format,
// socket I/O with deadlines, and the contents of a unique id. Not used outside src/bootstrap and launcher/.
// The wire protocol is described in docs/bootstrap.md.
#pragma once
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/env.hpp"
#include "common/status.hpp"
#include "nvshmem_detail/types.h"

namespace nvshm::boot {

using Clock = std::chrono::steady_clock;

// Owning file descriptor: move-only; a moved-from Fd holds -1.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// ---- frames: a fixed 24-byte header (big-endian fields) followed by `length` payload bytes ----
constexpr std::uint32_t kFrameMagic = 0x4e53424f;  // "NSBO"
constexpr std::size_t kHeaderBytes = 24;
constexpr std::uint64_t kMaxBlob = 16u << 20;    // largest allgather contribution, bytes
constexpr std::uint64_t kMaxRound = 1ull << 30;  // largest allgather result (nranks x contribution), bytes
constexpr std::uint64_t kMaxText = 4096;         // largest error message, bytes
constexpr std::size_t kSecretBytes = 16;
constexpr long kMaxTimeout = kMaxBootstrapTimeout;     // an Env filled by hand may hold more: clamped
constexpr std::size_t kHelloBytes = kSecretBytes + 4;  // secret, then nranks (big-endian int32)

enum class Frame : std::uint16_t {
  hello = 1,        // client -> server: rank in header, payload secret + nranks
  ready = 2,        // server -> client: every rank has said hello
  contrib = 3,      // client -> server: one allgather contribution
  result = 4,       // server -> client: nranks contributions in rank order
  error = 5,        // server -> client: code = Status, payload = message text
  bye = 6,          // client -> server: finalizing, will close
  global_exit = 7,  // client -> server: nvshmem_global_exit; code = the exit status (0-255)
};

struct FrameHeader {
  std::uint32_t magic = kFrameMagic;
  std::uint16_t type = 0;
  std::uint16_t code = 0;  // Status for error frames, else 0
  std::int32_t rank = -1;  // sender's rank (clients), -1 from the server
  std::uint32_t seq = 0;   // round number (contrib/result), else 0
  std::uint64_t length = 0;
};

void encode_header(const FrameHeader &h, unsigned char out[kHeaderBytes]);
FrameHeader decode_header(const unsigned char in[kHeaderBytes]);
const char *frame_name(std::uint16_t type);

// ---- socket I/O on non-blocking sockets, bounded by an absolute deadline ----
enum class Io { ok, closed, timeout, error };
Io send_all(int fd, const void *data, std::size_t bytes, Clock::time_point deadline);
Io recv_all(int fd, void *data, std::size_t bytes, Clock::time_point deadline);
Io send_frame(int fd, const FrameHeader &h, const void *payload, Clock::time_point deadline);

bool set_nonblocking(int fd);
void set_nodelay(int fd);  // frames are small and latency-bound: no Nagle delay
std::string addr_to_string(const sockaddr *sa);

// ---- the unique id: what a client needs to reach one server ----
struct UidInfo {
  sockaddr_storage addr{};  // server address and port (AF_INET or AF_INET6)
  unsigned char secret[kSecretBytes]{};
};
void uid_pack(const UidInfo &info, nvshmemx_uniqueid_t *id);
// Checks version, magic and address family; `where` names the caller in the error message.
Status uid_unpack(const nvshmemx_uniqueid_t &id, const char *where, UidInfo *info);
std::string uid_to_hex(const nvshmemx_uniqueid_t &id);
bool uid_from_hex(const char *text, nvshmemx_uniqueid_t *id);

// Picks the address the server listens on (port 0): NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME's address, else the
// first non-loopback interface that is up, else loopback; `loopback` forces loopback (nvshmrun: one node).
Status choose_listen_address(const std::string &ifname, const std::string &family, bool loopback,
                             sockaddr_storage *out);

}  // namespace nvshm::boot
