// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered reduce and reducescatter: the and, or, xor pairs (coll_stream.cuh).
#include "host/coll_stream.cuh"
#include "transport/cuda_kernels.hpp"

NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, and)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, or)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, xor)

cudaError_t nvshm::load_stream_reduce_bitwise_kernels() {
  return load_kernels({NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_STREAM_REDUCE_KERNEL, and) NVSHM_REDUCE_BITWISE_TYPES_WITH(
      NVSHM_STREAM_REDUCE_KERNEL, or) NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_STREAM_REDUCE_KERNEL, xor)});
}
