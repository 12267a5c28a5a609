#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds device perftests against another copy of include/ (a candidate change to the inline device API, or the
# tree with a check compiled out) into build-LABEL/perftest/, linked to BUILD's library, so that one GPU call
# compares several forms of the device code side by side (docs/perftest.md, "Variants"):
#   tools/perf-variant.sh LABEL INCLUDE_DIR [TEST...]      (default: shmem_put_latency shmem_put_bw)
#   ...then carry build-LABEL and run  PERF_BUILDS="LABEL:$PWD/build-LABEL" tools/gpu-check.sh --perf "..."
# The flags are the project's for its perftests (-O2, BUILD's CUDA architectures). Only the headers differ: the
# variant must keep the device state's layout, since it runs with BUILD's host library. BUILD defaults to build.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '3,9p' "$0" >&2; exit 2; }
label=$1 include=$2
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(shmem_put_latency shmem_put_bw)
build=${BUILD:-build}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -f "$include/nvshmem.h" ] || { echo "perf-variant: no nvshmem.h in '$include'" >&2; exit 2; }
[ -f "$build/perftest/libperftest_common.a" ] || { echo "perf-variant: build $build's perftests first" >&2; exit 2; }
archs=$(sed -n 's/^NVSHMEM_CUDA_ARCHITECTURES:STRING=//p' "$build/CMakeCache.txt")
gencode=()
for a in ${archs//;/ }; do gencode+=("--generate-code=arch=compute_$a,code=[compute_$a,sm_$a]"); done
lib=$(cd "$build/lib" && pwd)
for t in "${tests[@]}"; do
  src=$(find perftest/device -name "$t.cu" | head -1)
  [ -n "$src" ] || { echo "perf-variant: no device perftest '$t'" >&2; exit 2; }
  out=build-$label/${src%.cu}
  mkdir -p "$(dirname "$out")"
  "$nvcc" -O2 -DNDEBUG "${gencode[@]}" -std=c++17 -DNVSHM_NO_EXTRA_INCLUDES -I"$build/include" -Iperftest/common \
    -I"$include" "$src" -o "$out" "$build/perftest/libperftest_common.a" -L"$lib" -lnvshmem_host \
    -Xlinker -rpath,"$lib"
  echo "perf-variant: $out"
done
