// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered reduce and reducescatter: the and, or, xor pairs (coll_stream.cuh).
#include "host/coll_stream.cuh"

NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, and)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, or)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, xor)
