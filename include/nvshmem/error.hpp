// SPDX-License-Identifier: BSD-3-Clause
// nvshmem::Error: the one exception type of the C++ layer (docs/cpp.md).
// Host code only: no function of this header is callable from device code, and no exception ever
// crosses into a kernel.
#pragma once

#include <nvshmem_host.h>

#include <stdexcept>
#include <string>

namespace nvshmem {

/// Name of an nvshmemx_status code ("NVSHMEMX_ERROR_OUT_OF_MEMORY", ...), or "NVSHMEMX_ERROR_<unknown>" for
/// a value outside the enum (nvshmemx_status_string). Thread safe; never throws.
inline const char *status_name(int status) noexcept {
  return nvshmemx_status_string(status);
}

/// Thrown by every fallible call of the C++ layer.
///  - status(): the nvshmemx_status code (from the C call that failed, or the code the C++ layer
///    chose for an argument error it detected itself, such as NVSHMEMX_ERROR_INVALID_VALUE for a size
///    overflow), never NVSHMEMX_SUCCESS;
///  - call(): the C entry point or C++ member that failed ("nvshmemx_init_attr",
///    "SymmetricBuffer::allocate", ...);
///  - what(): "<call>: <message> (<status name>)".
/// Copies are cheap and safe to pass between threads.
class Error : public std::runtime_error {
 public:
  /// An error of `call` (a C entry point or C++ member name) with nvshmemx_status code `status` and a
  /// one-line `message`; `status` is not checked. May throw std::bad_alloc (building the strings).
  Error(int status, std::string call, const std::string &message)
      : std::runtime_error(call + ": " + message + " (" + status_name(status) + ")"),
        status_(status),
        call_(std::move(call)),
        message_(message) {}

  /// The nvshmemx_status code.
  int status() const noexcept { return status_; }
  /// The failing call's name.
  const std::string &call() const noexcept { return call_; }
  /// The message alone, without the call and status name.
  const std::string &message() const noexcept { return message_; }

 private:
  int status_;
  std::string call_;
  std::string message_;
};

namespace detail {
/// Throw Error(status, call, message) unless status is NVSHMEMX_SUCCESS.
inline void check(int status, const char *call, const std::string &message) {
  if (status != NVSHMEMX_SUCCESS) throw Error(status, call, message);
}
}  // namespace detail

}  // namespace nvshmem
