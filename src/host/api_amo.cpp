// SPDX-License-Identifier: BSD-3-Clause
// Host-initiated atomics and signals (NVSHMEM docs: "Atomic Memory Operations", "Signaling
// Operations"), every typed form generated from the AMO tables. Unlike NVIDIA's host atomics (which
// only print "not implemented") these are real on both heap kinds: the transport applies them with
// CPU atomics on the mapped word (host-memory heap) or with a one-thread system-scope kernel (GPU heap).
#include <cstring>
#include <type_traits>

#include "common/log.hpp"
#include "cuda/driver.hpp"
#include "host/runtime.hpp"
#include "nvshmem_host.h"

using namespace nvshm;

namespace {

template <typename T>
uint64_t bits(T v) {
  uint64_t b = 0;
  memcpy(&b, &v, sizeof(T));
  return b;
}

// One atomic on `pe`'s copy of `dest`; returns the previous value. Integer operations work on 4- or
// 8-byte words; AtomicOp::float_add, fetch, set and swap also on 2-byte __half.
template <typename T>
T host_amo(const char *call, AtomicOp op, const T *dest, T value, T cond, int pe) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || (sizeof(T) == 2 && std::is_same<T, __half>::value),
                "AMO types are 4 or 8 bytes, or __half");
  Runtime &rt = require_init(call);
  const Target remote = require_target(rt, dest, sizeof(T), pe, call, "dest");
  if (reinterpret_cast<uintptr_t>(dest) % sizeof(T) != 0)
    fatal(call, "dest %p is not aligned to its type's size (%zu bytes)", static_cast<const void *>(dest), sizeof(T));
  ContextGuard guard(rt.context);
  uint64_t old = 0;
  require_ok(rt.peers->atomic(remote, AtomicArgs{op, sizeof(T), bits(value), bits(cond)}, &old), call);
  T result;
  memcpy(static_cast<void *>(&result), &old, sizeof(T));
  return result;
}

}  // namespace

extern "C" {

#define NVSHM_HOST_AMO_ARITH(NAME, T)                                                                                 \
  void nvshmem_##NAME##_atomic_inc(T *dest, int pe) {                                                                 \
    (void)host_amo<T>("nvshmem_" #NAME "_atomic_inc", AtomicOp::add, dest, static_cast<T>(1), static_cast<T>(0), pe); \
  }                                                                                                                   \
  T nvshmem_##NAME##_atomic_fetch_inc(T *dest, int pe) {                                                              \
    return host_amo<T>("nvshmem_" #NAME "_atomic_fetch_inc", AtomicOp::add, dest, static_cast<T>(1),                  \
                       static_cast<T>(0), pe);                                                                        \
  }                                                                                                                   \
  void nvshmem_##NAME##_atomic_add(T *dest, T value, int pe) {                                                        \
    (void)host_amo<T>("nvshmem_" #NAME "_atomic_add", AtomicOp::add, dest, value, static_cast<T>(0), pe);             \
  }                                                                                                                   \
  T nvshmem_##NAME##_atomic_fetch_add(T *dest, T value, int pe) {                                                     \
    return host_amo<T>("nvshmem_" #NAME "_atomic_fetch_add", AtomicOp::add, dest, value, static_cast<T>(0), pe);      \
  }                                                                                                                   \
  T nvshmem_##NAME##_atomic_compare_swap(T *dest, T cond, T value, int pe) {                                          \
    return host_amo<T>("nvshmem_" #NAME "_atomic_compare_swap", AtomicOp::compare_swap, dest, value, cond, pe);       \
  }
NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM_HOST_AMO_ARITH)
#undef NVSHM_HOST_AMO_ARITH

#define NVSHM_HOST_AMO_FETCH(NAME, T)                                                                        \
  T nvshmem_##NAME##_atomic_fetch(const T *source, int pe) {                                                 \
    return host_amo<T>("nvshmem_" #NAME "_atomic_fetch", AtomicOp::fetch, source, static_cast<T>(0),         \
                       static_cast<T>(0), pe);                                                               \
  }                                                                                                          \
  void nvshmem_##NAME##_atomic_set(T *dest, T value, int pe) {                                               \
    (void)host_amo<T>("nvshmem_" #NAME "_atomic_set", AtomicOp::set, dest, value, static_cast<T>(0), pe);    \
  }                                                                                                          \
  T nvshmem_##NAME##_atomic_swap(T *dest, T value, int pe) {                                                 \
    return host_amo<T>("nvshmem_" #NAME "_atomic_swap", AtomicOp::swap, dest, value, static_cast<T>(0), pe); \
  }
NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM_HOST_AMO_FETCH)
#undef NVSHM_HOST_AMO_FETCH

#define NVSHM_HOST_AMO_LOGIC_OP(NAME, T, OP, ENUM)                                                                 \
  void nvshmem_##NAME##_atomic_##OP(T *dest, T value, int pe) {                                                    \
    (void)host_amo<T>("nvshmem_" #NAME "_atomic_" #OP, AtomicOp::ENUM, dest, value, static_cast<T>(0), pe);        \
  }                                                                                                                \
  T nvshmem_##NAME##_atomic_fetch_##OP(T *dest, T value, int pe) {                                                 \
    return host_amo<T>("nvshmem_" #NAME "_atomic_fetch_" #OP, AtomicOp::ENUM, dest, value, static_cast<T>(0), pe); \
  }
#define NVSHM_HOST_AMO_LOGIC(NAME, T)         \
  NVSHM_HOST_AMO_LOGIC_OP(NAME, T, and, and_) \
  NVSHM_HOST_AMO_LOGIC_OP(NAME, T, or, or_)   \
  NVSHM_HOST_AMO_LOGIC_OP(NAME, T, xor, xor_)
NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM_HOST_AMO_LOGIC)
#undef NVSHM_HOST_AMO_LOGIC
#undef NVSHM_HOST_AMO_LOGIC_OP

void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {
  const char *call = "nvshmemx_signal_op";
  if (sig_op != NVSHMEM_SIGNAL_SET && sig_op != NVSHMEM_SIGNAL_ADD)
    fatal(call, "sig_op %d is neither NVSHMEM_SIGNAL_SET nor NVSHMEM_SIGNAL_ADD", sig_op);
  (void)host_amo<uint64_t>(call, sig_op == NVSHMEM_SIGNAL_SET ? AtomicOp::set : AtomicOp::add, sig_addr, signal, 0, pe);
}

// NVSHMEM 3.7 floating-point adds: real here (NVIDIA's host forms are stubs).
#define NVSHM_HOST_FLOAT_AMO(NAME, T)                                                                     \
  void nvshmemx_##NAME##_atomic_add(T *dest, T value, int pe) {                                           \
    (void)host_amo<T>("nvshmemx_" #NAME "_atomic_add", AtomicOp::float_add, dest, value, T{}, pe);        \
  }                                                                                                       \
  T nvshmemx_##NAME##_atomic_fetch_add(T *dest, T value, int pe) {                                        \
    return host_amo<T>("nvshmemx_" #NAME "_atomic_fetch_add", AtomicOp::float_add, dest, value, T{}, pe); \
  }
NVSHM_HOST_FLOAT_AMO(float, float)
NVSHM_HOST_FLOAT_AMO(double, double)
NVSHM_HOST_FLOAT_AMO(half, __half)
#undef NVSHM_HOST_FLOAT_AMO

void nvshmemx_signal_counted_reset(uint64_t *signal_addr) {
  const char *call = "nvshmemx_signal_counted_reset";
  (void)host_amo<uint64_t>(call, AtomicOp::set, signal_addr, 0, 0, require_init(call).boot->rank());
}

uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) {
  const char *call = "nvshmem_signal_fetch";
  return host_amo<uint64_t>(call, AtomicOp::fetch, sig_addr, 0, 0, require_init(call).boot->rank());
}

}  // extern "C"
