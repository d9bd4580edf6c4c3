#!/usr/bin/env python3
"""Prints one line per kernel launch from an `ncu --csv` file: launch id, kernel name, and the
values of the metrics named on the command line (default: time and instructions executed).

    python3 bench/ncu_per_kernel.py ncu.csv [metric ...]
"""
import csv
import sys


def main():
    path = sys.argv[1]
    metrics = sys.argv[2:] or ["gpu__time_duration.sum", "smsp__inst_executed.sum"]
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows:
        sys.exit(f"{path}: no ncu CSV rows (did the profiled command fail?)")
    hdr, rows = rows[0], rows[1:]
    ki, mi = hdr.index("Kernel Name"), hdr.index("Metric Name")
    vi, ii = hdr.index("Metric Value"), hdr.index("ID")
    by = {}
    for r in rows:
        by.setdefault((int(r[ii]), r[ki].split("(")[0]), {})[r[mi]] = r[vi]
    for (i, k), m in sorted(by.items()):
        print(i, k, *(f"{n.split('__')[1]}={m.get(n)}" for n in metrics))


if __name__ == "__main__":
    main()
