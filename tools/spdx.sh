#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The licence line of every source file (LICENSE, docs/licence.md): adds
# "SPDX-License-Identifier: BSD-3-Clause" in the file's comment style where it is missing (after a
# shebang line), or with --check lists the files without it and exits 1.
#   tools/spdx.sh [--check] [SOURCE_DIR]
set -euo pipefail
check=0
[ "${1:-}" = --check ] && check=1 && shift
cd "${1:-$(dirname "$0")/..}"
tag="SPDX-License-Identifier: BSD-3-Clause"

# The tracked files (a clean clone), or every file outside build folders (an unpacked source tree).
if [ -d .git ] || [ -f .git ]; then
  files=$(git ls-files)
else
  files=$(find . -path './build*' -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi

missing=()
while IFS= read -r f; do
  case "$f" in
    *.h | *.h.in) open='/* ' close=' */' ;;
    *.c | *.cpp | *.cu | *.hpp | *.cuh | *.rs | *.def | *.cu.in) open='// ' close='' ;;
    *.sh | .ci/run | CMakeLists.txt | *.cmake | *.cmake.in | *.pc.in | *.toml | *.py) open='# ' close='' ;;
    *) continue ;;
  esac
  head -n 3 "$f" | grep -q "$tag" && continue
  if [ "$check" = 1 ]; then
    missing+=("$f")
  elif head -n 1 "$f" | grep -q '^#!'; then
    sed -i "1a ${open}${tag}${close}" "$f"
  else
    sed -i "1i ${open}${tag}${close}" "$f"
  fi
done <<<"$files"

if [ ${#missing[@]} -gt 0 ]; then
  echo "spdx: no '$tag' in the first 3 lines of:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "spdx: tools/spdx.sh adds it" >&2
  exit 1
fi
