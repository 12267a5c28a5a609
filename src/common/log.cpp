// SPDX-License-Identifier: BSD-3-Clause
#include "common/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "common/status.hpp"

namespace nvshm {
namespace {
int g_pe = -1;
LogLevel g_level = LogLevel::none;

void vprint(const char *kind, const char *where, const char *fmt, va_list ap) {
  char msg[4096];  // the longest: the proxy's trace of its last 16 requests, about 2 KB
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (g_pe >= 0)
    fprintf(stderr, "nvshmem %s (PE %d) in %s: %s\n", kind, g_pe, where, msg);
  else
    fprintf(stderr, "nvshmem %s in %s: %s\n", kind, where, msg);
  fflush(stderr);
}
}  // namespace

const char *status_name(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::invalid_value:
      return "invalid value";
    case Status::out_of_memory:
      return "out of memory";
    case Status::not_supported:
      return "not supported";
    case Status::symmetry:
      return "symmetry violation";
    case Status::no_gpu:
      return "no GPU";
    case Status::timeout:
      return "timeout";
    case Status::peer_failed:
      return "peer failed";
    case Status::internal:
      return "internal error";
  }
  return "unknown";
}

void log_set_pe(int pe) {
  g_pe = pe;
}
int log_pe() {
  return g_pe;
}

void log_configure(const char *v) {
  g_level = LogLevel::none;
  if (!v || !*v) return;
  if (!strcasecmp(v, "VERSION"))
    g_level = LogLevel::version;
  else if (!strcasecmp(v, "WARN") || !strcasecmp(v, "ABORT"))
    g_level = LogLevel::warn;
  else if (!strcasecmp(v, "INFO"))
    g_level = LogLevel::info;
  else if (!strcasecmp(v, "TRACE"))
    g_level = LogLevel::trace;
  else {
    g_level = LogLevel::warn;
    fprintf(stderr, "nvshmem: NVSHMEM_DEBUG=%s is not VERSION, WARN, INFO or TRACE; using WARN\n", v);
  }
}

bool log_enabled(LogLevel level) {
  return static_cast<int>(g_level) >= static_cast<int>(level);
}

void log_error(const char *where, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("error", where, fmt, ap);
  va_end(ap);
}

void log_msg(LogLevel level, const char *where, const char *fmt, ...) {
  static const char *names[] = {"", "version", "warn", "info", "trace"};
  va_list ap;
  va_start(ap, fmt);
  vprint(names[static_cast<int>(level)], where, fmt, ap);
  va_end(ap);
}

void LogLimiter::error(const char *where, const char *fmt, ...) {
  unsigned long dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= period_) window_start_ = now, in_window_ = 0;
    if (in_window_ >= burst_) {
      ++suppressed_;
      return;
    }
    ++in_window_;
    dropped = suppressed_;
    suppressed_ = 0;
  }
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (dropped)
    log_error(where, "%s (%lu similar messages suppressed)", msg, dropped);
  else
    log_error(where, "%s", msg);
}

void LogLimiter::flush(const char *where) {
  unsigned long dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dropped = suppressed_;
    suppressed_ = 0;
  }
  if (dropped) log_error(where, "%lu similar messages suppressed", dropped);
}

void fatal(const char *where, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("error", where, fmt, ap);
  va_end(ap);
  fprintf(stderr, "nvshmem: aborting\n");
  abort();
}

}  // namespace nvshm
