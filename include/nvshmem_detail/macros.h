/* SPDX-License-Identifier: BSD-3-Clause */
/* Attribute macros shared by the public headers. */
#ifndef NVSHMEM_DETAIL_MACROS_H
#define NVSHMEM_DETAIL_MACROS_H

/* Symbols exported by libnvshmem_host.so (meaningless in the device pass). */
#if defined(__CUDA_ARCH__)
#define NVSHM_API
#else
#define NVSHM_API __attribute__((visibility("default")))
#endif

/* 1 where the device interface is compiled: under nvcc (and NVRTC), unless the unit defined
 * NVSHMEM_HOSTLIB_ONLY before including NVSHMEM (nvshmem.h). */
#if defined(__CUDACC__) && !defined(NVSHMEM_HOSTLIB_ONLY)
#define NVSHM_DEVICE_API 1
#else
#define NVSHM_DEVICE_API 0
#endif

/* Functions callable from host and device: declared __host__ __device__ where the device interface
 * is compiled. The host definition lives in libnvshmem_host.so, the device definition is inline in
 * the headers. Under NVSHMEM_HOSTLIB_ONLY they are host functions. */
#if NVSHM_DEVICE_API
#define NVSHM_HOSTDEVICE __host__ __device__
#else
#define NVSHM_HOSTDEVICE
#endif

#ifdef __cplusplus
#define NVSHM_EXTERN_C_BEGIN extern "C" {
#define NVSHM_EXTERN_C_END }
#else
#define NVSHM_EXTERN_C_BEGIN
#define NVSHM_EXTERN_C_END
#endif

#endif /* NVSHMEM_DETAIL_MACROS_H */
