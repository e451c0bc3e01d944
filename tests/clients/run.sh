#!/bin/sh
# SPDX-License-Identifier: MIT
# The real clients of the result file (tests/clients/*.py), run by
# `make clients-check` (part of `make test`):
#   MDAnalysis (Debian python3-mdanalysis) reads every frame and observable;
#   ParaView (Debian paraview python3-paraview) opens the .xmf sidecars
#   with pvpython --force-offscreen-rendering.  Debian's ParaView renders
#   through X even off screen: without $DISPLAY it gets an Xvfb of its own
#   (Debian xvfb), started with -noreset: pvpython opens and closes X
#   connections, and a server that resets when its last client leaves
#   refused the next one in about one run of three (so not xvfb-run).
# A client that is not installed is skipped with a message saying what to
# install (the packages are about 830 MB; .ci/run installs them); one that
# is installed and fails fails the target.  The closing line counts the two:
# "clients: N passed, N failed, N skipped" (also written, with the reasons
# for the skips, to the file $VSIM_TEST_COUNTS names: tests/run-tests.sh).
#   VSIM=build/vsim sh tests/clients/run.sh
set -u
VSIM=${VSIM:-build/vsim}
case $VSIM in /*) ;; *) VSIM=$PWD/$VSIM ;; esac
ROOT=$PWD
PY=${PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
fail=0
passed=0
skipped=0

# skip CLIENT WHY
skip() {
  echo "clients: $1 test skipped: $2"
  skipped=$((skipped + 1))
  [ -z "${VSIM_TEST_COUNTS:-}" ] || echo "skip $1: $2" >> "$VSIM_TEST_COUNTS"
}

finish() {
  echo "clients: $passed passed, $fail failed, $skipped skipped"
  [ -z "${VSIM_TEST_COUNTS:-}" ] ||
    echo "clients: $passed passed, $fail failed, $skipped skipped" >> "$VSIM_TEST_COUNTS"
  [ "$fail" -eq 0 ] && exit 0
  exit 1
}

if "$PY" -c 'import MDAnalysis, h5py' 2>/dev/null; then
  if "$PY" tests/clients/mdanalysis_h5md.py "$VSIM" "$ROOT" "$work" 2>"$work/mda.err"; then
    passed=$((passed + 1))
  else
    cat "$work/mda.err" >&2
    fail=$((fail + 1))
  fi
else
  skip MDAnalysis "apt-get install python3-mdanalysis (and python3-h5py)"
fi

xvfb_pid=
stop_xvfb() { [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null; xvfb_pid=; }
trap 'stop_xvfb; rm -rf "$work"' EXIT INT TERM

if command -v pvpython > /dev/null 2>&1; then
  if [ -z "${DISPLAY:-}" ]; then
    if ! command -v Xvfb > /dev/null 2>&1; then
      skip ParaView "no \$DISPLAY and no Xvfb (apt-get install xvfb)"
      finish
    fi
    Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp -noreset 3> "$work/display" 2> "$work/xvfb.err" &
    xvfb_pid=$!
    i=0
    while [ ! -s "$work/display" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if [ ! -s "$work/display" ]; then
      echo "clients: Xvfb did not start:" >&2
      cat "$work/xvfb.err" >&2
      fail=$((fail + 1))
      finish
    fi
    DISPLAY=:$(cat "$work/display")
    export DISPLAY
  fi
  # ParaView logs "no caching possible" for every HyperSlab geometry: noise
  pvpython --force-offscreen-rendering tests/clients/paraview_xdmf.py "$VSIM" "$ROOT" \
    "$work" > "$work/pv.out" 2>&1
  rc=$?
  grep '^paraview:' "$work/pv.out"
  if [ $rc -ne 0 ] || ! grep -q '^paraview: ok$' "$work/pv.out"; then
    grep -v 'no caching possible' "$work/pv.out" | tail -30 >&2
    fail=$((fail + 1))
  else
    passed=$((passed + 1))
  fi
else
  skip ParaView "apt-get install --no-install-recommends paraview python3-paraview xvfb"
fi
finish
