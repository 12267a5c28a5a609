#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's command blocks, run as a reader would run them (CTest unit.readme). Every ```sh block
# of README.md is preceded by a marker line saying what this test does with it:
#   <!-- readme-test: run -->            run here, in a scratch folder holding include/, examples/ and
#                                        build/ (links to this source and build tree)
#   <!-- readme-test: gpu -->            run only where a GPU is visible
#   <!-- readme-test: skip, REASON -->   not run (REASON says what runs it instead)
# A block without a marker fails the test, so a new block is classified when it is written.
#   readme_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then gpu=1; fi

work=$(mktemp -d /tmp/readme-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
# One file per block: blocks/N.KIND holds the commands (the block's indentation removed).
mkdir "$work/blocks"
awk -v out="$work/blocks" '
  /^ *```sh *$/ {
    if (marker == "") { printf "line %d: a sh block without a readme-test marker\n", NR > "/dev/stderr"; bad = 1 }
    n++; file = out "/" n "." (marker == "" ? "none" : marker); indent = index($0, "`") - 1; inblock = 1
    marker = ""; next
  }
  inblock && /^ *``` *$/ { inblock = 0; next }
  inblock { print substr($0, indent + 1) > file; next }
  /^ *<!-- readme-test: / { split($3, w, ","); marker = w[1]; next }
  /[^ ]/ { marker = "" }
  END { exit bad }
' "$src/README.md"

ran=0
for f in "$work"/blocks/*; do
  kind=${f##*.}
  case "$kind" in
    run) ;;
    gpu) [ "$gpu" = 1 ] || { echo "readme: block $(basename "$f") needs a GPU; not run"; continue; } ;;
    skip) continue ;;
    *) echo "readme: block $(basename "$f"): unknown marker '$kind'" >&2; exit 1 ;;
  esac
  dir="$work/run-$(basename "$f")"
  mkdir "$dir"
  ln -s "$src/include" "$dir/include"
  ln -s "$src/examples" "$dir/examples"
  ln -s "$build" "$dir/build"
  echo "readme: running block $(basename "$f"):"
  sed 's/^/  | /' "$f"
  if ! (cd "$dir" && bash -euo pipefail "$f"); then
    echo "readme: block $(basename "$f") failed" >&2
    exit 1
  fi
  ran=$((ran + 1))
done
echo "readme: $ran blocks ran"
