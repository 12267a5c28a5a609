// SPDX-License-Identifier: BSD-3-Clause
// One installed header alone in a translation unit (tests/compat/CMakeLists.txt): NVSHM_HEADER is
// the path, as an application writes it (<device/nvshmem_defines.h>). Compiled by g++ (-x c++) for
// the host headers and by nvcc with and without -rdc for all.
#include NVSHM_HEADER
