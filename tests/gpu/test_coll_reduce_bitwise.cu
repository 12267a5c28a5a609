// reduce and reducescatter tests of the and, or, xor pairs (coll_reduce_test.cuh).
#include "coll_reduce_test.cuh"

NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, and)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, or)
NVSHM_REDUCE_BITWISE_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, xor)
