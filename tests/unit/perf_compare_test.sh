#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perf_compare_test.sh NVSHMRUN: tools/perf-compare.sh on stand-in programs (no GPU, no NVIDIA
# NVSHMEM needed). Ours, NVIDIA's (made by a stand-in nvcc), an environment variant (PERF_VARIANTS)
# and a second build of ours (PERF_BUILDS) land in one table with the right ratios, and
# PERF_BUDGET_S=1 stops after the first run. Skips (77) without python3, which the script needs.
set -euo pipefail
nvshmrun=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A stand-in perftest: PE 0 prints one result line; FAKE_ADD (a variant's environment) is appended.
# It takes a second, so that a run (4 programs) outlasts PERF_BUDGET_S=1.
stand_in() {  # path value
  printf '#!/bin/sh\n[ "$NVSHMRUN_RANK" = 0 ] && echo "&&&& PERF shmem_p_bw___size__65536___bw %s${FAKE_ADD:-} +GB/s"\nsleep 1\n' \
    "$2" >"$1"
  chmod +x "$1"
}
for build in ours other; do
  mkdir -p "$work/$build/bin" "$work/$build/perftest/device/pt-to-pt"
  ln -s "$nvshmrun" "$work/$build/bin/nvshmrun"
done
stand_in "$work/ours/perftest/device/pt-to-pt/shmem_p_bw" 100
stand_in "$work/other/perftest/device/pt-to-pt/shmem_p_bw" 120
mkdir -p "$work/nvidia/include" "$work/nvidia/lib"
touch "$work/nvidia/include/nvshmem.h" "$work/nvidia/lib/libnvshmem_host.so.3"
# The stand-in nvcc: a program from a .cu source is a copy of a stand-in that prints 110; anything
# else (the harness object, --version) just makes its output, if any.
stand_in "$work/nvidia-program" 110
cat >"$work/nvcc" <<EOF
#!/bin/bash
out=; src=
while [ \$# -gt 0 ]; do case \$1 in -o) out=\$2; shift ;; *.cu) src=\$1 ;; esac; shift; done
[ -n "\$out" ] || exit 0
if [ -n "\$src" ]; then cp "$work/nvidia-program" "\$out"; else : >"\$out"; fi
EOF
chmod +x "$work/nvcc"

table=$(NVCC=$work/nvcc NVIDIA_NVSHMEM_HOME=$work/nvidia PERF_VARIANTS="plus:FAKE_ADD=5" PERF_BUILDS="other:$work/other" \
  PERF_BUDGET_S=1 GIT_COMMIT=test "$src/tools/perf-compare.sh" "$work/ours" 5 shmem_p_bw 2>"$work/log")
echo "$table"
fail() { echo "FAIL: $*"; cat "$work/log"; exit 1; }
grep -q "stopping after 1 of 5 runs" "$work/log" || fail "PERF_BUDGET_S=1 did not stop after the first run"
grep -q "medians over 1 call(s)" <<<"$table" || fail "the header does not say 1 run"
# ours 100, NVIDIA 110, plus 1005 (FAKE_ADD appends a 5), other 120.
grep -Eq "^shmem_p_bw +bw\(GB/s\) +65536 +100\.000 +110\.000 +0\.909 +MISS +9\.136 +1\.091$" <<<"$table" ||
  fail "the row is not: ours 100, NVIDIA 110, ratio 0.909, plus/nv 9.136, other/nv 1.091"
echo "perf-compare: budget, variants and builds OK"
