// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered reduce and reducescatter: the min, max pairs (coll_stream.cuh).
#include "host/coll_stream.cuh"

NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, min)
NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_DEFINE_STREAM_REDUCE, max)
