// reduce and reducescatter tests of the prod pairs (coll_reduce_test.cuh).
#include "coll_reduce_test.cuh"

NVSHM_REDUCE_STANDARD_TYPES_WITH(NVSHM_TEST_REDUCE_PAIR, prod)
