#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The host path to a remote PE against raw UCX, same PEs, same run (docs/remote.md): perftests `lat`
# (putmem+quiet, getmem, fetch_add of 8 bytes) and `bw` (putmem_nbi of 1 MiB) next to `ucx_raw` (the same
# operations with UCP called directly), each a median of -r runs; prints the figures, the ratios and the
# differences.
#   [REMOTE_PERF_REPEAT=N] tools/remote-perf.sh BUILD_DIR [hosts|loopback|gpu-heap|device] [extra perftest options]
# REMOTE_PERF_REPEAT runs the set N times (default 1) and reports the medians over the runs.
# hosts (default): two fake hosts of one PE each (tests/multipe/fake_hosts.sh, needs root; exit 77 if not);
# loopback: NVSHMEM_DISABLE_P2P=1 with UCX over TCP on lo;
# gpu-heap: as loopback, on a GPU heap: the host API through the staged path (docs/remote.md), which the
# device path through the proxy also takes, so the two modes side by side tell the proxy's share;
# device: as loopback, on a GPU heap, the device API through the host proxy (docs/proxy.md, issue 27's
# goals): one thread's putmem+quiet, putmem alone (--no_quiet: local completion, against putmem+quiet),
# one int_g and fetch-add of 8 bytes (shmem_put_latency, shmem_g_latency,
# shmem_atomic_latency), one block's putmem_nbi of 1 MiB (shmem_put_bw -c 1 -t 1024), and the proxy's own
# round trip, a quiet with nothing pending (shmem_quiet_latency; no raw UCX counterpart; at most twice the
# goal's 3 us from enqueue to issue).
set -euo pipefail
build=$(readlink -f "$1")
mode=${2:-hosts}
shift $(($# > 1 ? 2 : 1))
here=$(dirname "$(readlink -f "$0")")
heap=SYSMEM
case $mode in device | gpu-heap) heap=DEVICE ;; esac
export NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-64m} NVSHMEM_HEAP_KIND=$heap NVSHMEM_MACHINE_READABLE_OUTPUT=1
run() {
  if [ "$mode" != hosts ]; then
    NVSHMEM_DISABLE_P2P=1 UCX_TLS=tcp UCX_NET_DEVICES=lo "$build/bin/nvshmrun" -n 2 --timeout 300 "$@"
  else
    "$here/../tests/multipe/fake_hosts.sh" 2 1 "$build/bin/nvshmrun" --timeout 300 "$@"
  fi
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
repeat=${REMOTE_PERF_REPEAT:-1}
set +e
status=0
for ((r = 1; r <= repeat; r++)); do
  echo "#run $r"
  if [ "$mode" = device ]; then
    for t in shmem_put_latency shmem_atomic_latency shmem_quiet_latency; do
      run "$build/perftest/device/pt-to-pt/$t" -b 8 -e 8 -n 200 -w 20 -r 7 "$@" || { status=$?; break 2; }
    done
    # shmem_g_latency reads size/4 ints an iteration: -b 4 times one nvshmem_int_g
    run "$build/perftest/device/pt-to-pt/shmem_g_latency" -b 4 -e 4 -n 200 -w 20 -r 7 "$@" || { status=$?; break; }
    run "$build/perftest/device/pt-to-pt/shmem_put_latency" --no_quiet -b 8 -e 8 -n 200 -w 20 -r 7 "$@" || { status=$?; break; }
    run "$build/perftest/device/pt-to-pt/shmem_put_bw" -b 1m -e 1m -c 1 -t 1024 -n 16 -w 4 -r 7 "$@" || { status=$?; break; }
  else
    run "$build/perftest/host/pt-to-pt/lat" -b 8 -e 8 -n 200 -w 20 -r 7 "$@" || { status=$?; break; }
    run "$build/perftest/host/pt-to-pt/bw" -b 1m -e 1m -n 16 -w 4 -r 7 "$@" || { status=$?; break; }
  fi
  # ucx_raw's buffers are its heap, used as host memory: a host heap in every mode
  NVSHMEM_HEAP_KIND=SYSMEM run "$build/perftest/host/remote/ucx_raw" -b 8 -e 8 -n 200 -w 20 -r 7 "$@" || { status=$?; break; }
  NVSHMEM_HEAP_KIND=SYSMEM run "$build/perftest/host/remote/ucx_raw" -b 1m -e 1m -n 16 -w 4 -r 7 "$@" || { status=$?; break; }
done >"$out" 2>&1
set -e
[ $status = 77 ] && exit 77
if [ $status != 0 ]; then
  cat "$out"
  echo "remote-perf: a program failed (status $status)" >&2
  exit 1
fi
# "&&&& PERF <job>___size__<bytes>___<metric> <value> <unit>" lines, each call's medians; with
# REMOTE_PERF_REPEAT=N the whole set runs N times and each figure is the median of the N calls' figures
# (the ratio is that of the two medians; the per-run ratios' range follows).
awk -v mode="$mode" -v repeat="$repeat" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" '
  /^#run / { run = $2 }
  /^&&&& PERF/ { split($3, k, "___"); key = k[1] "/" k[2] "/" k[3]; v[key, run] = $4 }
  function median(key,   n, i, j, t, a) {
    n = 0
    for (i = 1; i <= repeat; i++) if (((key, i) in v)) a[++n] = v[key, i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n == 0 ? 0 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
  }
  function row(what, ours, raw, unit, goal,   o, w, lo, hi, i, q) {
    o = median(ours); w = median(raw); lo = ""; hi = ""
    for (i = 1; i <= repeat; i++)
      if (((ours, i) in v) && ((raw, i) in v) && v[raw, i] > 0) {
        q = v[ours, i] / v[raw, i]
        if (lo == "" || q < lo) lo = q
        if (hi == "" || q > hi) hi = q
      }
    printf "%-28s %12.2f %12.2f %-5s %8.2f %10.2f   %-14s %s\n", what, o, w, unit, (w > 0 ? o / w : 0), o - w, goal,
           (repeat > 1 ? sprintf("%.2f-%.2f", lo, hi) : "")
  }
  END {
    printf "%s path vs raw UCX (%s), medians of %d run(s); load average at the end %s\n",
           (mode == "device" ? "device (proxy)" : mode == "gpu-heap" ? "host (staged, GPU heap)" : "host"), mode, repeat, load
    printf "%-28s %12s %12s %-5s %8s %10s   %-14s %s\n", "operation", "library", "raw UCX", "unit", "ratio", "difference",
           "goal", (repeat > 1 ? "per-run ratios" : "")
    if (mode == "device") {
      row("device putmem+quiet 8 B", "shmem_put_latency/size__8/latency", "ucx_raw/size__8/put_flush", "us", "<= raw + 15 us")
      row("device putmem 8 B (no quiet)", "shmem_put_latency/size__8/latency_no_quiet", "shmem_put_latency/size__8/latency",
          "us", "<= 0.5: against putmem+quiet")
      row("device g (one int_g)", "shmem_g_latency/size__4/latency", "ucx_raw/size__8/get", "us", "")
      row("device fetch_add 8 B", "shmem_atomic_latency/size__8/latency", "ucx_raw/size__8/fadd", "us", "")
      row("block putmem_nbi 1 MiB", "shmem_put_bw/size__1048576/bw", "ucx_raw/size__1048576/bw", "GB/s", ">= 0.8")
      row("device quiet, none pending", "shmem_quiet_latency/size__8/latency", "-", "us", "<= 6 us (2 x 3)")
    } else {
      row("putmem+quiet 8 B", "lat/size__8/put_quiet", "ucx_raw/size__8/put_flush", "us", "<= 1.3")
      row("getmem (g) 8 B", "lat/size__8/get", "ucx_raw/size__8/get", "us", "<= 1.3")
      row("fetch_add 8 B", "lat/size__8/fadd", "ucx_raw/size__8/fadd", "us", "<= 1.3")
      row("putmem_nbi 1 MiB bandwidth", "bw/size__1048576/bw", "ucx_raw/size__1048576/bw", "GB/s", ">= 0.9")
    }
  }' "$out"
