#!/bin/sh
# SPDX-License-Identifier: MIT
# golden.sh: the golden suite: a small result file for every scene in
# configs/, kept in tests/golden/, that later builds must reproduce.
#
#   sh scripts/golden.sh check  [SCENE...]   rerun each scene and compare with its golden file
#   sh scripts/golden.sh update [SCENE...]   regenerate, and say what changed and by how much
#   sh scripts/golden.sh check --junit FILE [SCENE...]
#                                            also write a JUnit XML report to FILE (also
#                                            GOLDEN_JUNIT=FILE): one test suite per scene,
#                                            one test case per dataset (a failure names the
#                                            first differing frame), an error for a scene
#                                            that cannot run or has no golden file
#   sh scripts/golden.sh cross  [SCENE...]   run each scene with $VSIM and with $VSIM_CROSS
#                                            (another build: arm64 under qemu) and compare
#                                            the two results
#
# (`make golden-check`, `make golden-update`; `make test` runs the check;
# `make golden-check-aarch64` runs cross with the arm64 build.)
# SCENE is a name such as torn_cloth; none means every configs/*.yaml.
#
# Each scene runs as `vsim run configs/SCENE.yaml --frames 20
# --set output.compression=9 --set output.xdmf=true [OPTIONS]`, OPTIONS from the line of
# $GOLDEN_DIR/options that starts with the scene's name (more frames or
# fewer recorded ones, so that the file is small and still shows what the
# scene is about).  The comparison is `vsim compare --json`, bitwise unless
# the scene's line in $GOLDEN_DIR/tolerances gives options such as
# --rtol 1e-12 (with the reason in a comment).
#
# check prints, for every scene that differs, each differing dataset with
# its first frame (and particle) and the largest differences, and exits 1.
# update compares the new files with the old ones before replacing them, so
# that a reviewer sees which physics changed; unchanged files are left
# untouched (byte for byte, for git).  A scene that cannot run fails both
# (exit 1); bad usage is exit 2.
#
# cross is the check that one source gives the same bits on two machines:
# each scene runs, with the same options, once with $VSIM (this machine's
# build) and once with $VSIM_CROSS (a command, split into words: e.g.
# "qemu-aarch64 -L build/aarch64/sysroot build/aarch64/vsim"), and $VSIM
# compare holds the second result to the first, bitwise unless tolerances
# says otherwise.  Both are made at the same commit, so the check does not
# depend on tests/golden/ being up to date; each scene's line also says
# whether this machine's result equals its golden file (for information:
# `golden.sh check` is the test of that).  Exit 1 when a pair differs.
#
# Environment: VSIM (the program, default build/vsim), VSIM_TEST_COUNTS (a
# file that check adds its counts to, as tests/run-tests.sh reads), GOLDEN_DIR
# (tests/golden), CONFIGS (configs), GOLDEN_EXTRA (options added to every
# run; the tests use it to imitate a changed solver), GOLDEN_JUNIT (the
# report's file, as --junit).
set -eu

VSIM=${VSIM:-build/vsim}
GOLDEN_DIR=${GOLDEN_DIR:-tests/golden}
CONFIGS=${CONFIGS:-configs}
GOLDEN_EXTRA=${GOLDEN_EXTRA:-}
# output.xdmf=true: the golden files hold the rigid bodies' surfaces
# (/particles/rigid_surface, viewer data that a run writes only with its
# sidecar), so that the writer of those is checked too
COMMON="--frames 20 --set output.compression=9 --set output.xdmf=true"

usage() {
  echo "usage: sh scripts/golden.sh check [--junit FILE] [SCENE...] | update [SCENE...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
mode=$1
shift
case $mode in check | update | cross) ;; *) usage ;; esac
junit=${GOLDEN_JUNIT:-}
scenes=
named=0
while [ $# -gt 0 ]; do
  case $1 in
    --junit)
      [ $# -ge 2 ] && [ -n "$2" ] || usage
      junit=$2
      shift 2
      ;;
    --junit=?*)
      junit=${1#--junit=}
      shift
      ;;
    -*) usage ;;
    *)
      scenes="$scenes $1"
      named=1
      shift
      ;;
  esac
done
if [ -n "$junit" ] && [ "$mode" != check ]; then
  echo "golden: --junit (GOLDEN_JUNIT) goes with check" >&2
  exit 2
fi
[ -x "$VSIM" ] || { echo "golden: no program at $VSIM (run make first)" >&2; exit 2; }
VSIM_CROSS=${VSIM_CROSS:-}
if [ "$mode" = cross ] && [ -z "$VSIM_CROSS" ]; then
  echo "golden: cross needs VSIM_CROSS, the command that runs the other build" >&2
  exit 2
fi
[ -d "$CONFIGS" ] || { echo "golden: no scene directory $CONFIGS" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vsim-golden-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# The rest of the scene's line in a table file (comments and blanks dropped).
table() {
  [ -f "$1" ] || return 0
  sed -e 's/#.*//' "$1" | awk -v s="$2" '$1 == s { $1 = ""; sub(/^ +/, ""); print; exit }'
}

# `vsim compare --json` output -> one line per differing dataset:
#   PATH: first at frame F, particle P: max abs A, max rel R
# (shape, missing and format differences say so).  $1 and $2 name the two
# sides ("this run" and "the golden file").
describe() {
  awk -v a="$1" -v b="$2" '
    function field(obj, key,    i, rest, out, c, j) {
      i = index(obj, "\"" key "\":")
      if (!i) return ""
      rest = substr(obj, i + length(key) + 3)
      if (substr(rest, 1, 1) != "\"") {
        j = match(rest, /[,}]/)
        return j ? substr(rest, 1, j - 1) : rest
      }
      out = ""
      for (j = 2; j <= length(rest); j++) {
        c = substr(rest, j, 1)
        if (c == "\\") { j++; out = out substr(rest, j, 1); continue }
        if (c == "\"") break
        out = out c
      }
      return out
    }
    {
      n = split($0, objs, /\{"path":/)
      for (k = 2; k <= n; k++) {
        o = "\"path\":" objs[k]
        path = field(o, "path"); kind = field(o, "kind")
        if (kind == "values") {
          where = ""
          if (field(o, "first_frame") >= 0) where = "first at frame " field(o, "first_frame")
          if (field(o, "first_particle") >= 0)
            where = where (where == "" ? "first at " : ", ") "particle " field(o, "first_particle")
          if (where == "") where = "first at element " field(o, "first_index")
          printf "  %s: %s: max abs %s, max rel %s\n", path, where, field(o, "max_abs"), field(o, "max_rel")
        } else if (kind == "missing_b") {
          printf "  %s: only in %s\n", path, a
        } else if (kind == "missing_a") {
          printf "  %s: only in %s\n", path, b
        } else if (kind == "shape") {
          printf "  %s: shape %s (%s vs %s)\n", path, field(o, "detail"), a, b
        } else {
          printf "  %s: %s: %s\n", path, kind, field(o, "detail")
        }
      }
    }'
}

# Run one scene into $tmp/NAME.h5 ($2: another program, a command line,
# into $tmp/NAME.cross.h5); 0 when the file is there and complete.
run_scene() {
  name=$1
  out=$tmp/$name${2:+.cross}
  opts=$(table "$GOLDEN_DIR/options" "$name")
  # word splitting of the option strings is intended: they hold no blanks
  # inside values (see tests/golden/options); so of $2, a command line
  if [ $# -ge 2 ]; then
    # shellcheck disable=SC2086
    $2 run "$CONFIGS/$name.yaml" $COMMON $opts $GOLDEN_EXTRA -o "$out.h5" \
      --force --quiet > "$out.out" 2> "$out.err"
  else
    # shellcheck disable=SC2086
    "$VSIM" run "$CONFIGS/$name.yaml" $COMMON $opts $GOLDEN_EXTRA -o "$out.h5" \
      --force --quiet > "$out.out" 2> "$out.err"
  fi
}

# ---- the JUnit report: a <testsuite> per scene, gathered in $tmp/junit ----
[ -z "$junit" ] || mkdir "$tmp/junit"
xml_escape() {
  tr -d '\000-\010\013\014\016-\037' |
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g' -e "s/'/\&apos;/g"
}
# junit_suite NAME: the test suite of `vsim compare --junit` ($tmp/NAME.junit)
# without the XML declaration and the <testsuites> around it.
junit_suite() {
  [ -z "$junit" ] || sed '1,2d;$d' "$tmp/$1.junit" > "$tmp/junit/$count.xml"
}
# junit_error NAME CASE TYPE MESSAGE: a suite of one test case in error.
junit_error() {
  [ -n "$junit" ] || return 0
  n=$(printf '%s' "$1" | xml_escape)
  m=$(printf '%s' "$4" | xml_escape)
  {
    printf '  <testsuite name="%s" tests="1" failures="0" errors="1" skipped="0" time="0">\n' "$n"
    printf '    <testcase classname="%s" name="%s" time="0">\n' "$n" "$2"
    printf '      <error type="%s" message="%s">%s</error>\n' "$3" "$m" "$m"
    printf '    </testcase>\n  </testsuite>\n'
  } > "$tmp/junit/$count.xml"
}
# The report: every scene's suite in order, the totals on <testsuites>;
# written beside FILE and renamed into place.
junit_write() {
  [ -n "$junit" ] || return 0
  tests=0 failures=0 errors=0
  for f in $(ls "$tmp/junit" | sort -n); do
    head=$(sed -n 1p "$tmp/junit/$f")
    tests=$((tests + $(echo "$head" | sed 's/.* tests="\([0-9]*\)".*/\1/')))
    failures=$((failures + $(echo "$head" | sed 's/.* failures="\([0-9]*\)".*/\1/')))
    errors=$((errors + $(echo "$head" | sed 's/.* errors="\([0-9]*\)".*/\1/')))
  done
  {
    echo '<?xml version="1.0" encoding="UTF-8"?>'
    echo "<testsuites name=\"golden\" tests=\"$tests\" failures=\"$failures\" errors=\"$errors\">"
    for f in $(ls "$tmp/junit" | sort -n); do cat "$tmp/junit/$f"; done
    echo '</testsuites>'
  } > "$tmp/report.xml"
  if ! { cp "$tmp/report.xml" "$junit.tmp.$$" && mv -f "$junit.tmp.$$" "$junit"; }; then
    rm -f "$junit.tmp.$$"
    echo "golden: $junit: cannot write the JUnit report" >&2
    exit 2
  fi
}

if [ -z "$scenes" ]; then
  for f in "$CONFIGS"/*.yaml; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .yaml)
    scenes="$scenes $n"
  done
fi

failed=0
changed=0
count=0
for name in $scenes; do
  count=$((count + 1))
  if [ ! -f "$CONFIGS/$name.yaml" ]; then
    echo "golden: $name: no scene $CONFIGS/$name.yaml" >&2
    junit_error "$name" run missing "no scene $CONFIGS/$name.yaml"
    failed=$((failed + 1))
    continue
  fi
  golden="$GOLDEN_DIR/$name.h5"
  rc=0
  if [ "$mode" = cross ]; then
    start=$(date +%s)
    run_scene "$name" "$VSIM_CROSS" || rc=$?
    secs=$(($(date +%s) - start))
    if [ $rc -ne 0 ]; then
      echo "golden: $name: FAILED to run with $VSIM_CROSS (exit $rc, ${secs} s):" >&2
      sed 's/^/  /' "$tmp/$name.cross.err" >&2
      failed=$((failed + 1))
      continue
    fi
  fi
  run_scene "$name" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "golden: $name: FAILED to run (exit $rc):" >&2
    sed 's/^/  /' "$tmp/$name.err" >&2
    junit_error "$name" run "exit $rc" "$(cat "$tmp/$name.err")"
    failed=$((failed + 1))
    continue
  fi
  if [ "$mode" = cross ]; then
    tol=$(table "$GOLDEN_DIR/tolerances" "$name")
    lag="no golden file"
    if [ -f "$golden" ]; then
      lag="the golden file differs"
      "$VSIM" compare "$tmp/$name.h5" "$golden" > /dev/null 2>&1 && lag="equal to the golden file"
    fi
    rc=0
    # shellcheck disable=SC2086
    "$VSIM" compare "$tmp/$name.cross.h5" "$tmp/$name.h5" --json $tol > "$tmp/$name.json" \
      2> "$tmp/$name.err" || rc=$?
    case $rc in
      0) echo "golden: $name: ok, the same bits${tol:+ ($tol)} (${secs} s; this machine's run: $lag)" ;;
      1)
        echo "golden: $name: DIFFERENT between $VSIM_CROSS and $VSIM${tol:+ (beyond $tol)}"
        describe "the other build" "this machine's build" < "$tmp/$name.json"
        failed=$((failed + 1))
        ;;
      *)
        echo "golden: $name: cannot compare (exit $rc):" >&2
        sed 's/^/  /' "$tmp/$name.err" >&2
        failed=$((failed + 1))
        ;;
    esac
    rm -f "$tmp/$name.h5" "$tmp/$name.cross.h5"
  elif [ "$mode" = check ]; then
    if [ ! -f "$golden" ]; then
      echo "golden: $name: no golden file $golden (make golden-update creates it)"
      junit_error "$name" "golden file" missing "no golden file $golden (make golden-update creates it)"
      failed=$((failed + 1))
      continue
    fi
    tol=$(table "$GOLDEN_DIR/tolerances" "$name")
    rc=0
    set --
    [ -z "$junit" ] || set -- --junit "$tmp/$name.junit"
    # shellcheck disable=SC2086
    "$VSIM" compare "$tmp/$name.h5" "$golden" --json $tol "$@" \
      > "$tmp/$name.json" 2> "$tmp/$name.err" || rc=$?
    [ ! -f "$tmp/$name.junit" ] || junit_suite "$name"
    case $rc in
      0) echo "golden: $name: ok${tol:+ ($tol)}" ;;
      1)
        echo "golden: $name: DIFFERENT from $golden${tol:+ (beyond $tol)}"
        describe "this run" "the golden file" < "$tmp/$name.json"
        failed=$((failed + 1))
        ;;
      *)
        echo "golden: $name: cannot compare (exit $rc):" >&2
        sed 's/^/  /' "$tmp/$name.err" >&2
        failed=$((failed + 1))
        ;;
    esac
  else
    if [ ! -f "$golden" ]; then
      mkdir -p "$GOLDEN_DIR"
      cp "$tmp/$name.h5" "$golden"
      echo "golden: $name: new ($(wc -c < "$golden" | tr -d ' ') bytes)"
      changed=$((changed + 1))
      continue
    fi
    rc=0
    "$VSIM" compare "$tmp/$name.h5" "$golden" --json > "$tmp/$name.json" 2> "$tmp/$name.err" || rc=$?
    if [ $rc -eq 0 ]; then
      echo "golden: $name: unchanged"
      continue
    fi
    echo "golden: $name: CHANGED (new vs old):"
    if [ $rc -eq 1 ]; then
      describe "the new file" "the old file" < "$tmp/$name.json"
    else
      sed 's/^/  /' "$tmp/$name.err"
    fi
    cp "$tmp/$name.h5" "$golden"
    changed=$((changed + 1))
  fi
done

if [ "$mode" = update ] && [ $named -eq 0 ]; then
  # golden files whose scene is gone
  for g in "$GOLDEN_DIR"/*.h5; do
    [ -e "$g" ] || continue
    n=$(basename "$g" .h5)
    if [ ! -f "$CONFIGS/$n.yaml" ]; then
      rm -f "$g"
      echo "golden: $n: removed (no $CONFIGS/$n.yaml)"
      changed=$((changed + 1))
    fi
  done
fi

junit_write
if [ "$mode" = cross ]; then
  if [ $failed -ne 0 ]; then
    echo "golden: cross FAILED: $failed of $count scenes differ or did not run"
    exit 1
  fi
  echo "golden: $count scenes give the same bits with $VSIM_CROSS and $VSIM"
elif [ "$mode" = check ]; then
  # the counts, per scene, for the closing line of make test (tests/run-tests.sh)
  [ -z "${VSIM_TEST_COUNTS:-}" ] ||
    echo "golden: $((count - failed)) passed, $failed failed, 0 skipped" >> "$VSIM_TEST_COUNTS"
  if [ $failed -ne 0 ]; then
    echo "golden: check FAILED; if the change is intended, run make golden-update and commit tests/golden/"
    exit 1
  fi
  echo "golden: $count scenes equal to $GOLDEN_DIR"
else
  echo "golden: $changed of $count files new, changed or removed in $GOLDEN_DIR"
  [ $failed -eq 0 ] || exit 1
fi
