/* Attribute macros shared by the public headers. */
#ifndef NVSHMEM_DETAIL_MACROS_H
#define NVSHMEM_DETAIL_MACROS_H

/* Symbols exported by libnvshmem_host.so (meaningless in the device pass). */
#if defined(__CUDA_ARCH__)
#define NVSHM_API
#else
#define NVSHM_API __attribute__((visibility("default")))
#endif

/* Functions callable from host and device: declared __host__ __device__ under nvcc. The host
 * definition lives in libnvshmem_host.so, the device definition is inline in the headers. Under
 * NVSHMEM_HOSTLIB_ONLY (no device interface, nvshmem.h) they are host functions. */
#if defined(__CUDACC__) && !defined(NVSHMEM_HOSTLIB_ONLY)
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
