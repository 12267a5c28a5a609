// SPDX-License-Identifier: BSD-3-Clause
// Kernels of the CUDA engine (see cuda_kernels.hpp).
#include <cuda_runtime.h>

#include "nvshmem_detail/device/float_atomic.cuh"
#include "transport/cuda_kernels.hpp"

#include <mutex>

#include "common/log.hpp"

namespace nvshm {
namespace {

template <typename W>
__device__ W apply(W *p, AtomicOp op, W value, W cond) {
  switch (op) {
    case AtomicOp::fetch:
      return atomicOr_system(p, W(0));  // an atomic read of the word
    case AtomicOp::set:
    case AtomicOp::swap:
      return atomicExch_system(p, value);
    case AtomicOp::compare_swap:
      return atomicCAS_system(p, cond, value);
    case AtomicOp::add:
      return atomicAdd_system(p, value);
    case AtomicOp::and_:
      return atomicAnd_system(p, value);
    case AtomicOp::or_:
      return atomicOr_system(p, value);
    case AtomicOp::xor_:
      return atomicXor_system(p, value);
    case AtomicOp::float_add:
      break;  // float_add() below
  }
  return 0;
}

// AtomicOp::float_add: the type is the width's (2: __half, 4: float, 8: double); returns the previous bits.
template <typename F>
__device__ uint64_t float_add(void *remote, uint64_t value_bits) {
  F value;
  memcpy(&value, &value_bits, sizeof(F));
  const F old = nvshm_dev::float_atomic_add_sys(static_cast<F *>(remote), value);
  uint64_t bits = 0;
  memcpy(&bits, &old, sizeof(F));
  return bits;
}

// A 2-byte word has fetch, set and swap only (nvshmem_half_atomic_*): an aligned 2-byte load is atomic.
__device__ unsigned short exchange_or_fetch16(unsigned short *p, AtomicOp op, unsigned short value) {
  if (op == AtomicOp::fetch) return *reinterpret_cast<volatile unsigned short *>(p);
  return nvshm_dev::exchange16_sys(p, value);
}

// `args` applied to `remote`; returns the previous value, zero-extended.
__device__ uint64_t apply_atomic(void *remote, const AtomicArgs &args) {
  if (args.op == AtomicOp::float_add)
    return args.width == 2   ? float_add<__half>(remote, args.value)
           : args.width == 4 ? float_add<float>(remote, args.value)
                             : float_add<double>(remote, args.value);
  if (args.width == 2)
    return exchange_or_fetch16(static_cast<unsigned short *>(remote), args.op, static_cast<unsigned short>(args.value));
  if (args.width == 4)
    return apply(static_cast<unsigned *>(remote), args.op, static_cast<unsigned>(args.value),
                 static_cast<unsigned>(args.cond));
  return apply(static_cast<unsigned long long *>(remote), args.op, static_cast<unsigned long long>(args.value),
               static_cast<unsigned long long>(args.cond));
}

__global__ void atomic_kernel(void *remote, AtomicArgs args, uint64_t *old) {
  // Earlier work of the stream (copies into the peer's heap) is complete when the kernel starts; the
  // fence makes this kernel's atomic a release of it for PEs that wait for the word (signals).
  __threadfence_system();
  const uint64_t previous = apply_atomic(remote, args);
  if (old) *reinterpret_cast<volatile uint64_t *>(old) = previous;
  __threadfence_system();
}

// The jobs in order (one thread: two atomics of a batch on one word keep their order), fenced as atomic_kernel.
__global__ void atomics_kernel(AtomicJob *jobs, std::size_t n) {
  __threadfence_system();
  for (std::size_t i = 0; i < n; ++i) {
    const AtomicJob job = jobs[i];
    reinterpret_cast<volatile uint64_t &>(jobs[i].old) = apply_atomic(job.remote, job.args);
  }
  __threadfence_system();
}

template <typename W>
__global__ void strided_kernel(char *dst, std::ptrdiff_t dst_stride, const char *src, std::ptrdiff_t src_stride,
                               std::size_t nelems) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nelems; i += gridDim.x * blockDim.x) {
    const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(i);
    *reinterpret_cast<W *>(dst + k * dst_stride) = *reinterpret_cast<const W *>(src + k * src_stride);
  }
}
struct Bytes16 {
  uint4 v;
};
struct Bytes1 {
  unsigned char v;
};

}  // namespace

cudaError_t launch_atomic(void *remote, const AtomicArgs &args, uint64_t *old, cudaStream_t stream) {
  atomic_kernel<<<1, 1, 0, stream>>>(remote, args, old);
  return cudaGetLastError();
}

cudaError_t launch_atomics(AtomicJob *jobs, std::size_t n, cudaStream_t stream) {
  atomics_kernel<<<1, 1, 0, stream>>>(jobs, n);
  return cudaGetLastError();
}

cudaError_t load_kernels(std::initializer_list<const void *> kernels) {
  cudaFuncAttributes attributes;  // getting them loads the kernel
  for (const void *k : kernels) {
    const cudaError_t err = cudaFuncGetAttributes(&attributes, k);
    if (err == cudaSuccess) continue;
    (void)cudaGetLastError();  // not left for a later launch's check to report
    if (err != cudaErrorNoKernelImageForDevice && err != cudaErrorInvalidDeviceFunction) return err;
    static std::once_flag warned;  // as the device state registry: a library built for another GPU
    std::call_once(warned, [err] {
      NVSHM_WARN("CUDA transport",
                 "the library has no code for this GPU (%s): its kernels fail when launched; build it for this "
                 "GPU (CMAKE_CUDA_ARCHITECTURES)",
                 cudaGetErrorString(err));
    });
    return cudaSuccess;  // nor for the other kernels: nothing to load
  }
  return cudaSuccess;
}

cudaError_t load_transport_kernels() {
  return load_kernels({reinterpret_cast<const void *>(atomic_kernel), reinterpret_cast<const void *>(atomics_kernel),
                       reinterpret_cast<const void *>(strided_kernel<Bytes16>),
                       reinterpret_cast<const void *>(strided_kernel<uint64_t>),
                       reinterpret_cast<const void *>(strided_kernel<uint32_t>),
                       reinterpret_cast<const void *>(strided_kernel<uint16_t>),
                       reinterpret_cast<const void *>(strided_kernel<Bytes1>)});
}

cudaError_t launch_strided(void *dst, std::ptrdiff_t dst_stride, const void *src, std::ptrdiff_t src_stride,
                           std::size_t elem, std::size_t nelems, cudaStream_t stream) {
  if (nelems == 0) return cudaSuccess;
  const unsigned threads = 256;
  const unsigned blocks = static_cast<unsigned>(nelems / threads + 1 > 256 ? 256 : nelems / threads + 1);
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  // Every typed and sized element is 1, 2, 4, 8 or 16 bytes and aligned to its size.
  switch (elem) {
    case 16:
      strided_kernel<Bytes16><<<blocks, threads, 0, stream>>>(d, dst_stride, s, src_stride, nelems);
      break;
    case 8:
      strided_kernel<uint64_t><<<blocks, threads, 0, stream>>>(d, dst_stride, s, src_stride, nelems);
      break;
    case 4:
      strided_kernel<uint32_t><<<blocks, threads, 0, stream>>>(d, dst_stride, s, src_stride, nelems);
      break;
    case 2:
      strided_kernel<uint16_t><<<blocks, threads, 0, stream>>>(d, dst_stride, s, src_stride, nelems);
      break;
    case 1:
      strided_kernel<Bytes1><<<blocks, threads, 0, stream>>>(d, dst_stride, s, src_stride, nelems);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t alloc_result_word(uint64_t **word) {
  return cudaHostAlloc(reinterpret_cast<void **>(word), sizeof(uint64_t), cudaHostAllocMapped);
}
void free_result_word(uint64_t *word) {
  if (word) cudaFreeHost(word);
}

}  // namespace nvshm
