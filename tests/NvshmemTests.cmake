# Helpers shared by the test folders.
set(NVSHMEM_TEST_SKIP_CODE 77)
