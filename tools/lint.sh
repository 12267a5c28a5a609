#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The source gates of CI (docs/style.md, "Gates"), each on its own so that CI can time them:
#   tools/lint.sh format [--fix]    clang-format (the pinned .clang-format) on every tracked C, C++ and CUDA
#                                   source: lists the files it would change and fails; --fix changes them
#   tools/lint.sh shellcheck        shellcheck (settings in .shellcheckrc) on every tracked shell script
#   tools/lint.sh tidy BUILD_DIR    clang-tidy (.clang-tidy) on the host C++ of the runtime's lower layers,
#                                   with BUILD_DIR's compile_commands.json
# The tools are Debian 12's (clang-format 14, shellcheck 0.9, clang-tidy 14; tools/setup.sh --all installs
# them): another version formats differently, so the check is only as stable as the version is pinned.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang-tidy's files: the host-only layers (common, bootstrap, heap, team) and the launcher, about a
# third of the runtime's host C++; the rest is the C entry points over them and the CUDA units, which
# clang-tidy would parse as CUDA (nvcc's command lines). Cost in docs/style.md.
tidy_files=(src/common/*.cpp src/bootstrap/*.cpp src/heap/*.cpp src/team/*.cpp launcher/nvshmrun.cpp)

case "${1:-}" in
  format)
    mapfile -d '' files < <(git ls-files -z '*.c' '*.cpp' '*.h' '*.hpp' '*.cu' '*.cuh')
    if [ "${2:-}" = --fix ]; then
      clang-format -i "${files[@]}"
    elif ! clang-format --dry-run --Werror "${files[@]}" 2>/dev/null; then
      echo "lint: clang-format would change these files (tools/lint.sh format --fix changes them):" >&2
      for f in "${files[@]}"; do
        clang-format "$f" | cmp -s - "$f" || echo "  $f" >&2
      done
      exit 1
    fi
    ;;
  shellcheck)
    mapfile -t scripts < <(git ls-files | while IFS= read -r f; do
      case "${f##*/}" in
        *.sh) echo "$f" ;;
        *.*) ;;
        *) head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' && echo "$f" ;;
      esac
    done)
    shellcheck "${scripts[@]}"
    ;;
  tidy)
    build=${2:?tools/lint.sh tidy BUILD_DIR (a configured build folder: its compile_commands.json)}
    printf '%s\0' "${tidy_files[@]}" | xargs -0 -n 1 -P "$(nproc)" clang-tidy -p "$build" --quiet
    ;;
  *)
    awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0" >&2
    exit 2
    ;;
esac
