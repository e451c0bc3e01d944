#!/bin/sh
# SPDX-License-Identifier: MIT
# link-deps.sh: the library objects a program was linked from, as make
# prerequisites, so that a change of the library relinks only the programs
# that took the changed object from it (the Makefile's test programs).
#
#   sh scripts/link-deps.sh TARGET ARCHIVE TRACE OBJECT... > TARGET.link.d
#
# TRACE is what the linker printed under -Wl,-t,-t: every input, and every
# archive member it pulled, as "(ARCHIVE)MEMBER.o" (GNU ld) or
# "ARCHIVE(MEMBER.o)" (newer GNU ld, lld).  OBJECT... are the archive's
# objects with their paths; ar names a member by its base name only.  The
# output is "TARGET: OBJECT..." for the members pulled and an empty rule for
# each (as gcc -MP writes for headers: an object that is gone does not stop
# make); a program that took nothing from the archive (the linker named it
# and no member) depends on none of them.  When the trace cannot be read for
# sure (the archive not named in it, a line naming it in another form, or a
# base name that two objects share), TARGET depends on the whole ARCHIVE
# instead, as it would without this file.
set -eu
[ $# -ge 3 ] || { echo "usage: sh scripts/link-deps.sh TARGET ARCHIVE TRACE OBJECT..." >&2; exit 2; }
target=$1
archive=$2
trace=$3
shift 3
awk -v target="$target" -v archive="$archive" -v objs="$*" '
  BEGIN {
    n = split(objs, o, " ")
    for (i = 1; i <= n; i++) {
      b = o[i]
      sub(/.*\//, "", b)
      if (b in path) twice[b] = 1
      path[b] = o[i]
    }
  }
  $0 == archive { named = 1; next }
  index($0, archive) {
    m = ""
    if (index($0, "(" archive ")") == 1)
      m = substr($0, length(archive) + 3)
    else if (index($0, archive "(") == 1 && substr($0, length($0)) == ")")
      m = substr($0, length(archive) + 2, length($0) - length(archive) - 2)
    if (m == "" || !(m in path) || (m in twice)) { unknown = 1; next }
    if (!(m in seen)) { seen[m] = 1; used[++k] = path[m] }
  }
  END {
    if (unknown || (k == 0 && !named)) { print target ": " archive; exit }
    line = target ":"
    for (i = 1; i <= k; i++) line = line " " used[i]
    print line
    for (i = 1; i <= k; i++) print used[i] ":"
  }' "$trace"
