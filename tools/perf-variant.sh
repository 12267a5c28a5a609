#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds device perftests against another copy of include/ (a candidate change to the inline device API, or the
# tree with a check compiled out) into build-LABEL/perftest/, linked to BUILD's library, so that one GPU call
# compares several forms of the device code side by side (docs/perftest.md, "Variants"):
#   tools/perf-variant.sh LABEL INCLUDE_DIR [TEST...]      (default: shmem_put_latency shmem_put_bw)
#   ...then carry build-LABEL and run  PERF_BUILDS="LABEL:$PWD/build-LABEL" tools/gpu-check.sh --perf "..."
# The build's own commands (ninja -t commands) with the variant's include/ in place of the tree's and its outputs
# under build-LABEL: the same flags and libraries as BUILD's programs. Only the headers differ: the variant must
# keep the device state's layout, since it runs with BUILD's host library. BUILD defaults to build.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '3,10p' "$0" >&2; exit 2; }
label=$1 include=$(cd "$2" && pwd)
shift 2
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(shmem_put_latency shmem_put_bw)
build=$(cd "${BUILD:-build}" && pwd)
root=$(pwd)
[ -f "$include/nvshmem.h" ] || { echo "perf-variant: no nvshmem.h in '$include'" >&2; exit 2; }
for t in "${tests[@]}"; do
  src=$(find perftest/device -name "$t.cu" | head -1)
  [ -n "$src" ] || { echo "perf-variant: no device perftest '$t'" >&2; exit 2; }
  exe=${src%.cu}                                          # perftest/device/<folder>/<test>, as in BUILD
  obj=perftest/CMakeFiles/perf_device_$t.dir/${src#perftest/}.o
  out=$root/build-$label
  mkdir -p "$(dirname "$out/$exe")" "$(dirname "$out/$obj")"
  compile=$(ninja -C "$build" -t commands -s "$obj")
  link=$(ninja -C "$build" -t commands -s "$exe")
  if [ -z "$compile" ] || [ -z "$link" ]; then echo "perf-variant: $build has no target for '$t'" >&2 && exit 2; fi
  tree_include="-I$root/include "
  compile=${compile//$tree_include/-I$include }
  compile=${compile//$obj/$out/$obj}
  link=${link//$obj/$out/$obj}
  link=${link//-o $exe /-o $out/$exe }
  (cd "$build" && eval "$compile" && eval "$link")
  echo "perf-variant: build-$label/$exe"
done
