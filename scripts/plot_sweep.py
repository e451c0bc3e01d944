#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""plot_sweep.py: a sweep's summary.csv as one PNG.

For every swept parameter, two panels side by side: the final constraint
error (max |C| at the last frame, log scale) and the wall time against that
parameter.  Points that share the values of the other parameters are joined
by one line, so that each line shows the effect of this parameter alone.
Numeric values are placed on a numeric axis (log scale when they span more
than a factor of 20); other values (relaxation names, vectors) are placed
side by side in the order the sweep gives them.  Points that did not
complete are left out and counted in the title.

    /usr/bin/python3 scripts/plot_sweep.py DIR/summary.csv [-o OUT.png]

Default output: summary.png beside the CSV.  Use Debian's python3 (see the
README's Set-up): it has matplotlib; the plot is drawn without a display.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt  # noqa: E402

FIXED = ("point", "status", "final_constraint_error", "wall_seconds", "file")


def number(text):
    """The value as a float, or None when it is not a finite number."""
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_summary(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
        f.seek(0)
        header = next(csv.reader(f))
    missing = [c for c in FIXED if c not in header]
    if missing:
        sys.exit(f"{path}: not a vsim sweep summary (no column {', '.join(missing)})")
    params = [c for c in header if c not in FIXED]
    if not params:
        sys.exit(f"{path}: no parameter columns")
    return params, rows


def axis_positions(values):
    """Where each distinct value goes on the x axis, and whether it is numeric."""
    distinct = list(dict.fromkeys(values))  # first-seen order, as in the sweep
    nums = [number(v) for v in distinct]
    if all(n is not None for n in nums):
        return {v: n for v, n in zip(distinct, nums)}, True, nums
    return {v: i for i, v in enumerate(distinct)}, False, distinct


def plot(params, rows, out, title):
    done = [r for r in rows if r["status"] == "complete"]
    fig, axes = plt.subplots(len(params), 2, figsize=(11, 3.6 * len(params)), squeeze=False)
    for i, p in enumerate(params):
        others = [q for q in params if q != p]
        pos, numeric, ticks = axis_positions([r[p] for r in rows])
        groups = {}
        for r in done:
            groups.setdefault(tuple(r[q] for q in others), []).append(r)
        if groups and all(len(g) == 1 for g in groups.values()):
            # zip mode (or a grid of one value each): every point differs in
            # the other parameters too; one line through them all
            groups = {(): done}
        for j, (col, label) in enumerate(
            (("final_constraint_error", "final max |C| (m)"), ("wall_seconds", "wall time (s)"))
        ):
            ax = axes[i][j]
            for key, members in groups.items():
                pts = sorted(
                    (pos[r[p]], number(r[col]))
                    for r in members
                    if number(r[col]) is not None
                )
                if not pts:
                    continue
                name = ", ".join(f"{q}={v}" for q, v in zip(others, key)) or None
                if not key:
                    name = None
                ax.plot([x for x, _ in pts], [y for _, y in pts], "o-", label=name)
            ys = [number(r[col]) for r in done if number(r[col]) is not None]
            if ys and min(ys) > 0:
                ax.set_yscale("log")
            if numeric:
                xs = [x for x in ticks if x is not None]
                if xs and min(xs) > 0 and max(xs) / min(xs) > 20:
                    ax.set_xscale("log")
            else:
                ax.set_xticks(range(len(ticks)))
                ax.set_xticklabels(ticks, rotation=20)
            ax.set_xlabel(p)
            ax.set_ylabel(label)
            ax.grid(True, which="both", alpha=0.3)
            if others and j == 0 and 1 < len(groups) <= 12:
                ax.legend(fontsize="small")
    failed = len(rows) - len(done)
    fig.suptitle(
        f"{title}: {len(rows)} points" + (f", {failed} not complete (not shown)" if failed else "")
    )
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description="Plot a vsim sweep's summary.csv into a PNG.")
    ap.add_argument("summary", help="DIR/summary.csv written by vsim sweep")
    ap.add_argument("-o", "--output", help="PNG file [summary.png beside the CSV]")
    a = ap.parse_args()
    params, rows = read_summary(a.summary)
    if not rows:
        sys.exit(f"{a.summary}: no points")
    out = a.output or os.path.join(os.path.dirname(a.summary) or ".", "summary.png")
    title = os.path.basename(os.path.dirname(os.path.abspath(a.summary)))
    plot(params, rows, out, title)
    print(out)


if __name__ == "__main__":
    main()
