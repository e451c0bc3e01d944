#!/bin/sh
# SPDX-License-Identifier: MIT
# docs-check.sh: the documentation says what the program does, checked
# mechanically.  Part of `make test` (one check); standalone, after `make`:
#   sh tests/docs-check.sh            (VSIM=path/to/vsim, default build/vsim)
#
#  1. The repository stands alone: code, tests, scripts and docs cite the
#     contract in docs/, never a SPEC.md or DESIGN.md that a user who clones
#     it does not have, nor tracker issues by number; every docs/*.md named
#     exists.
#  2. Every source file starts with its SPDX-License-Identifier line (MIT,
#     LICENSE).
#  3. Every example scene (configs/*.yaml) has its row in the README's scene
#     table, and every command of `vsim --help` is in docs/cli.md's synopsis.
#  4. Every result-file path (/observables/..., /particles/..., ...) named in
#     an example scene's comments exists in that scene's result, and every
#     one named in README.md or docs/*.md in the result of some scene: each
#     scene is run for 2 frames into a temporary directory and its objects
#     and attributes listed with h5ls -v -r (without h5ls: the datasets of
#     `vsim info --json` and their groups, and then /h5md, /parameters and
#     the box groups, which hold only attributes, are not checked).  Paths
#     that only some options create come from OPTION_RUN below, a run with
#     those options; paths the docs name that no run writes any more are in
#     HISTORY, each with its reason.  Paths are read as the docs write them:
#     {a,b} alternatives, and <kind>, NAME or a final ... for any name.
#     CHANGELOG.md is history and names old paths: not checked.
# It takes about 5 s on 2 cores (26 scenes and the option run, 2 frames each).
set -eu
VSIM=${VSIM:-build/vsim}
case $VSIM in /*) ;; *) VSIM=$PWD/$VSIM ;; esac
cd "${VSIM_ROOT:-.}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vsim-docs-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
: > "$tmp/failed"
# fail WHAT: report it (also from a pipeline's subshell: counted in a file)
fail() { echo "docs-check: $*" >&2; echo x >> "$tmp/failed"; }

# ---- 1. standing alone ------------------------------------------------------
TREES="lib cmd tests scripts bench docs examples dist configs README.md Makefile"
bad=$(grep -rnE '\b(SPEC|DESIGN)(\.md)?\b' $TREES \
        --include='*.c' --include='*.h' --include='*.cpp' --include='*.sh' --include='*.py' \
        --include='*.md' --include='*.yaml' --include='Makefile' --include='*.in' \
        2>/dev/null | grep -v '^tests/docs-check.sh:' || true)
[ -z "$bad" ] || fail "these lines cite a file outside the repository; cite docs/ instead:
$bad"
bad=$(grep -rniE '\bissues? #?[0-9]+' $TREES CHANGELOG.md \
        --include='*.c' --include='*.h' --include='*.cpp' --include='*.sh' --include='*.py' \
        --include='*.md' --include='*.yaml' --include='Makefile' --include='*.in' \
        2>/dev/null | grep -v '^tests/docs-check.sh:' || true)
[ -z "$bad" ] || fail "these lines cite tracker issues by number, which a reader of the tree cannot follow; say what the code does instead:
$bad"
for f in $(grep -rhoE 'docs/[a-z_-]+\.md' lib cmd tests scripts bench README.md docs 2>/dev/null | sort -u); do
  [ -f "$f" ] || fail "$f is cited but does not exist"
done

# ---- 2. licence lines -------------------------------------------------------
[ -f LICENSE ] || fail "LICENSE is missing"
missing=$(find lib cmd tests bench scripts examples dist Makefile -type f \
            \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.sh' -o -name '*.py' \
               -o -name '*.sbatch' -o -name '*.in' -o -name '*.supp' -o -name '*.dict' \
               -o -name Makefile -o -name _vsim -o -name vsim.bash \) \
            ! -path 'tests/data/*' ! -path 'tests/golden/*' ! -path 'tests/fuzz/seeds*' |
          while read -r f; do
            head -n 2 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "  $f"
          done)
[ -z "$missing" ] || fail "these files lack the line 'SPDX-License-Identifier: MIT' in their first two lines (in a comment; after #! or #compdef):
$missing"

# ---- 3. the README's scene table, cli.md's synopsis -------------------------
for f in configs/*.yaml; do
  n=${f#configs/}
  grep -q "^| \`$n\` |" README.md || fail "$f has no row in the README's table of example scenes"
done
if [ ! -x "$VSIM" ]; then
  echo "docs-check: $VSIM: no program to check against (make first, or set VSIM)" >&2
  exit 1
fi
synopsis=$(awk '/^```/{n++; next} n == 1' docs/cli.md)
commands=$("$VSIM" --help | awk '/^Commands:/{on=1; next} on && /^$/{exit} on {print $1}')
[ -n "$commands" ] || fail "no commands in '$VSIM --help'"
for c in $commands; do
  printf '%s\n' "$synopsis" | grep -q "^vsim $c\\b" ||
    fail "vsim $c (in vsim --help) is not in docs/cli.md's synopsis, the first \`\`\` block"
done

# ---- 4. dataset paths -------------------------------------------------------
# OPTION_RUN: a scene and the options that make it write what the defaults do
# not, so that the docs may name those paths too (velocities of particles and
# rigid bodies, the per-constraint error):
OPTION_RUN="configs/rigid_dice.yaml --set output.fields=[position,velocity,constraint_error,per_constraint_error] --set output.xdmf=true"
# HISTORY: paths the docs name that no result of this vsim has, each with
# why it is named (an extended regular expression over the path as written).
HISTORY='
^/observables/constraint_error/all/max/value$      result-file.md: the format 1 layout, named to tell it from format 2
^/observables/energy_kinetc$                       cli.md: a misspelt path, in the example of a collect error message
'
HAVE_H5LS=0
command -v h5ls >/dev/null 2>&1 && HAVE_H5LS=1
# objects FILE.h5: one path a line, attributes as OBJECT/NAME
objects() {
  if [ $HAVE_H5LS -eq 1 ]; then
    h5ls -v -r "$1" | awk '/^\// {obj = $1; print obj; next}
                           $1 == "Attribute:" {print (obj == "/" ? "" : obj) "/" $2}'
  else
    "$VSIM" info --json "$1" | grep -oE '"path": "[^"]*"' | sed 's/"path": "//; s/"$//' |
      awk '{ n = split($0, s, "/"); p = ""; for (i = 2; i <= n; i++) { p = p "/" s[i]; print p } }' |
      sort -u
  fi
}
# run NAME SCENE [OPTIONS...]: its objects in $tmp/NAME.txt
run() {
  name=$1; shift
  if "$VSIM" run "$@" --frames 2 -q -o "$tmp/$name.h5" --force >"$tmp/$name.log" 2>&1; then
    objects "$tmp/$name.h5" > "$tmp/$name.txt"
  else
    fail "vsim run $* failed: $(cat "$tmp/$name.log")"
    : > "$tmp/$name.txt"
  fi
  rm -f "$tmp/$name.h5" "$tmp/$name.xmf"
}
# paths FILE...: the result-file paths named in the text, as written
ROOTS='h5md|particles|observables|connectivity|solver|world|parameters|checkpoint'
paths() {
  cat "$@" | grep -oE "(^|[^A-Za-z0-9_./:-])/($ROOTS)(/([A-Za-z0-9_<>*-]|\\{[A-Za-z0-9_,]+\\})+)*(/\\.\\.\\.)?/?" |
    sed -E 's|^[^/]||; s|(.)/$|\1|' | sort -u
}
# regex PATH: the path as written -> one extended regular expression per
# alternative of its {a,b} groups
regex() {
  printf '%s\n' "$1" | awk '
    function expand(s,    i, j, n, alt, k) {
      i = index(s, "{")
      if (i == 0) { print s; return }
      j = index(substr(s, i), "}") + i - 1
      n = split(substr(s, i + 1, j - i - 1), alt, ",")
      for (k = 1; k <= n; k++) expand(substr(s, 1, i - 1) alt[k] substr(s, j + 1))
    }
    { expand($0) }' |
  sed -E 's|/\.\.\.$|/.+|; s|<[^>/]*>|[^/]+|g; s#(^|/)[A-Z][A-Z_]*(/|$)#\1[^/]+\2#g; s#(^|/)[A-Z][A-Z_]*(/|$)#\1[^/]+\2#g; s|^|^|; s|$|$|'
}
# historic PATH: true when HISTORY allows it
historic() {
  printf '%s\n' "$HISTORY" | awk 'NF {print $1}' | while read -r h; do
    if printf '%s\n' "$1" | grep -Eq -- "$h"; then echo y; break; fi
  done | grep -q y
}
# check WHERE PATHS_FILE OBJECTS_FILE WHAT: each path has an object
check() {
  while read -r p; do
    historic "$p" && continue
    # vsim info lists datasets only: without h5ls the groups that hold only
    # attributes (/h5md, /parameters, the H5MD box groups) cannot be seen
    if [ $HAVE_H5LS -eq 0 ] && printf '%s\n' "$p" | grep -Eq '^/(h5md|parameters)(/|$)|/box$'; then
      continue
    fi
    regex "$p" | while read -r re; do
      grep -Eq -- "$re" "$3" || fail "$1 names $p, which is not in $4"
    done
  done < "$2"
}

for f in configs/*.yaml; do
  n=$(basename "$f" .yaml)
  run "$n" "$f"
  sed -n 's/^[^#]*#//p' "$f" > "$tmp/$n.comments"
  paths "$tmp/$n.comments" > "$tmp/$n.paths"
  cat "$tmp/$n.paths" >> "$tmp/config.paths.all"
  check "$f" "$tmp/$n.paths" "$tmp/$n.txt" "the result of a run of $f"
done
# shellcheck disable=SC2086
run options $OPTION_RUN
cat "$tmp"/*.txt | sort -u > "$tmp/all.objects"
for f in README.md docs/*.md; do
  paths "$f" > "$tmp/doc.paths"
  sed "s|^|$f |" "$tmp/doc.paths" >> "$tmp/doc.paths.all"
  check "$f" "$tmp/doc.paths" "$tmp/all.objects" "any result of the example scenes (nor of $OPTION_RUN)"
done
[ $HAVE_H5LS -eq 1 ] || echo "docs-check: no h5ls (Debian hdf5-tools): paths checked against the datasets of vsim info --json and their groups; /h5md, /parameters and the box groups, which hold only attributes, not checked"

fails=$(wc -l < "$tmp/failed")
if [ "$fails" -ne 0 ]; then
  echo "docs-check: $fails FAILED" >&2
  exit 1
fi
echo "docs-check: ok: $(ls configs/*.yaml | wc -l) scenes in the README's table," \
  "$(echo "$commands" | wc -l) commands in cli.md's synopsis, result paths named:" \
  "$(wc -l < "$tmp/config.paths.all") in scene comments, $(wc -l < "$tmp/doc.paths.all") in the docs"
