#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots and tabulates perftest results (the JSON lines of PERFTEST_JSON, docs/perftest.md).

  tools/perf-plot.py [-o OUT_DIR] [--image-prefix P] LABEL=FILE.jsonl [LABEL=FILE.jsonl ...]

Each FILE holds the lines of one library's runs (ours, NVIDIA's NVSHMEM built from the same perftest
sources, NCCL's test where one is timed); LABEL names it in the legend and the table. For every
(test, metric) found, writes OUT_DIR/<test>__<metric>.png (one line per LABEL, size on a log axis) and
prints a Markdown table (size, one column per LABEL, and FIRST/LABEL ratios when there are several).
Several lines of one (LABEL, test, metric, size), from repeated runs, give their median. A value whose
correctness check failed (in any of its runs) is marked with '!'. Needs Debian's python3-matplotlib.
"""
import argparse
import math
import os
import re
import statistics
import sys
from collections import OrderedDict

from perfjson import PerfJsonError, load, size_text  # tools/perfjson.py, beside this script


def plot(plt, test, metric, unit, lower, by_label, present, sizes, out):
    """Writes OUT/<test>__<metric>.png: one line per label, size on a log axis; returns its name."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for label in present:
        points = sorted(by_label[label].items())
        ax.plot([s for s, _ in points], [r["value"] for _, r in points], marker="o", label=label)
    ax.set_xscale("log", base=2)
    values = [r["value"] for label in present for r in by_label[label].values() if r["value"] > 0]
    if values and max(values) / min(values) > 100:
        ax.set_yscale("log")
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_text(s) for s in sizes], rotation=45, fontsize=7)
    ax.set_xlabel("size (bytes)")
    ax.set_ylabel(f"{metric} ({unit}), {'lower' if lower else 'higher'} is better")
    ax.set_title(test)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{test}__{metric}") + ".png"
    fig.savefig(os.path.join(out, name), dpi=80)
    plt.close(fig)
    return name


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-o", "--out", default="perf-plots", help="folder for the PNG files (default perf-plots)")
    parser.add_argument("--image-prefix", default="", help="prefix of the image links in the table (e.g. the folder)")
    parser.add_argument("inputs", nargs="+", metavar="LABEL=FILE", help="a label and a JSON-lines file")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("perf-plot: needs matplotlib (Debian: apt-get install python3-matplotlib)")

    labels, records = [], []
    for item in args.inputs:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            sys.exit(f"perf-plot: '{item}' is not LABEL=FILE")
        labels.append(label)
        try:
            records += load(path, label)
        except (OSError, PerfJsonError) as e:
            sys.exit(f"perf-plot: {e}")
    if not records:
        sys.exit("perf-plot: no results in " + ", ".join(args.inputs))

    groups = OrderedDict()
    for r in records:
        groups.setdefault((r["test"], r["metric"], r["unit"], r["lower_is_better"]), []).append(r)
    os.makedirs(args.out, exist_ok=True)
    for (test, metric, unit, lower), rows in groups.items():
        runs = OrderedDict((label, {}) for label in labels)
        for r in rows:
            runs[r["label"]].setdefault(r["size"], []).append(r)
        by_label = OrderedDict((label, {size: {"value": statistics.median(x["value"] for x in rs),
                                                "check": all(x["check"] for x in rs)}
                                         for size, rs in sizes_runs.items()})
                               for label, sizes_runs in runs.items())
        present = [label for label in labels if by_label[label]]
        sizes = sorted({r["size"] for r in rows})

        first = present[0]
        ratios = present[1:]
        print(f"\n### {test}: {metric} ({unit}, {'lower' if lower else 'higher'} is better)\n")
        if len(sizes) > 1:  # one size (barriers, syncs): the table says it all
            name = plot(plt, test, metric, unit, lower, by_label, present, sizes, args.out)
            print(f"![{test} {metric}]({args.image_prefix}{name})\n")
        head = ["size"] + present + [f"{first}/{label}" for label in ratios]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for size in sizes:
            cells = [size_text(size)]
            for label in present:
                r = by_label[label].get(size)
                cells.append("" if r is None else f"{r['value']:.2f}" + ("" if r["check"] else " !"))
            for label in ratios:
                a, b = by_label[first].get(size), by_label[label].get(size)
                ok = a is not None and b is not None and b["value"] > 0 and not math.isnan(a["value"])
                cells.append(f"{a['value'] / b['value']:.2f}" if ok else "")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
