#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm_submit.sh: submit a vsim sweep to Slurm as a job array with exactly
# one task per point (counted by `vsim sweep --list`), plus a job that runs
# after the array (whatever its tasks' outcome) and writes OUT/summary.csv.
#
#   sh scripts/slurm_submit.sh SWEEP.yaml OUT [sbatch options...]
#
# Environment: VSIM (the program, default build/vsim), SBATCH (default sbatch).
# Prints the two job ids.  Exit 2 on bad usage or a sweep file vsim rejects.
set -eu
[ $# -ge 2 ] || { echo "usage: sh scripts/slurm_submit.sh SWEEP.yaml OUT [sbatch options...]" >&2; exit 2; }
S=$1
OUT=$2
shift 2
VSIM=${VSIM:-build/vsim}
SBATCH=${SBATCH:-sbatch}
points=$("$VSIM" sweep "$S" --list) || exit 2
N=$(printf '%s\n' "$points" | grep -c .)
[ "$N" -ge 1 ] || { echo "slurm_submit.sh: $S has no points" >&2; exit 2; }
dir=$(dirname "$0")
job=$("$SBATCH" --parsable --array=0-$((N - 1)) "$@" "$dir/slurm_sweep.sbatch" "$S" "$OUT")
job=${job%%;*}
collect=$("$SBATCH" --parsable --dependency=afterany:"$job" "$@" \
  --wrap "$VSIM sweep $S -o $OUT --collect")
echo "array job $job ($N tasks), summary job ${collect%%;*}"
