#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The GPU check: build, run every test (GPU tests with 2 PEs), compute-sanitizer (memcheck, then
# racecheck, on every GPU test binary; CUDA API errors are not reported, because
# the library probes pointers with calls that fail by design, e.g. cuPointerGetAttribute on memory
# that is not VMM), the API coverage against NVIDIA's headers,
# and the perftests side by side with NVIDIA's NVSHMEM; prints a short table at the end.
# Run on the GPU machine from the repository root:
#   GIT_COMMIT=<hash> tools/gpu-check.sh [--no-build] [--no-tests] [--ctest-regex RE] [--no-sanitizer] [--sanitize BINARIES]
#                                        [--no-coverage] [--targets TARGETS] [--perf TESTS] [--python]
#                                        [--remote-perf] [--mps] [--groups "RE ..."]
# --perf TESTS: perftests for tools/perf-compare.py ("all", "coll", "devcoll", or names); none by default;
#   PERF_RUNS=<n> program runs per test and size (default 5); PERF_BUDGET_S, PERF_NCCL etc. pass through;
#   PERF_BASELINE=<machine kind> (e.g. nvidia-h200-x2) checks the ratios against perftest/baselines/<kind>.json
#   (row perf-compare rc=3: a regression, named at the end of perf.txt).
#   PERF_BEFORE=<source tree> (e.g. .baseline, an export of an older commit carried with the call) also
#   builds that tree's perftests of TESTS in build-before, meanwhile, and runs them as column "before".
#   A tree whose perftests write no JSON lines (8c5c014) leaves that column empty: overlay this tree's
#   perftest/ on it first (rm -rf .baseline/perftest && cp -r perftest .baseline/), which also puts both
#   libraries under one harness (shmem_put_bw and shmem_put_latency build so against 8c5c014's library).
#   PERF_BUILDS="label:dir;..." runs other builds of ours beside them (carried; perf-compare.py's variable).
#   A cold machine builds NVIDIA's programs, ours and the older tree's at once: give TESTS few names,
#   or make the call that builds them (with --no-tests) apart from the one that runs them.
# --no-coverage: skip tools/api-coverage.sh (a perf-only call).
# --no-build: use $BUILD as it is (a build made elsewhere for sm_90 at this machine's path and carried, which saves
#   the call its build; ctest's files name the build's absolute paths). E.g. on the CPU machine, in build/:
#   { find . -name CTestTestfile.cmake; ls bin/* lib/* include/*; find tests/gpu -maxdepth 1 -type f \
#     \( -executable -o -name '*.cubin' \); ls tests/cpp/test_cpp_gpu; find perftest examples -type f -executable; } \
#     | sed 's|^\./||; s|^|build/|' >list; (cd .. && tar cf - -T build/list | xz -T2 >build-carry/build.tar.xz)
#   (17 MB, git-ignored; include/ holds the generated nvshmem_version.h, which cpp.gpu.2pe's NVRTC compile reads
#   at run time); carry it and start the call with `tar xJf build-carry/build.tar.xz`, then
#   BUILD=build tools/gpu-check.sh --no-build ...
# --targets TARGETS: build only these CMake targets (default: everything) for a short call.
# --ctest-regex RE: only the tests that match (e.g. '^(gpu\.|cpp\.gpu|cpp\.example)', the 14 GPU tests).
# --sanitize BINARIES: memcheck and racecheck only these test binaries (paths under the build, e.g.
#   tests/gpu/test_device_coll); default: every GPU test binary, all of one tool at once. SANITIZE_SHARDS=<n>
#   runs each test binary as n gtest shards at once (default 6 for test_device_coll, whose racecheck
#   takes about 75 s so, 2-28 s a test; 3 for test_device_p2p and test_device_api; 1 for the others);
#   SANITIZE_TIMEOUT_S the limit per run (default 300); SANITIZE_TOOLS="racecheck" runs one tool only. Every job
#   at once (about 20 jobs of 2 PEs by default) fits an H200's memory but not an H100's 80 GB (memcheck's inits then fail
#   "out of memory"): there, sanitize the binaries in two or three --sanitize lists (session 40).
#   Under the sanitizer the collective tests replay each captured graph twice instead of 100 times
#   (NVSHM_TEST_GRAPH_REPLAYS=2): every replay runs the same code.
# --python: contrib/nvshmem4py built against this build's install with the machine's python3 (Python.h from
#   its sysconfig; pybind11 and DLPack from a carried .pybind11 folder, tools/py-bundle.sh), then its GPU tests
#   (tests/gpu_main.py: CuPy and torch, 2 PEs) and tests/example_nvshmem4py.py, one row each; a row says why
#   where python3, Python.h, the bundle, cupy, torch or a GPU is missing.
# --groups "RE1 RE2 ...": instead of one ctest of --ctest-regex, one ctest per regular expression (its tests one
#   at a time, in ctest's order), all the groups at once (the forced-remote and cliques suites are RUN_SERIAL and
#   take minutes each; under --mps their PEs share the GPU), verbose (a hung test shows where), each test limited
#   to GROUP_TIMEOUT_S (default 900);
#   the tests labelled mps_unsafe that a group matches then run after, as without it. Keep a suite whose kernels
#   need the whole GPU resident at once (test_device_api's DeviceLaunch) out of a group beside others, and the
#   forced-remote and cliques suites apart from each other (a target applies remote atomics with a kernel, which
#   the other suites' waiting kernels can starve: docs/remote.md, "Room for the atomics of remote PEs").
# --mps: the tests and --remote-perf run under a CUDA MPS daemon of this call (pipe and log folders of its
#   own under /tmp, stopped at the end; not the sanitizer, the perftests or the tests labelled mps_unsafe, which
#   run after a pause of the daemon): two PEs' kernels on the one GPU then run side by
#   side instead of in time slices of their contexts, which is what a proxied remote operation between them
#   waits on otherwise (2.39 ms for a device put + quiet without it, 35 us with it; docs/proxy.md, "State").
# --remote-perf: the device API through the host proxy beside raw UCX (tools/remote-perf.sh BUILD device:
#   forced remote, UCX over TCP loopback, issue 27's goals), then the host API on the same GPU heap (gpu-heap:
#   the staged path without the proxy); REMOTE_PERF_REPEAT passes through. Needs the
#   perftests and nvshmrun built (the default targets, or name them in --targets).
# A .ucx folder (tools/ucx-bundle.sh, carried) gives a machine without UCX the remote engine and its tests.
# Pass GIT_COMMIT where the tree has no .git (the device machine). Logs go to $OUT (or ./gpu-check-out).
set -uo pipefail
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
run_build=1
run_tests=1
run_sanitizer=1
run_coverage=1
run_python=0
run_remote_perf=0
use_mps=0
groups=()
perf_tests=""
targets=()
sanitize_list=""
ctest_regex=""
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) run_build=0 ;;
    --no-tests) run_tests=0 ;;
    --no-sanitizer) run_sanitizer=0 ;;
    --no-coverage) run_coverage=0 ;;
    --python) run_python=1 ;;
    --remote-perf) run_remote_perf=1 ;;
    --mps) use_mps=1 ;;
    --groups) read -ra groups <<<"$2"; shift ;;
    --perf) perf_tests=$2; shift ;;
    --targets) read -ra targets <<<"$2"; shift ;;
    --sanitize) sanitize_list=$2; shift ;;
    --ctest-regex) ctest_regex=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
read -ra perf_list <<<"$perf_tests"
declare -a rows
row() { rows+=("$(printf '%-34s %s' "$1" "$2")"); }

exec > >(tee "$OUT/gpu-check.log") 2>&1
echo "== machine"; nvidia-smi -L
echo "commit ${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

echo "== build"
start=$(date +%s)
mkdir -p "$BUILD"
# NVIDIA's perftest programs build meanwhile (nvcc, minutes), kept in $BUILD/nv-cache for later calls.
nv_cache=$(cd "$BUILD" && pwd)/nv-cache
if [ -n "$perf_tests" ]; then
  PERF_NV_BUILD_ONLY=1 PERF_NV_CACHE=$nv_cache tools/perf-compare.py "$BUILD" 1 "${perf_list[@]}" \
    >"$OUT/nvidia-build.log" 2>&1 &
  nv_build=$!
  # The perftests' CMake targets: perf_host_<test> for the on-stream ones, perf_device_<test> for the
  # others; a group name (all, coll, devcoll) builds every perftest. --targets gets them too.
  perf_targets=nvshmrun
  for t in "${perf_list[@]}"; do
    case $t in
      all | coll | devcoll) perf_targets+=" perftest/all" ;;
      *_on_stream | lat | bw) perf_targets+=" perf_host_$t" ;;
      *) perf_targets+=" perf_device_$t" ;;
    esac
  done
  if [ ${#targets[@]} -gt 0 ]; then read -ra more <<<"$perf_targets" && targets+=("${more[@]}"); fi
  if [ -n "${PERF_BEFORE:-}" ]; then
    # shellcheck disable=SC2086 # perf_targets is a list of target names
    (cmake -S "$PERF_BEFORE" -B build-before -G Ninja -DCMAKE_BUILD_TYPE=Release &&
      cmake --build build-before -j "$(($(nproc) / 2))" --target $perf_targets) >"$OUT/before-build.log" 2>&1 &
    before_build=$!
  fi
fi
ucx_args=()
if [ -d .ucx ]; then  # tools/ucx-bundle.sh's copy of UCX, carried from a machine that has it
  # ...and its libraries for perftest/host/remote/ucx_raw, which links them (the bundle has no .so links)
  ucx_args=(-DNVSHMEM_UCX_INCLUDE_DIR="$PWD/.ucx/include" -DNVSHMEM_UCP_LIBRARY="$PWD/.ucx/lib/libucp.so.0"
    -DNVSHMEM_UCS_LIBRARY="$PWD/.ucx/lib/libucs.so.0")
  export LD_LIBRARY_PATH="$PWD/.ucx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ $run_build = 0 ]; then
  row build "skipped (--no-build: $BUILD as it is)"
elif cmake --preset gpu -B "$BUILD" "${ucx_args[@]}" >"$OUT/configure.log" 2>&1 &&
   cmake --build "$BUILD" -j "$(nproc)" ${targets[@]:+--target "${targets[@]}"} >"$OUT/build.log" 2>&1; then
  row build "ok ($(( $(date +%s) - start )) s)"
else
  tail -40 "$OUT/configure.log" "$OUT/build.log"; row build FAILED
  printf '%s\n' "${rows[@]}"; exit 1
fi

mps_env=()  # with --mps: the environment of the MPS daemon's clients (the tests and the remote perf)
if [ $use_mps = 1 ]; then
  mps_env=(CUDA_MPS_PIPE_DIRECTORY=/tmp/nvshm-mps.$$/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/nvshm-mps.$$/log)
  mkdir -p /tmp/nvshm-mps.$$/pipe /tmp/nvshm-mps.$$/log
  if env "${mps_env[@]}" nvidia-cuda-mps-control -d; then
    trap 'echo quit | env "${mps_env[@]}" nvidia-cuda-mps-control; rm -rf /tmp/nvshm-mps.$$' EXIT
    row mps "daemon started (the tests and the remote perf run under it)"
  else
    row mps "nvidia-cuda-mps-control -d failed: running without MPS"
    mps_env=()
  fi
fi

if [ $run_tests = 1 ]; then
  echo "== ctest"
  if [ ${#groups[@]} -gt 0 ]; then  # one serial ctest per group, the groups at once
    group_pids=()
    for i in "${!groups[@]}"; do
      (cd "$BUILD" && env "${mps_env[@]}" ctest -V --timeout "${GROUP_TIMEOUT_S:-900}" \
         ${mps_env[0]:+-LE mps_unsafe} -R "${groups[$i]}") >"$OUT/ctest-group$i.log" 2>&1 &
      group_pids+=($!)
    done
    wait "${group_pids[@]}"  # by pid: a bare wait would also wait for the tee of this script's output
    cat "$OUT"/ctest-group*.log >"$OUT/ctest.log" 2>/dev/null && rm -f "$OUT"/ctest-group*.log
    ctest_regex=$(IFS='|' && echo "${groups[*]}")  # for the mps_unsafe ones below
  else
    (cd "$BUILD" && env "${mps_env[@]}" ctest --output-on-failure -j 2 --timeout 300 ${mps_env[0]:+-LE mps_unsafe} \
      ${ctest_regex:+-R "$ctest_regex"}) >"$OUT/ctest.log" 2>&1
  fi
  if [ ${#mps_env[@]} -gt 0 ]; then  # the tests labelled mps_unsafe (their PEs exit mid-kernel) without the daemon
    echo quit | env "${mps_env[@]}" nvidia-cuda-mps-control
    (cd "$BUILD" && ctest --output-on-failure --timeout 300 -L mps_unsafe ${ctest_regex:+-R "$ctest_regex"}) \
      >>"$OUT/ctest.log" 2>&1
    if [ $run_remote_perf = 1 ]; then env "${mps_env[@]}" nvidia-cuda-mps-control -d || mps_env=(); fi
  fi
  grep -E "tests passed|\(Failed\)|\(Timeout\)|\*\*\*Failed|\*\*\*Timeout" "$OUT/ctest.log" | tail -25
  row ctest "$(grep -E 'tests passed' "$OUT/ctest.log" | paste -sd ';' | grep . || echo 'did not finish')"
  row "  gpu tests passed" "$(grep -cE 'Test +#[0-9]+: (gpu|cpp\.gpu|cpp\.example)\..* Passed' "$OUT/ctest.log")"
  row "  gpu tests skipped" "$(grep -cE 'Test +#[0-9]+: (gpu|cpp\.gpu)\..*Skipped' "$OUT/ctest.log")"
fi

if [ $run_sanitizer = 1 ]; then
  echo "== compute-sanitizer"
  : >"$OUT/sanitizer.log"
  # One job: a test binary (or a gtest filter of it) as `shards` gtest shards, each its own 2-PE run
  # under the tool, logs in $OUT/san-<name>.<shard>.log. Every job of a tool runs at once (the GPUs
  # have the memory; a sanitized run is mostly host time), then each is summarised.
  declare -a job_pids=() job_names=()
  sanitize_job() {  # tool name shards binary [gtest filter]
    local tool=$1 name=$2 shards=$3 bin=$4 filter=${5:-} limit=${SANITIZE_TIMEOUT_S:-300} i
    for ((i = 0; i < shards; ++i)); do
      NVSHM_TEST_GRAPH_REPLAYS=2 GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout "$limit" \
        "$BUILD/bin/nvshmrun" -n 2 --timeout $((limit - 10)) \
        compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 99 "$BUILD/$bin" ${filter:+--gtest_filter=$filter} \
        >"$OUT/san-$name.$i.log" 2>&1 &
      job_pids+=($!)
      job_names+=("$name")
    done
  }
  summarise_jobs() {  # tool
    local -A rc=()
    local i n
    for i in "${!job_pids[@]}"; do
      n=${job_names[$i]}
      wait "${job_pids[$i]}" || rc[$n]=$?
      : "${rc[$n]:=0}"
    done
    for n in $(printf '%s\n' "${job_names[@]}" | uniq); do
      row "  $1 $n" "$([ "${rc[$n]}" = 0 ] && echo 'no errors' || echo "rc=${rc[$n]}"), \
$(cat "$OUT"/san-"$n".*.log | grep -c '^\[       OK \]') test runs ok, $(cat "$OUT"/san-"$n".*.log | grep -c '^\[  FAILED  \]') failed"
      cat "$OUT"/san-"$n".*.log >>"$OUT/sanitizer.log" && rm -f "$OUT"/san-"$n".*.log
    done
    job_pids=() job_names=()
  }
  # The 138 reduction pairs take about 40 s natively, too long under memcheck: one pair per op
  # family and translation unit (every path of every scope and the stream), in both one-shot limits.
  reduce_pairs='CollReduce.uint_and:CollReduce.uchar_xor:CollReduce.float_min:CollReduce.double_max:CollReduce.half_sum:CollReduce.ulong_prod'
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    tool_start=$(date +%s)
    for t in ${sanitize_list:-tests/gpu/test_device_api tests/gpu/test_device_rdc tests/gpu/test_device_p2p \
             tests/gpu/test_device_coll tests/gpu/test_device_coll_reduce tests/gpu/test_device_tile tests/gpu/test_device_tma \
             tests/cpp/test_cpp_gpu examples/ring}; do
      [ -x "$BUILD/$t" ] || continue
      # Shards: the largest binaries split (test_device_coll: 28 tests of 2-28 s under racecheck).
      case $t in
        tests/gpu/test_device_coll) shards=${SANITIZE_SHARDS:-6} ;;
        tests/gpu/test_device_p2p | tests/gpu/test_device_api) shards=${SANITIZE_SHARDS:-3} ;;
        tests/*) shards=${SANITIZE_SHARDS:-1} ;;
        *) shards=1 ;;
      esac
      if [ "$t" = tests/gpu/test_device_coll_reduce ]; then
        sanitize_job "$tool" "$(basename "$t")-6-pairs" 3 "$t" "$reduce_pairs"
        NVSHMEM_REDUCE_ONE_SHOT_MAX=64k sanitize_job "$tool" "$(basename "$t")-6-pairs-one-shot-max-64k" 3 "$t" "$reduce_pairs"
      else
        sanitize_job "$tool" "$(basename "$t")" "$shards" "$t"
      fi
    done
    summarise_jobs "$tool"
    row "  $tool, every job" "$(($(date +%s) - tool_start)) s"
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | sort | uniq -c
fi

# The Rust crate's tests (contrib/nvshmem4rust): the test binaries are built where cargo is (this
# machine has none) and carried as ./nvshmem4rust-host-test and, from a build configured with
# NVSHMEM_CUDA_OXIDE_ROOT, ./nvshmem4rust-cuda-oxide-test; the loader links this build's
# libnvshmem_host.so. The module tests load a cubin built here from contrib/nvshmem4rust/tests/module_kernel.cu.
for rust_test in nvshmem4rust-host-test nvshmem4rust-cuda-oxide-test; do
  [ -x $rust_test ] || continue
  echo "== $rust_test"
  "$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")" -cubin -std=c++17 -arch=sm_90 -Iinclude \
    -I"$BUILD/include" contrib/nvshmem4rust/tests/module_kernel.cu -o "$OUT/nvshmem4rust_module.cubin"
  NVSHM_RUST_TEST_CUBIN=$OUT/nvshmem4rust_module.cubin \
    LD_LIBRARY_PATH=$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 200 "$BUILD/bin/nvshmrun" -n 2 --timeout 180 \
    ./$rust_test --test-threads=1 >"$OUT/$rust_test.log" 2>&1
  row $rust_test "rc=$? ($(grep -c 'test result: ok' "$OUT/$rust_test.log") of 2 PEs ok)"
done

# nvshmem4py (contrib/nvshmem4py) with this machine's python3, against this build installed under $BUILD/install.
python_rows() {
  local py pkg=$BUILD/nvshmem4py part rc what
  py=$(command -v python3) || { row nvshmem4py "skipped: no python3 on PATH"; return; }
  if ! "$py" -c 'import os, sysconfig; assert os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h"))' 2>/dev/null; then
    row nvshmem4py "skipped: $py has no Python.h (sysconfig include path)"; return
  fi
  if [ ! -f .pybind11/include/pybind11/pybind11.h ] || [ ! -f .pybind11/include/dlpack/dlpack.h ]; then
    row nvshmem4py "skipped: no .pybind11 bundle (run tools/py-bundle.sh where pybind11-dev is, carry .pybind11)"; return
  fi
  # The library component alone: a call with --targets has not built every perftest and example.
  if ! { cmake --build "$BUILD" --target nvshmem_host nvshmem_device nvshmrun nvshmem-info &&
         cmake --install "$BUILD" --prefix "$PWD/$BUILD/install" --component library &&
         cmake -S contrib/nvshmem4py -B "$pkg" -G Ninja -DCMAKE_PREFIX_PATH="$PWD/$BUILD/install;$PWD/.pybind11" \
           -DPython_EXECUTABLE="$py" -DNVSHMEM4PY_TESTS=OFF &&
         cmake --build "$pkg"; } >"$OUT/nvshmem4py-build.log" 2>&1; then
    tail -20 "$OUT/nvshmem4py-build.log"; row nvshmem4py "build FAILED (nvshmem4py-build.log)"; return
  fi
  for part in tests example; do
    PYTHONPATH=$PWD/$pkg/python NVSHMEM_HEAP_KIND=DEVICE NVSHMEM_SYMMETRIC_SIZE=256m timeout 300 \
      "$py" contrib/nvshmem4py/tests/gpu_main.py "$PWD/$BUILD/install/bin/nvshmrun" $part >"$OUT/nvshmem4py-$part.log" 2>&1
    rc=$?
    case $rc in
      0) if [ $part = tests ]; then what=$(grep -Eo '[0-9]+ passed' "$OUT/nvshmem4py-$part.log" | tail -1)
         else what="$(grep -c 'example OK' "$OUT/nvshmem4py-$part.log") of 2 PEs"; fi
         row "nvshmem4py $part" "ok ($what)" ;;
      77) row "nvshmem4py $part" "$(grep -o 'skipped: .*' "$OUT/nvshmem4py-$part.log" | head -1)" ;;
      *) tail -20 "$OUT/nvshmem4py-$part.log"; row "nvshmem4py $part" "rc=$rc (nvshmem4py-$part.log)" ;;
    esac
  done
}
if [ $run_python = 1 ]; then
  echo "== nvshmem4py (contrib/nvshmem4py)"
  python_rows
fi

if [ $run_coverage = 1 ]; then
  echo "== API coverage against NVIDIA's headers"
  tools/api-coverage.sh -b "$BUILD" >"$OUT/coverage.txt" 2>&1
  row api-coverage "rc=$? (coverage.txt)"
  tail -15 "$OUT/coverage.txt"
fi

if [ -n "$perf_tests" ]; then
  echo "== perftests against NVIDIA NVSHMEM"
  wait "$nv_build" || tail -20 "$OUT/nvidia-build.log"
  perf_builds=${PERF_BUILDS:-}  # other builds of ours, carried (perf-compare.py's PERF_BUILDS)
  if [ -n "${PERF_BEFORE:-}" ]; then
    if wait "$before_build"; then
      perf_builds+="${perf_builds:+;}before:$PWD/build-before"
    else
      tail -20 "$OUT/before-build.log"
    fi
  fi
  PERF_BUILDS=$perf_builds PERF_NV_CACHE=$nv_cache PERF_OUT="$OUT/perf.txt" \
    tools/perf-compare.py "$BUILD" "${PERF_RUNS:-5}" "${perf_list[@]}" >"$OUT/perf.log" 2>&1
  row perf-compare "rc=$? (perf.txt)"
  cat "$OUT/perf.txt" 2>/dev/null || tail -30 "$OUT/perf.log"
fi

if [ $run_remote_perf = 1 ]; then
  echo "== device API through the proxy against raw UCX"
  env "${mps_env[@]}" tools/remote-perf.sh "$BUILD" device >"$OUT/remote-perf.txt" 2>&1
  row remote-perf "rc=$? (remote-perf.txt)"
  env "${mps_env[@]}" tools/remote-perf.sh "$BUILD" gpu-heap >>"$OUT/remote-perf.txt" 2>&1
  row "remote-perf gpu-heap" "rc=$? (remote-perf.txt)"
  grep -A7 -E '^(device|host).* vs raw UCX' "$OUT/remote-perf.txt" || tail -30 "$OUT/remote-perf.txt"
fi

echo "== summary"
printf '%s\n' "${rows[@]}"
