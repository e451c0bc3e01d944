#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""rigid_bench.py: `make bench-rigid`, vsim's rigid solver beside Bullet's.

    rigid_bench.py --vsim build/bench/rigid_scenes [--bullet build/bench/bullet_scenes]
                   [--bullet64 build/bench/bullet_scenes64] [--scenes bench/rigid] [--out build/bench/rigid.json]
                   [--quick] [--only ROW[,ROW...]] [--reps N] [--cpu K] [--timeout S]

Runs every row's scene (bench/rigid/ROW.yaml) in each engine at its defaults,
each run a process of its own pinned to one CPU (taskset -c K, default 1),
the engines alternated (vsim, Bullet, Bullet double, then the other way round, ...), REPS runs each
(3; --quick: 1, and shorter runs).  The time is CPU time per frame of the
stepping alone, the median over the runs; the metrics (bench/rigid_metrics.h)
are the first run's (both engines are deterministic: a difference between
runs is flagged in the JSON).  Prints a Markdown table on stdout and writes
everything, every run's line included, as JSON to --out.

Where Bullet loses a row at its defaults that vsim holds (joints that come
apart, a free body's energy), a fourth column ("Bullet, more steps") runs it
again with the iterations and substeps of TUNED: the cheapest setting tried
at which Bullet's joints stay within 1 cm or within vsim's own separation,
or its free body's energy within 1 % (docs/performance.md, "Bullet at vsim's
quality").  Time per frame compares only engines that both hold a row.
The time cell says how many bodies sleep at the end: a sleeping body costs
next to nothing, and Bullet's bodies sleep after 2 s below 0.8 m/s, vsim's
after 0.5 s below 0.01 m/s.

--only takes row names, their prefixes or the row numbers of the table
(`--only chain`, `--only 5`, `--only stack20_small,wall`).  Without
--bullet (Bullet not installed) the Bullet column is empty.  --bullet64 adds
a column for the same Bullet program built against Debian's double-precision
Bullet (pkg-config bullet-float64): Bullet's default build computes in
single precision, vsim in double, and that column shows what precision
alone costs Bullet.

A run that blows up (vs_step fails, or a body is not finite or faster than
10000 m/s) is reported as "blew up (frame N)"; one that crashes, fails or
runs past --timeout as such.  Only the standard library is used.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

# (number, scene, title, seconds, quick seconds, [(metric, label), ...])
JOINTS = [("max_joint_sep_m", "max joint separation (m; ideal 0)"), ("max_speed_mps", "max speed (m/s)"),
          ("energy_lost_j", "energy lost, kinetic + potential (J; ideal 0)")]
STACK = [("top_drift_m", "top cube's final horizontal drift (m; ideal 0)"),
         ("height_err_m", "top cube's final height error (m; ideal 0)")]
PYRAMID = [("top_drift_m", "top box's final drift (m; ideal 0)"),
           ("max_drift_m", "largest final drift of a box (m; goal < 0.02)"),
           ("ke_ratio", "max KE last fifth / first fifth (settled: << 1)"), ("stands", "stands (every box within half an edge)")]
ROWS = [
    ("1", "chain_rest", "chain of 30 boxes, last 50x heavier, hanging at rest", 10, 3, JOINTS),
    ("2", "chain_swing", "the chain released from horizontal", 10, 3, JOINTS),
    ("2", "chain_hinge", "50 boxes on hinges, last 10x heavier, released from horizontal", 10, 3,
     JOINTS),
    ("3", "joint_grid", "20x20 spheres, 760 ball joints, top corners fixed", 10, 3, JOINTS),
    ("4", "stack20", "20 stacked 1 m cubes", 10, 3, STACK),
    ("4", "stack20_small", "20 stacked 0.2 m cubes", 10, 3, STACK),
    ("5", "pyramid20", "20-level pyramid (210 boxes of 0.2 m)", 10, 3, PYRAMID),
    ("5", "pyramid30", "30-level pyramid (465 boxes of 0.2 m)", 10, 3, PYRAMID),
    ("6", "heavy_on_light", "100 kg cube on a 1 kg cube on the ground", 5, 2,
     [("light_pen_max_m", "light box's max penetration into the ground (m; ideal 0)"),
      ("heavy_drift_m", "heavy box's final horizontal drift (m; ideal 0)")]),
    ("7", "spin_flip", "free 1x2x3 m box spun about its intermediate axis", 20, 5,
     [("e_ratio", "E_end / E_0 (ideal 1)"), ("l_ratio", "L_end / L_0, magnitudes (ideal 1)"),
      ("first_flip_s", "first flip (s; ideal 3.01)")]),
    ("8", "cube_bounce", "1 m cube dropped flat from 1 m, e 0.9, friction 0.5", 3, 1.5,
     [("max_spin_radps", "max spin rate (rad/s; ideal 0)"),
      ("apex_ratio", "first bounce's apex / (e^2 h)")]),
    ("9", "wall_tunnel", "sphere r 0.1 at 50 m/s at a 5 cm wall 1 m away", 1, 0.5,
     [("result", "passed through or stopped (ideal: stopped)"), ("final_x_m", "final x (m; wall 1.00-1.05)")]),
    ("10", "convex_pile", "100 convex stones (hulls of 10 points) poured into a bin", 10, 3,
     [("ke_ratio", "max KE last fifth / first fifth (at rest: << 1)"),
      ("final_max_speed_mps", "fastest stone at the end (m/s; at rest: 0)"),
      ("ground_pen_max_m", "deepest hull vertex under the ground (m; ideal 0)")]),
    ("11", "ragdoll_pile", "10 ragdolls (100 capsules, 90 joints with cone, twist and hinge "
     "limits) dropped into a bin", 10, 3,
     [("max_joint_sep_m", "max joint separation (m; ideal 0)"),
      ("max_limit_deg", "largest cone, twist or hinge limit passed (deg; ideal 0)"),
      ("max_hinge_axis_deg", "largest angle between a hinge's axes (deg; ideal 0)"),
      ("final_ke_j", "kinetic energy at the end (J; at rest: 0)"),
      ("final_max_speed_mps", "fastest body at the end (m/s; at rest: 0)")]),
    ("12", "cradle", "Newton's cradle: 5 spheres on ball joints, restitution 1, the first "
     "released from 60 degrees", 3, 3,
     [("apex_ratio", "last ball's rise / first ball's drop (ideal 1)"),
      ("middle_max_speed_mps", "fastest of the three between, to then (m/s; ideal 0)"),
      ("first_ball_after_mps", "first ball's speed then (m/s; ideal 0)")]),
    ("12", "slip_to_roll", "sphere sliding at 5 m/s without spin, friction 0.3", 2, 2,
     [("roll_start_s", "rolls from (s; ideal 0.485)"),
      ("speed_ratio", "final speed / (5/7 v0) (ideal 1)"),
      ("final_slip_mps", "contact point's final speed (m/s; ideal 0)")]),
    ("12", "incline", "two crates on a 30 degree plane, friction tan 30 +- 0.01", 2, 2,
     [("stick_drift_m", "sticking crate's drift (m; ideal 0)"),
      ("slide_ratio", "sliding crate's path / (g (sin - mu cos) t^2 / 2) (ideal 1)")]),
]
DT = 1.0 / 60.0

# Bullet's (iterations, substeps a frame) on the rows it loses at its defaults
# and vsim holds, but faster: the cheapest tried (10, 20, 50 iterations x 1,
# 8, 16, 32 substeps, and 30, 40 x 8 for the grid) at which Bullet holds the
# row as the issue measures it.  Joints: the largest separation under 1 cm or
# under vsim's (joint_grid: 10.9 mm against vsim's 13.7 mm; ragdoll_pile:
# 2.6 mm, limits within 2.1 degrees, hinge axes within 1.5).  spin_flip: the
# energy within 1 % (0.993 at 32 substeps, 0.971 at 8).
TUNED = {"chain_swing": (10, 32), "chain_hinge": (10, 16), "joint_grid": (20, 8),
         "ragdoll_pile": (10, 8), "spin_flip": (10, 32)}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def run_one(cmd, timeout):
    """One run: the engine's JSON line, or a stand-in that says what went wrong."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           universal_newlines=True)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "why": "ran past %g s" % timeout, "metrics": {}}
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode == 0 and lines:
        try:
            return json.loads(lines[-1])
        except ValueError:
            pass
    err = p.stderr.strip().splitlines()
    if p.returncode < 0:
        return {"status": "crashed", "why": "signal %d; %s" % (-p.returncode, err[-1] if err else ""),
                "metrics": {}}
    return {"status": "failed", "why": "exit %d; %s" % (p.returncode, err[-1] if err else ""),
            "metrics": {}}


def fmt(v):
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if v is None:
        return "none"
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    a = abs(v)
    if 1e-3 <= a < 1e4:
        return "%.4g" % v
    return "%.3g" % v


def cell(res, key):
    if res is None:
        return "—"
    st = res.get("status")
    if st == "blew up":
        return "blew up (frame %s)" % res.get("blew_frame")
    if st != "ok":
        return st
    return fmt(res["metrics"].get(key))


def summarise(runs):
    """Median time over the runs, the first run's metrics."""
    first = runs[0]
    ms = [r["ms_per_frame"] for r in runs if "ms_per_frame" in r]
    out = {"status": first.get("status"), "ms_per_frame": statistics.median(ms) if ms else None,
           "ms_runs": ms, "metrics": first.get("metrics", {}), "runs": runs}
    for k in ("blew_frame", "why", "frames", "frames_done", "version", "asleep_at_end"):
        if k in first:
            out[k] = first[k]
    out["same_in_every_run"] = all(r.get("metrics") == first.get("metrics") and
                                   r.get("status") == first.get("status") for r in runs)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vsim", required=True)
    ap.add_argument("--bullet")
    ap.add_argument("--bullet64", help="the same Bullet scenes built against Bullet's double-precision "
                    "libraries (pkg-config bullet-float64): vsim computes in double")
    ap.add_argument("--scenes", default="bench/rigid")
    ap.add_argument("--out", default="build/bench/rigid.json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    reps = a.reps or (1 if a.quick else 3)

    rows = ROWS
    if a.only:
        want = [w.strip() for w in a.only.split(",") if w.strip()]
        rows = [r for r in ROWS if any(r[0] == w or r[1].startswith(w) for w in want)]
        if not rows:
            log("rigid_bench: --only %s matches no row (%s)" % (a.only, ", ".join(r[1] for r in ROWS)))
            return 2

    pin = []
    if shutil.which("taskset") and hasattr(os, "sched_getaffinity") and a.cpu in os.sched_getaffinity(0):
        pin = ["taskset", "-c", str(a.cpu)]
    else:
        log("rigid_bench: not pinned (no taskset, or CPU %d not available)" % a.cpu)

    results = []
    for num, scene, title, secs, qsecs, metrics in rows:
        path = os.path.join(a.scenes, scene + ".yaml")
        frames = int(round((qsecs if a.quick else secs) / DT))
        extra = ["--frames", str(frames)]
        runs = {"vsim": [], "bullet": [], "bullet64": [], "tuned": []}
        exes = {"vsim": a.vsim, "bullet": a.bullet, "bullet64": a.bullet64,
                "tuned": a.bullet if scene in TUNED else None}
        args = {"tuned": ["--iterations", str(TUNED[scene][0]), "--substeps", str(TUNED[scene][1])]
                if scene in TUNED else []}
        for rep in range(reps):
            order = ["vsim", "bullet", "bullet64", "tuned"]
            if rep % 2:
                order.reverse()
            for eng in order:
                exe = exes[eng]
                if not exe:
                    continue
                log("%s: %s run %d/%d (%d frames)" % (scene, eng, rep + 1, reps, frames))
                runs[eng].append(run_one(pin + [exe, path] + extra + args.get(eng, []), a.timeout))
        results.append({"row": num, "scene": scene, "title": title, "seconds": frames * DT,
                        "frames": frames, "metrics": [m for m, _ in metrics],
                        "vsim": summarise(runs["vsim"]),
                        "bullet": summarise(runs["bullet"]) if runs["bullet"] else None,
                        "bullet64": summarise(runs["bullet64"]) if runs["bullet64"] else None,
                        "bullet_tuned": dict(summarise(runs["tuned"]), iterations=TUNED[scene][0],
                                             substeps=TUNED[scene][1]) if runs["tuned"] else None})

    vs = next((r["vsim"].get("version") for r in results if r["vsim"].get("version")), "?")
    bt = next((r["bullet"].get("version") for r in results if r["bullet"] and r["bullet"].get("version")),
              None)
    print("vsim %s, rigid solver at its defaults (solver.rigid unset), vs Bullet %s" % (
        vs, bt + ", btSequentialImpulseConstraintSolver at its defaults (10 iterations, one 1/60 s "
        "step a frame, default margins, sleeping on)" if bt else "not built: vsim column only"))
    print("%s, %d run%s of each engine, %s; ms/frame: CPU time of the stepping alone, median "
          "over the runs.\n" % ("QUICK (shorter runs)" if a.quick else "full runs", reps,
                                "" if reps == 1 else "s",
                                "pinned (" + " ".join(pin) + ")" if pin else "not pinned"))
    d64 = bool(a.bullet64)
    tu = any(r["bullet_tuned"] for r in results)
    print("| # | scene (length) | metric | vsim | Bullet |%s%s" % (" Bullet, double |" if d64 else "",
                                                             " Bullet, more steps |" if tu else ""))
    print("|---|---|---|---|---|%s%s" % ("---|" if d64 else "", "---|" if tu else ""))
    for r, row in zip(results, rows):
        v, b, b64, bt2 = r["vsim"], r["bullet"], r["bullet64"], r["bullet_tuned"]
        head = "%s | %s: %s (%g s)" % (r["row"], r["scene"], r["title"], r["seconds"])
        for i, (key, label) in enumerate(row[5]):
            print("| %s | %s | %s | %s |%s%s" % (head if i == 0 else " | ", label, cell(v, key), cell(b, key),
                                                 " %s |" % cell(b64, key) if d64 else "",
                                                 " %s |" % cell(bt2, key) if tu else ""))

        def ms(x):
            if x is None:
                return "—"
            if x.get("ms_per_frame") is None:
                return x.get("status", "?")
            s = "%.4g" % x["ms_per_frame"]
            if x.get("status") == "blew up":
                s += " (to frame %s)" % x.get("blew_frame")
            if x.get("asleep_at_end"):  # a body asleep costs (almost) nothing
                s += " (%d asleep at the end)" % x["asleep_at_end"]
            return s
        more = ""
        if tu:
            more = " %s |" % (ms(bt2) + " (%d x %d)" % (bt2["iterations"], bt2["substeps"]) if bt2 else "—")
        print("|  |  | ms/frame | %s | %s |%s%s" % (ms(v), ms(b), " %s |" % ms(b64) if d64 else "", more))
    notes = []
    for r in results:
        for eng in ("vsim", "bullet", "bullet64", "bullet_tuned"):
            x = r[eng]
            if x and x.get("status") not in ("ok", None):
                notes.append("%s, %s: %s: %s" % (r["scene"], eng, x.get("status"), x.get("why", "")))
            if x and not x.get("same_in_every_run", True):
                notes.append("%s, %s: the runs' metrics differ (first run shown)" % (r["scene"], eng))
    if notes:
        print("\n" + "\n".join("- " + n for n in notes))

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"quick": a.quick, "reps": reps, "pinned": " ".join(pin) or None,
                   "bullet": bool(a.bullet), "bullet64": bool(a.bullet64), "dt": DT, "rows": results}, f, indent=1)
        f.write("\n")
    log("rigid_bench: wrote %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
