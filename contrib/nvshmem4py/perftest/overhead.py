# SPDX-License-Identifier: BSD-3-Clause
"""Per-call overhead of nvshmem4py against the C call: PE 0 puts `--bytes` bytes to PE 1 `--iters` times
through (1) nvshmemx_putmem_on_stream in a C++ loop, (2) the binding on addresses without checks, (3) the
binding on the arrays (described and checked in C++), (4) nvshmem.core.put on the arrays. Median of
`--reps` timings each; run as 2 PEs under nvshmrun.
Prints a table and one machine-readable line "nvshmem4py-overhead: ..." (PE 0)."""
import argparse
import statistics
import time

import nvshmem.core as nv
from nvshmem.core import _nvshmem


def per_call_ns(fn, iters, reps):
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn(iters)
        samples.append((time.perf_counter() - start) / iters * 1e9)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--bytes", type=int, default=8)
    args = parser.parse_args()
    nv.init()
    if nv.n_pes() < 2:
        raise SystemExit("overhead.py: run it as 2 PEs (nvshmrun -n 2)")
    dst = nv.array(args.bytes, dtype="uint8")
    src = nv.array(args.bytes, dtype="uint8")
    src[:] = 7
    d, s, n = dst.ctypes.data, src.ctypes.data, args.bytes
    results = {}
    if nv.my_pe() == 0:
        def c_loop(k):
            _nvshmem.time_c_putmem_on_stream(d, s, n, 1, 0, k)

        def unchecked(k):
            for _ in range(k):
                _nvshmem.putmem_on_stream_unchecked(d, s, n, 1, 0)

        def checked(k):
            for _ in range(k):
                _nvshmem.put(dst, src, 1, None, None)

        def python(k):
            for _ in range(k):
                nv.put(dst, src, 1)

        for name, fn in (("c", c_loop), ("binding", unchecked), ("checked", checked), ("python", python)):
            per_call_ns(fn, min(args.iters, 100), 1)  # warm-up
            results[name] = per_call_ns(fn, args.iters, args.reps)
    nv.barrier(nv.Teams.TEAM_WORLD)
    if nv.my_pe() == 0:
        print(f"{'path':<40}{'ns/call':>10}{'over C':>10}")
        labels = {"c": "C loop (nvshmemx_putmem_on_stream)", "binding": "pybind11 call on addresses, no checks",
                  "checked": "pybind11 call on arrays, checked", "python": "nvshmem.core.put(array, array)"}
        for name, ns in results.items():
            print(f"{labels[name]:<40}{ns:>10.0f}{ns - results['c']:>10.0f}")
        print("nvshmem4py-overhead: " + " ".join(f"{k}_ns={v:.0f}" for k, v in results.items()) +
              f" bytes={args.bytes} iters={args.iters}")
    nv.free_array(src)
    nv.free_array(dst)
    nv.finalize()


if __name__ == "__main__":
    main()
