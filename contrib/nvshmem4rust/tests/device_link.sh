#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CTest contrib.nvshmem4rust.device_link: a kernel that only declares the device functions it calls (as
# CUDA-Oxide kernels do, tests/device_link_caller.cu) links against the generated definitions.
#   device_link.sh NVCC ARCH INCLUDE_DIR GENERATED_DIR LIBNVSHMEM_DEVICE WORK_DIR
# The whole archive (libnvshmem_device_defs.a, NVSHMEM_RUST_DEVICE_DEFS=ON) costs minutes of compilation,
# so this test compiles the generated definitions of the caller's functions only: each must be in the
# generated files, the device link must fail without them and succeed with them.
set -euo pipefail
nvcc=$1 arch=$2 include=$3 generated=$4 device_lib=$5 work=$6
caller=$(dirname "$0")/device_link_caller.cu
mkdir -p "$work"
mapfile -t names < <(sed -n 's/^extern "C" __device__ [^(]* \(nvshmemx\{0,1\}_[a-z0-9_]*\)(.*/\1/p' "$caller")
[[ ${#names[@]} -ge 5 ]] || { echo "device_link: found ${#names[@]} declarations in $caller" >&2; exit 1; }
{
  printf '#include <nvshmem.h>\n#include <nvshmemx.h>\n__device__ void *nvshmem4rust_device_link_defs[] = {\n'
  for name in "${names[@]}"; do
    grep -hF "(void *)&$name," "$generated"/nvshmem_device_defs_*.cu ||
      { echo "device_link: $name has no definition in $generated/nvshmem_device_defs_*.cu" >&2; exit 1; }
  done
  printf '    nullptr};\n'
} >"$work/defs.cu"
"$nvcc" -rdc=true -std=c++17 -arch="$arch" -I"$include" -c "$work/defs.cu" -o "$work/defs.o"
"$nvcc" -rdc=true -arch="$arch" -c "$caller" -o "$work/caller.o"
if "$nvcc" -arch="$arch" -dlink "$work/caller.o" "$device_lib" -o "$work/dlink.o" 2>"$work/without.txt"; then
  echo "device_link: the caller linked without the definitions: the test proves nothing" >&2
  exit 1
fi
"$nvcc" -arch="$arch" -dlink "$work/caller.o" "$work/defs.o" "$device_lib" -o "$work/dlink.o"
echo "device_link: ${#names[@]} declared device functions linked against their generated definitions"
