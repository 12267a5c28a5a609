#!/usr/bin/env bash
# perf-compare.sh BUILD_DIR [N_RUNS]
#
# shmem_put_bw, this project against NVIDIA's NVSHMEM, on one machine in one run (docs/perftest.md).
# Builds the same perftest source against NVIDIA's NVSHMEM with nvcc, then runs ours
# (BUILD_DIR/perftest/device/pt-to-pt/shmem_put_bw) and NVIDIA's alternately, N_RUNS times each
# (default 5), both started by BUILD_DIR/bin/nvshmrun (NVIDIA's through the unique-id bootstrap), and
# prints size, the median GB/s of each and the ratio ours/NVIDIA. Made for the GPU machine (2 GPUs,
# NVIDIA NVSHMEM 3.4.5 as the Python package nvidia.nvshmem); takes about 2-4 minutes.
#
# Environment: PERF_OUT=<file> also writes the table there; NVIDIA_NVSHMEM_HOME overrides where
# NVIDIA's NVSHMEM is; NVCC the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc);
# PERF_EXTRA extra options for both runs (e.g. --bidir); PERF_KEEP=1 keeps the work folder.
set -euo pipefail

usage() {
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}
[[ $# -ge 1 && $# -le 2 && $1 != -h && $1 != --help ]] || usage
BUILD_DIR=$(cd "$1" && pwd)
N_RUNS=${2:-5}
[[ $N_RUNS =~ ^[1-9][0-9]*$ ]] || { echo "perf-compare: N_RUNS must be a positive integer, got '$N_RUNS'" >&2; exit 2; }
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Multicast objects can take the shared host's GPUs down: never let either library create them.
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
export NVSHMEM_MACHINE_READABLE_OUTPUT=1

NVSHMRUN=$BUILD_DIR/bin/nvshmrun
OURS=$BUILD_DIR/perftest/device/pt-to-pt/shmem_put_bw
for f in "$NVSHMRUN" "$OURS"; do
  [[ -x $f ]] || { echo "perf-compare: $f is missing: build the targets nvshmrun and perf_device_shmem_put_bw in $BUILD_DIR" >&2; exit 1; }
done

NV_HOME=${NVIDIA_NVSHMEM_HOME:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])")}
[[ -f $NV_HOME/include/nvshmem.h && -f $NV_HOME/lib/libnvshmem_host.so.3 ]] ||
  { echo "perf-compare: no NVIDIA NVSHMEM at '$NV_HOME' (set NVIDIA_NVSHMEM_HOME)" >&2; exit 1; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/perf-compare.XXXXXX")
[[ ${PERF_KEEP:-0} == 1 ]] || trap 'rm -rf "$WORK"' EXIT

# NVIDIA's build: the same two sources, with -rdc as NVIDIA's device library requires.
THEIRS=$WORK/nvidia/shmem_put_bw
mkdir -p "$WORK/nvidia"
echo "perf-compare: building shmem_put_bw against $NV_HOME" >&2
# perftest.cpp is compiled as CUDA (-x cu), as NVIDIA compiles its own perftest common code.
"$NVCC" -rdc=true -arch=sm_90 -std=c++17 -O3 -I"$NV_HOME/include" -I"$SRC_DIR/perftest/common" \
  -x cu "$SRC_DIR/perftest/device/pt-to-pt/shmem_put_bw.cu" "$SRC_DIR/perftest/common/perftest.cpp" \
  -L"$NV_HOME/lib" -l:libnvshmem_host.so.3 -lnvshmem_device -lcuda -Xlinker -rpath,"$NV_HOME/lib" -o "$THEIRS"

# Size groups: min max iters warm-up. Small messages get many iterations so the kernel runs for
# milliseconds; large ones fewer (about 1-13 GiB moved per timed run).
SIZE_GROUPS=("4k 64k 2000 200" "128k 4m 1000 100" "8m 256m 50 5")
GRID=(-c 128 -t 1024)
read -r -a EXTRA <<<"${PERF_EXTRA:-}"

run_one() {  # impl binary min max iters warm
  local impl=$1 bin=$2 log=$WORK/$1.log
  local -a env_args=()
  if [[ $impl == nvidia ]]; then
    rm -f "$WORK/uid"
    # NVIDIA's library loads its bootstrap plugins from its lib/ folder.
    env_args=(PERFTEST_BOOTSTRAP=uid PERFTEST_UID_FILE="$WORK/uid" LD_LIBRARY_PATH="$NV_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  local -a cmd=("$NVSHMRUN" --timeout 120 -n 2 "$bin" -b "$3" -e "$4" -f 2 "${GRID[@]}" -n "$5" -w "$6" "${EXTRA[@]}")
  echo "== $impl: ${cmd[*]}" >>"$log"
  if ! env "${env_args[@]}" "${cmd[@]}" >>"$log" 2>&1; then
    echo "perf-compare: the $impl run failed: ${env_args[*]} ${cmd[*]}; end of its log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

start=$SECONDS
for ((run = 1; run <= N_RUNS; run++)); do
  echo "perf-compare: run $run of $N_RUNS ($((SECONDS - start)) s so far)" >&2
  for group in "${SIZE_GROUPS[@]}"; do
    read -r lo hi iters warm <<<"$group"
    # Alternate which goes first, so drift on the machine hits both alike.
    if ((run % 2)); then order=(ours nvidia); else order=(nvidia ours); fi
    for impl in "${order[@]}"; do
      if [[ $impl == ours ]]; then run_one ours "$OURS" "$lo" "$hi" "$iters" "$warm"; else run_one nvidia "$THEIRS" "$lo" "$hi" "$iters" "$warm"; fi
    done
  done
done

# The device machine receives the working tree without .git: the caller passes GIT_COMMIT.
if [ -n "${GIT_COMMIT:-}" ]; then
  commit=$GIT_COMMIT
else
  commit=$(git -C "$SRC_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$SRC_DIR" diff --quiet HEAD -- 2>/dev/null || commit="$commit+dirty"
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
options="${GRID[*]}${EXTRA[*]:+ ${EXTRA[*]}}"
header="# shmem_put_bw $options: median GB/s of $N_RUNS runs each; $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, $(uname -n), ${gpu:-unknown GPU}, NVIDIA NVSHMEM at $NV_HOME"

table=$(python3 - "$WORK/ours.log" "$WORK/nvidia.log" "$header" <<'EOF'
import re, statistics, sys
line = re.compile(r"^&&&& PERF shmem_put_bw___size__(\d+)___bw (\S+) \+GB/s")
def load(path):
    values = {}
    with open(path) as f:
        for text in f:
            m = line.match(text)
            if m:
                values.setdefault(int(m.group(1)), []).append(float(m.group(2)))
    return {size: statistics.median(v) for size, v in values.items()}
ours, theirs = load(sys.argv[1]), load(sys.argv[2])
print(sys.argv[3])
print(f"{'size(B)':>12} {'ours(GB/s)':>12} {'nvidia(GB/s)':>13} {'ours/nvidia':>12}")
for size in sorted(set(ours) | set(theirs)):
    a, b = ours.get(size), theirs.get(size)
    fmt = lambda v: f"{v:.2f}" if v is not None else "-"
    ratio = f"{a / b:.3f}" if a is not None and b else "-"
    print(f"{size:>12} {fmt(a):>12} {fmt(b):>13} {ratio:>12}")
EOF
)
echo "$table"
[[ -z ${PERF_OUT:-} ]] || printf '%s\n' "$table" >"$PERF_OUT"
echo "perf-compare: done in $((SECONDS - start)) s" >&2
