// reduce and reducescatter tests of the min, max pairs (coll_reduce_test.cuh).
#include "coll_reduce_test.cuh"

NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, min)
NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, max)
