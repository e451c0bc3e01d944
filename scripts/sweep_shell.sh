#!/bin/sh
# SPDX-License-Identifier: MIT
# sweep_shell.sh: a parameter sweep in plain shell, without `vsim sweep`:
# nested loops over `vsim run --set ...`, one JSON summary line per run
# (`--summary json`) collected in OUT/summary.jsonl and shown as a table.
# Use it as a template when a sweep needs logic a sweep file cannot express
# (values computed from others, stopping early, ...).
#
#   sh scripts/sweep_shell.sh [SCENE.yaml] [OUT]
#   VSIM=build/vsim FRAMES=60 sh scripts/sweep_shell.sh configs/cloth_sphere.yaml shell-sweep
#
# A run that fails (exit 1) still prints its summary, with its status; a run
# that cannot start (exit 2: a bad value) prints none and is shown as
# "invalid".  The script exits 1 when any run did not complete.
set -eu
VSIM=${VSIM:-build/vsim}
SCENE=${1:-configs/cloth_sphere.yaml}
OUT=${2:-shell-sweep}
FRAMES=${FRAMES:-60}

mkdir -p "$OUT"
: > "$OUT/summary.jsonl"
# one field of a one-line JSON object (numbers and plain strings only)
field() { printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"; }

bad=0
printf '%-10s  %-12s  %-9s  %-22s  %s\n' iterations relaxation status final_error wall_s
for iterations in 2 5 10 20; do
  for relaxation in gauss-seidel jacobi; do
    out="$OUT/it$iterations-$relaxation.h5"
    line=$("$VSIM" run "$SCENE" --frames "$FRAMES" \
             --set solver.iterations="$iterations" --set solver.relaxation="$relaxation" \
             -o "$out" --force --quiet --summary json) || true
    if [ -n "$line" ]; then
      printf '%s\n' "$line" >> "$OUT/summary.jsonl"
      status=$(field "$line" status)
    else
      status=invalid
    fi
    [ "$status" = complete ] || bad=1
    printf '%-10s  %-12s  %-9s  %-22s  %s\n' "$iterations" "$relaxation" "$status" \
      "$(field "$line" final_constraint_error)" "$(field "$line" wall_seconds)"
  done
done
echo "results in $OUT/ (one file per run, summary.jsonl)" >&2
exit $bad
