#!/usr/bin/env python3
"""Summarises a decode sweep (benches/sweeps/decode.sh): for each shape and layout, each
kernel's time (µs) and its ratio to cuBLAS from the same run, the fastest marked with *.

    python3 benches/sweeps/summarise.py SWEEP_DIR
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

def rows(path):
    for line in path.read_text().splitlines():
        cols = line.split()
        if len(cols) < 6 or not re.fullmatch(r"\d+x\d+x\d+", cols[0]) or "ok" not in cols:
            continue
        shape, lay, ours = cols[0], cols[1], float(cols[2])
        # the cuBLAS time is the first number after the first "|"-group's two percentages
        rest = line.split("|")
        theirs = float(rest[1].split()[2]) if len(rest) > 2 else float("nan")
        ratio = float(cols[cols.index("ok") - 1])
        kernel = cols[cols.index("ok") + 1]
        yield shape, lay, ours, theirs, ratio, kernel


def main(d):
    table = defaultdict(dict)
    for f in sorted(Path(d).glob("*.txt")):
        variant = f.stem.rsplit("_m", 1)[0]
        for shape, lay, ours, theirs, ratio, kernel in rows(f):
            table[(shape, lay)][variant] = (ours, ratio, kernel)
    variants = sorted({v for row in table.values() for v in row})
    print("shape lay " + " | ".join(variants))
    for (shape, lay), row in table.items():
        best = min(row.values(), key=lambda r: r[0])[0]
        cells = []
        for v in variants:
            if v not in row:
                cells.append("-")
                continue
            us, ratio, kernel = row[v]
            mark = "*" if us == best else " "
            cells.append(f"{us:7.1f}{mark} {ratio:4.2f} {kernel}")
        print(f"{shape} {lay} " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "sweep")
