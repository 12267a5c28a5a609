#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copies this machine's UCX (Debian's libucx-dev and libucx0: headers, libucp/libucs/libuct/libucm, the
# shared-memory transport module, libnuma) into .ucx/ (git-ignored) so that a machine without UCX can
# build the remote engine and run the tests of remote PEs: carry ".ucx" with the GPU call;
# tools/gpu-check.sh uses it when present. About 5 MB.
set -euo pipefail
lib=/usr/lib/x86_64-linux-gnu
rm -rf .ucx && mkdir -p .ucx/include .ucx/lib/ucx
cp -r /usr/include/ucp /usr/include/ucs /usr/include/uct /usr/include/ucm .ucx/include/
for l in libucp.so.0 libucs.so.0 libuct.so.0 libucm.so.0 libnuma.so.1; do cp -L "$lib/$l" .ucx/lib/; done
cp -L "$lib/ucx/libuct_cma.so.0" .ucx/lib/ucx/
du -sh .ucx
