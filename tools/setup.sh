#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's first command: on a Debian/Ubuntu machine with the CUDA toolkit, installs the Debian
# packages the build needs (as root, or through sudo; otherwise prints the apt-get line and stops),
# configures BUILD_DIR, builds the libraries, nvshmrun, nvshmem-info and the examples (CMake target
# `demo`, no tests or perftests) and runs the demo (tools/demo.sh).
#   tools/setup.sh [--all] [--packages-only] [--dry-run] [-h] [BUILD_DIR]   (BUILD_DIR: build)
# --all also installs the packages of the optional parts, whose tests skip without them: UCX (PEs on
#   other nodes), OpenMPI and PMIx, MPICH's hydra, Slurm, abigail (ABI check), cargo, rustc and
#   Debian's libc and libloading crates (Rust crate), Python's headers, pybind11, DLPack, numpy,
#   pytest, mpi4py, pip, venv, setuptools and wheel (contrib/nvshmem4py), matplotlib (the plot
#   script's test), and the tools of CI's source gates (clang-format, clang-tidy, shellcheck:
#   tools/lint.sh). .ci/run uses --all.
# --packages-only stops after the packages.
# --dry-run prints the apt-get line for the missing packages and the build commands, and changes nothing.
# Extra configure options: NVSHMEM_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

required=(cmake ninja-build g++ pkg-config libgtest-dev libcli11-dev python3)
optional=(libucx-dev libopenmpi-dev openmpi-bin libpmix-dev mpich libmpich-dev abigail-tools cargo rustc librust-libc-dev
  librust-libloading-dev slurmctld slurmd slurm-client python3-matplotlib clang-format clang-tidy shellcheck
  python3-dev pybind11-dev libdlpack-dev python3-numpy python3-pytest python3-mpi4py python3-pip python3-venv
  python3-setuptools python3-wheel)
packages=("${required[@]}")
packages_only=0
dry_run=0
build=build
for arg in "$@"; do
  case "$arg" in
    --all) packages+=("${optional[@]}") ;;
    --packages-only) packages_only=1 ;;
    --dry-run) dry_run=1 ;;
    -h | --help)
      awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"
      exit 0
      ;;
    -*)
      echo "setup: unknown option $arg (tools/setup.sh --help)" >&2
      exit 2
      ;;
    *) build=$arg ;;
  esac
done
start=$(date +%s)

# The Debian packages not installed yet.
if command -v dpkg-query >/dev/null; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  install=(apt-get install -y --no-install-recommends "${missing[@]}")
  if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: the Debian packages it needs are installed"
  elif [ "$dry_run" = 1 ]; then
    echo "setup: would run (as root): apt-get update && ${install[*]}"
  else
    if [ "$(id -u)" = 0 ]; then
      sudo=()
    elif command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "setup: these Debian packages are missing; as root run:" >&2
      echo "  apt-get update && ${install[*]}" >&2
      exit 1
    fi
    echo "setup: installing ${missing[*]}"
    if ! { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" "${install[@]}" -qq; }; then
      echo "setup: installing the packages failed; as root run:" >&2
      echo "  apt-get update && ${install[*]}" >&2
      exit 1
    fi
  fi
else
  echo "setup: no dpkg here: install the equivalents of ${packages[*]} yourself; configuring anyway" >&2
fi
[ "$packages_only" = 1 ] && exit 0
# shellcheck disable=SC2206  # NVSHMEM_CMAKE_ARGS is a list of options
configure=(cmake -S . -B "$build" -G Ninja ${NVSHMEM_CMAKE_ARGS:-})
build_demo=(cmake --build "$build" --target demo)
if [ "$dry_run" = 1 ]; then
  echo "setup: would run: ${configure[*]} && ${build_demo[*]}"
  exit 0
fi

# The CUDA toolkit is NVIDIA's (not a Debian package of the right version): on PATH or in /usr/local/cuda.
if ! command -v nvcc >/dev/null; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
  else
    echo "setup: nvcc not found: install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads)" >&2
    echo "  and put its bin/ on PATH, e.g. export PATH=/usr/local/cuda/bin:\$PATH" >&2
    exit 1
  fi
fi

"${configure[@]}"
"${build_demo[@]}"
echo "setup: done in $(($(date +%s) - start)) s; run the tests with the README's second command"
