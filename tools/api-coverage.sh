#!/usr/bin/env bash
# Point-to-point API coverage: every nvshmem_/nvshmemx_ name of the RMA, signal, ordering,
# point-to-point synchronisation and atomic categories in a reference include tree (NVIDIA's
# NVSHMEM headers by default), classified for this project as
#   defined       declared in our headers, exported by our libnvshmem_host.so where the reference has
#                 a host interface, with an inline device definition where the reference has a
#                 device interface;
#   declared-only declared, but some interface is not defined;
#   missing       not declared by our headers.
# Names are read from the preprocessed headers (host pass: C++ without __CUDACC__; device pass: nvcc
# with __CUDA_ARCH__), so macro-generated families count; a name is a device interface when its
# declaration carries __device__.
#
# Usage: tools/api-coverage.sh [-b BUILD_DIR] [-v] [REFERENCE_INCLUDE_DIR]
#   REFERENCE_INCLUDE_DIR  default: NVIDIA's, from the nvidia.nvshmem Python package (GPU machine)
#   -b BUILD_DIR           our build tree (generated headers, lib/libnvshmem_host.so); default build-p2p
#                          or build, whichever exists. Without the library, host definitions are
#                          taken as given (reported as such).
#   -v                     list every missing and declared-only name (default: the first 40 each)
# Runs without a GPU (preprocessing only). Exit status 0; 1 when the inputs are unusable.
set -euo pipefail
cd "$(dirname "$0")/.."

build=""
verbose=0
while getopts "b:vh" opt; do
  case $opt in
    b) build=$OPTARG ;;
    v) verbose=1 ;;
    h) sed -n '2,22p' "$0"; exit 0 ;;
    *) exit 1 ;;
  esac
done
shift $((OPTIND - 1))
ref=${1:-}
if [[ -z $ref ]]; then
  ref="$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)/include" || true
fi
[[ -f $ref/nvshmem.h ]] || { echo "api-coverage: no nvshmem.h under '$ref'" >&2; exit 1; }
if [[ -z $build ]]; then
  for b in build-p2p build; do [[ -f $b/include/nvshmem_version.h ]] && { build=$b; break; }; done
fi
[[ -n $build && -f $build/include/nvshmem_version.h ]] || { echo "api-coverage: no configured build tree (-b)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <nvshmem.h>\n#include <nvshmemx.h>\n' > "$tmp/tu.cu"
cp "$tmp/tu.cu" "$tmp/tu.cpp"
arch=${NVSHMEM_CUDA_ARCH:-90}
# CCCL (cuda/std/...) lives in include/cccl from CUDA 13; add it for the host pass too.
cccl="$(dirname "$(readlink -f "$(command -v nvcc)")")/../include/cccl"
pp() {  # <out prefix> <include options...>
  local out=$1; shift
  [[ -d $cccl ]] && set -- "$@" -Xcompiler -idirafter -Xcompiler "$cccl"
  nvcc -E -x c++ -std=c++17 "$@" "$tmp/tu.cpp" -o "$out.host" 2> "$out.host.err" || {
    echo "api-coverage: host pass failed:" >&2; head -20 "$out.host.err" >&2; exit 1; }
  nvcc -E -x cu -std=c++17 -rdc=true -arch=sm_$arch "$@" "$tmp/tu.cu" -o "$out.dev" 2> "$out.dev.err" || {
    echo "api-coverage: device pass failed:" >&2; head -20 "$out.dev.err" >&2; exit 1; }
}
pp "$tmp/ref" -I"$ref" -Xcompiler -idirafter -Xcompiler "$build/include"  # our generated headers, for a reference tree of ours
pp "$tmp/ours" -Iinclude -I"$build/include"
lib="$build/lib/libnvshmem_host.so"
if [[ -f $lib ]]; then
  nm -D --defined-only "$lib" | awk '{print $3}' > "$tmp/exports"
else
  : > "$tmp/exports"
fi

python3 - "$tmp" "$ref" "$([[ -f $lib ]] && echo "$lib" || echo)" "$verbose" <<'EOF'
import re, sys
tmp, ref, lib, verbose = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
NAME = re.compile(r'\b(nvshmemx?_[A-Za-z0-9_]+)\s*\(')

def scan(text):
    """name -> (declared, device interface, device definition) from one preprocessed pass."""
    out = {}
    for m in NAME.finditer(text):
        name = m.group(1)
        # the statement this name belongs to: back to the previous ; { } or preprocessor line
        start = max(text.rfind(c, 0, m.start()) for c in ';{}#')
        head = text[start + 1:m.start()]
        bare = re.sub(r'__attribute__\s*\(\(.*?\)\)|__declspec\s*\(.*?\)', '', head)
        if '=' in bare or 'return' in bare or '(' in bare:
            continue  # a call or an expression, not a declaration
        dev = '__attribute__((device))' in head or '__device__' in head
        # a definition: the matching ')' is followed by '{'
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == '(':
                depth += 1
            elif text[i] == ')':
                depth -= 1
                if depth == 0:
                    break
            i += 1
        rest = text[i + 1:i + 200].lstrip()
        is_def = rest.startswith('{')
        d, dv, df = out.get(name, (False, False, False))
        out[name] = (True, dv or dev, df or (is_def and dev))
    return out

def load(prefix):
    host = scan(open(prefix + '.host').read())
    dev = scan(open(prefix + '.dev').read())
    return host, dev

ref_host, ref_dev = load(tmp + '/ref')
our_host, our_dev = load(tmp + '/ours')
exports = set(open(tmp + '/exports').read().split())

COLL = re.compile(r'alltoall|broadcast|fcollect|reduce|barrier|sync|team|tile|_qp_|collective|^nvshmemx?_mc_')
def category(name):
    if COLL.search(name):
        return None
    if '_atomic_' in name:
        return 'atomics'
    if re.search(r'wait_until|_test(_all|_any|_some)?(_vector)?$', name):
        return 'p2p sync'
    if 'signal' in name:
        return 'signal'
    if re.fullmatch(r'nvshmemx?_(quiet|fence)(_on_stream)?', name):
        return 'ordering'
    if re.search(r'(^|_)(i?put|i?get)(6|8|16|32|64|128)?(mem)?(_nbi)?(_warp|_block)?(_on_stream)?$', name) \
            or re.search(r'_(p|g)(_on_stream)?$', name):
        return 'rma'
    return None

ref_names = sorted(n for n in set(ref_host) | set(ref_dev) if category(n))
cats = ['rma', 'signal', 'ordering', 'p2p sync', 'atomics']
rows = {c: {'defined': [], 'declared-only': [], 'missing': []} for c in cats}
for n in ref_names:
    c = category(n)
    # A host definition is needed only where the reference declares a host interface (its
    # __device__-only declarations are visible in nvcc's host pass too).
    need_host = n in ref_host and not ref_host[n][1]
    need_dev = ref_dev.get(n, (False, False, False))[1]
    if n not in our_host and n not in our_dev:
        rows[c]['missing'].append(n)
        continue
    host_ok = not need_host or (n in exports if lib else n in our_host)
    dev_ok = not need_dev or our_dev.get(n, (False, False, False))[2]
    rows[c]['defined' if host_ok and dev_ok else 'declared-only'].append(n)

extra = sorted(n for n in set(our_host) | set(our_dev) if category(n) and n not in ref_host and n not in ref_dev)
print(f"reference: {ref}")
print(f"ours: include/ + build headers; host definitions from {lib or '(no library: host declarations taken as defined)'}")
print(f"{'category':<10} {'reference':>9} {'defined':>8} {'declared-only':>14} {'missing':>8} {'defined %':>9}")
tot = {'n': 0, 'defined': 0, 'declared-only': 0, 'missing': 0}
for c in cats:
    r = rows[c]
    n = sum(len(v) for v in r.values())
    tot['n'] += n
    for k in ('defined', 'declared-only', 'missing'):
        tot[k] += len(r[k])
    pct = 100.0 * len(r['defined']) / n if n else 100.0
    print(f"{c:<10} {n:>9} {len(r['defined']):>8} {len(r['declared-only']):>14} {len(r['missing']):>8} {pct:>8.1f}%")
pct = 100.0 * tot['defined'] / tot['n'] if tot['n'] else 100.0
print(f"{'total':<10} {tot['n']:>9} {tot['defined']:>8} {tot['declared-only']:>14} {tot['missing']:>8} {pct:>8.1f}%")
limit = None if verbose else 40
for kind in ('missing', 'declared-only'):
    names = [n for c in cats for n in rows[c][kind]]
    if names:
        print(f"\n{kind} ({len(names)}):")
        for n in names[:limit]:
            print("  " + n)
        if limit and len(names) > limit:
            print(f"  ... {len(names) - limit} more (-v lists all)")
if extra:
    print(f"\nours only ({len(extra)}): " + " ".join(extra[:40]) + (" ..." if len(extra) > 40 else ""))
EOF
