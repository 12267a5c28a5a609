#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Perftests of this project against NVIDIA's NVSHMEM, on one machine in one call (docs/perftest.md).

  tools/perf-compare.py BUILD_DIR [N_RUNS] [TEST...] [--baseline KIND] [--write-baseline KIND]
  tools/perf-compare.py --json DIR [TEST...] [--baseline KIND] [--write-baseline KIND]

Builds the same perftest sources against NVIDIA's NVSHMEM with nvcc (in parallel), then runs ours
(BUILD_DIR/perftest/<folder>/<test>) and NVIDIA's alternately, N_RUNS times each, both started by
BUILD_DIR/bin/nvshmrun (NVIDIA's through the unique-id bootstrap), each run with PERFTEST_JSON set to a
file of its own, and prints per test, metric and size the median over the runs of each library's JSON
value and the ratio ours/NVIDIA, with the target (ok or MISS: lower_is_better says which way). TEST
defaults to shmem_put_bw (N_RUNS default 5); `all` means every point-to-point perftest (N_RUNS default
1: each call already reports the median of 5 timed runs per size, -r 5), about 4-5 minutes a run;
`coll` every on-stream collective perftest (perftest/host/coll); `devcoll` every device collective
perftest (perftest/device/coll); `lat` and `bw` the host interface's point-to-point perftests
(perftest/host/pt-to-pt). Made for the GPU machine (NVIDIA NVSHMEM 3.4.5 as the Python package
nvidia.nvshmem). With --json DIR it runs nothing and reads DIR/ours.jsonl, DIR/nvidia.jsonl,
DIR/nccl.jsonl and any other DIR/<label>.jsonl (a variant), as PERF_JSON_DIR writes them.

--baseline KIND (or PERF_BASELINE) compares every ratio ours/NVIDIA with perftest/baselines/KIND.json
(KIND a machine kind, e.g. nvidia-h200-x2, or a path to a .json file) and exits with status 3, naming
each row, when one regressed beyond its tolerance (or none of the run is in the baseline).
--write-baseline KIND (or PERF_WRITE_BASELINE) writes this run's ratios into that file (rows of other
tests stay; a row's tolerance stays; a new row gets the default, docs/perftest.md "Baselines").

Environment: PERF_OUT=<file> also writes the tables there; NVIDIA_NVSHMEM_HOME overrides where
NVIDIA's NVSHMEM is; NVCC the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc);
PERF_EXTRA extra options for every run (e.g. --bidir); PERF_KEEP=1 keeps the work folder;
PERF_VARIANTS="label:VAR=value,VAR=value;label2:..." also runs ours under each set of environment
variables (tuning sweeps, e.g. "b64k:NVSHMEM_COLL_BLOCK_BYTES=64k") and adds two columns per variant
(variant/NVIDIA, ours/variant);
PERF_BUILDS="label:BUILD_DIR2;..." does the same with the programs of other builds of ours (branches
side by side in one call; each program loads its own build's library); PERF_NCCL=1 with
reduction_on_stream among the tests also times NCCL's all-reduce (perftest/nccl, float sum, built
against NCCL_HOME or the Python package nvidia.nccl) and prints a second table, ours against NCCL;
PERF_NV_CACHE=<dir> keeps NVIDIA's programs there between calls and rebuilds one only when what it is
built from changed (its build takes minutes); PERF_NV_BUILD_ONLY=1 only builds NVIDIA's programs (into
PERF_NV_CACHE) and stops, so that it can run while BUILD_DIR is still being built;
PERF_BUDGET_S=<seconds> starts no run that would end past that many seconds at the pace of the runs
before it, and reports the medians of the runs done; PERF_JSON_DIR=<dir> appends every run's JSON lines
to <dir>/<label>.jsonl (ours, nvidia, nccl, or the variant's label), the input of tools/perf-plot.py and
of --json; GIT_COMMIT names the commit where the tree has no .git.
A run that fails (NVIDIA's programs refuse some tests with 2 PEs on one GPU) is named with the end of its
log; that test is left out for that library and the others go on; the table says which runs failed.
Exit status: 0; 1 a missing program, a failed build, or a failed run (after the table); 2 bad arguments;
3 a baseline regression.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import importlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perfjson import PerfJsonError, load, medians  # tools/perfjson.py, beside this script

SRC_DIR = Path(__file__).resolve().parent.parent
BASELINE_DIR = SRC_DIR / "perftest" / "baselines"

# Options per test: groups of options separated by '|', each group one process per run.
TEST_ARGS = {
    "shmem_put_bw": "-b 4k -e 64k -f 2 -c 128 -t 1024 -n 2000 -w 200|-b 128k -e 4m -f 2 -c 128 -t 1024 -n 1000 -w 100"
                    "|-b 8m -e 256m -f 2 -c 128 -t 1024 -n 50 -w 5",
    "shmem_get_bw": "-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20",
    "shmem_p_bw": "-b 64k -e 4m -f 4 -c 128 -t 1024 -n 50 -w 5",
    "shmem_g_bw": "-b 64k -e 4m -f 4 -c 128 -t 1024 -n 50 -w 5",
    "shmem_st_bw": "-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20",
    "shmem_atomic_bw": "-b 64k -e 1m -f 4 -c 128 -t 1024 -n 50 -w 5",
    "shmem_p_latency": "-b 8 -e 512 -f 8 -n 1000 -w 100",
    "shmem_g_latency": "-b 8 -e 512 -f 8 -n 1000 -w 100",
    "shmem_put_latency": "-b 8 -e 64k -f 8 -n 1000 -w 100",
    "shmem_get_latency": "-b 8 -e 64k -f 8 -n 1000 -w 100",
    "shmem_atomic_latency": "-b 8 -e 8 -n 1000 -w 100",
    "shmem_p_ping_pong_latency": "-n 1000 -w 100",
    "shmem_put_ping_pong_latency": "-b 8 -e 4k -f 8 -n 1000 -w 100",
    "shmem_put_signal_ping_pong_latency": "-b 8 -e 4k -f 8 -n 1000 -w 100",
    "shmem_signal_ping_pong_latency": "-n 1000 -w 100",
    "shmem_atomic_ping_pong_latency": "-n 1000 -w 100",
    "alltoall_on_stream": "-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 256m -f 4 -n 20 -w 2",
    "broadcast_on_stream": "-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 256m -f 4 -n 20 -w 2",
    "fcollect_on_stream": "-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 128m -f 4 -n 20 -w 2",
    "reduction_on_stream": "-d float -o sum -b 8 -e 1m -f 4 -n 200 -w 20|-d float -o sum -b 4m -e 256m -f 4 -n 20 -w 2",
    "reducescatter_on_stream": "-d float -o sum -b 8 -e 1m -f 4 -n 200 -w 20"
                               "|-d float -o sum -b 4m -e 128m -f 4 -n 20 -w 2",
    "barrier_on_stream": "-n 1000 -w 100",
    "barrier_all_on_stream": "-n 1000 -w 100",
    "sync_on_stream": "-n 1000 -w 100",
    "sync_all_on_stream": "-n 1000 -w 100",
    "alltoall_latency": "-b 8 -e 64k -f 8 -n 200 -w 20",
    "bcast_latency": "-b 8 -e 64k -f 8 -n 200 -w 20",
    "fcollect_latency": "-b 8 -e 64k -f 8 -n 200 -w 20",
    "reduction_latency": "-d float -o sum -b 8 -e 64k -f 8 -n 200 -w 20",
    "reducescatter_latency": "-d float -o sum -b 8 -e 64k -f 8 -n 200 -w 20",
    "barrier_latency": "-n 1000 -w 100",
    "sync_latency": "-n 1000 -w 100",
    "lat": "-b 8 -e 64k -f 8 -n 2000 -w 200",
    "bw": "-b 64k -e 16m -f 4 -n 50 -w 5",
}
# The host interface's point-to-point perftests (perftest/host/pt-to-pt, C++ sources).
HOST_P2P_TESTS = ["lat", "bw"]
COLL_TESTS = ["alltoall_on_stream", "broadcast_on_stream", "fcollect_on_stream", "reduction_on_stream",
              "reducescatter_on_stream", "barrier_on_stream", "barrier_all_on_stream", "sync_on_stream",
              "sync_all_on_stream"]
DEVCOLL_TESTS = ["alltoall_latency", "bcast_latency", "fcollect_latency", "reduction_latency", "reducescatter_latency",
                 "barrier_latency", "sync_latency"]
ALL_TESTS = ["shmem_put_bw", "shmem_get_bw", "shmem_p_bw", "shmem_g_bw", "shmem_st_bw", "shmem_atomic_bw",
             "shmem_p_latency", "shmem_g_latency", "shmem_put_latency", "shmem_get_latency", "shmem_atomic_latency",
             "shmem_p_ping_pong_latency", "shmem_put_ping_pong_latency", "shmem_put_signal_ping_pong_latency",
             "shmem_signal_ping_pong_latency", "shmem_atomic_ping_pong_latency"]
# "all" measures the point-to-point set from 64 KiB (bandwidth) within the time budget.
ALL_PUT_BW_ARGS = "-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20"
# The calling thread's time per on-stream call: a diagnostic, not a target.
INFO_METRICS = {"enqueue"}
# Not in baselines: the diagnostic, and the collectives' bandwidths (their latency restated).
NOT_IN_BASELINE = INFO_METRICS | {"algbw", "busbw"}
NCCL_JOB = "reduction_on_stream___float_sum"
RESERVED_LABELS = {"ours", "nvidia", "nccl"}


class Fail(Exception):
    """Stops the program with a message and an exit status."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


def note(message):
    print(f"perf-compare: {message}", file=sys.stderr, flush=True)


def folder_of(test):
    """Where a test's source and program live: perftest/<folder>/<test>."""
    if test.endswith("_on_stream"):
        return "host/coll"
    if test in DEVCOLL_TESTS:
        return "device/coll"
    if test in HOST_P2P_TESTS:
        return "host/pt-to-pt"
    return "device/pt-to-pt"


def source_of(test):
    """A test's source file."""
    return SRC_DIR / "perftest" / folder_of(test) / (f"{test}.cpp" if test in HOST_P2P_TESTS else f"{test}.cu")


def job_of(test_field):
    """The perftest of a JSON line's "test" (its job, without the subjob: type, op, scope)."""
    return test_field.split("___")[0]


def expand_tests(names):
    """The tests (a group name first expands to its set) and their option groups."""
    args = dict(TEST_ARGS)
    if not names:
        return ["shmem_put_bw"], args
    if names[0] == "coll":
        names = COLL_TESTS
    elif names[0] == "devcoll":
        names = DEVCOLL_TESTS
    elif names[0] == "all":
        names = ALL_TESTS
        args["shmem_put_bw"] = ALL_PUT_BW_ARGS
    for t in names:
        if t not in args:
            raise Fail(f"unknown test '{t}' (known: {' '.join(args)})", 2)
    return list(names), args


def package_path(name):
    """The folder of an installed Python package (nvidia.nvshmem, nvidia.nccl), or ""."""
    try:
        return list(importlib.import_module(name).__path__)[0]
    except (ImportError, AttributeError, IndexError):
        return ""


def env_flag(name):
    return os.environ.get(name, "0") == "1"


class NvidiaBuild:
    """NVIDIA's build: the same sources, with -rdc as NVIDIA's device library requires; the harness
    (compiled as CUDA, as NVIDIA compiles its own perftest common code) once, the tests in parallel.
    With a cache folder each program also goes there beside the hash of what it was built from (its
    source, the harness, NVIDIA's NVSHMEM, the compiler) and is taken from there while that holds."""

    def __init__(self, nv_home, nvcc, out, cache):
        self.nv_home, self.nvcc, self.out, self.cache = nv_home, nvcc, Path(out), cache and Path(cache)
        self.out.mkdir(parents=True, exist_ok=True)
        if self.cache:
            self.cache.mkdir(parents=True, exist_ok=True)
        self.flags = ["-rdc=true", "-arch=sm_90", "-std=c++17", "-O3", f"-I{nv_home}/include",
                      f"-I{SRC_DIR}/perftest/common"]
        self.libs = [f"-L{nv_home}/lib", "-l:libnvshmem_host.so.3", "-lnvshmem_device", "-lcuda", "-Xlinker",
                     f"-rpath,{nv_home}/lib"]
        self._version = None
        self._harness = None

    def key(self, sources):
        """The hash of what a program of NVIDIA's build depends on."""
        if self._version is None:
            self._version = subprocess.run([self.nvcc, "--version"], stdout=subprocess.PIPE,
                                           stderr=subprocess.DEVNULL, check=False).stdout
        h = hashlib.sha256()
        common = sorted(p for p in (SRC_DIR / "perftest" / "common").iterdir() if p.is_file())
        for path in list(sources) + common:
            h.update(Path(path).read_bytes())
        h.update(f"{self.nv_home}\n".encode())
        h.update(self._version)
        return h.hexdigest()[:32]

    def from_cache(self, name, sources):
        """Copies the cached program to the output folder if it is current."""
        if not self.cache:
            return False
        program, key_file = self.cache / name, self.cache / f"{name}.key"
        if not (os.access(program, os.X_OK) and key_file.is_file()):
            return False
        if key_file.read_text().strip() != self.key(sources):
            return False
        shutil.copy2(program, self.out / name)
        return True

    def to_cache(self, name, sources):
        if self.cache:
            shutil.copy2(self.out / name, self.cache / name)
            (self.cache / f"{name}.key").write_text(self.key(sources) + "\n")

    def harness(self):
        """The harness object (perftest.cpp as CUDA), compiled once."""
        if self._harness is None:
            self._harness = self.out / "perftest.o"
            subprocess.run([self.nvcc] + self.flags + ["-dc", "-x", "cu", str(SRC_DIR / "perftest/common/perftest.cpp"),
                                                       "-o", str(self._harness)], check=True)
        return self._harness

    def compile(self, name, source, extra_flags=(), extra_libs=()):
        return subprocess.run([self.nvcc] + self.flags + list(extra_flags) + [str(source), str(self.harness())] +
                              self.libs + list(extra_libs) + ["-o", str(self.out / name)], check=False).returncode == 0

    def build_tests(self, tests):
        sources = {t: source_of(t) for t in tests}
        to_build = [t for t in tests if not self.from_cache(t, [sources[t]])]
        note(f"building {' '.join(to_build) or 'nothing (all cached)'} against {self.nv_home}")
        if not to_build:
            return
        try:
            self.harness()
        except subprocess.CalledProcessError:
            raise Fail("building the harness against NVIDIA failed") from None
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = dict(zip(to_build, pool.map(lambda t: self.compile(t, sources[t]), to_build)))
        failed = [t for t, ok in results.items() if not ok]
        if failed:
            raise Fail(f"building {' '.join(failed)} against NVIDIA failed")
        for t in to_build:
            self.to_cache(t, [sources[t]])

    def build_nccl(self):
        """NCCL's all-reduce beside reduction_on_stream, built like NVIDIA's programs plus NCCL; False
        (with a message) where it cannot be built."""
        nccl_home = os.environ.get("NCCL_HOME") or package_path("nvidia.nccl")
        if not (Path(nccl_home) / "include" / "nccl.h").is_file():
            raise Fail(f"no nccl.h under '{nccl_home}' (set NCCL_HOME)")
        name = "nccl_allreduce_on_stream"
        sources = [SRC_DIR / "perftest" / "nccl" / f"{name}.cu", Path(nccl_home) / "include" / "nccl.h"]
        if self.from_cache(name, sources):
            return True
        try:
            ok = self.compile(name, sources[0], [f"-I{nccl_home}/include"],
                              [f"-L{nccl_home}/lib", "-l:libnccl.so.2", "-Xlinker", f"-rpath,{nccl_home}/lib"])
        except subprocess.CalledProcessError:
            ok = False
        if not ok:
            note("building the NCCL all-reduce test failed; going on without NCCL")
            return False
        self.to_cache(name, sources)
        return True


class Runner:
    """Starts one program per call under nvshmrun, each with its own PERFTEST_JSON file, and keeps the
    records by label (ours, nvidia, nccl, a variant's label)."""

    def __init__(self, build_dir, work, extra, json_dir):
        self.nvshmrun = build_dir / "bin" / "nvshmrun"
        self.work, self.extra = work, extra
        self.json_dir = json_dir
        self.records = {}
        self.failed = []  # "label program" of each run that failed (its test is left out for that label)
        self.count = 0
        (work / "json").mkdir(exist_ok=True)
        if json_dir:
            json_dir.mkdir(parents=True, exist_ok=True)

    def run(self, label, program, opts, env_extra):
        """Runs one program and keeps its records; False (with the end of its log) when it failed."""
        self.count += 1
        json_file = self.work / "json" / f"{label}.{self.count}.jsonl"
        env = dict(os.environ)
        env.update(env_extra)
        env["PERFTEST_JSON"] = str(json_file)
        cmd = [str(self.nvshmrun), "--timeout", "120", "-n", "2", str(program)] + opts + self.extra
        log = self.work / f"{label}.log"
        with open(log, "a") as f:
            f.write(f"== {label}: {' '.join(cmd)}\n")
            f.flush()
            rc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT, check=False).returncode
        if rc != 0:
            assignments = " ".join(f"{k}={v}" for k, v in env_extra.items())
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-30:])
            note(f"the {label} run failed (status {rc}): {assignments} {' '.join(cmd)}; end of its log:\n{tail}")
            self.failed.append(f"{label} {program.name}")
            return False
        text = json_file.read_text() if json_file.exists() else ""
        try:
            records = load(json_file) if text else []
        except PerfJsonError as e:
            raise Fail(str(e)) from None
        if not records:
            note(f"{label}: {program.name} wrote no JSON line (a build older than PERFTEST_JSON?)")
        self.records.setdefault(label, []).extend(records)
        if self.json_dir:
            with open(self.json_dir / f"{label}.jsonl", "a") as f:
                f.write(text)
        return True


def parse_variants(variable, spec, build_dir, is_build):
    """[(label, build folder, {VAR: value})] from PERF_VARIANTS or PERF_BUILDS."""
    variants = []
    for entry in spec.split(";"):
        m = re.fullmatch(r"([A-Za-z0-9_]+):(.*)", entry)
        if not m or m.group(1) in RESERVED_LABELS:
            raise Fail(f"bad {variable} entry '{entry}'", 2)
        label, value = m.groups()
        if is_build:
            if not (Path(value) / "perftest").is_dir():
                raise Fail(f"{variable}: no perftest/ under '{value}'", 2)
            variants.append((label, Path(value).resolve(), {}))
        else:
            env = {}
            for assignment in filter(None, value.split(",")):
                name, sep, v = assignment.partition("=")
                if not sep or not name:
                    raise Fail(f"bad {variable} entry '{entry}': '{assignment}' is not VAR=value", 2)
                env[name] = v
            variants.append((label, build_dir, env))
    return variants


def git_commit():
    """The commit of the source tree; the device machine receives the tree without .git: GIT_COMMIT."""
    if os.environ.get("GIT_COMMIT"):
        return os.environ["GIT_COMMIT"]
    try:
        commit = subprocess.run(["git", "-C", str(SRC_DIR), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(SRC_DIR), "diff", "--quiet", "HEAD", "--"], check=False).returncode
        return commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, check=False).stdout.splitlines()
        return out[0].strip() if out else "unknown GPU"
    except OSError:
        return "unknown GPU"


def fmt(v):
    return "-" if v is None else f"{v:.3f}"


def ratio_text(a, b):
    return f"{a / b:.3f}" if a is not None and b else "-"


def value_of(table, key):
    r = table.get(key)
    return None if r is None else r["value"]


def compare_table(header, ours, nvidia, variants):
    """The table: per (test, metric, size) ours, NVIDIA's, ours/NVIDIA, the target, and two columns per
    variant: variant/NVIDIA and ours/variant (the latter also where NVIDIA's run failed or has no such
    row). OURS, NVIDIA and each variant's: medians() of its records."""
    lines = [header]
    extra_head = "".join(f" {label + '/nv':>12} {'ours/' + label:>12}" for label, _ in variants)
    lines.append(f"{'test':<44} {'metric':<14} {'size(B)':>10} {'ours':>10} {'nvidia':>10} {'ours/nvidia':>12} "
                 f"{'target':>7}{extra_head}")
    for key in sorted(set(ours) | set(nvidia)):
        test, metric, size = key
        mine, theirs = ours.get(key), nvidia.get(key)
        a, b = value_of(ours, key), value_of(nvidia, key)
        meta = mine or theirs
        met = "-"
        if metric in INFO_METRICS:
            met = "info"
        elif mine is not None and not mine["check"]:
            met = "FAILED"  # the correctness check failed in a run of ours
        elif a is not None and b is not None:
            met = "ok" if (a <= b if meta["lower_is_better"] else a >= b) else "MISS"
        extra = "".join(f" {ratio_text(value_of(values, key), b):>12} {ratio_text(a, value_of(values, key)):>12}"
                        for _, values in variants)
        lines.append(f"{test:<44} {metric + '(' + meta['unit'] + ')':<14} {size:>10} {fmt(a):>10} {fmt(b):>10} "
                     f"{ratio_text(a, b):>12} {met:>7}{extra}")
    return lines


def nccl_table(ours, nccl):
    """Ours against NCCL's all-reduce (target, issue 5: faster below 256 KiB, within 1.1x above)."""
    lines = ["# float sum reduce_on_stream against NCCL's all-reduce (latency, us; target: below NCCL under "
             "256 KiB, at most 1.1x from 256 KiB)",
             f"{'size(B)':>10} {'ours':>10} {'nccl':>10} {'ours/nccl':>10} {'target':>7}"]
    sizes = sorted({k[2] for k in ours if k[:2] == (NCCL_JOB, "latency")} &
                   {k[2] for k in nccl if k[:2] == (NCCL_JOB, "latency")})
    for size in sizes:
        a, b = ours[(NCCL_JOB, "latency", size)]["value"], nccl[(NCCL_JOB, "latency", size)]["value"]
        met = "ok" if (a < b if size < 256 * 1024 else a <= 1.1 * b) else "MISS"
        lines.append(f"{size:>10} {a:>10.3f} {b:>10.3f} {a / b:>10.3f} {met:>7}")
    return lines


# Baselines: perftest/baselines/<kind>.json, one row per (test, metric, size) with the ratio ours/NVIDIA
# measured on that machine kind and its tolerance (docs/perftest.md, "Baselines").


def baseline_path(spec):
    if "/" in spec or spec.endswith(".json"):
        return Path(spec)
    return BASELINE_DIR / f"{spec}.json"


def shown(path):
    """PATH as the messages name it: relative to the source tree where it lies inside."""
    try:
        return str(path.resolve().relative_to(SRC_DIR))
    except ValueError:
        return str(path)


def default_tolerance(lower_is_better, nvidia_value):
    """15% for latencies under 10 us (launch-bound: up to 11% between calls seen), else 5% (up to 3%
    seen); docs/perftest.md, "Baselines"."""
    return 0.15 if lower_is_better and nvidia_value < 10 else 0.05


def read_baseline(path):
    try:
        data = json.loads(path.read_text())
        rows = {(r["test"], r["metric"], int(r["size"])): r for r in data["rows"]}
        for r in rows.values():
            if float(r["ratio"]) <= 0 or not 0 <= float(r["tolerance"]) < 1:
                raise ValueError(f"row {r}: the ratio must be positive and the tolerance in [0, 1)")
        return data, rows
    except OSError as e:
        raise Fail(f"cannot read the baseline {path}: {e}", 2) from None
    except (ValueError, KeyError, TypeError) as e:
        raise Fail(f"{path}: not a baseline ({e})", 2) from None


def comparable(ours, nvidia):
    """The keys measured in both libraries that a baseline holds."""
    return sorted(k for k in set(ours) & set(nvidia) if k[1] not in NOT_IN_BASELINE and nvidia[k]["value"] > 0)


def check_baseline(path, ours, nvidia):
    """(report lines, regressed): each row of the run against the baseline row of its key."""
    _, rows = read_baseline(path)
    keys = comparable(ours, nvidia)
    regressed, better, compared = [], [], 0
    for key in keys:
        base = rows.get(key)
        if base is None:
            continue
        compared += 1
        r = ours[key]["value"] / nvidia[key]["value"]
        b, tol, lower = float(base["ratio"]), float(base["tolerance"]), bool(base["lower_is_better"])
        limit = b * (1 + tol) if lower else b * (1 - tol)
        name = f"{key[0]} {key[1]} {key[2]}"
        text = f"{name}: ours/nvidia {r:.3f}, baseline {b:.3f}, tolerance {tol:.0%} (limit {limit:.3f})"
        if not ours[key]["check"]:
            regressed.append(f"REGRESSED {name}: the correctness check failed")
        elif (r > limit) if lower else (r < limit):
            regressed.append(f"REGRESSED {text}")
        elif (r < b * (1 - tol)) if lower else (r > b * (1 + tol)):
            better.append(f"better    {text}")
    new = sum(1 for k in keys if k not in rows)
    lines = [f"# baseline {shown(path)}: {compared} rows compared, {len(regressed)} regressed, {len(better)} better "
             f"beyond their tolerance, {new} measured rows not in it, {len(rows) - compared} of its rows "
             "not measured here"]
    lines += regressed + better
    if compared == 0:
        lines.append(f"REGRESSED: no row of this run is in {shown(path)}"
                     f"{' (empty: write it with --write-baseline)' if not rows else ''}")
        return lines, True
    return lines, bool(regressed)


def write_baseline(path, source, ours, nvidia):
    """Writes the run's ratios into PATH: rows of keys not measured stay, a kept row's tolerance stays."""
    data, rows = read_baseline(path) if path.exists() else ({}, {})
    written = 0
    for key in comparable(ours, nvidia):
        mine, theirs = ours[key], nvidia[key]
        if not mine["check"]:
            continue
        old = rows.get(key, {})
        rows[key] = {
            "test": key[0], "metric": key[1], "size": key[2], "unit": mine["unit"],
            "lower_is_better": mine["lower_is_better"], "ours": round(mine["value"], 4),
            "nvidia": round(theirs["value"], 4), "ratio": round(mine["value"] / theirs["value"], 4),
            "tolerance": old.get("tolerance", default_tolerance(mine["lower_is_better"], theirs["value"]))
        }
        written += 1
    kind = data.get("kind", path.stem)
    about = data.get("about", f"Ratios ours/NVIDIA on {kind} and their tolerances (docs/perftest.md, Baselines); "
                     "tools/perf-compare.py --baseline reads it, --write-baseline writes it.")
    sources = data.get("sources", []) + [source]

    def items(values):  # a JSON list, one item a line (diffs show the rows that changed)
        return "[]" if not values else "[\n" + ",\n".join(f"    {json.dumps(v)}" for v in values) + "\n  ]"

    text = (f'{{\n  "kind": {json.dumps(kind)},\n  "about": {json.dumps(about)},\n  "sources": {items(sources)},\n'
            f'  "rows": {items([rows[k] for k in sorted(rows)])}\n}}\n')
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    note(f"wrote {written} rows into {shown(path)} ({len(rows)} in all)")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="perf-compare.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     usage="%(prog)s [options] BUILD_DIR [N_RUNS] [TEST...] | --json DIR [TEST...]")
    parser.add_argument("--json", metavar="DIR", type=Path,
                        help="compare the JSON lines of DIR (ours.jsonl, nvidia.jsonl, ...) instead of running")
    parser.add_argument("--baseline", metavar="KIND", default=os.environ.get("PERF_BASELINE") or None,
                        help="check the ratios against perftest/baselines/KIND.json (or a .json path)")
    parser.add_argument("--write-baseline", metavar="KIND", default=os.environ.get("PERF_WRITE_BASELINE") or None,
                        help="write this run's ratios into perftest/baselines/KIND.json (or a .json path)")
    parser.add_argument("args", nargs="*", metavar="BUILD_DIR [N_RUNS] [TEST...]")
    args = parser.parse_intermixed_args(argv)
    rest = list(args.args)
    args.build_dir = args.n_runs = None
    if args.json is None:
        if not rest:
            parser.print_help(sys.stderr)
            sys.exit(2)
        args.build_dir = Path(rest.pop(0))
        if rest and rest[0].isdigit():
            args.n_runs = rest.pop(0)
    args.tests = rest
    return args


def compare_json(args):
    """--json DIR: the libraries' medians from DIR's files, filtered to the tests named."""
    tests = set(expand_tests(args.tests)[0]) if args.tests else None
    found = {}
    for path in sorted(args.json.glob("*.jsonl")):
        try:
            records = load(path)
        except PerfJsonError as e:
            raise Fail(str(e), 2) from None
        found[path.stem] = medians(r for r in records if tests is None or job_of(r["test"]) in tests)
    for needed in ("ours", "nvidia"):
        if needed not in found:
            raise Fail(f"no {needed}.jsonl in {args.json}", 2)
    what = " ".join(args.tests) if args.tests else "every test"
    header = f"# {what}, from the JSON lines in {args.json}: medians of each file's lines"
    variants = [(label, values) for label, values in found.items() if label not in RESERVED_LABELS]
    return header, found["ours"], found["nvidia"], found.get("nccl"), variants, False


def run_and_compare(args):
    tests, test_args = expand_tests(args.tests)
    n_runs = args.n_runs or ("5" if not args.tests else "1")
    if not re.fullmatch(r"[1-9][0-9]*", n_runs):
        raise Fail(f"N_RUNS must be a positive integer, got '{n_runs}'", 2)
    n_runs = int(n_runs)
    budget = os.environ.get("PERF_BUDGET_S", "")
    if budget and not re.fullmatch(r"[1-9][0-9]*", budget):
        raise Fail(f"PERF_BUDGET_S must be a positive integer, got '{budget}'", 2)
    budget = int(budget) if budget else None
    if not args.build_dir.is_dir():
        raise Fail(f"no build folder '{args.build_dir}'", 2)
    build_dir = args.build_dir.resolve()

    # Multicast objects can take the shared host's GPUs down: never let either library create them.
    os.environ.update(NVSHMEM_DISABLE_NVLS="1", NCCL_NVLS_ENABLE="0")
    build_only = env_flag("PERF_NV_BUILD_ONLY")
    cache = os.environ.get("PERF_NV_CACHE", "")
    if build_only and not cache:
        raise Fail("PERF_NV_BUILD_ONLY=1 needs PERF_NV_CACHE=<dir> to keep the programs", 2)
    if not build_only:
        nvshmrun = build_dir / "bin" / "nvshmrun"
        if not os.access(nvshmrun, os.X_OK):
            raise Fail(f"{nvshmrun} is missing: build the target nvshmrun in {build_dir}")
        for t in tests:
            program = build_dir / "perftest" / folder_of(t) / t
            if not os.access(program, os.X_OK):
                raise Fail(f"{program} is missing: build its perf_ target in {build_dir}")

    nv_home = os.environ.get("NVIDIA_NVSHMEM_HOME") or package_path("nvidia.nvshmem")
    if not ((Path(nv_home) / "include/nvshmem.h").is_file() and (Path(nv_home) / "lib/libnvshmem_host.so.3").is_file()):
        raise Fail(f"no NVIDIA NVSHMEM at '{nv_home}' (set NVIDIA_NVSHMEM_HOME)")
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"

    work = Path(tempfile.mkdtemp(prefix="perf-compare.", dir=os.environ.get("TMPDIR") or None))
    try:
        return run_in(work, tests, test_args, n_runs, budget, build_dir, build_only, cache, nv_home, nvcc)
    finally:
        if env_flag("PERF_KEEP"):
            note(f"the work folder (logs, JSON lines of each run) is {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def run_in(work, tests, test_args, n_runs, budget, build_dir, build_only, cache, nv_home, nvcc):
    variants = []  # (label, build folder, environment) of each variant of ours
    if not build_only:
        if os.environ.get("PERF_VARIANTS"):
            variants += parse_variants("PERF_VARIANTS", os.environ["PERF_VARIANTS"], build_dir, False)
        if os.environ.get("PERF_BUILDS"):
            variants += parse_variants("PERF_BUILDS", os.environ["PERF_BUILDS"], build_dir, True)
    labels = [v[0] for v in variants]
    if len(set(labels)) != len(labels):
        raise Fail(f"two variants share a label: {' '.join(labels)}", 2)
    nv = NvidiaBuild(nv_home, nvcc, work / "nvidia", cache)
    nv.build_tests(tests)
    with_nccl = env_flag("PERF_NCCL") and "reduction_on_stream" in tests and nv.build_nccl()
    if build_only:
        print(f"perf-compare: NVIDIA's programs for {' '.join(tests)} are in {cache}")
        return None

    extra = os.environ.get("PERF_EXTRA", "").split()
    json_dir = Path(os.environ["PERF_JSON_DIR"]).resolve() if os.environ.get("PERF_JSON_DIR") else None
    runner = Runner(build_dir, work, extra, json_dir)
    # NVIDIA's library loads its bootstrap plugins from its lib/ folder.
    library_path = f"{nv_home}/lib" + (f":{os.environ['LD_LIBRARY_PATH']}" if os.environ.get("LD_LIBRARY_PATH") else "")
    nv_env = {"PERFTEST_BOOTSTRAP": "uid", "PERFTEST_UID_FILE": str(work / "uid"), "LD_LIBRARY_PATH": library_path}

    dropped = set()  # (label, test) whose program failed once: not run again, the other tests go on

    def run_one(label, test, program, opts, env):
        if (label, test) in dropped:
            return
        if label in ("nvidia", "nccl"):
            (work / "uid").unlink(missing_ok=True)
        if not runner.run(label, program, opts, env):
            dropped.add((label, test))

    start = time.monotonic()
    runs_done = 0
    for run in range(1, n_runs + 1):
        # Within PERF_BUDGET_S seconds: start a run only if it should end in time, at the mean pace so far.
        elapsed = time.monotonic() - start
        if budget and run > 1 and elapsed * run / (run - 1) > budget:
            note(f"stopping after {runs_done} of {n_runs} runs, so as to end within PERF_BUDGET_S={budget} s")
            break
        note(f"run {run} of {n_runs} ({int(elapsed)} s so far)")
        for test in tests:
            ours_program = build_dir / "perftest" / folder_of(test) / test
            for group in test_args[test].split("|"):
                opts = group.split()
                # Alternate which goes first, so drift on the machine hits both alike.
                for impl in (("ours", "nvidia") if run % 2 else ("nvidia", "ours")):
                    if impl == "ours":
                        run_one("ours", test, ours_program, opts, {})
                    else:
                        run_one("nvidia", test, nv.out / test, opts, nv_env)
                for label, variant_build, env in variants:
                    program = variant_build / "perftest" / folder_of(test) / test
                    if not os.access(program, os.X_OK):
                        raise Fail(f"{program} is missing: build its perf_ target there")
                    run_one(label, test, program, opts, env)
                if with_nccl and test == "reduction_on_stream":
                    run_one("nccl", test, nv.out / "nccl_allreduce_on_stream", opts, nv_env)
        runs_done = run

    options = " ".join(extra) or "default options per test"
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    header = (f"# {' '.join(tests)} ({options}): medians over {runs_done} call(s) each (every call reports the "
              f"median of -r runs, default 5); {date}, commit {git_commit()}, {socket.gethostname()}, "
              f"{gpu_name()}, NVIDIA NVSHMEM at {nv_home}")
    if runner.failed:
        header += f"\n# failed runs (their tests left out for that library): {', '.join(sorted(set(runner.failed)))}"
    results = {label: medians(records) for label, records in runner.records.items()}
    nccl = results.get("nccl") if with_nccl else None
    return (header, results.get("ours", {}), results.get("nvidia", {}), nccl,
            [(label, results.get(label, {})) for label in labels], bool(runner.failed))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    start = time.monotonic()
    try:
        if args.baseline:  # a bad baseline stops the call before its runs, not after
            read_baseline(baseline_path(args.baseline))
        got = compare_json(args) if args.json is not None else run_and_compare(args)
        if got is None:  # PERF_NV_BUILD_ONLY
            return 0
        header, ours, nvidia, nccl, variants, failed = got
        lines = compare_table(header, ours, nvidia, variants)
        if nccl is not None:
            lines += [""] + nccl_table(ours, nccl)
        regressed = False
        if args.baseline:
            report, regressed = check_baseline(baseline_path(args.baseline), ours, nvidia)
            lines += [""] + report
        text = "\n".join(lines) + "\n"
        print(text, end="")
        if os.environ.get("PERF_OUT"):
            Path(os.environ["PERF_OUT"]).write_text(text)
        if args.write_baseline:
            write_baseline(baseline_path(args.write_baseline), header.lstrip("# "), ours, nvidia)
        if args.json is None:
            note(f"done in {int(time.monotonic() - start)} s")
        return 3 if regressed else 1 if failed else 0
    except Fail as e:
        note(str(e))
        return e.status
    except (OSError, subprocess.CalledProcessError) as e:
        note(str(e))
        return 1


if __name__ == "__main__":
    sys.exit(main())
