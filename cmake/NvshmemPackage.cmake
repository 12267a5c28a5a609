# CPack: a .deb and a .tar.gz holding the `cmake --install` layout (docs/install.md).
#   cmake --build build --target package      ->  build/nvshmem-<version>-Linux.{deb,tar.gz}
# The .deb installs under /usr/local/nvshmem (NVIDIA's default prefix; CPACK_PACKAGING_INSTALL_PREFIX
# changes it); the .tar.gz unpacks the same tree into a folder of its own.
set(CPACK_PACKAGE_NAME "nvshmem")
set(CPACK_PACKAGE_VENDOR "nvshmem clean-room project")
set(CPACK_PACKAGE_CONTACT "nvshmem maintainers <nvshmem@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Clean-room NVSHMEM: symmetric heap and one-sided communication across GPUs")
set(CPACK_PACKAGE_VERSION "${NVSHMEM_VERSION_TRIPLE}")
set(CPACK_PACKAGE_FILE_NAME "nvshmem-${NVSHMEM_VERSION_TRIPLE}-${CMAKE_SYSTEM_NAME}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES OFF)
if(NOT CPACK_PACKAGING_INSTALL_PREFIX)
  set(CPACK_PACKAGING_INSTALL_PREFIX "/usr/local/nvshmem")
endif()
# Debian: the PACKAGE field of the version becomes the Debian revision.
set(CPACK_DEBIAN_PACKAGE_RELEASE "${PROJECT_VERSION_TWEAK}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "libdevel")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libstdc++6 (>= 12)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Clean-room NVSHMEM (drop-in for NVIDIA's API): libnvshmem_host.so, libnvshmem_device.a, headers,\n nvshmrun, nvshmem-info, the CMake package and nvshmem.pc.")
# The pieces of the build that are not part of the product (GoogleTest and the like) stay out.
set(CPACK_INSTALL_CMAKE_PROJECTS "${PROJECT_BINARY_DIR};${PROJECT_NAME};ALL;/")
include(CPack)
