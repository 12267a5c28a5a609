// SPDX-License-Identifier: BSD-3-Clause
// Logging and error messages. Every message names the PE (once known) and the call or subsystem.
// Levels follow NVSHMEM_DEBUG: VERSION < WARN < INFO < TRACE. Errors are always printed.
#pragma once
#include <cstdarg>

namespace nvshm {

enum class LogLevel { none = 0, version = 1, warn = 2, info = 3, trace = 4 };

// Set once the bootstrap knows the PE id; -1 before that.
void log_set_pe(int pe);
int log_pe();
// Re-read NVSHMEM_DEBUG (called at init).
void log_configure();
bool log_enabled(LogLevel level);

// "nvshmem error (PE 3) in <where>: <message>" on stderr.
void log_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// "nvshmem warn/info (PE 3) <where>: ..." when the level is enabled.
void log_msg(LogLevel level, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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
