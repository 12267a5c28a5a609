# SPDX-License-Identifier: BSD-3-Clause
# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE): the .deb installs under a prefix, the
# .tar.gz holds the install tree at its top.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX "${CPACK_NVSHMEM_DEB_PREFIX}")
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX "/")
endif()
