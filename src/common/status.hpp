// SPDX-License-Identifier: BSD-3-Clause
// Internal status codes. Every layer returns a Status; the function that detects an error logs
// what, where and why (log.hpp), callers propagate with NVSHM_TRY.
#pragma once

namespace nvshm {

enum class Status {
  ok = 0,
  invalid_value,  // bad argument from the caller
  out_of_memory,  // heap or host allocation failed
  not_supported,  // feature not available on this heap kind / machine
  symmetry,       // PEs disagree on a collective argument
  no_gpu,         // no usable GPU / driver
  timeout,        // a wait ran past its limit
  peer_failed,    // a peer closed its connection or sent garbage
  internal,       // system call or CUDA failure
};

const char *status_name(Status s);

}  // namespace nvshm

// Propagate a non-ok Status to the caller.
#define NVSHM_TRY(expr)                                           \
  do {                                                            \
    ::nvshm::Status nvshm_try_s_ = (expr);                        \
    if (nvshm_try_s_ != ::nvshm::Status::ok) return nvshm_try_s_; \
  } while (0)
