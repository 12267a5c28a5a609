#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs the main demo from a build folder: the GPU ring where a GPU is visible, otherwise the 1-D heat
# equation on the CPU backend (the host interface on a host shared-memory heap).
#   tools/demo.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  exec "$build/bin/nvshmrun" -n 2 "$build/examples/ring"
fi
echo "no GPU visible: running the host-interface demo on the CPU backend"
exec "$build/bin/nvshmrun" -n 4 "$build/examples/heat1d" 2000 500
