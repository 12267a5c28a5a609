// SPDX-License-Identifier: BSD-3-Clause
// The rendezvous server of the TCP star: one thread that accepts one persistent connection per PE,
// checks each HELLO, then runs allgather rounds until every PE has said BYE or disconnected (a "session":
// one nvshmem_init .. nvshmem_finalize of the job). Used by uid_generate (nvshmemx_get_uniqueid: one
// session) and by nvshmrun (session after session, since a program may init and finalize repeatedly).
// Protocol: docs/bootstrap.md.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "bootstrap/wire.hpp"
#include "common/env.hpp"

namespace nvshm::boot {

struct ServerOptions {
  bool loopback = false;    // listen on loopback (one-node jobs) unless an interface is named
  bool persistent = false;  // serve session after session until stop(); else end after the first
  // Called on the server thread when a PE sends GLOBAL_EXIT (nvshmem_global_exit): rank, status.
  std::function<void(int, int)> on_global_exit;
};

class UidServer {
 public:
  // Binds a listening socket (see choose_listen_address), draws a random secret, describes both in id()
  // and starts the server thread. Timeouts come from env.bootstrap_timeout (seconds, > 0).
  // Errors: invalid_value (bad environment), internal (system call).
  static Status start(const Env &env, const ServerOptions &opts, std::unique_ptr<UidServer> *out);

  // Stops the thread if it still runs (closing every connection) and joins it.
  ~UidServer();
  UidServer(const UidServer &) = delete;
  UidServer &operator=(const UidServer &) = delete;

  const nvshmemx_uniqueid_t &id() const { return id_; }
  // True once a client has been accepted (nranks is known).
  bool had_clients() const { return had_clients_.load(); }
  // Waits up to `limit` for the thread to end by itself (one-session servers: every PE said BYE or
  // disconnected).
  bool wait_done(std::chrono::milliseconds limit);
  // Asks the thread to end now and joins it. Idempotent.
  void stop();
  // True in a process forked from the one that started the server: the thread is not ours.
  bool inherited() const;
  // In such a child: closes our copies of the server's descriptors; the object must then be leaked
  // (its std::thread names a thread of the parent).
  void abandon();

 private:
  UidServer() = default;
  struct State;
  void run();

  nvshmemx_uniqueid_t id_{};
  Fd listen_, wake_read_, wake_write_;
  long timeout_s_ = 120;
  bool persistent_ = false;
  std::function<void(int, int)> on_global_exit_;
  unsigned char secret_[kSecretBytes]{};
  std::thread thread_;
  pid_t owner_ = -1;  // the process that runs the thread
  std::atomic<bool> done_{false}, had_clients_{false};
};

}  // namespace nvshm::boot
