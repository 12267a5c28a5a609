// SPDX-License-Identifier: BSD-3-Clause
// The PMI-1 "simple" wire protocol: newline-terminated lines of space-separated key=value pairs, e.g.
// "cmd=put kvsname=k key=x value=y". The client (our PMI bootstrap) talks to a process manager (MPICH's
// hydra, Slurm, or nvshmrun) over the descriptor in PMI_FD or a TCP connection to PMI_PORT; the server
// is nvshmrun's (one socketpair per PE). See docs/bootstrap.md.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/wire.hpp"

namespace nvshm::boot {

using PmiLine = std::map<std::string, std::string>;
// Splits "a=b c=d" (without the newline); words without '=' are ignored.
PmiLine pmi_parse(const std::string &line);

// Buffered line I/O on a (blocking or not) descriptor, every wait bounded by a deadline.
class PmiConn {
 public:
  explicit PmiConn(int fd) : fd_(fd) {}
  Io send_line(const std::string &line, Clock::time_point deadline) { return send_raw(line + "\n", deadline); }
  Io send_raw(const std::string &bytes, Clock::time_point deadline);
  // Reads one line (without '\n'); lines over 64 KiB are an error.
  Io read_line(std::string *line, Clock::time_point deadline);
  // Reads exactly n bytes (PMI-2 frames).
  Io read_bytes(std::string *out, std::size_t n, Clock::time_point deadline);
  int fd() const { return fd_; }

 private:
  Io fill(Clock::time_point deadline);  // appends what the descriptor has to buf_
  int fd_;
  std::string buf_;
};

// PMI-2 frames: 6 ASCII digits (the length, left-justified, space-padded), then "key=value;" pairs where a
// ';' inside a value is doubled. pmi2_frame builds one; pmi2_parse splits the body.
std::string pmi2_frame(const std::string &body);
PmiLine pmi2_parse(const std::string &body);

// Values are limited (vallen_max) and may not hold spaces, so blobs travel as hex in chunks.
std::string hex_encode(const void *data, std::size_t bytes);
bool hex_decode(const std::string &text, void *out, std::size_t bytes);

// nvshmrun's PMI-1 server: one thread serving one connected descriptor per rank (rank = index).
// Commands: init, get_maxes, get_my_kvsname, get_appnum, get_universe_size, put, get, barrier_in,
// finalize, abort. The key-value space is one per job; a put overwrites.
class Pmi1Server {
 public:
  static constexpr int kVallenMax = 1024, kKeylenMax = 64, kKvsnameMax = 256;
  // Takes ownership of fds (one per rank). Starts the thread. vallen_max: the longest value accepted
  // (announced by get_maxes); tests lower it to make clients split blobs into many chunks.
  Pmi1Server(std::vector<Fd> fds, std::string kvsname, int vallen_max = kVallenMax);
  ~Pmi1Server();  // stops and joins
  Pmi1Server(const Pmi1Server &) = delete;
  Pmi1Server &operator=(const Pmi1Server &) = delete;

 private:
  void run();
  std::vector<Fd> fds_;
  std::string kvsname_;
  int vallen_max_;
  Fd wake_read_, wake_write_;
  std::thread thread_;
};

}  // namespace nvshm::boot
