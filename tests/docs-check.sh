#!/bin/sh
# SPDX-License-Identifier: MIT
# docs-check.sh: the repository stands alone.  Its code, tests, scripts and
# docs cite the contract in docs/ (cli.md, scene-format.md, physics.md,
# result-file.md, architecture.md), never a SPEC.md or DESIGN.md that a user
# who clones the repository does not have; and every docs/*.md that the code
# or the README names exists.  Part of `make test`.
set -eu
cd "${VSIM_ROOT:-.}"
bad=$(grep -rnE '\b(SPEC|DESIGN)(\.md)?\b' lib cmd tests scripts bench docs examples dist README.md Makefile \
        --include='*.c' --include='*.h' --include='*.cpp' --include='*.sh' --include='*.py' \
        --include='*.md' --include='*.yaml' --include='Makefile' --include='*.in' \
        2>/dev/null | grep -v '^tests/docs-check.sh:' || true)
if [ -n "$bad" ]; then
  echo "docs-check: these lines cite a file outside the repository; cite docs/ instead:" >&2
  echo "$bad" >&2
  exit 1
fi
missing=0
for f in $(grep -rhoE 'docs/[a-z_-]+\.md' lib cmd tests scripts bench README.md docs 2>/dev/null | sort -u); do
  if [ ! -f "$f" ]; then echo "docs-check: $f is cited but does not exist" >&2; missing=1; fi
done
[ "$missing" -eq 0 ] || exit 1
echo "docs-check: ok"
