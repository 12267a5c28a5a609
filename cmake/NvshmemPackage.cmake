# SPDX-License-Identifier: BSD-3-Clause
# CPack: a .deb and a .tar.gz holding the `cmake --install` layout (docs/install.md).
#   cmake --build build --target package  ->  build/nvshmem_<version>_<arch>.deb, build/nvshmem-<version>-Linux.tar.gz
# The .deb installs under /usr/local/nvshmem (NVIDIA's default prefix; -DNVSHMEM_DEB_PREFIX=... changes
# it); the .tar.gz unpacks the same tree into a folder of its own.
set(CPACK_PACKAGE_NAME "nvshmem")
set(CPACK_PACKAGE_VENDOR "nvshmem clean-room project")
set(CPACK_PACKAGE_CONTACT "nvshmem maintainers <nvshmem@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Clean-room NVSHMEM: symmetric heap and one-sided communication across GPUs")
set(CPACK_PACKAGE_VERSION "${NVSHMEM_VERSION_TRIPLE}")
# The licence (docs/licence.md): BSD-3-Clause, share/doc/nvshmem/LICENSE in both packages
# (NvshmemInstall.cmake) and CPack's licence resource.
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_FILE_NAME "nvshmem-${NVSHMEM_VERSION_TRIPLE}-${CMAKE_SYSTEM_NAME}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES OFF)
# The prefix applies to the .deb only (cmake/NvshmemCPackProject.cmake); the .tar.gz holds the bare tree.
set(NVSHMEM_DEB_PREFIX "/usr/local/nvshmem" CACHE STRING "Where the .deb installs")
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_SOURCE_DIR}/cmake/NvshmemCPackProject.cmake")
# Debian: the PACKAGE field of the version becomes the Debian revision (left out when 0).
set(CPACK_DEBIAN_PACKAGE_RELEASE "${PROJECT_VERSION_TWEAK}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_NVSHMEM_DEB_PREFIX "${NVSHMEM_DEB_PREFIX}")
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libstdc++6 (>= 12)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Clean-room NVSHMEM (drop-in for NVIDIA's API): libnvshmem_host.so, libnvshmem_device.a, headers,\n nvshmrun, nvshmem-info, the CMake package and nvshmem.pc.")
include(CPack)
