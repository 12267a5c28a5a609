#!/usr/bin/env bash
# The GPU check: build, run every test (GPU tests with 2 PEs), compute-sanitizer (memcheck, then
# racecheck, on every GPU test binary; CUDA API errors are not reported, because
# the library probes pointers with calls that fail by design, e.g. cuPointerGetAttribute on memory
# that is not VMM), the API coverage against NVIDIA's headers,
# and the perftests side by side with NVIDIA's NVSHMEM; prints a short table at the end.
# Run on the GPU machine from the repository root:
#   GIT_COMMIT=<hash> tools/gpu-check.sh [--no-tests] [--no-sanitizer] [--sanitize BINARIES]
#                                        [--targets TARGETS] [--perf TESTS]
# --perf TESTS: perftests for tools/perf-compare.sh ("all", "coll", "devcoll", or names); none by default;
#   PERF_RUNS=<n> program runs per test and size (default 5).
# --targets TARGETS: build only these CMake targets (default: everything) for a short call.
# --sanitize BINARIES: memcheck and racecheck only these test binaries (paths under the build, e.g.
#   tests/gpu/test_device_coll); default: every GPU test binary. SANITIZE_SHARDS=<n> runs each test
#   binary as n gtest shards at once (racecheck of test_device_coll: about 75 s in 6 shards, 2-28 s a test);
#   SANITIZE_TIMEOUT_S the limit per run (default 300); SANITIZE_TOOLS="racecheck" runs one tool only.
#   Under the sanitizer the collective tests replay each captured graph twice instead of 100 times
#   (NVSHM_TEST_GRAPH_REPLAYS=2): every replay runs the same code.
# Pass GIT_COMMIT where the tree has no .git (the device machine). Logs go to $OUT (or ./gpu-check-out).
set -uo pipefail
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
run_tests=1
run_sanitizer=1
perf_tests=""
targets=()
sanitize_list=""
while [ $# -gt 0 ]; do
  case $1 in
    --no-tests) run_tests=0 ;;
    --no-sanitizer) run_sanitizer=0 ;;
    --perf) perf_tests=$2; shift ;;
    --targets) read -ra targets <<<"$2"; shift ;;
    --sanitize) sanitize_list=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
declare -a rows
row() { rows+=("$(printf '%-34s %s' "$1" "$2")"); }

exec > >(tee "$OUT/gpu-check.log") 2>&1
echo "== machine"; nvidia-smi -L
echo "commit ${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

echo "== build"
start=$(date +%s)
if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/configure.log" 2>&1 &&
   cmake --build "$BUILD" -j "$(nproc)" ${targets[@]:+--target "${targets[@]}"} >"$OUT/build.log" 2>&1; then
  row build "ok ($(( $(date +%s) - start )) s)"
else
  tail -40 "$OUT/configure.log" "$OUT/build.log"; row build FAILED
  printf '%s\n' "${rows[@]}"; exit 1
fi

if [ $run_tests = 1 ]; then
  echo "== ctest"
  (cd "$BUILD" && ctest --output-on-failure -j 2 --timeout 300) >"$OUT/ctest.log" 2>&1
  grep -E "tests passed|\(Failed\)|\(Timeout\)|\*\*\*Failed|\*\*\*Timeout" "$OUT/ctest.log" | tail -25
  row ctest "$(grep -E 'tests passed' "$OUT/ctest.log" || echo 'did not finish')"
  row "  gpu tests passed" "$(grep -cE 'Test +#[0-9]+: (gpu|cpp\.gpu|cpp\.example)\..* Passed' "$OUT/ctest.log")"
  row "  gpu tests skipped" "$(grep -cE 'Test +#[0-9]+: (gpu|cpp\.gpu)\..*Skipped' "$OUT/ctest.log")"
fi

if [ $run_sanitizer = 1 ]; then
  echo "== compute-sanitizer"
  : >"$OUT/sanitizer.log"
  sanitize() {  # tool binary [gtest filter]: the test binaries in SANITIZE_SHARDS shards at once
    local shards=1 limit=${SANITIZE_TIMEOUT_S:-300} rc=0 i
    local -a pids=()
    [[ $2 == tests/* ]] && shards=${SANITIZE_SHARDS:-1}
    for ((i = 0; i < shards; ++i)); do
      NVSHM_TEST_GRAPH_REPLAYS=2 GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout "$limit" "$BUILD/bin/nvshmrun" -n 2 --timeout $((limit - 10)) \
        compute-sanitizer --tool "$1" --report-api-errors no --error-exitcode 99 "$BUILD/$2" ${3:+--gtest_filter=$3} \
        >"$OUT/sanitizer-shard$i.log" 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do
      wait "${pids[$i]}" || rc=$?
      cat "$OUT/sanitizer-shard$i.log" >>"$OUT/sanitizer.log" && rm -f "$OUT/sanitizer-shard$i.log"
    done
    row "  $1 $(basename "$2")${3:+ (6 pairs)}${NVSHMEM_REDUCE_ONE_SHOT_MAX:+ one-shot max $NVSHMEM_REDUCE_ONE_SHOT_MAX}" \
      "$([ $rc = 0 ] && echo 'no errors' || echo "rc=$rc")"
  }
  # The 138 reduction pairs take about 40 s natively, too long under memcheck: one pair per op
  # family and translation unit (every path of every scope and the stream), in both one-shot limits.
  reduce_pairs='CollReduce.int32_and:CollReduce.uchar_xor:CollReduce.float_min:CollReduce.double_max:CollReduce.half_sum:CollReduce.int64_prod'
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    for t in ${sanitize_list:-tests/gpu/test_device_api tests/gpu/test_device_rdc tests/gpu/test_device_p2p \
             tests/gpu/test_device_coll tests/gpu/test_device_coll_reduce tests/gpu/test_device_tile tests/cpp/test_cpp_gpu examples/ring}; do
      [ -x "$BUILD/$t" ] || continue
      if [ "$t" = tests/gpu/test_device_coll_reduce ]; then
        sanitize $tool "$t" "$reduce_pairs"
        NVSHMEM_REDUCE_ONE_SHOT_MAX=64k sanitize $tool "$t" "$reduce_pairs"
      else
        sanitize $tool "$t"
      fi
    done
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | sort | uniq -c
fi

# The Rust crate's tests (contrib/nvshmem4rust): the test binary is built where cargo is (this machine
# has none) and carried as ./nvshmem4rust-host-test; it opens this build's libnvshmem_host.so.
if [ -x nvshmem4rust-host-test ]; then
  echo "== nvshmem4rust tests"
  NVSHMEM_HOST_LIB_PATH=$PWD/$BUILD/lib/libnvshmem_host.so timeout 200 "$BUILD/bin/nvshmrun" -n 2 --timeout 180 \
    ./nvshmem4rust-host-test --test-threads=1 >"$OUT/rust.log" 2>&1
  row nvshmem4rust "rc=$? ($(grep -c 'test result: ok' "$OUT/rust.log") of 2 PEs ok)"
fi

if [ -x tools/api-coverage.sh ]; then
  echo "== API coverage against NVIDIA's headers"
  tools/api-coverage.sh -b "$BUILD" >"$OUT/coverage.txt" 2>&1
  row api-coverage "rc=$? (coverage.txt)"
  tail -15 "$OUT/coverage.txt"
fi

if [ -n "$perf_tests" ]; then
  echo "== perftests against NVIDIA NVSHMEM"
  PERF_OUT="$OUT/perf.txt" tools/perf-compare.sh "$BUILD" "${PERF_RUNS:-5}" $perf_tests >"$OUT/perf.log" 2>&1
  row perf-compare "rc=$? (perf.txt)"
  cat "$OUT/perf.txt" 2>/dev/null || tail -30 "$OUT/perf.log"
fi

echo "== summary"
printf '%s\n' "${rows[@]}"
