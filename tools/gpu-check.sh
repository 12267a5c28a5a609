#!/usr/bin/env bash
# The GPU check: build, run every test (GPU tests with 2 PEs), compute-sanitizer on the GPU tests,
# the perftests side by side with NVIDIA's NVSHMEM, and print a short table at the end.
# Run on the GPU machine from the repository root:  tools/gpu-check.sh [--no-perf] [--no-sanitizer]
# Pass GIT_COMMIT=<hash> where the tree has no .git (the device machine). Logs go to $OUT (or ./gpu-check-out) as gpu-check.log, ctest.log, sanitizer.log, perf.txt.
set -uo pipefail
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
run_perf=1
run_sanitizer=1
for arg in "$@"; do
  case $arg in
    --no-perf) run_perf=0 ;;
    --no-sanitizer) run_sanitizer=0 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done
declare -a rows
row() { rows+=("$(printf '%-34s %s' "$1" "$2")"); }

exec > >(tee "$OUT/gpu-check.log") 2>&1
echo "== machine"; nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -5; echo "commit ${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

echo "== build"
start=$(date +%s)
if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 &&
   cmake --build "$BUILD" -j "$(nproc)" >"$OUT/build.log" 2>&1; then
  row build "ok ($(( $(date +%s) - start )) s)"
else
  tail -40 "$OUT/configure.log" "$OUT/build.log"; row build FAILED
  printf '%s\n' "${rows[@]}"; exit 1
fi

echo "== ctest"
(cd "$BUILD" && ctest --output-on-failure -j 1 --timeout 300) >"$OUT/ctest.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest.log" | tail -20
row ctest "$(grep -E 'tests passed' "$OUT/ctest.log" || echo 'did not finish')"
for t in gpu.test_device_api gpu.test_device_rdc gpu.example.ring; do
  row "  $t" "$(grep -E "Test +#[0-9]+: $t " "$OUT/ctest.log" | sed -E 's/.* (Passed|\*\*\*Failed|\*\*\*Skipped|Not Run).*/\1/' | head -1)"
done

if [ $run_sanitizer = 1 ]; then
  echo "== compute-sanitizer"
  : >"$OUT/sanitizer.log"
  for t in tests/gpu/test_device_api tests/gpu/test_device_rdc examples/ring; do
    "$BUILD/bin/nvshmrun" -n 2 --timeout 500 compute-sanitizer --tool memcheck --error-exitcode 99 \
      "$BUILD/$t" >>"$OUT/sanitizer.log" 2>&1
    rc=$?
    row "  memcheck $(basename $t)" "$([ $rc = 0 ] && echo 'no errors' || echo "rc=$rc")"
  done
  grep -E "ERROR SUMMARY" "$OUT/sanitizer.log" | sort | uniq -c
fi

if [ $run_perf = 1 ] && [ -x tools/perf-compare.sh ]; then
  echo "== perftests against NVIDIA NVSHMEM"
  PERF_OUT="$OUT/perf.txt" tools/perf-compare.sh "$BUILD" 5 >"$OUT/perf.log" 2>&1
  row perf-compare "rc=$? (table in perf.txt)"
  cat "$OUT/perf.txt" 2>/dev/null
fi

echo "== summary"
printf '%s\n' "${rows[@]}"
