#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The perftests' JSON lines and tools/perf-plot.py (CTest unit.perf_plot): runs the host bandwidth
# perftest as 2 PEs on the CPU backend with PERFTEST_JSON, checks its lines, then plots them together
# with a small fixture of two libraries (tests/unit/perf_plot/; three runs of ours at 64K: their median
# counts) and checks the PNGs and the table.
# Skipped (77) without python3's matplotlib (Debian: python3-matplotlib; tools/setup.sh --all).
#   perf_plot_test.sh NVSHMRUN PERF_HOST_BW
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The first python3 with matplotlib: the one on PATH, else Debian's (a PATH may lead to another Python first).
py=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import matplotlib' 2>/dev/null; then py=$candidate && break; fi
done
[ -n "$py" ] || { echo "skipped: no python3 with matplotlib (Debian: python3-matplotlib)"; exit 77; }
work=$(mktemp -d /tmp/perf-plot-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "perf_plot_test: $*" >&2; exit 1; }

# Real lines from our perftest: one per size and metric (bw, memcpy_bw, ratio), sizes 4 KiB .. 64 KiB.
NVSHMEM_SYMMETRIC_SIZE=64m PERFTEST_JSON="$work/host.jsonl" "$1" -n 2 --timeout 60 "$2" -b 4096 -e 65536 -f 4 -n 20 -w 2 \
  >"$work/host.out" || { cat "$work/host.out"; fail "the host bw perftest failed"; }
"$py" - "$work/host.jsonl" <<'PY' || fail "the host perftest's JSON lines are wrong"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = {(s, m) for s in (4096, 16384, 65536) for m in ("bw", "memcpy_bw", "ratio")}
got = {(r["size"], r["metric"]) for r in rows}
assert got == want, (sorted(got), sorted(want))
for r in rows:
    assert r["test"] == "bw" and r["pes"] == 2 and r["library"].startswith("NVSHMEM v"), r
    assert r["check"] is True and r["value"] > 0 and r["lower_is_better"] is False, r
    assert r["unit"] == ("x" if r["metric"] == "ratio" else "GB/s"), r
PY

"$py" "$here/../../tools/perf-plot.py" -o "$work/plots" ours="$here/perf_plot/ours.jsonl" \
  nvidia="$here/perf_plot/nvidia.jsonl" host="$work/host.jsonl" >"$work/table.md" || fail "perf-plot.py failed"
cat "$work/table.md"
for png in shmem_put_bw__bw.png bw__bw.png bw__memcpy_bw.png bw__ratio.png; do
  [[ $(head -c 8 "$work/plots/$png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$png is not a PNG"
done
grep -qxF '| size | ours | nvidia | ours/nvidia |' "$work/table.md" || fail "no ours/nvidia table"
grep -qxF '| 64K | 100.00 | 80.00 | 1.25 |' "$work/table.md" || fail "wrong 64K row"
grep -qxF '| 256M | 380.00 ! |  |  |' "$work/table.md" || fail "a failed check is not marked"
"$py" "$here/../../tools/perf-plot.py" -o "$work/plots" bad="$here/perf_plot_test.sh" 2>/dev/null &&
  fail "a file that is not JSON lines was accepted"
echo "perf_plot_test: OK"
