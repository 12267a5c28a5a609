/* SPDX-License-Identifier: BSD-3-Clause */
/* Error-check macros that NVSHMEM's public headers make visible to applications (NVIDIA's
 * `non_abi/nvshmemx_error.h`, reached through nvshmem.h): NVIDIA's perftest helpers and other
 * programs written for NVSHMEM use them in their own host code. Host code only (they print with
 * fprintf). Every message goes to stderr and starts with "<file>:<line>: " of the use; the caller's
 * printf-style text follows as given (add the "\n" yourself, as NVSHMEM programs do).
 *
 *   NVSHMEMI_ERROR_PRINT(fmt, ...)    print an error message
 *   NVSHMEMI_WARN_PRINT(fmt, ...)     print a warning ("WARN: " before the text)
 *   NVSHMEMI_ERROR_EXIT(fmt, ...)     print, then exit(EXIT_FAILURE)
 *   NVSHMEMI_NZ_EXIT(status, fmt, ...)   if status != 0: print it, then exit(EXIT_FAILURE)
 *
 * The _JMP forms take an int lvalue `status`, an error code `err` (an NVSHMEMX_ERROR_* value or any
 * int) and a `label` of the calling function; when their condition holds they print, set
 * `status = err` and `goto label`, and otherwise do nothing:
 *
 *   NVSHMEMI_ERROR_JMP(status, err, label, fmt, ...)               always
 *   NVSHMEMI_NZ_ERROR_JMP(status, err, label, fmt, ...)            status != 0
 *   NVSHMEMI_NULL_ERROR_JMP(ptr, status, err, label, fmt, ...)     ptr == NULL
 *   NVSHMEMI_EQ_ERROR_JMP(value, expected, err, label, fmt, ...)   value == expected (status is value)
 *   NVSHMEMI_NE_ERROR_JMP(value, expected, err, label, fmt, ...)   value != expected
 *   NVSHMEMI_GT_ERROR_JMP / _GE_ / _LT_ / _LE_ (same arguments)     value >, >=, <, <= expected
 *
 * In the EQ..LE forms the first argument is both the value compared and the status set to `err`
 * (`NVSHMEMI_NE_ERROR_JMP(status, cudaSuccess, NVSHMEMX_ERROR_INTERNAL, out, "...")`). The status
 * argument of the _JMP forms is an lvalue of an integer type (read, then assigned). */
#ifndef NVSHMEM_DETAIL_ERROR_MACROS_H
#define NVSHMEM_DETAIL_ERROR_MACROS_H

#if !defined(__CUDACC_RTC__)
#include <stdio.h>
#include <stdlib.h>

#define NVSHM_ERR_WHERE_() fprintf(stderr, "%s:%d: ", __FILE__, __LINE__)

#define NVSHMEMI_ERROR_PRINT(...) \
  do {                            \
    NVSHM_ERR_WHERE_();           \
    fprintf(stderr, __VA_ARGS__); \
  } while (0)

#define NVSHMEMI_WARN_PRINT(...)  \
  do {                            \
    NVSHM_ERR_WHERE_();           \
    fprintf(stderr, "WARN: ");    \
    fprintf(stderr, __VA_ARGS__); \
  } while (0)

#define NVSHMEMI_ERROR_EXIT(...)       \
  do {                                 \
    NVSHMEMI_ERROR_PRINT(__VA_ARGS__); \
    exit(EXIT_FAILURE);                \
  } while (0)

#define NVSHMEMI_NZ_EXIT(status, ...)                             \
  do {                                                            \
    const int nvshm_err_status_ = (int)(status);                  \
    if (nvshm_err_status_ != 0) {                                 \
      NVSHM_ERR_WHERE_();                                         \
      fprintf(stderr, "non-zero status %d: ", nvshm_err_status_); \
      fprintf(stderr, __VA_ARGS__);                               \
      exit(EXIT_FAILURE);                                         \
    }                                                             \
  } while (0)

#define NVSHMEMI_ERROR_JMP(status, err, label, ...) \
  do {                                              \
    NVSHMEMI_ERROR_PRINT(__VA_ARGS__);              \
    (status) = (err);                               \
    goto label;                                     \
  } while (0)

#define NVSHMEMI_NZ_ERROR_JMP(status, err, label, ...)        \
  do {                                                        \
    if ((status) != 0) {                                      \
      NVSHM_ERR_WHERE_();                                     \
      fprintf(stderr, "non-zero status %d: ", (int)(status)); \
      fprintf(stderr, __VA_ARGS__);                           \
      (status) = (err);                                       \
      goto label;                                             \
    }                                                         \
  } while (0)

#define NVSHMEMI_NULL_ERROR_JMP(ptr, status, err, label, ...) \
  do {                                                        \
    if ((ptr) == NULL) {                                      \
      NVSHM_ERR_WHERE_();                                     \
      fprintf(stderr, "NULL value: ");                        \
      fprintf(stderr, __VA_ARGS__);                           \
      (status) = (err);                                       \
      goto label;                                             \
    }                                                         \
  } while (0)

/* The comparison forms: OP is the condition that fails, TEXT names it in the message. */
#define NVSHM_CMP_ERROR_JMP_(OP, TEXT, value, expected, err, label, ...)                     \
  do {                                                                                       \
    const long long nvshm_err_value_ = (long long)(value);                                   \
    const long long nvshm_err_expected_ = (long long)(expected);                             \
    if (nvshm_err_value_ OP nvshm_err_expected_) {                                           \
      NVSHM_ERR_WHERE_();                                                                    \
      fprintf(stderr, "status %lld " TEXT " %lld: ", nvshm_err_value_, nvshm_err_expected_); \
      fprintf(stderr, __VA_ARGS__);                                                          \
      (value) = (err);                                                                       \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)
#define NVSHMEMI_EQ_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(==, "==", value, expected, err, label, __VA_ARGS__)
#define NVSHMEMI_NE_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(!=, "!=", value, expected, err, label, __VA_ARGS__)
#define NVSHMEMI_GT_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(>, ">", value, expected, err, label, __VA_ARGS__)
#define NVSHMEMI_GE_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(>=, ">=", value, expected, err, label, __VA_ARGS__)
#define NVSHMEMI_LT_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(<, "<", value, expected, err, label, __VA_ARGS__)
#define NVSHMEMI_LE_ERROR_JMP(value, expected, err, label, ...) \
  NVSHM_CMP_ERROR_JMP_(<=, "<=", value, expected, err, label, __VA_ARGS__)

#endif /* !__CUDACC_RTC__ */
#endif /* NVSHMEM_DETAIL_ERROR_MACROS_H */
