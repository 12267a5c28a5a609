#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copies this machine's pybind11 (Debian's pybind11-dev: header-only, and its CMake package) and DLPack
# header (libdlpack-dev) into .pybind11/ (git-ignored), laid out as a prefix (include/, lib/cmake/pybind11/),
# so that a machine without them builds contrib/nvshmem4py against its own python3: carry ".pybind11" with
# the GPU call; tools/gpu-check.sh --python uses it. About 1 MB.
set -euo pipefail
for f in /usr/include/pybind11/pybind11.h /usr/lib/cmake/pybind11/pybind11Config.cmake /usr/include/dlpack/dlpack.h; do
  [ -f "$f" ] || { echo "py-bundle: $f is missing (apt-get install pybind11-dev libdlpack-dev)" >&2; exit 1; }
done
rm -rf .pybind11 && mkdir -p .pybind11/include .pybind11/lib/cmake
cp -r /usr/include/pybind11 /usr/include/dlpack .pybind11/include/
cp -r /usr/lib/cmake/pybind11 .pybind11/lib/cmake/
du -sh .pybind11
