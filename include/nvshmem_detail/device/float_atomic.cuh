// SPDX-License-Identifier: BSD-3-Clause
/* The atomics CUDA's atomic functions lack, at system scope on an address the calling GPU can reach (its
 * own memory or a peer's, mapped): floating-point add (nvshmemx_<float|double|half>_atomic_[fetch_]add)
 * and the 2-byte exchange (nvshmem_half_atomic_swap and _set). The device API and the host API's
 * one-thread kernel on the GPU heap both use them. Relaxed: they order nothing by themselves. Internal:
 * namespace nvshm_dev; no device state, so the library's kernels can include it too. */
#ifndef NVSHMEM_DETAIL_DEVICE_FLOAT_ATOMIC_CUH
#define NVSHMEM_DETAIL_DEVICE_FLOAT_ATOMIC_CUH

#include <cuda_fp16.h>

#include <type_traits>

namespace nvshm_dev {

/* *p += value atomically; returns the previous value. float and double: atomicAdd_system; __half:
 * `atom.add.noftz.f16` at system scope (CUDA's atomicAdd(__half *) is device scope only), which needs
 * no half conversions, so it compiles with __CUDA_NO_HALF_CONVERSIONS__ (NVSHMEM 3.7.1's fix). */
template <typename T>
__device__ __forceinline__ T float_atomic_add_sys(T *p, T value) {
  if constexpr (std::is_same<T, __half>::value) {
    unsigned short old;
    asm volatile("atom.relaxed.sys.global.add.noftz.f16 %0, [%1], %2;"
                 : "=h"(old)
                 : "l"(p), "h"(__half_as_ushort(value))
                 : "memory");
    return __ushort_as_half(old);
  } else {
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "float, double or __half");
    return atomicAdd_system(p, value);
  }
}

/* *p = value atomically; returns the previous bits. PTX has no 16-bit exchange, but a 16-bit
 * compare-and-swap (sm_70 and later): loop until the word did not change between the read and the swap. */
__device__ __forceinline__ unsigned short exchange16_sys(unsigned short *p, unsigned short value) {
  unsigned short seen = *reinterpret_cast<volatile unsigned short *>(p), got;
  for (;;) {
    asm volatile("atom.relaxed.sys.global.cas.b16 %0, [%1], %2, %3;"
                 : "=h"(got)
                 : "l"(p), "h"(seen), "h"(value)
                 : "memory");
    if (got == seen) return got;
    seen = got;
  }
}

}  // namespace nvshm_dev

#endif /* NVSHMEM_DETAIL_DEVICE_FLOAT_ATOMIC_CUH */
