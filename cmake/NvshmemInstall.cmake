# SPDX-License-Identifier: BSD-3-Clause
# Install layout, CMake package and pkg-config file (docs/install.md). Included at the end of the
# top-level CMakeLists.txt, once every target exists.
#
#   include/             nvshmem.h nvshmemx.h nvshmem_host.h nvshmem_version.h, nvshmem_detail/, nvshmem/,
#                        and NVIDIA's installed paths that applications include (host/ device/ device_host/
#                        bootstrap_device_host/ non_abi/: thin headers, docs/compatibility.md)
#   lib/                 libnvshmem_host.so -> .so.MAJOR -> .so.MAJOR.MINOR.PATCH, libnvshmem_device.a
#   lib/cmake/nvshmem/   NVSHMEMConfig.cmake, NVSHMEMConfigVersion.cmake, NVSHMEMTargets*.cmake
#   lib/pkgconfig/       nvshmem.pc
#   bin/                 nvshmrun, nvshmem-info
#   $NVSHMEM_PERFTEST_INSTALL/<folder>/, $NVSHMEM_EXAMPLES_INSTALL/   (relative: under the prefix)
include(CMakePackageConfigHelpers)

set(NVSHMEM_CMAKE_INSTALL_DIR lib/cmake/nvshmem)

# The header-version registry lives in the host library (src/host/version_check.cpp); the generated
# header is part of its interface while building.
target_sources(nvshmem_host PRIVATE "${PROJECT_SOURCE_DIR}/src/host/version_check.cpp")
target_include_directories(nvshmem_host PUBLIC $<BUILD_INTERFACE:${NVSHMEM_GENERATED_INCLUDE_DIR}>)

# Headers: an allowlist, never the whole include/ folder.
install(FILES "${PROJECT_SOURCE_DIR}/include/nvshmem.h" "${PROJECT_SOURCE_DIR}/include/nvshmemx.h"
              "${PROJECT_SOURCE_DIR}/include/nvshmem_host.h" "${NVSHMEM_GENERATED_INCLUDE_DIR}/nvshmem_version.h"
        DESTINATION include)
foreach(dir nvshmem_detail nvshmem host device device_host bootstrap_device_host non_abi)
  if(EXISTS "${PROJECT_SOURCE_DIR}/include/${dir}")
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/${dir}" DESTINATION include
            FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp" PATTERN "*.cuh")
  endif()
endforeach()

install(TARGETS nvshmem_host EXPORT NVSHMEMTargets LIBRARY DESTINATION lib INCLUDES DESTINATION include)
install(TARGETS nvshmem_device EXPORT NVSHMEMTargets ARCHIVE DESTINATION lib)
install(TARGETS nvshmem-info EXPORT NVSHMEMTargets RUNTIME DESTINATION bin)
install(EXPORT NVSHMEMTargets NAMESPACE nvshmem:: DESTINATION ${NVSHMEM_CMAKE_INSTALL_DIR})

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/NVSHMEMConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfig.cmake"
                              INSTALL_DESTINATION ${NVSHMEM_CMAKE_INSTALL_DIR})
# The package version is the NVSHMEM interface level, which is what find_package(NVSHMEM 3.2) in code
# written for NVIDIA's NVSHMEM asks about; SameMajorVersion: 3.2 ... 3.8 are accepted, 3.9 and 4.0 are not.
# Our release stays in NVSHMEM_RELEASE_VERSION (NVSHMEMConfig.cmake) and in the packages' version.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfigVersion.cmake"
                                 VERSION ${NVSHMEM_INTERFACE_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfig.cmake" "${PROJECT_BINARY_DIR}/cmake/NVSHMEMConfigVersion.cmake"
        DESTINATION ${NVSHMEM_CMAKE_INSTALL_DIR})

# pkg-config: relocatable (paths relative to the .pc file), so an unpacked .deb works in place.
set(NVSHMEM_PC_CUDA_INCLUDE "")
foreach(dir ${CUDAToolkit_INCLUDE_DIRS})
  string(APPEND NVSHMEM_PC_CUDA_INCLUDE " -I${dir}")
endforeach()
configure_file("${PROJECT_SOURCE_DIR}/cmake/nvshmem.pc.in" "${PROJECT_BINARY_DIR}/pkgconfig/nvshmem.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/nvshmem.pc" DESTINATION lib/pkgconfig)
# The licence, where Debian keeps it (docs/licence.md).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION share/doc/nvshmem)

# Examples keep their source folder layout under $NVSHMEM_EXAMPLES_INSTALL.
if(NVSHMEM_BUILD_EXAMPLES)
  if(IS_ABSOLUTE "${NVSHMEM_EXAMPLES_INSTALL}")
    set(examples_dir "${NVSHMEM_EXAMPLES_INSTALL}")
  else()
    set(examples_dir "${CMAKE_INSTALL_PREFIX}/${NVSHMEM_EXAMPLES_INSTALL}")
  endif()
  file(RELATIVE_PATH examples_to_lib "${examples_dir}" "${CMAKE_INSTALL_PREFIX}/lib")
  set_target_properties(ring heat1d cpp_halo cpp_ring PROPERTIES INSTALL_RPATH "$ORIGIN/${examples_to_lib}")
  install(TARGETS ring heat1d cpp_halo cpp_ring RUNTIME DESTINATION ${NVSHMEM_EXAMPLES_INSTALL} COMPONENT examples)
endif()
