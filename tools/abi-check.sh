#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Compare the ABI exported by libnvshmem_host.so with the committed baseline (docs/versioning.md).
#   tools/abi-check.sh LIB            check: fails on a removed or changed exported function or variable;
#                                     added ones are compatible and pass (listed in the report)
#   tools/abi-check.sh --update LIB   rewrite the baseline from LIB: this is how an intentional change
#                                     is announced (commit the new baseline with the change)
# Needs Debian's abigail-tools (abidw, abidiff). Exit 77 (skipped) when they are missing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
baseline=${NVSHMEM_ABI_BASELINE:-$here/abi/libnvshmem_host.abi.xml}
update=0
if [[ ${1:-} == --update ]]; then
  update=1
  shift
fi
lib=${1:?usage: tools/abi-check.sh [--update] path/to/libnvshmem_host.so}
[[ -f $lib ]] || { echo "abi-check: no library at $lib" >&2; exit 2; }
if ! command -v abidw >/dev/null || ! command -v abidiff >/dev/null; then
  echo "abi-check: abidw/abidiff not found (apt-get install abigail-tools); skipped" >&2
  exit 77
fi

# The comparison needs the types, from DWARF: a build without -g (Release) cannot be checked.
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
  echo "abi-check: $lib has no debug information (build with RelWithDebInfo or Debug); skipped" >&2
  exit 77
fi

dump() { abidw --no-corpus-path --no-comp-dir-path --no-show-locs --drop-undefined-syms "$1" --out-file "$2"; }

if ((update)); then
  dump "$lib" "$baseline"
  echo "abi-check: baseline $baseline rewritten from $lib ($(grep -c '<elf-symbol' "$baseline") exported symbols)"
  exit 0
fi
[[ -f $baseline ]] || { echo "abi-check: no baseline at $baseline (tools/abi-check.sh --update LIB writes it)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dump "$lib" "$tmp/current.xml"
set +e
abidiff --no-show-locs "$baseline" "$tmp/current.xml" >"$tmp/report.txt" 2>&1
rc=$?
set -e
cat "$tmp/report.txt"
# abidiff's exit code is a bit set: 1 error, 2 usage error, 4 ABI change, 8 incompatible change.
if ((rc & 3)); then
  echo "abi-check: abidiff failed (exit $rc)" >&2
  exit 1
fi
# Anything but additions is a break: removed or changed functions and variables, and any incompatible
# change abidiff itself reports.
breaks=$(grep -E '^(Functions|Variables) changes summary:' "$tmp/report.txt" |
  grep -Ev ': 0 Removed[^,]*, 0 Changed' || true)
removed_syms=$(grep -E '^(Function|Variable) symbols changes summary:' "$tmp/report.txt" | grep -Ev ': 0 Removed' || true)
if ((rc & 8)) || [[ -n $breaks || -n $removed_syms ]]; then
  cat >&2 <<MSG
abi-check: FAILED: libnvshmem_host.so removes or changes exported functions or variables (report above).
  If the break is intended, announce it: bump the MAJOR version (docs/versioning.md), run
  tools/abi-check.sh --update $lib and commit abi/ with the change.
MSG
  exit 1
fi
if ((rc & 4)); then
  echo "abi-check: OK (compatible additions only; the baseline may be refreshed with --update)"
else
  echo "abi-check: OK (no ABI change)"
fi
