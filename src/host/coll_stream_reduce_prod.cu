// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered reduce and reducescatter: the prod pairs (coll_stream.cuh).
#include "host/coll_stream.cuh"
#include "transport/cuda_kernels.hpp"

NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, prod)

cudaError_t nvshm::load_stream_reduce_prod_kernels() {
  return load_kernels({NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_STREAM_REDUCE_KERNEL, prod)});
}
