# SPDX-License-Identifier: BSD-3-Clause
"""The perftests' JSON lines (PERFTEST_JSON, docs/perftest.md): reading, medians, sizes as text.

Shared by tools/perf-compare.py and tools/perf-plot.py. One record per line:
{"test": "<job>[___<subjob>]", "library": ..., "pes": 2, "size": <bytes>, "metric": "bw", "unit": "GB/s",
 "lower_is_better": false, "value": 12.3456, "check": true}
"""
import json
import statistics


class PerfJsonError(ValueError):
    """A line that is not a perftest JSON line (the message names the file and line)."""


def parse_line(line, where):
    """One JSON line as a record dict; raises PerfJsonError naming WHERE."""
    try:
        r = json.loads(line)
        return {
            "test": str(r["test"]), "metric": str(r["metric"]), "unit": str(r["unit"]),
            "lower_is_better": bool(r["lower_is_better"]), "size": int(r["size"]),
            "value": float(r["value"]), "check": bool(r["check"])
        }
    except (ValueError, KeyError, TypeError) as e:
        raise PerfJsonError(f"{where}: not a perftest JSON line ({e})") from None


def load(path, label=None):
    """The records of a JSON-lines file (blank lines skipped); each gets "label" when LABEL is given."""
    records = []
    with open(path) as f:
        try:
            lines = f.readlines()
        except UnicodeDecodeError as e:
            raise PerfJsonError(f"{path}: not text ({e})") from None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        r = parse_line(line, f"{path}:{number}")
        if label is not None:
            r["label"] = label
        records.append(r)
    return records


def key_of(r):
    """A record's (test, metric, size): what repeated runs have in common."""
    return (r["test"], r["metric"], r["size"])


def medians(records):
    """{(test, metric, size): {"value": median, "check": every run passed, "unit", "lower_is_better",
    "runs": count}} over the records of one library."""
    groups = {}
    for r in records:
        groups.setdefault(key_of(r), []).append(r)
    return {
        key: {
            "value": statistics.median(x["value"] for x in rs),
            "check": all(x["check"] for x in rs),
            "unit": rs[0]["unit"],
            "lower_is_better": rs[0]["lower_is_better"],
            "runs": len(rs)
        }
        for key, rs in groups.items()
    }


def size_text(size):
    """4096 -> "4K", 1048576 -> "1M", 100 -> "100"."""
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return str(size)
