#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perf-compare.sh BUILD_DIR [N_RUNS] [TEST...]
#
# Perftests of this project against NVIDIA's NVSHMEM, on one machine in one call (docs/perftest.md).
# Builds the same perftest sources against NVIDIA's NVSHMEM with nvcc (in parallel), then runs ours
# (BUILD_DIR/perftest/<folder>/<test>) and NVIDIA's alternately, N_RUNS times each, both
# started by BUILD_DIR/bin/nvshmrun (NVIDIA's through the unique-id bootstrap), and prints per test
# and size the median of each and the ratio ours/NVIDIA (latency: lower is better, bandwidth:
# higher). TEST defaults to shmem_put_bw (with N_RUNS default 5); `all` means every point-to-point
# perftest (N_RUNS default 1: each call already reports the median of 5 timed runs per size, -r 5),
# about 4-5 minutes a run; `coll` every on-stream collective perftest (perftest/host/coll); `devcoll` every
# device collective perftest (perftest/device/coll; thread, warp and block scope). Made for the GPU
# machine (2 GPUs, NVIDIA NVSHMEM 3.4.5 as the Python package nvidia.nvshmem).
#
# Environment: PERF_OUT=<file> also writes the tables there; NVIDIA_NVSHMEM_HOME overrides where
# NVIDIA's NVSHMEM is; NVCC the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc);
# PERF_EXTRA extra options for every run (e.g. --bidir); PERF_KEEP=1 keeps the work folder;
# PERF_VARIANTS="label:VAR=value,VAR=value;label2:..." also runs ours under each set of environment
# variables (tuning sweeps, e.g. "b64k:NVSHMEM_COLL_BLOCK_BYTES=64k") and adds a column per variant;
# PERF_BUILDS="label:BUILD_DIR2;..." does the same with the programs of other builds of ours (branches
# side by side in one call; each program loads its own build's library);
# PERF_NCCL=1 with reduction_on_stream among the tests also times NCCL's all-reduce
# (perftest/nccl, float sum, built against NCCL_HOME or the Python package nvidia.nccl) and prints a
# second table, ours against NCCL; PERF_NV_CACHE=<dir> keeps NVIDIA's programs there between calls
# and rebuilds one only when what it is built from changed (its build takes minutes);
# PERF_NV_BUILD_ONLY=1 only builds NVIDIA's programs (into PERF_NV_CACHE) and stops, so that it can
# run while BUILD_DIR is still being built; PERF_BUDGET_S=<seconds> starts no run that would end past
# that many seconds at the pace of the runs before it, and reports the medians of the runs done;
# PERF_JSON_DIR=<dir> has every run append its perftest JSON lines (PERFTEST_JSON) to <dir>/<impl>.jsonl
# (ours, nvidia, nccl, or the variant's label), the input of tools/perf-plot.py (docs/performance.md).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
  exit 2
}
[[ $# -ge 1 && $1 != -h && $1 != --help ]] || usage
BUILD_DIR=$(cd "$1" && pwd)
shift
N_RUNS=""
if [[ $# -ge 1 && $1 =~ ^[0-9]+$ ]]; then
  N_RUNS=$1
  shift
fi
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Options per test: groups of options separated by '|', each group one process per run.
declare -A TEST_ARGS=(
  [shmem_put_bw]="-b 4k -e 64k -f 2 -c 128 -t 1024 -n 2000 -w 200|-b 128k -e 4m -f 2 -c 128 -t 1024 -n 1000 -w 100|-b 8m -e 256m -f 2 -c 128 -t 1024 -n 50 -w 5"
  [shmem_get_bw]="-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20"
  [shmem_p_bw]="-b 64k -e 4m -f 4 -c 128 -t 1024 -n 50 -w 5"
  [shmem_g_bw]="-b 64k -e 4m -f 4 -c 128 -t 1024 -n 50 -w 5"
  [shmem_st_bw]="-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20"
  [shmem_atomic_bw]="-b 64k -e 1m -f 4 -c 128 -t 1024 -n 50 -w 5"
  [shmem_p_latency]="-b 8 -e 512 -f 8 -n 1000 -w 100"
  [shmem_g_latency]="-b 8 -e 512 -f 8 -n 1000 -w 100"
  [shmem_put_latency]="-b 8 -e 64k -f 8 -n 1000 -w 100"
  [shmem_get_latency]="-b 8 -e 64k -f 8 -n 1000 -w 100"
  [shmem_atomic_latency]="-b 8 -e 8 -n 1000 -w 100"
  [shmem_p_ping_pong_latency]="-n 1000 -w 100"
  [shmem_put_ping_pong_latency]="-b 8 -e 4k -f 8 -n 1000 -w 100"
  [shmem_put_signal_ping_pong_latency]="-b 8 -e 4k -f 8 -n 1000 -w 100"
  [shmem_signal_ping_pong_latency]="-n 1000 -w 100"
  [shmem_atomic_ping_pong_latency]="-n 1000 -w 100"
  [alltoall_on_stream]="-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 256m -f 4 -n 20 -w 2"
  [broadcast_on_stream]="-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 256m -f 4 -n 20 -w 2"
  [fcollect_on_stream]="-b 8 -e 1m -f 4 -n 200 -w 20|-b 4m -e 128m -f 4 -n 20 -w 2"
  [reduction_on_stream]="-d float -o sum -b 8 -e 1m -f 4 -n 200 -w 20|-d float -o sum -b 4m -e 256m -f 4 -n 20 -w 2"
  [reducescatter_on_stream]="-d float -o sum -b 8 -e 1m -f 4 -n 200 -w 20|-d float -o sum -b 4m -e 128m -f 4 -n 20 -w 2"
  [barrier_on_stream]="-n 1000 -w 100"
  [barrier_all_on_stream]="-n 1000 -w 100"
  [sync_on_stream]="-n 1000 -w 100"
  [sync_all_on_stream]="-n 1000 -w 100"
  [alltoall_latency]="-b 8 -e 64k -f 8 -n 200 -w 20"
  [bcast_latency]="-b 8 -e 64k -f 8 -n 200 -w 20"
  [fcollect_latency]="-b 8 -e 64k -f 8 -n 200 -w 20"
  [reduction_latency]="-d float -o sum -b 8 -e 64k -f 8 -n 200 -w 20"
  [reducescatter_latency]="-d float -o sum -b 8 -e 64k -f 8 -n 200 -w 20"
  [barrier_latency]="-n 1000 -w 100"
  [sync_latency]="-n 1000 -w 100"
)
# Where a test's source and program live (perftest/<folder>/<test>).
folder_of() {
  case $1 in
    *_on_stream) echo host/coll ;;
    alltoall_latency | bcast_latency | fcollect_latency | reduction_latency | reducescatter_latency | barrier_latency | \
      sync_latency) echo device/coll ;;
    *) echo device/pt-to-pt ;;
  esac
}
COLL_TESTS=(alltoall_on_stream broadcast_on_stream fcollect_on_stream reduction_on_stream reducescatter_on_stream
  barrier_on_stream barrier_all_on_stream sync_on_stream sync_all_on_stream)
DEVCOLL_TESTS=(alltoall_latency bcast_latency fcollect_latency reduction_latency reducescatter_latency barrier_latency
  sync_latency)
ALL_TESTS=(shmem_put_bw shmem_get_bw shmem_p_bw shmem_g_bw shmem_st_bw shmem_atomic_bw shmem_p_latency
  shmem_g_latency shmem_put_latency shmem_get_latency shmem_atomic_latency shmem_p_ping_pong_latency
  shmem_put_ping_pong_latency shmem_put_signal_ping_pong_latency shmem_signal_ping_pong_latency
  shmem_atomic_ping_pong_latency)
TESTS=("$@")
if [[ ${#TESTS[@]} -eq 0 ]]; then
  TESTS=(shmem_put_bw)
  N_RUNS=${N_RUNS:-5}
elif [[ ${TESTS[0]} == coll ]]; then
  TESTS=("${COLL_TESTS[@]}")
elif [[ ${TESTS[0]} == devcoll ]]; then
  TESTS=("${DEVCOLL_TESTS[@]}")
elif [[ ${TESTS[0]} == all ]]; then
  TESTS=("${ALL_TESTS[@]}")
  # "all" measures the point-to-point set from 64 KiB (bandwidth) within the time budget.
  TEST_ARGS[shmem_put_bw]="-b 64k -e 16m -f 4 -c 128 -t 1024 -n 200 -w 20"
fi
N_RUNS=${N_RUNS:-1}
[[ $N_RUNS =~ ^[1-9][0-9]*$ ]] || { echo "perf-compare: N_RUNS must be a positive integer, got '$N_RUNS'" >&2; exit 2; }
for t in "${TESTS[@]}"; do
  [[ -n ${TEST_ARGS[$t]:-} ]] || { echo "perf-compare: unknown test '$t' (known: ${!TEST_ARGS[*]})" >&2; exit 2; }
done

# Multicast objects can take the shared host's GPUs down: never let either library create them.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
export NVSHMEM_MACHINE_READABLE_OUTPUT=1

NVSHMRUN=$BUILD_DIR/bin/nvshmrun
BUILD_ONLY=${PERF_NV_BUILD_ONLY:-0}
if [[ $BUILD_ONLY != 1 ]]; then
  [[ -x $NVSHMRUN ]] || { echo "perf-compare: $NVSHMRUN is missing: build the target nvshmrun in $BUILD_DIR" >&2; exit 1; }
  for t in "${TESTS[@]}"; do
    f=$BUILD_DIR/perftest/$(folder_of "$t")/$t
    [[ -x $f ]] || { echo "perf-compare: $f is missing: build its perf_ target in $BUILD_DIR" >&2; exit 1; }
  done
elif [[ -z ${PERF_NV_CACHE:-} ]]; then
  echo "perf-compare: PERF_NV_BUILD_ONLY=1 needs PERF_NV_CACHE=<dir> to keep the programs" >&2
  exit 2
fi

NV_HOME=${NVIDIA_NVSHMEM_HOME:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])")}
[[ -f $NV_HOME/include/nvshmem.h && -f $NV_HOME/lib/libnvshmem_host.so.3 ]] ||
  { echo "perf-compare: no NVIDIA NVSHMEM at '$NV_HOME' (set NVIDIA_NVSHMEM_HOME)" >&2; exit 1; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/perf-compare.XXXXXX")
[[ ${PERF_KEEP:-0} == 1 ]] || trap 'rm -rf "$WORK"' EXIT

# NVIDIA's build: the same sources, with -rdc as NVIDIA's device library requires; the harness
# (compiled as CUDA, as NVIDIA compiles its own perftest common code) once, the tests in parallel.
# With PERF_NV_CACHE=<dir>, each program also goes there beside the hash of what it was built from
# (its source, the harness, NVIDIA's NVSHMEM, the compiler) and is taken from there while that holds.
mkdir -p "$WORK/nvidia"
CACHE=${PERF_NV_CACHE:-}
[[ -z $CACHE ]] || mkdir -p "$CACHE"
nv_key() {  # source...: the hash of what a program of NVIDIA's build depends on
  { cat "$@" "$SRC_DIR"/perftest/common/*; echo "$NV_HOME"; "$NVCC" --version; } | sha256sum | cut -c1-32
}
from_cache() {  # name source...: copies the cached program to $WORK/nvidia/name if it is current
  [[ -n $CACHE && -x $CACHE/$1 && $(cat "$CACHE/$1.key" 2>/dev/null) == $(nv_key "${@:2}") ]] &&
    cp "$CACHE/$1" "$WORK/nvidia/$1"
}
to_cache() {  # name source...
  [[ -z $CACHE ]] || { cp "$WORK/nvidia/$1" "$CACHE/$1" && nv_key "${@:2}" >"$CACHE/$1.key"; }
}
TO_BUILD=()
for t in "${TESTS[@]}"; do
  from_cache "$t" "$SRC_DIR/perftest/$(folder_of "$t")/$t.cu" || TO_BUILD+=("$t")
done
NVFLAGS=(-rdc=true -arch=sm_90 -std=c++17 -O3 -I"$NV_HOME/include" -I"$SRC_DIR/perftest/common")
echo "perf-compare: building ${TO_BUILD[*]:-nothing (all cached)} against $NV_HOME" >&2
"$NVCC" "${NVFLAGS[@]}" -dc -x cu "$SRC_DIR/perftest/common/perftest.cpp" -o "$WORK/nvidia/perftest.o"
export NVCC NV_HOME SRC_DIR WORK
for t in "${TO_BUILD[@]}"; do echo "$(folder_of "$t") $t"; done | xargs -r -P "$(nproc)" -L 1 sh -c '
  "$NVCC" -rdc=true -arch=sm_90 -std=c++17 -O3 -I"$NV_HOME/include" -I"$SRC_DIR/perftest/common" \
    "$SRC_DIR/perftest/$0/$1.cu" "$WORK/nvidia/perftest.o" \
    -L"$NV_HOME/lib" -l:libnvshmem_host.so.3 -lnvshmem_device -lcuda -Xlinker -rpath,"$NV_HOME/lib" \
    -o "$WORK/nvidia/$1" || { echo "perf-compare: building $1 against NVIDIA failed" >&2; exit 255; }'
for t in "${TO_BUILD[@]}"; do to_cache "$t" "$SRC_DIR/perftest/$(folder_of "$t")/$t.cu"; done

# NCCL's all-reduce beside reduction_on_stream, built like NVIDIA's programs plus NCCL.
WITH_NCCL=0
if [[ ${PERF_NCCL:-0} == 1 && " ${TESTS[*]} " == *" reduction_on_stream "* ]]; then
  NCCL_HOME=${NCCL_HOME:-$(python3 -c "import nvidia.nccl as m; print(list(m.__path__)[0])")}
  [[ -f $NCCL_HOME/include/nccl.h ]] || { echo "perf-compare: no nccl.h under '$NCCL_HOME' (set NCCL_HOME)" >&2; exit 1; }
  nccl_sources=("$SRC_DIR/perftest/nccl/nccl_allreduce_on_stream.cu" "$NCCL_HOME/include/nccl.h")
  if from_cache nccl_allreduce_on_stream "${nccl_sources[@]}"; then
    WITH_NCCL=1
  elif "$NVCC" -rdc=true -arch=sm_90 -std=c++17 -O3 -I"$NV_HOME/include" -I"$SRC_DIR/perftest/common" -I"$NCCL_HOME/include" \
    "${nccl_sources[0]}" "$WORK/nvidia/perftest.o" \
    -L"$NV_HOME/lib" -l:libnvshmem_host.so.3 -lnvshmem_device -lcuda -Xlinker -rpath,"$NV_HOME/lib" \
    -L"$NCCL_HOME/lib" -l:libnccl.so.2 -Xlinker -rpath,"$NCCL_HOME/lib" -o "$WORK/nvidia/nccl_allreduce_on_stream"; then
    to_cache nccl_allreduce_on_stream "${nccl_sources[@]}"
    WITH_NCCL=1
  else
    echo "perf-compare: building the NCCL all-reduce test failed; going on without NCCL" >&2
  fi
fi

if [[ $BUILD_ONLY == 1 ]]; then
  echo "perf-compare: NVIDIA's programs for ${TESTS[*]} are in $CACHE"
  exit 0
fi

read -r -a EXTRA <<<"${PERF_EXTRA:-}"
# Variants of ours: labels, their environment assignments (comma-separated) and the build whose
# programs they run (BUILD_DIR for PERF_VARIANTS, another build of ours for PERF_BUILDS).
declare -a VARIANT_LABELS=() VARIANT_ENVS=() VARIANT_BUILDS=()
add_variants() {  # variable spec-list is-build
  local spec
  local -a variant_specs
  IFS=';' read -r -a variant_specs <<<"$2"
  for spec in "${variant_specs[@]}"; do
    [[ $spec =~ ^([A-Za-z0-9_]+):(.*)$ ]] || { echo "perf-compare: bad $1 entry '$spec'" >&2; exit 2; }
    VARIANT_LABELS+=("${BASH_REMATCH[1]}")
    if [[ $3 == 1 ]]; then
      [[ -d ${BASH_REMATCH[2]}/perftest ]] || { echo "perf-compare: $1: no perftest/ under '${BASH_REMATCH[2]}'" >&2; exit 2; }
      VARIANT_ENVS+=("")
      VARIANT_BUILDS+=("$(cd "${BASH_REMATCH[2]}" && pwd)")
    else
      VARIANT_ENVS+=("${BASH_REMATCH[2]}")
      VARIANT_BUILDS+=("$BUILD_DIR")
    fi
  done
}
[[ -z ${PERF_VARIANTS:-} ]] || add_variants PERF_VARIANTS "$PERF_VARIANTS" 0
[[ -z ${PERF_BUILDS:-} ]] || add_variants PERF_BUILDS "$PERF_BUILDS" 1

run_one() {  # impl test options... (impl: ours, nvidia or variant:<index>)
  local impl=$1 test=$2 log=$WORK/$1.log
  local bin
  bin=$BUILD_DIR/perftest/$(folder_of "$test")/$test
  shift 2
  local -a env_args=()
  if [[ $impl == variant:* ]]; then
    local v=${impl#variant:}
    log=$WORK/variant-${VARIANT_LABELS[$v]}.log
    bin=${VARIANT_BUILDS[$v]}/perftest/$(folder_of "$test")/$test
    [[ -x $bin ]] || { echo "perf-compare: $bin is missing: build its perf_ target there" >&2; exit 1; }
    [[ -z ${VARIANT_ENVS[$v]} ]] || IFS=',' read -r -a env_args <<<"${VARIANT_ENVS[$v]}"
  elif [[ $impl == nvidia || $impl == nccl ]]; then
    bin=$WORK/nvidia/$test
    [[ $impl == nccl ]] && bin=$WORK/nvidia/nccl_allreduce_on_stream
    rm -f "$WORK/uid"
    # NVIDIA's library loads its bootstrap plugins from its lib/ folder.
    env_args=(PERFTEST_BOOTSTRAP=uid PERFTEST_UID_FILE="$WORK/uid" LD_LIBRARY_PATH="$NV_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  if [[ -n ${PERF_JSON_DIR:-} ]]; then
    mkdir -p "$PERF_JSON_DIR"
    local label=$impl
    [[ $impl == variant:* ]] && label=${VARIANT_LABELS[${impl#variant:}]}
    env_args+=(PERFTEST_JSON="$(cd "$PERF_JSON_DIR" && pwd)/$label.jsonl")
  fi
  local -a cmd=("$NVSHMRUN" --timeout 120 -n 2 "$bin" "$@" "${EXTRA[@]}")
  echo "== $impl: ${cmd[*]}" >>"$log"
  if ! env "${env_args[@]}" "${cmd[@]}" >>"$log" 2>&1; then
    echo "perf-compare: the $impl run failed: ${env_args[*]} ${cmd[*]}; end of its log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

start=$SECONDS
BUDGET=${PERF_BUDGET_S:-}
[[ -z $BUDGET || $BUDGET =~ ^[1-9][0-9]*$ ]] || { echo "perf-compare: PERF_BUDGET_S must be a positive integer, got '$BUDGET'" >&2; exit 2; }
runs_done=0
for ((run = 1; run <= N_RUNS; run++)); do
  # Within PERF_BUDGET_S seconds: start a run only if it should end in time, at the mean pace so far.
  if [[ -n $BUDGET ]] && ((run > 1 && (SECONDS - start) * run / (run - 1) > BUDGET)); then
    echo "perf-compare: stopping after $runs_done of $N_RUNS runs, so as to end within PERF_BUDGET_S=$BUDGET s" >&2
    break
  fi
  echo "perf-compare: run $run of $N_RUNS ($((SECONDS - start)) s so far)" >&2
  for test in "${TESTS[@]}"; do
    IFS='|' read -r -a groups <<<"${TEST_ARGS[$test]}"
    for group in "${groups[@]}"; do
      read -r -a opts <<<"$group"
      # Alternate which goes first, so drift on the machine hits both alike.
      if ((run % 2)); then order=(ours nvidia); else order=(nvidia ours); fi
      for impl in "${order[@]}"; do run_one "$impl" "$test" "${opts[@]}"; done
      for v in "${!VARIANT_LABELS[@]}"; do run_one "variant:$v" "$test" "${opts[@]}"; done
      if [[ $WITH_NCCL == 1 && $test == reduction_on_stream ]]; then run_one nccl "$test" "${opts[@]}"; fi
    done
  done
  runs_done=$run
done

# The device machine receives the working tree without .git: the caller passes GIT_COMMIT.
if [ -n "${GIT_COMMIT:-}" ]; then
  commit=$GIT_COMMIT
else
  commit=$(git -C "$SRC_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$SRC_DIR" diff --quiet HEAD -- 2>/dev/null || commit="$commit+dirty"
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
options="${EXTRA[*]:-default options per test}"
header="# ${TESTS[*]} ($options): medians over $runs_done call(s) each (every call reports the median of -r runs, default 5); $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, $(uname -n), ${gpu:-unknown GPU}, NVIDIA NVSHMEM at $NV_HOME"

variant_args=()
for label in "${VARIANT_LABELS[@]}"; do variant_args+=("$label" "$WORK/variant-$label.log"); done
table=$(python3 - "$WORK/ours.log" "$WORK/nvidia.log" "$header" "${variant_args[@]}" <<'EOF'
import re, statistics, sys
# "&&&& PERF <job>[___<subjob>]___size__<bytes>___<metric> <value> <+|-><unit>"; the subjob (type, op,
# scope) stays in the test's name.
line = re.compile(r"^&&&& PERF (\S+)___size__(\d+)___(\S+) (\S+) ([+-])(\S+)")
def load(path):
    values, kind = {}, {}
    with open(path) as f:
        for text in f:
            m = line.match(text)
            if m:
                key = (m.group(1), m.group(3), int(m.group(2)))
                values.setdefault(key, []).append(float(m.group(4)))
                kind[key] = (m.group(5), m.group(6))
    return {k: statistics.median(v) for k, v in values.items()}, kind
ours, kind = load(sys.argv[1])
theirs, kind2 = load(sys.argv[2])
kind.update({k: v for k, v in kind2.items() if k not in kind})
variants = [(sys.argv[i], load(sys.argv[i + 1])[0]) for i in range(4, len(sys.argv), 2)]
fmt = lambda v: f"{v:.3f}" if v is not None else "-"
ratio = lambda a, b: f"{a / b:.3f}" if a is not None and b else "-"
print(sys.argv[3])
extra_head = "".join(f" {label + '/nv':>12}" for label, _ in variants)
print(f"{'test':<44} {'metric':<14} {'size(B)':>10} {'ours':>10} {'nvidia':>10} {'ours/nvidia':>12} {'target':>7}{extra_head}")
for key in sorted(set(ours) | set(theirs)):
    job, metric, size = key
    a, b = ours.get(key), theirs.get(key)
    sign, unit = kind.get(key, ("+", "?"))
    met = "-"
    if metric == "enqueue":
        met = "info"  # the calling thread's time per on-stream call: a diagnostic, not a target
    elif a is not None and b is not None:
        met = "ok" if (a <= b if sign == "-" else a >= b) else "MISS"
    extra = "".join(f" {ratio(values.get(key), b):>12}" for _, values in variants)
    print(f"{job:<44} {metric + '(' + unit + ')':<14} {size:>10} {fmt(a):>10} {fmt(b):>10} {ratio(a, b):>12} {met:>7}{extra}")
EOF
)
if [[ $WITH_NCCL == 1 ]]; then
  # Ours against NCCL's all-reduce (target, issue 5: faster below 256 KiB, within 1.1x above).
  table+=$'\n\n'$(python3 - "$WORK/ours.log" "$WORK/nccl.log" <<'EOF'
import re, statistics, sys
line = re.compile(r"^&&&& PERF (reduction_on_stream___float_sum)___size__(\d+)___latency (\S+) ")
def load(path):
    values = {}
    with open(path) as f:
        for text in f:
            m = line.match(text)
            if m:
                values.setdefault(int(m.group(2)), []).append(float(m.group(3)))
    return {k: statistics.median(v) for k, v in values.items()}
ours, nccl = load(sys.argv[1]), load(sys.argv[2])
print("# float sum reduce_on_stream against NCCL's all-reduce (latency, us; target: below NCCL under 256 KiB, at most 1.1x from 256 KiB)")
print(f"{'size(B)':>10} {'ours':>10} {'nccl':>10} {'ours/nccl':>10} {'target':>7}")
for size in sorted(set(ours) & set(nccl)):
    a, b = ours[size], nccl[size]
    met = "ok" if (a < b if size < 256 * 1024 else a <= 1.1 * b) else "MISS"
    print(f"{size:>10} {a:>10.3f} {b:>10.3f} {a / b:>10.3f} {met:>7}")
EOF
)
fi
echo "$table"
[[ -z ${PERF_OUT:-} ]] || printf '%s\n' "$table" >"$PERF_OUT"
echo "perf-compare: done in $((SECONDS - start)) s" >&2
