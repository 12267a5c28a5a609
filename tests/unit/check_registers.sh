#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_registers.sh NVCC ARCH LIMIT SOURCE INCLUDE_DIR...
# Compiles SOURCE (tests/unit/device_registers.cu) for sm_ARCH with ptxas -v, prints the registers of
# each kernel, and fails if any kernel needs more than LIMIT (docs/collectives.md, "Registers of the
# device API": 64 lets 1024-thread blocks launch, the goal; LIMIT holds what is reached so far).
set -euo pipefail
nvcc=$1 arch=$2 limit=$3 source=$4
shift 4
includes=()
for dir in "$@"; do includes+=(-I"$dir"); done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$nvcc" -std=c++17 -O3 -arch=sm_"$arch" "${includes[@]}" -Xptxas -v -c "$source" -o "$out/registers.o" 2>"$out/ptxas.txt"
# ptxas prints "Compiling entry function '_Z...reg_NAME...'" and then "... Used N registers ...".
awk -v limit="$limit" '
  /Compiling entry function/ {  # the mangled name: _Z, the length of the name, the name
    match($0, /_Z[0-9]+/); len = substr($0, RSTART + 2, RLENGTH - 2) + 0
    name = substr($0, RSTART + RLENGTH, len); sub(/^reg_/, "", name)
  }
  /Used [0-9]+ registers/ && name != "" {
    match($0, /Used [0-9]+ registers/); n = substr($0, RSTART + 5, RLENGTH - 15) + 0
    threads = int(65536 / (int((n + 7) / 8) * 8 * 32)) * 32  # registers go to warps in steps of 8 per thread
    printf "%-32s %3d registers, blocks of at most %4d threads%s\n", name, n, (threads > 1024 ? 1024 : threads),
           (n > limit ? "   OVER " limit : "")
    if (n > limit) bad++
    if (n > most) most = n
    kernels++; name = ""
  }
  END {
    if (kernels == 0) { print "no kernels found in the ptxas output"; exit 1 }
    printf "%d kernels, most registers %d, limit %d\n", kernels, most, limit
    exit bad > 0
  }' "$out/ptxas.txt"
