#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check.sh NVCC ARCH BUDGET SOURCE DEVICE_STATE_SOURCE INCLUDE_DIR...
#
# The register budget of the device API (docs/registers.md): compiles the realistic kernels of
# SOURCE for sm_ARCH twice, as a whole program (the kernel's registers from ptxas -v, callees
# included) and with -rdc=true (the registers after the device link, from nvlink --verbose: what
# the launch sees), and fails if any kernel needs more than BUDGET registers in either build.
# A kernel may carry a lower or higher limit in tests/registers/limits.txt (name, limit, reason):
# a higher one records a known excess, which must not grow. DEVICE_STATE_SOURCE is the library's
# definition of the device state (src/device/device_state_rdc.cu), which the -rdc link needs.
# No GPU is needed.
set -euo pipefail
nvcc=$1 arch=$2 budget=$3 source=$4 state=$5
shift 5
includes=()
for dir in "$@"; do includes+=(-I"$dir"); done
limits="$(dirname "$0")/limits.txt"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-std=c++17 -O3 -arch=sm_"$arch" "${includes[@]}")

# The demangled-enough name: _Z<len><name>... gives <name>.
names='{ match($0, /_Z[0-9]+/); len = substr($0, RSTART + 2, RLENGTH - 2) + 0; name = substr($0, RSTART + RLENGTH, len) }'
"$nvcc" "${flags[@]}" -Xptxas -v -c "$source" -o "$out/whole.o" 2>"$out/whole.txt"
awk "/Compiling entry function/ $names"' /Used [0-9]+ registers/ && name != "" {
       match($0, /Used [0-9]+/); print name, substr($0, RSTART + 5, RLENGTH - 5); name = "" }' \
  "$out/whole.txt" | LC_ALL=C sort >"$out/whole.regs"
"$nvcc" "${flags[@]}" -rdc=true -c "$source" -o "$out/rdc.o"
"$nvcc" "${flags[@]}" -rdc=true -c "$state" -o "$out/state.o"
"$nvcc" -arch=sm_"$arch" -dlink "$out/rdc.o" "$out/state.o" -o "$out/dlink.o" -Xnvlink --verbose 2>"$out/rdc.txt"
awk "/Function properties for '_Z[0-9]/ $names"' /used [0-9]+ registers/ && name != "" {
       match($0, /used [0-9]+/); print name, substr($0, RSTART + 5, RLENGTH - 5); name = "" }' \
  "$out/rdc.txt" | LC_ALL=C sort >"$out/rdc.regs"

LC_ALL=C join -a1 -a2 -e missing -o 0,1.2,2.2 "$out/whole.regs" "$out/rdc.regs" |
  awk -v budget="$budget" -v limits="$limits" '
    BEGIN { while ((getline line < limits) > 0) if (line !~ /^#/ && split(line, f, " ") >= 2) limit[f[1]] = f[2] }
    {
      lim = ($1 in limit) ? limit[$1] : budget
      most = ($2 > $3 ? $2 : $3) + 0
      if ($2 == "missing" || $3 == "missing") { printf "%-28s missing from one build\n", $1; bad++; next }
      threads = int(65536 / (int((most + 7) / 8) * 8 * 32)) * 32  # registers go to warps in steps of 8
      printf "%-28s %3d %3d registers (whole program, -rdc), blocks of at most %4d threads%s\n", $1, $2, $3,
             (threads > 1024 ? 1024 : threads), (most > lim ? "   OVER " lim : (lim != budget ? "   (limit " lim ")" : ""))
      if (most > lim) bad++
      kernels++
    }
    END {
      if (kernels == 0) { print "no kernels found"; exit 1 }
      printf "%d kernels, budget %d, %d over their limit\n", kernels, budget, bad
      exit bad > 0
    }'
