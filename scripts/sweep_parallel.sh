#!/bin/sh
# SPDX-License-Identifier: MIT
# sweep_parallel.sh: a sweep file run by GNU parallel, one `vsim sweep --point K`
# per point, then `--collect` for summary.csv.  The same files as `vsim sweep -j N`.
# With --sshloginfile (and a directory every machine sees) parallel spreads the
# points over several machines; any other job runner works the same way.
#
#   sh scripts/sweep_parallel.sh SWEEP.yaml [OUT] [PARALLEL OPTIONS...]
#   sh scripts/sweep_parallel.sh configs/sweeps/cloth_iterations.yaml out -j 4
#
# The one-line form, for the README:
#   build/vsim sweep S.yaml --list | cut -f1 | parallel build/vsim sweep S.yaml -o OUT --point {}
set -eu
VSIM=${VSIM:-build/vsim}
[ $# -ge 1 ] || { echo "usage: $0 SWEEP.yaml [OUT] [parallel options...]" >&2; exit 2; }
SWEEP=$1
OUT=${2:-$(basename "$SWEEP" .yaml)}
[ $# -ge 2 ] && shift 2 || shift $#

# --list checks the sweep file (exit 2 when it is bad) and numbers the points
points=$("$VSIM" sweep "$SWEEP" --list | cut -f1)
status=0
printf '%s\n' $points | parallel --halt never "$@" "$VSIM" sweep "$SWEEP" -o "$OUT" --quiet --point {} || status=1
"$VSIM" sweep "$SWEEP" -o "$OUT" --collect || status=1
exit $status
