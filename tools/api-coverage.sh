#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Public API coverage: every nvshmem_/nvshmemx_ function name (and the nvshmemx::tile_* C++
# templates) in a reference include tree (NVIDIA's NVSHMEM headers by default), by category, classified
# for this project as
#   defined       declared in our headers; defined where the reference has a host interface (exported
#                 by our libnvshmem_host.so, or inline in our headers) and, where the reference has a
#                 device interface, with an inline device definition;
#   declared-only declared, but some interface is not defined;
#   missing       not declared by our headers;
#   exception     declared by the reference but implemented nowhere (docs/compatibility.md); not counted.
# Names are read from the preprocessed headers (host pass: C++ without __CUDACC__; device pass: nvcc
# with __CUDA_ARCH__), so macro-generated families count; a name is a device interface when its
# declaration carries __device__.
#
# Usage: tools/api-coverage.sh [-b BUILD_DIR] [-v] [-c CATEGORY] [REFERENCE_INCLUDE_DIR]
#        tools/api-coverage.sh [-b BUILD_DIR] [-v] -l LIST
#   REFERENCE_INCLUDE_DIR  default: NVIDIA's, from the nvidia.nvshmem Python package (GPU machine)
#   -l LIST                count the names of a list instead of a reference tree, per implementation class
#                          (tools/nvshmem-3.8-api.txt: what NVSHMEM 3.5-3.8 added, C1/C2/C3; its header
#                          says the format); symbols (types, enumerators) count as defined when visible
#   -b BUILD_DIR           our build tree (generated headers, lib/libnvshmem_host.so); default build-p2p
#                          or build, whichever exists. Without the library, host declarations are
#                          taken as defined (reported as such).
#   -v                     list every missing and declared-only name (default: the first 40 each)
#   -c CATEGORY            list only that category's names (e.g. -c memory)
# Runs without a GPU (preprocessing only). Exit status 0; 1 when the inputs are unusable.
set -euo pipefail
cd "$(dirname "$0")/.."

build=""
verbose=0
only=""
list=""
while getopts "b:vc:l:h" opt; do
  case $opt in
    b) build=$OPTARG ;;
    v) verbose=1 ;;
    c) only=$OPTARG ;;
    l) list=$(readlink -f "$OPTARG") ;;
    h) sed -n '2,28p' "$0"; exit 0 ;;
    *) exit 1 ;;
  esac
done
shift $((OPTIND - 1))
ref=${1:-}
if [[ -n $list ]]; then
  [[ -f $list ]] || { echo "api-coverage: no list '$list'" >&2; exit 1; }
  ref=include  # no reference tree: our own headers stand in for it (the list gives the names)
elif [[ -z $ref ]]; then
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
  nvcc -E -x cu -std=c++17 -rdc=true -arch="sm_$arch" "$@" "$tmp/tu.cu" -o "$out.dev" 2> "$out.dev.err" || {
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

python3 - "$tmp" "$ref" "$([[ -f $lib ]] && echo "$lib" || echo)" "$verbose" "$only" "$list" <<'EOF'
import itertools, re, sys
tmp, ref, lib, verbose, only, listed = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5], sys.argv[6]
# C names, and the tile templates (nvshmemx::tile_*; their declarations are `tile_x<...>(` or `tile_x(`).
NAME = re.compile(r'\b(nvshmemx?_[A-Za-z0-9_]+|tile_[a-z_]+)\s*(?:<[^;{}()]*>\s*)?\(')

def scan(text):
    """name -> (declared, device interface, device definition, host definition, host interface) from one
    pass; the host interface is a declaration with __host__ or without __device__."""
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
        hosted = not dev or '__host__' in head or '__attribute__((host))' in head
        d, dv, df, hf, hi = out.get(name, (False, False, False, False, False))
        out[name] = (True, dv or dev, df or (is_def and dev), hf or (is_def and hosted), hi or hosted)
    return out

def load(prefix):
    host = scan(open(prefix + '.host').read())
    dev = scan(open(prefix + '.dev').read())
    return host, dev

ref_host, ref_dev = load(tmp + '/ref')
our_host, our_dev = load(tmp + '/ours')
exports = set(open(tmp + '/exports').read().split())

# Declared by NVIDIA 3.4.5, implemented nowhere (docs/compatibility.md, "Deliberate exceptions").
EXCEPTION = re.compile(r'^nvshmem_realloc$|^nvshmemx?_\w+_alltoalls(_warp|_block|_on_stream)?$|^nvshmemx?_alltoalls')
SETUP = re.compile(r'^nvshmemx?_(init|init_thread|finalize|query_thread|global_exit|my_pe|n_pes|info_get_version|'
                   r'info_get_name|vendor_get_version_info|init_attr|init_status|hostlib_init_attr|hostlib_finalize|'
                   r'set_attr_uniqueid_args|set_attr_mpi_comm_args|get_uniqueid)$')
RMA = re.compile(r'(^|_)(i?put|i?get)(6|8|16|32|64|128)?(mem)?(_nbi)?(_warp|_block)?(_on_stream)?$')
CATEGORIES = ['setup', 'modules', 'launch', 'memory', 'teams', 'rma', 'signal', 'ordering', 'p2p sync', 'atomics',
              'barrier/sync', 'alltoall', 'broadcast', 'fcollect', 'reduce', 'reducescatter', 'qp', 'tile', 'other']
def category(name):
    if EXCEPTION.search(name):
        return 'exception'
    if name.startswith('tile_'):
        return 'tile'
    if name.startswith('nvshmemx_qp_'):
        return 'qp'
    if SETUP.search(name):
        return 'setup'
    if re.search(r'^nvshmemx_cu(module|library)_(init|finalize)$', name):
        return 'modules'
    if name.startswith('nvshmemx_collective_launch'):
        return 'launch'
    if re.search(r'^nvshmemx?_(malloc|calloc|align|free|ptr|mc_ptr|buffer_\w+)$', name):
        return 'memory'
    if re.search(r'barrier|(^|_)sync(_all)?(_warp|_block|_warpgroup|_on_stream)?$', name):
        return 'barrier/sync'
    if re.search(r'^nvshmemx?_team_', name):
        return 'teams'
    for coll in ('reducescatter', 'alltoall', 'broadcast', 'fcollect'):
        if coll in name:
            return coll
    if re.search(r'_reduce(_warp|_block|_on_stream)?$', name):
        return 'reduce'
    if '_atomic_' in name:
        return 'atomics'
    if re.search(r'wait_until|_test(_all|_any|_some)?(_vector)?$', name):
        return 'p2p sync'
    if 'signal' in name:
        return 'signal'
    if re.fullmatch(r'nvshmemx?_(quiet|fence)(_on_stream)?', name):
        return 'ordering'
    if RMA.search(name) or re.search(r'_(p|g)(_on_stream)?$', name):
        return 'rma'
    return 'other'

def expand(pattern, lists):
    """Every name of a pattern: {a,b,} alternatives (an empty one too) and @NAME lists."""
    parts = re.split(r'(\{[^}]*\})', pattern)
    choices = []
    for part in parts:
        if part.startswith('{'):
            alts = []
            for a in part[1:-1].split(','):
                alts += lists[a[1:]] if a.startswith('@') else [a]
            choices.append(alts)
        else:
            choices.append([part])
    return [''.join(c) for c in itertools.product(*choices)]

def count_list(path):
    """The list mode: every name of the list, classified like the reference's, counted per class."""
    lists, entries = {}, []
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        if line.startswith('@'):
            key, values = line[1:].split(None, 1)
            lists[key] = values.replace(' ', '').split(',')
            continue
        cls, iface, pattern = line.split()[:3]
        entries += [(cls, iface, n) for n in expand(pattern, lists)]
    text = open(tmp + '/ours.host').read() + open(tmp + '/ours.dev').read()
    rows = {}
    for cls, iface, n in entries:
        r = rows.setdefault(cls, {'defined': [], 'declared-only': [], 'missing': []})
        if iface == 'symbol':
            r['defined' if re.search(r'\b' + re.escape(n) + r'\b', text) else 'missing'].append(n)
            continue
        if n not in our_host and n not in our_dev:
            r['missing'].append(n)
            continue
        host_ok = iface == 'device' or (n in exports if lib else n in our_host) or our_host.get(n, NONE)[3]
        dev_ok = iface == 'host' or our_dev.get(n, NONE)[2]
        r['defined' if host_ok and dev_ok else 'declared-only'].append(n)
    print(f"list: {path}")
    print(f"ours: include/ + build headers; host definitions from {lib or '(no library: host declarations taken as defined)'}")
    print(f"{'class':<6} {'names':>6} {'defined':>8} {'declared-only':>14} {'missing':>8} {'defined %':>9}")
    for cls in sorted(rows):
        r = rows[cls]
        n = sum(len(v) for v in r.values())
        print(f"{cls:<6} {n:>6} {len(r['defined']):>8} {len(r['declared-only']):>14} {len(r['missing']):>8} "
              f"{100.0 * len(r['defined']) / n:>8.1f}%")
    for kind in ('missing', 'declared-only'):
        names = [(cls, n) for cls in sorted(rows) for n in rows[cls][kind]]
        if names:
            print(f"\n{kind} ({len(names)}):")
            for cls, n in names[:None if verbose else 40]:
                print(f"  {cls:<4} {n}")
            if not verbose and len(names) > 40:
                print(f"  ... {len(names) - 40} more (-v lists all)")

NONE = (False, False, False, False, False)
if listed:
    count_list(listed)
    sys.exit(0)

ref_names = sorted(set(ref_host) | set(ref_dev))
cats = [c for c in CATEGORIES if not only or c == only]
rows = {c: {'defined': [], 'declared-only': [], 'missing': []} for c in CATEGORIES}
exceptions = []
for n in ref_names:
    c = category(n)
    if c == 'exception':
        exceptions.append(n)
        continue
    # A host definition is needed only where the reference declares a host interface. The device
    # pass decides when it sees the name: NVIDIA's headers show their __device__-only functions
    # (the _warp/_block forms) without __device__ to a plain C++ host pass.
    need_host = ref_dev[n][4] if n in ref_dev else n in ref_host and ref_host[n][4]
    need_dev = ref_dev.get(n, NONE)[1]
    # NVIDIA declares some group-scope, stream and put-with-signal forms host+device, but the
    # _warp/_block forms exist only on the device and the _on_stream forms only on the host
    # (reference, header defect 4).
    # put-with-signal without _on_stream is device-only in NVIDIA's library, whatever its prefix says.
    if re.search(r'_(warp|block|warpgroup)$', n) or re.search(r'put\w*_signal(_nbi)?$', n):
        need_host = False
    if n.endswith('_on_stream'):
        need_dev = False
    if n not in our_host and n not in our_dev:
        rows[c]['missing'].append(n)
        continue
    host_ok = not need_host or (n in exports if lib else n in our_host) or our_host.get(n, NONE)[3]
    dev_ok = not need_dev or our_dev.get(n, NONE)[2]
    rows[c]['defined' if host_ok and dev_ok else 'declared-only'].append(n)

extra = sorted(n for n in set(our_host) | set(our_dev) if n not in ref_host and n not in ref_dev and
               not n.startswith(('nvshmemi_', 'nvshm_')) and (not only or category(n) == only))
print(f"reference: {ref}")
print(f"ours: include/ + build headers; host definitions from {lib or '(no library: host declarations taken as defined)'}")
print(f"{'category':<14} {'reference':>9} {'defined':>8} {'declared-only':>14} {'missing':>8} {'defined %':>9}")
tot = {'n': 0, 'defined': 0, 'declared-only': 0, 'missing': 0}
for c in cats:
    r = rows[c]
    n = sum(len(v) for v in r.values())
    if n == 0:
        continue
    tot['n'] += n
    for k in ('defined', 'declared-only', 'missing'):
        tot[k] += len(r[k])
    pct = 100.0 * len(r['defined']) / n
    print(f"{c:<14} {n:>9} {len(r['defined']):>8} {len(r['declared-only']):>14} {len(r['missing']):>8} {pct:>8.1f}%")
pct = 100.0 * tot['defined'] / tot['n'] if tot['n'] else 100.0
print(f"{'total':<14} {tot['n']:>9} {tot['defined']:>8} {tot['declared-only']:>14} {tot['missing']:>8} {pct:>8.1f}%")
if exceptions and not only:
    print(f"\nexceptions, declared by the reference and implemented nowhere, not counted ({len(exceptions)}): "
          + " ".join(exceptions[:8]) + (" ..." if len(exceptions) > 8 else ""))
limit = None if verbose or only else 40
for kind in ('missing', 'declared-only'):
    names = [n for c in cats for n in rows[c][kind]]
    if names:
        print(f"\n{kind} ({len(names)}):")
        for n in names[:limit]:
            print(f"  {category(n):<14} {n}")
        if limit and len(names) > limit:
            print(f"  ... {len(names) - limit} more (-v lists all)")
if extra:
    print(f"\nours only ({len(extra)}): " + " ".join(extra[:40]) + (" ..." if len(extra) > 40 else ""))
EOF
