// SPDX-License-Identifier: BSD-3-Clause
// Logging and error messages. Every message names the PE (once known) and the call or subsystem.
// Levels follow NVSHMEM_DEBUG: VERSION < WARN < INFO < TRACE. Errors are always printed.
#pragma once
#include <chrono>
#include <cstdarg>
#include <mutex>

namespace nvshm {

enum class LogLevel { none = 0, version = 1, warn = 2, info = 3, trace = 4 };

// Set once the bootstrap knows the PE id; -1 before that.
void log_set_pe(int pe);
int log_pe();
// Set the level from NVSHMEM_DEBUG's value (NULL or empty: none); called at init, again once the
// configuration files are read.
void log_configure(const char *debug);
bool log_enabled(LogLevel level);

// "nvshmem error (PE 3) in <where>: <message>" on stderr.
void log_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// "nvshmem warn/info (PE 3) <where>: ..." when the level is enabled.
void log_msg(LogLevel level, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// For messages a stranger can provoke (a rejected connection, a failed accept at the descriptor limit):
// at most `burst` lines per `period_s` seconds from one limiter; the first line printed after a
// suppressed spell ends with "(N similar messages suppressed)". Thread-safe.
class LogLimiter {
 public:
  LogLimiter(int burst, double period_s) : burst_(burst), period_(period_s) {}
  void error(const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
  // Reports the lines suppressed since the last one printed, if any ("... similar messages suppressed").
  void flush(const char *where);

 private:
  const int burst_;
  const std::chrono::duration<double> period_;
  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point window_start_{};
  int in_window_ = 0;
  unsigned long suppressed_ = 0;
};

// Print the error and abort the process (NVSHMEM's behaviour for fatal misuse).
[[noreturn]] void fatal(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace nvshm

#define NVSHM_INFO(where, ...)                                                                                        \
  do {                                                                                                                \
    if (::nvshm::log_enabled(::nvshm::LogLevel::info)) ::nvshm::log_msg(::nvshm::LogLevel::info, where, __VA_ARGS__); \
  } while (0)
#define NVSHM_WARN(where, ...)                                                                                        \
  do {                                                                                                                \
    if (::nvshm::log_enabled(::nvshm::LogLevel::warn)) ::nvshm::log_msg(::nvshm::LogLevel::warn, where, __VA_ARGS__); \
  } while (0)
