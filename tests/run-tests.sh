#!/bin/sh
# SPDX-License-Identifier: MIT
# run-tests.sh: what `make test` and `make check T=...` run.
#
#   sh tests/run-tests.sh PROGRAM|golden|docs|clients ...
#
# Each argument is a built test program (build/tests/test_*) or one of the
# script checks: golden (scripts/golden.sh check), docs (tests/docs-check.sh),
# clients (tests/clients/run.sh).  Every one runs, with its output as it
# comes, even when an earlier one failed.  The run ends with the checks that
# were skipped or failed, then one closing line,
#
#   N passed, N failed, N skipped
#
# counted per check: each START_TEST case of a test program (tu_run in
# tests/testutil.h), each scene of golden, each of the two readers of
# clients, docs as one.  Each step writes its counts to the file that
# $VSIM_TEST_COUNTS names; a step that writes none (it crashed first, or ran
# no check) counts as one check, passed or failed by its exit status, and a
# step that exits non-zero with no failed check counted gets one failure
# more (a leak found at exit by the sanitizers or valgrind, say).
# Exit status: 1 when anything failed, 2 on bad usage (an argument that is
# no test program).
#
# Environment: VSIM (the program, default build/vsim), VSIM_ROOT (the
# repository, default .), TEST_WRAP (put before each test program:
# `make valgrind` sets valgrind there).
set -u
VSIM=${VSIM:-build/vsim}
case $VSIM in /*) VSIM_BIN=$VSIM ;; *) VSIM_BIN=$PWD/$VSIM ;; esac
VSIM_ROOT=${VSIM_ROOT:-$PWD}
TEST_WRAP=${TEST_WRAP:-}
export VSIM VSIM_BIN VSIM_ROOT

if [ $# -eq 0 ]; then
  echo "usage: sh tests/run-tests.sh PROGRAM|golden|docs|clients ..." >&2
  exit 2
fi
for a in "$@"; do
  case $a in
    golden | docs | clients) ;;
    *) if [ ! -f "$a" ] || [ ! -x "$a" ]; then
         echo "run-tests: $a: no such test program" >&2
         exit 2
       fi ;;
  esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vsim-tests-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
counts=$tmp/counts
notes=$tmp/notes
: > "$notes"
passed=0
failed=0
skipped=0

# step NAME COMMAND...: run it and add its counts.
step() {
  name=$1
  shift
  echo "== $name"
  : > "$counts"
  rc=0
  VSIM_TEST_COUNTS=$counts "$@" || rc=$?
  line=$(grep -E '^[^ ]+: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$counts" | tail -n 1)
  if [ -n "$line" ]; then
    # shellcheck disable=SC2046
    set -- $(echo "${line##*: }" | tr -cs '0-9' ' ')
    p=$1 f=$2 s=$3
  elif [ $rc -eq 0 ]; then
    p=1 f=0 s=0
  else
    p=0 f=0 s=0
  fi
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    echo "$name: exit status $rc: counted as one failed check"
  fi
  sed -n "s|^skip |skipped: $name: |p" "$counts" >> "$notes"
  [ "$f" -eq 0 ] || echo "failed: $name: $f failed" >> "$notes"
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
}

for a in "$@"; do
  case $a in
    golden) step golden-check sh scripts/golden.sh check ;;
    docs) step docs-check sh tests/docs-check.sh ;;
    clients) step clients-check sh tests/clients/run.sh ;;
    *)
      # shellcheck disable=SC2086
      step "$a" $TEST_WRAP "$a"
      ;;
  esac
done

echo "== summary"
cat "$notes"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
