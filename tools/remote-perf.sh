#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The host path to a remote PE against raw UCX, same PEs, same run (docs/remote.md): perftests `lat`
# (putmem+quiet, getmem, fetch_add of 8 bytes) and `bw` (putmem_nbi of 1 MiB) next to `ucx_raw` (the same
# operations with UCP called directly), each a median of -r runs; prints the figures and the ratios.
#   tools/remote-perf.sh BUILD_DIR [hosts|loopback] [extra perftest options]
# hosts (default): two fake hosts of one PE each (tests/multipe/fake_hosts.sh, needs root; exit 77 if not);
# loopback: NVSHMEM_DISABLE_P2P=1 with UCX over TCP on lo.
set -euo pipefail
build=$(readlink -f "$1")
mode=${2:-hosts}
shift $(($# > 1 ? 2 : 1))
here=$(dirname "$(readlink -f "$0")")
export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-64m} NVSHMEM_HEAP_KIND=SYSMEM NVSHMEM_MACHINE_READABLE_OUTPUT=1
run() {
  if [ "$mode" = loopback ]; then
    NVSHMEM_DISABLE_P2P=1 UCX_TLS=tcp UCX_NET_DEVICES=lo "$build/bin/nvshmrun" -n 2 --timeout 300 "$@"
  else
    "$here/../tests/multipe/fake_hosts.sh" 2 1 "$build/bin/nvshmrun" --timeout 300 "$@"
  fi
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
{
  run "$build/perftest/host/pt-to-pt/lat" -b 8 -e 8 -n 200 -w 20 -r 7 "$@"
  run "$build/perftest/host/remote/ucx_raw" -b 8 -e 8 -n 200 -w 20 -r 7 "$@"
  run "$build/perftest/host/pt-to-pt/bw" -b 1m -e 1m -n 16 -w 4 -r 7 "$@"
  run "$build/perftest/host/remote/ucx_raw" -b 1m -e 1m -n 16 -w 4 -r 7 "$@"
} >"$out" 2>&1
status=$?
set -e
[ $status = 77 ] && exit 77
if [ $status != 0 ]; then
  cat "$out"
  echo "remote-perf: a program failed (status $status)" >&2
  exit 1
fi
# "&&&& PERF <job>___size__<bytes>___<metric> <value> <unit>" lines; ucx_raw's 1 MiB row comes last.
awk -v mode="$mode" '
  /^&&&& PERF/ { split($3, k, "___"); v[k[1] "/" k[2] "/" k[3]] = $4 }
  function row(what, ours, raw, unit, goal, higher) {
    r = (v[raw] > 0) ? v[ours] / v[raw] : 0
    printf "%-28s %12.2f %12.2f %-5s %8.2f   %s\n", what, v[ours], v[raw], unit, r, goal
  }
  END {
    printf "host path vs raw UCX (%s), medians\n%-28s %12s %12s %-5s %8s   %s\n", mode, "operation", "library", "raw UCX", "unit", "ratio", "goal"
    row("putmem+quiet 8 B", "lat/size__8/put_quiet", "ucx_raw/size__8/put_flush", "us", "<= 1.3")
    row("getmem (g) 8 B", "lat/size__8/get", "ucx_raw/size__8/get", "us", "<= 1.3")
    row("fetch_add 8 B", "lat/size__8/fadd", "ucx_raw/size__8/fadd", "us", "<= 1.3")
    row("putmem_nbi 1 MiB bandwidth", "bw/size__1048576/bw", "ucx_raw/size__1048576/bw", "GB/s", ">= 0.9")
  }' "$out"
