#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Convergence study: max relative constraint error against iterations, for
Gauss-Seidel and coloured Jacobi on the same cloth (docs/performance.md).

    /usr/bin/python3 scripts/convergence.py [--vsim build/vsim] [--out build/convergence]

Runs `vsim run` on a 32x32 cloth hanging from its top edge (structural and
shear links, pbd, 4 substeps, 120 frames) for 1, 2, 4, ... 128 iterations
with each relaxation, reads /observables/constraint_error_max_relative
from each result file (mean over the last 30 frames, once the cloth hangs
still), writes convergence.csv and convergence.png into --out, and prints how
many Jacobi iterations it takes to match each Gauss-Seidel count.
Uses Debian's python3-h5py, numpy and matplotlib (hence /usr/bin/python3).
"""
import argparse
import csv
import os
import subprocess
import tempfile

import h5py
import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SCENE = """\
# convergence study cloth: 32x32, hanging from its top edge
time: {dt: 0.016666666666666666, frames: 120, substeps: 4}
solver: {integrator: pbd}
bodies:
  - cloth: {name: c, origin: [0, 0, 0], size: [1, 1], resolution: [32, 32], pin: top-edge,
            shear: {}}
"""
ITERATIONS = [1, 2, 4, 8, 16, 32, 64, 128]
RELAXATIONS = ["gauss-seidel", "jacobi"]


def error_of(vsim, scene, relaxation, iterations, tmp):
    out = os.path.join(tmp, "run.h5")
    subprocess.run([vsim, "run", scene, "-o", out, "--force", "--quiet",
                    "--set", "solver.relaxation=" + relaxation,
                    "--set", "solver.iterations=%d" % iterations], check=True)
    with h5py.File(out, "r") as f:
        v = f["/observables/constraint_error_max_relative/value"][:]
    return float(np.mean(v[-30:]))


def matching_iterations(gs_err, it, jac_errs):
    """Jacobi iterations (log-interpolated) that reach the error gs_err."""
    le = np.log(np.asarray(jac_errs))
    li = np.log(np.asarray(it, dtype=float))
    target = np.log(gs_err)
    for k in range(len(it) - 1):
        if le[k] >= target >= le[k + 1]:
            t = (le[k] - target) / (le[k] - le[k + 1]) if le[k] != le[k + 1] else 0.0
            return float(np.exp(li[k] + t * (li[k + 1] - li[k])))
    return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vsim", default="build/vsim")
    ap.add_argument("--out", default="build/convergence")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="vsim-convergence-") as tmp:
        scene = os.path.join(tmp, "cloth.yaml")
        with open(scene, "w") as f:
            f.write(SCENE)
        err = {r: [error_of(args.vsim, scene, r, n, tmp) for n in ITERATIONS] for r in RELAXATIONS}
    with open(os.path.join(args.out, "convergence.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["iterations"] + ["max_relative_" + r for r in RELAXATIONS])
        for k, n in enumerate(ITERATIONS):
            w.writerow([n] + ["%.6e" % err[r][k] for r in RELAXATIONS])
    fig, ax = plt.subplots(figsize=(6, 4))
    for r, mark in zip(RELAXATIONS, ["o-", "s--"]):
        ax.loglog(ITERATIONS, err[r], mark, label=r)
    ax.set_xlabel("iterations per substep")
    ax.set_ylabel("max |C| / rest (mean of last 30 frames)")
    ax.set_title("32x32 hanging cloth, pbd, 4 substeps")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    png = os.path.join(args.out, "convergence.png")
    fig.savefig(png, dpi=100)
    print("%10s %14s %14s %18s" % ("iterations", "gauss-seidel", "jacobi", "jacobi to match"))
    for k, n in enumerate(ITERATIONS):
        m = matching_iterations(err["gauss-seidel"][k], ITERATIONS, err["jacobi"])
        print("%10d %14.4e %14.4e %18s" % (n, err["gauss-seidel"][k], err["jacobi"][k],
                                           "%.1f (%.2fx)" % (m, m / n) if m == m else "beyond 128"))
    print("wrote", png)


if __name__ == "__main__":
    main()
