# SPDX-License-Identifier: BSD-3-Clause
# Versions and the install prefix, included right after project() (docs/versioning.md).
#   - The project version is our release and has four fields, MAJOR.MINOR.PATCH.PACKAGE; PACKAGE is 0 for
#     our releases and counts repackagings of one release. It names the SONAME, the packages and the
#     header check at init.
#   - NVSHMEM_INTERFACE_VERSION (MAJOR.MINOR.PATCH) is the NVSHMEM API level the headers implement: the
#     NVSHMEM_VENDOR_* macros, nvshmemx_vendor_get_version_info, NVSHMEMConfigVersion.cmake and nvshmem.pc.
#   - include/nvshmem_version.h is generated into the build tree from include/nvshmem_version.h.in;
#     every target of the project sees it (include_directories below) and it is installed.
#   - NVSHMEM_PREFIX in the environment at the first configure sets the default CMAKE_INSTALL_PREFIX
#     (else /usr/local/nvshmem, NVIDIA's default).

if(NOT PROJECT_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "The project version must be MAJOR.MINOR.PATCH.PACKAGE (four numbers), not '${PROJECT_VERSION}'")
endif()
set(NVSHMEM_VERSION_TRIPLE "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}.${PROJECT_VERSION_PATCH}")
if(NOT NVSHMEM_INTERFACE_VERSION MATCHES "^([0-9]+)\\.([0-9]+)\\.([0-9]+)$")
  message(FATAL_ERROR "NVSHMEM_INTERFACE_VERSION must be MAJOR.MINOR.PATCH, not '${NVSHMEM_INTERFACE_VERSION}'")
endif()
set(NVSHMEM_INTERFACE_MAJOR ${CMAKE_MATCH_1})
set(NVSHMEM_INTERFACE_MINOR ${CMAKE_MATCH_2})
set(NVSHMEM_INTERFACE_PATCH ${CMAKE_MATCH_3})

if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  if(DEFINED ENV{NVSHMEM_PREFIX} AND NOT "$ENV{NVSHMEM_PREFIX}" STREQUAL "")
    set(CMAKE_INSTALL_PREFIX "$ENV{NVSHMEM_PREFIX}" CACHE PATH "Install prefix (default: $NVSHMEM_PREFIX)" FORCE)
  else()
    set(CMAKE_INSTALL_PREFIX "/usr/local/nvshmem" CACHE PATH "Install prefix (default: $NVSHMEM_PREFIX)" FORCE)
  endif()
endif()

# As with NVIDIA's build, NVSHMEM_PERFTEST_INSTALL and NVSHMEM_EXAMPLES_INSTALL in the environment at the
# first configure give the defaults of the cache variables of those names (perftest/CMakeLists.txt,
# CMakeLists.txt); -D on the command line wins.
foreach(var NVSHMEM_PERFTEST_INSTALL NVSHMEM_EXAMPLES_INSTALL)
  if(DEFINED ENV{${var}} AND NOT "$ENV{${var}}" STREQUAL "")
    set(${var} "$ENV{${var}}" CACHE STRING "Where these programs are installed (relative: under CMAKE_INSTALL_PREFIX)")
  endif()
endforeach()

set(NVSHMEM_GENERATED_INCLUDE_DIR "${PROJECT_BINARY_DIR}/include")
configure_file("${PROJECT_SOURCE_DIR}/include/nvshmem_version.h.in" "${NVSHMEM_GENERATED_INCLUDE_DIR}/nvshmem_version.h"
               @ONLY)
include_directories(BEFORE "${NVSHMEM_GENERATED_INCLUDE_DIR}")
