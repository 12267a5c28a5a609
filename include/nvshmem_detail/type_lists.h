/* SPDX-License-Identifier: BSD-3-Clause */
/* The type tables every typed family is generated from (declarations, definitions, tests, docs).
 * X(NAME, TYPE): NAME is the spelling inside the function name, TYPE the C type. */
#ifndef NVSHMEM_DETAIL_TYPE_LISTS_H
#define NVSHMEM_DETAIL_TYPE_LISTS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

/* The 25 standard RMA types (NVSHMEM "Remote Memory Access" section). */
#define NVSHM_FOR_EACH_RMA_TYPE(X) \
  X(bfloat16, __nv_bfloat16)       \
  X(half, half)                    \
  X(float, float)                  \
  X(double, double)                \
  X(char, char)                    \
  X(short, short)                  \
  X(schar, signed char)            \
  X(int, int)                      \
  X(long, long)                    \
  X(longlong, long long)           \
  X(uchar, unsigned char)          \
  X(ushort, unsigned short)        \
  X(uint, unsigned int)            \
  X(ulong, unsigned long)          \
  X(ulonglong, unsigned long long) \
  X(int8, int8_t)                  \
  X(int16, int16_t)                \
  X(int32, int32_t)                \
  X(int64, int64_t)                \
  X(uint8, uint8_t)                \
  X(uint16, uint16_t)              \
  X(uint32, uint32_t)              \
  X(uint64, uint64_t)              \
  X(size, size_t)                  \
  X(ptrdiff, ptrdiff_t)

/* Sized RMA forms: X(BITS, carrier type); nvshmem_put<BITS> takes void pointers and element counts. */
#define NVSHM_FOR_EACH_RMA_SIZE(X) X(8, uint8_t) X(16, uint16_t) X(32, uint32_t) X(64, uint64_t) X(128, int4)

/* The 14 point-to-point synchronisation types (wait_until, test and their all/any/some/vector forms). */
#define NVSHM_FOR_EACH_WAIT_TYPE(X) \
  X(short, short)                   \
  X(int, int)                       \
  X(long, long)                     \
  X(longlong, long long)            \
  X(ushort, unsigned short)         \
  X(uint, unsigned int)             \
  X(ulong, unsigned long)           \
  X(ulonglong, unsigned long long)  \
  X(int32, int32_t)                 \
  X(int64, int64_t)                 \
  X(uint32, uint32_t)               \
  X(uint64, uint64_t)               \
  X(size, size_t)                   \
  X(ptrdiff, ptrdiff_t)

/* Atomic memory operation types ("Atomic Memory Operations"). Every AMO type is 4 or 8 bytes wide, but
 * for the extended half (2 bytes).
 * Standard: arithmetic ops (inc, fetch_inc, add, fetch_add, compare_swap) plus fetch/set/swap. */
#define NVSHM_FOR_EACH_AMO_STANDARD_TYPE(X) \
  X(int, int)                               \
  X(long, long)                             \
  X(longlong, long long)                    \
  X(size, size_t)                           \
  X(ptrdiff, ptrdiff_t)
/* Bitwise: every op (arithmetic, fetch/set/swap, and/or/xor and their fetch forms). */
#define NVSHM_FOR_EACH_AMO_BITWISE_TYPE(X) \
  X(uint, unsigned int)                    \
  X(ulong, unsigned long)                  \
  X(ulonglong, unsigned long long)         \
  X(int32, int32_t)                        \
  X(uint32, uint32_t)                      \
  X(int64, int64_t)                        \
  X(uint64, uint64_t)
/* Extended: fetch, set and swap only; half (__half) in C++ only, as NVIDIA's newest headers have it. */
#ifdef __cplusplus
#define NVSHM_FOR_EACH_AMO_EXTENDED_TYPE(X) X(float, float) X(double, double) X(half, half)
#else
#define NVSHM_FOR_EACH_AMO_EXTENDED_TYPE(X) X(float, float) X(double, double)
#endif

/* Per operation family: the arithmetic ops take standard + bitwise (12 types), fetch/set/swap those
 * plus the extended ones (14, 15 in C++), the bitwise ops the bitwise list (7). */
#define NVSHM_FOR_EACH_AMO_ARITH_TYPE(X) NVSHM_FOR_EACH_AMO_STANDARD_TYPE(X) NVSHM_FOR_EACH_AMO_BITWISE_TYPE(X)
#define NVSHM_FOR_EACH_AMO_FETCH_TYPE(X) NVSHM_FOR_EACH_AMO_ARITH_TYPE(X) NVSHM_FOR_EACH_AMO_EXTENDED_TYPE(X)
#define NVSHM_FOR_EACH_AMO_LOGIC_TYPE(X) NVSHM_FOR_EACH_AMO_BITWISE_TYPE(X)

/* Collective types ("Collective Communication"): broadcast, fcollect and alltoall take the RMA list.
 * Reductions: and/or/xor over the bitwise list (14 types), min/max and sum/prod over the standard list
 * (24 types): 138 (op, type) pairs. The *_WITH(X, A) lists call X(A, NAME, TYPE) so that an op can be
 * carried through; the plain lists call X(NAME, TYPE). */
#define NVSHM_FOR_EACH_COLL_TYPE(X) NVSHM_FOR_EACH_RMA_TYPE(X)
#define NVSHM_REDUCE_BITWISE_TYPES_WITH(X, A) \
  X(A, uchar, unsigned char)                  \
  X(A, ushort, unsigned short)                \
  X(A, uint, unsigned int)                    \
  X(A, ulong, unsigned long)                  \
  X(A, ulonglong, unsigned long long)         \
  X(A, int8, int8_t)                          \
  X(A, int16, int16_t)                        \
  X(A, int32, int32_t)                        \
  X(A, int64, int64_t)                        \
  X(A, uint8, uint8_t)                        \
  X(A, uint16, uint16_t)                      \
  X(A, uint32, uint32_t)                      \
  X(A, uint64, uint64_t)                      \
  X(A, size, size_t)
#define NVSHM_REDUCE_STANDARD_TYPES_WITH(X, A) \
  NVSHM_REDUCE_BITWISE_TYPES_WITH(X, A)        \
  X(A, char, char)                             \
  X(A, schar, signed char)                     \
  X(A, short, short)                           \
  X(A, int, int)                               \
  X(A, long, long)                             \
  X(A, longlong, long long)                    \
  X(A, bfloat16, __nv_bfloat16)                \
  X(A, half, half)                             \
  X(A, float, float)                           \
  X(A, double, double)
#define NVSHM_CALL_WITHOUT_ARG_(X, NAME, TYPE) X(NAME, TYPE)
#define NVSHM_FOR_EACH_REDUCE_BITWISE_TYPE(X) NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_CALL_WITHOUT_ARG_, X)
#define NVSHM_FOR_EACH_REDUCE_STANDARD_TYPE(X) NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_CALL_WITHOUT_ARG_, X)
#define NVSHM_FOR_EACH_REDUCE_ARITH_TYPE(X) NVSHM_FOR_EACH_REDUCE_STANDARD_TYPE(X)

/* X(OP, NAME, TYPE) for each of the 138 reduction pairs; OP is and, or, xor, min, max, sum, prod. */
#define NVSHM_FOR_EACH_REDUCE_OP_TYPE(X)   \
  NVSHM_REDUCE_BITWISE_TYPES_WITH(X, and)  \
  NVSHM_REDUCE_BITWISE_TYPES_WITH(X, or)   \
  NVSHM_REDUCE_BITWISE_TYPES_WITH(X, xor)  \
  NVSHM_REDUCE_STANDARD_TYPES_WITH(X, min) \
  NVSHM_REDUCE_STANDARD_TYPES_WITH(X, max) \
  NVSHM_REDUCE_STANDARD_TYPES_WITH(X, sum) \
  NVSHM_REDUCE_STANDARD_TYPES_WITH(X, prod)

#endif /* NVSHMEM_DETAIL_TYPE_LISTS_H */
