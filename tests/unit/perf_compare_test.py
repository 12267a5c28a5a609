#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/perf-compare.py without a GPU or NVIDIA's NVSHMEM (CTest unit.perf_compare).

  perf_compare_test.py NVSHMRUN

Stand-in perftests (small Python programs started by the real nvshmrun) append JSON lines to
$PERFTEST_JSON; a stand-in nvcc makes NVIDIA's programs. Checks the run loop (alternating order, options,
NVIDIA's bootstrap, variants, other builds, PERF_EXTRA, PERF_JSON_DIR, PERF_NV_CACHE, PERF_BUDGET_S), the
medians and ratios in the table, --json, --write-baseline and --baseline (a pass passes, a regression
fails with status 3 and is named), the committed baselines, and the errors.
"""
import importlib.util
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent.parent
TOOL = SRC / "tools" / "perf-compare.py"
failures = []

# A stand-in perftest: PE 0 appends one JSON line per metric, the value of this call (the calls of one
# program and FAKE_SCALE count in turn through VALUES) times FAKE_SCALE; FAKE_TRACE logs every call.
STAND_IN = """#!/usr/bin/env python3
import hashlib, json, os, sys, time
TEST, METRICS = {test!r}, {metrics!r}
if os.environ.get("FAKE_FAIL") == "1" or (os.environ.get("FAKE_FAIL_PATH") or "//") in sys.argv[0]:
    sys.exit(1)
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
if os.environ.get("NVSHMRUN_RANK") != "0":
    sys.exit(0)
scale = os.environ.get("FAKE_SCALE", "1")
state = os.environ["FAKE_STATE"]
counter = os.path.join(state, hashlib.sha256((os.path.abspath(sys.argv[0]) + scale).encode()).hexdigest())
count = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(count + 1))
with open(os.environ["FAKE_TRACE"], "a") as f:
    f.write(" ".join([sys.argv[0], os.environ.get("PERFTEST_BOOTSTRAP", "-")] + sys.argv[1:]) + "\\n")
with open(os.environ["PERFTEST_JSON"], "a") as f:
    for metric, unit, lower, values in METRICS:
        f.write(json.dumps({{"test": TEST, "library": "stand-in", "pes": 2, "size": 65536, "metric": metric,
                             "unit": unit, "lower_is_better": lower,
                             "value": values[count % len(values)] * float(scale), "check": True}}) + "\\n")
"""

# The stand-in nvcc: a program from <test>.cu is a copy of nvidia-<test>; anything else (the harness
# object) an empty file; --version prints a line. FAKE_NVCC_LOG counts the calls.
NVCC = """#!/usr/bin/env python3
import os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_NVCC_LOG"], "a") as f:
    f.write(" ".join(args) + "\\n")
if "--version" in args:
    print("stand-in nvcc")
    sys.exit(0)
out = args[args.index("-o") + 1]
sources = [a for a in args if a.endswith(".cu")]
if sources:
    shutil.copy(os.path.join({here!r}, "nvidia-" + os.path.basename(sources[0])[:-3]), out)
else:
    open(out, "w").close()
"""


def check(condition, message, output=""):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}\n{output}")


def executable(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def bw(values):
    return [("bw", "GB/s", False, values)]


def lat(values):
    return [("latency", "us", True, values)]


def run(args, env, **extra_env):
    e = dict(env)
    e.update(extra_env)
    p = subprocess.run([sys.executable, str(TOOL)] + [str(a) for a in args], env=e, capture_output=True, text=True,
                       timeout=100, check=False)
    return p.returncode, p.stdout, p.stderr


def row(table, test, metric, *cells):
    """Whether TABLE has the row TEST METRIC 65536 CELLS... (cells as printed, whitespace between)."""
    pattern = " +".join(map(re.escape, [test, metric, "65536"] + list(cells)))
    return re.search(f"^{pattern}$", table, re.M) is not None


def main():
    nvshmrun = Path(sys.argv[1]).resolve()
    work = Path(tempfile.mkdtemp(prefix="perf-compare-test."))
    try:
        test_in(work, nvshmrun)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"perf_compare_test: {len(failures)} failed")
        return 1
    print("perf_compare_test: OK")
    return 0


def test_in(work, nvshmrun):
    # Ours (build "ours"), another build of ours ("other") and NVIDIA's, for two tests.
    programs = {
        "ours": {"shmem_p_bw": bw([100, 90, 130]), "shmem_p_latency": lat([2.0, 2.2, 1.9])},
        "other": {"shmem_p_bw": bw([120]), "shmem_p_latency": lat([3.0])},
        "nvidia": {"shmem_p_bw": bw([110]), "shmem_p_latency": lat([2.5])},
    }
    for build, tests in programs.items():
        for test, metrics in tests.items():
            path = work / "nvcc-dir" / f"nvidia-{test}" if build == "nvidia" else \
                work / build / "perftest" / "device" / "pt-to-pt" / test
            executable(path, STAND_IN.format(test=test, metrics=metrics))
    (work / "ours" / "bin").mkdir()
    (work / "ours" / "bin" / "nvshmrun").symlink_to(nvshmrun)
    executable(work / "nvcc-dir" / "nvcc", NVCC.format(here=str(work / "nvcc-dir")))
    home = work / "nvidia-home"
    (home / "include").mkdir(parents=True)
    (home / "lib").mkdir()
    (home / "include" / "nvshmem.h").touch()
    (home / "lib" / "libnvshmem_host.so.3").touch()

    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF")}
    env.update(NVCC=str(work / "nvcc-dir" / "nvcc"), NVIDIA_NVSHMEM_HOME=str(home), GIT_COMMIT="test",
               FAKE_TRACE=str(work / "trace"), FAKE_NVCC_LOG=str(work / "nvcc.log"))

    def fresh_state():
        state = Path(tempfile.mkdtemp(dir=work))
        for f in ("trace", "nvcc.log"):
            (work / f).unlink(missing_ok=True)
        return {"FAKE_STATE": str(state)}

    # 1. Three runs of two tests with a variant, another build, PERF_EXTRA, PERF_JSON_DIR, PERF_NV_CACHE.
    json_dir, cache = work / "json", work / "cache"
    rc, out, err = run([work / "ours", 3, "shmem_p_bw", "shmem_p_latency"], env, **fresh_state(),
                       PERF_VARIANTS="half:FAKE_SCALE=0.5", PERF_BUILDS=f"other:{work / 'other'}", PERF_EXTRA="--bidir",
                       PERF_JSON_DIR=str(json_dir), PERF_NV_CACHE=str(cache), PERF_OUT=str(work / "table.txt"))
    print(out)
    check(rc == 0, f"the run failed (status {rc})", err)
    check("medians over 3 call(s)" in out and "commit test" in out, "the header does not say 3 runs and the commit",
          out)
    # ours: median of 100, 90, 130; NVIDIA 110; half 50 (FAKE_SCALE=0.5); other 120.
    check(row(out, "shmem_p_bw", "bw(GB/s)", "100.000", "110.000", "0.909", "MISS", "0.455", "2.000", "1.091", "0.833"),
          "the bandwidth row is not: ours 100, NVIDIA 110, 0.909, MISS, half/nv 0.455, ours/half 2.000, "
          "other/nv 1.091, ours/other 0.833", out)
    # Lower is better: ours 2.0 (median of 2.0, 2.2, 1.9) against 2.5 is a target met.
    check(row(out, "shmem_p_latency", "latency(us)", "2.000", "2.500", "0.800", "ok", "0.400", "2.000", "1.200", "0.667"),
          "the latency row is not: ours 2.0, NVIDIA 2.5, 0.800, ok, half/nv 0.400, ours/half 2.000, "
          "other/nv 1.200, ours/other 0.667", out)
    check((work / "table.txt").read_text() == out, "PERF_OUT does not hold the table")
    for label in ("ours", "nvidia", "half", "other"):
        lines = (json_dir / f"{label}.jsonl").read_text().splitlines() if (json_dir / f"{label}.jsonl").exists() else []
        check(len(lines) == 6, f"PERF_JSON_DIR/{label}.jsonl has {len(lines)} lines, not 6 (2 tests, 3 runs)")
    check((cache / "shmem_p_bw").is_file() and (cache / "shmem_p_bw.key").is_file(), "PERF_NV_CACHE holds no program")
    trace = (work / "trace").read_text().splitlines()
    first = [line.split()[0] for line in trace if "shmem_p_bw" in line]
    ours = str(work / "ours")
    check(len(first) == 12 and "/ours/" in first[0] and "/ours/" not in first[4] and "/ours/" in first[8],
          "ours and NVIDIA's do not alternate which goes first (run 1 ours, run 2 NVIDIA's, run 3 ours)",
          "\n".join(trace))
    check(all(line.split()[1] == ("-" if ours in line.split()[0] or "/other/" in line else "uid") for line in trace),
          "NVIDIA's programs do not run under PERFTEST_BOOTSTRAP=uid (or ours do)", "\n".join(trace))
    check(all("-c 128" in line and line.endswith("--bidir") for line in trace if "shmem_p_bw" in line),
          "shmem_p_bw did not get its options and PERF_EXTRA", "\n".join(trace))

    # 2. NVIDIA's programs from the cache: nothing is compiled.
    rc, out, err = run([work / "ours", 1, "shmem_p_bw", "shmem_p_latency"], env, **fresh_state(),
                       PERF_NV_CACHE=str(cache), PERF_NV_BUILD_ONLY="1")
    nvcc_calls = [line for line in (work / "nvcc.log").read_text().splitlines() if "--version" not in line] \
        if (work / "nvcc.log").exists() else []
    check(rc == 0 and "nothing (all cached)" in err and not nvcc_calls, "a current cache was rebuilt", err)
    check(not (work / "trace").exists(), "PERF_NV_BUILD_ONLY=1 ran programs")

    # 3. PERF_BUDGET_S=1 stops after the first run (four programs of a second each).
    rc, out, err = run([work / "ours", 5, "shmem_p_bw"], env, **fresh_state(), PERF_BUDGET_S="1", FAKE_SLEEP="1",
                       PERF_BUILDS=f"other:{work / 'other'}")
    check(rc == 0 and "stopping after 1 of 5 runs" in err and "medians over 1 call(s)" in out,
          "PERF_BUDGET_S=1 did not stop after the first run", out + err)

    # 4. --json and --write-baseline: the ratios and the default tolerances (5%; 15% for latency < 10 us).
    base = work / "base.json"
    rc, out, err = run(["--json", json_dir, "--write-baseline", base], env)
    check(rc == 0 and row(out, "shmem_p_bw", "bw(GB/s)", "100.000", "110.000", "0.909", "MISS", "0.455", "2.000", "1.091",
                          "0.833"), "--json does not give the run's table", out + err)
    rows = json.loads(base.read_text())["rows"] if base.exists() else []
    got = {(r["test"], r["ratio"], r["tolerance"]) for r in rows}
    check(got == {("shmem_p_bw", 0.9091, 0.05), ("shmem_p_latency", 0.8, 0.15)},
          f"--write-baseline wrote {sorted(got)}", out + err)

    # 5. --baseline: the same figures pass; a regression beyond the tolerance fails and is named.
    rc, out, err = run(["--json", json_dir, "--baseline", base], env)
    check(rc == 0 and "2 rows compared, 0 regressed" in out, "the run does not pass its own baseline", out + err)

    def scaled(name, factors):  # a copy of the JSON lines with ours' values scaled per test
        folder = work / name
        folder.mkdir()
        shutil.copy(json_dir / "nvidia.jsonl", folder)
        with open(folder / "ours.jsonl", "w") as f:
            for line in (json_dir / "ours.jsonl").read_text().splitlines():
                r = json.loads(line)
                r["value"] *= factors[r["test"]]
                f.write(json.dumps(r) + "\n")
        return folder

    # bw 0.97x is within 5%; latency 1.1x within 15%.
    rc, out, err = run(["--json", scaled("within", {"shmem_p_bw": 0.97, "shmem_p_latency": 1.1}), "--baseline", base],
                       env)
    check(rc == 0 and "0 regressed" in out, "a change within the tolerance failed", out + err)
    # bw 0.9x (0.818 < 0.864) and latency 1.2x (0.960 > 0.920) regress.
    rc, out, err = run(["--json", scaled("worse", {"shmem_p_bw": 0.9, "shmem_p_latency": 1.2}), "--baseline", base],
                       env)
    check(rc == 3 and "2 regressed" in out and
          re.search(r"^REGRESSED shmem_p_bw bw 65536: ours/nvidia 0\.818, baseline 0\.909", out, re.M) and
          re.search(r"^REGRESSED shmem_p_latency latency 65536: ours/nvidia 0\.960, baseline 0\.800", out, re.M),
          "a regression is not reported with status 3 and its rows", out + err)
    # Better beyond the tolerance: passes, and says so.
    rc, out, err = run(["--json", scaled("better", {"shmem_p_bw": 1.2, "shmem_p_latency": 1.0}), "--baseline", base],
                       env)
    check(rc == 0 and re.search(r"^better +shmem_p_bw bw 65536", out, re.M), "an improvement is not reported",
          out + err)
    # A run against a baseline (PERF_BASELINE) whose bandwidth ratio is higher than the run's: fails.
    strict = work / "strict.json"
    data = json.loads(base.read_text())
    for r in data["rows"]:
        r["ratio"] = 1.0 if r["test"] == "shmem_p_bw" else r["ratio"]
    strict.write_text(json.dumps(data))
    rc, out, err = run([work / "ours", 1, "shmem_p_bw"], env, **fresh_state(), PERF_BASELINE=str(strict))
    check(rc == 3 and "REGRESSED shmem_p_bw bw 65536" in out, "a run below its baseline did not fail", out + err)
    # An empty baseline checks nothing: a failure that says so.
    empty = work / "empty.json"
    empty.write_text('{"kind": "empty", "rows": []}')
    rc, out, err = run(["--json", json_dir, "--baseline", empty], env)
    check(rc == 3 and "empty: write it with --write-baseline" in out, "an empty baseline passed", out + err)

    # 6. The committed baselines: valid, one per machine kind, each row's tolerance in (0, 0.2].
    spec = importlib.util.spec_from_file_location("perf_compare", TOOL)
    tool = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(TOOL.parent))
    spec.loader.exec_module(tool)
    kinds = sorted(p.stem for p in (SRC / "perftest" / "baselines").glob("*.json"))
    check(kinds == ["nvidia-h200", "nvidia-h200-x2"], f"the committed baselines are {kinds}")
    for kind in kinds:
        data, rows = tool.read_baseline(tool.baseline_path(kind))
        check(data["kind"] == kind, f"{kind}.json says kind {data['kind']}")
        check(all(0 < r["tolerance"] <= 0.2 for r in rows.values()), f"{kind}.json has a tolerance outside (0, 0.2]")
    check(len(tool.read_baseline(tool.baseline_path("nvidia-h200-x2"))[1]) > 100, "nvidia-h200-x2.json is not seeded")

    # 7. Errors: bad arguments (2), a failed run (1), lines that are not JSON (2).
    for args, extra, what in (([work / "ours", 1, "no_such_test"], {}, "an unknown test"),
                              ([work / "ours", 0], {}, "N_RUNS 0"),
                              ([work / "ours", 1], {"PERF_NV_BUILD_ONLY": "1"}, "PERF_NV_BUILD_ONLY without a cache"),
                              ([work / "ours", 1, "shmem_p_bw"], {"PERF_BUDGET_S": "soon"}, "a bad PERF_BUDGET_S"),
                              ([work / "ours", 1, "shmem_p_bw"], {"PERF_VARIANTS": "bad"}, "a bad PERF_VARIANTS"),
                              ([work / "ours", 1, "shmem_p_bw"], {"PERF_BUILDS": f"b:{work}"},
                               "a build without perftest/"),
                              ([work / "ours", 1, "shmem_p_bw"], {"PERF_BASELINE": "no-such-kind"},
                               "a baseline that is not there")):
        rc, out, err = run(args, env, **fresh_state(), **extra)
        check(rc == 2 and not (work / "trace").exists(), f"{what}: status {rc}, not 2 before any run", out + err)
    rc, out, err = run([work / "ours", 1, "shmem_p_bw"], env, **fresh_state(), FAKE_FAIL="1")
    check(rc == 1 and "the ours run failed" in err, "a failing program did not end the run with status 1", out + err)
    # One library's program of one test fails (as NVIDIA's refuse some tests on one GPU): named, left out for
    # that library; the other test's figures are still compared; status 1 after the table.
    rc, out, err = run([work / "ours", 2, "shmem_p_bw", "shmem_p_latency"], env, **fresh_state(),
                       FAKE_FAIL_PATH="nvidia/shmem_p_latency")
    print(out)
    check(rc == 1 and "the nvidia run failed" in err and "failed runs" in out and "nvidia shmem_p_latency" in out,
          "a failed NVIDIA program was not named with status 1", out + err)
    check(row(out, "shmem_p_bw", "bw(GB/s)", "95.000", "110.000", "0.864", "MISS"), "the test that ran lost its row", out)
    trace = (work / "trace").read_text()
    check(trace.count("nvidia/shmem_p_latency") == 0 and trace.count("shmem_p_latency") == 2,
          "the failed program ran again, or ours of that test did not run twice", trace)
    bad = work / "bad"
    bad.mkdir()
    (bad / "ours.jsonl").write_text("not json\n")
    shutil.copy(json_dir / "nvidia.jsonl", bad)
    rc, out, err = run(["--json", bad], env)
    check(rc == 2 and "ours.jsonl:1: not a perftest JSON line" in err, "a file that is not JSON lines was read",
          out + err)


if __name__ == "__main__":
    sys.exit(main())
