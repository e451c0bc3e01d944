#!/bin/sh
# SPDX-License-Identifier: MIT
# install-check.sh: vsim installed as a user installs it, and used as a user
# would use it.  Run by `make install-check` (part of `make test`);
# standalone: sh tests/install-check.sh.
#
#  1. make install PREFIX=$tmp/prefix: every file in its place, the shared
#     library exporting the public API only;
#  2. examples/ built against that copy with nothing but PKG_CONFIG_PATH,
#     shared and static, run, and its output checked (Verlet free fall is
#     exact to rounding);
#  3. the installed program runs; `man -l` renders the page and it holds
#     every command and every option of every `vsim CMD --help`;
#  4. bash -n on the bash completion, which (as the zsh one) names every
#     option of every command;
#  5. the installed example scenes run where they are (their meshes and
#     sweeps beside them), and LICENSE is installed with the docs;
#  6. DESTDIR staging keeps PREFIX in libvsim.pc; make uninstall leaves
#     no file behind, and none of vsim's own folders.
set -u
ROOT=${VSIM_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vsim-install-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
ok() { echo "install-check: ok: $*"; }
bad() { echo "install-check: FAIL: $*"; fails=$((fails + 1)); }
prefix=$tmp/prefix

cd "$ROOT" || exit 1
if ! $MAKE -s --no-print-directory install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  echo "install-check: FAIL: make install PREFIX=$prefix"
  exit 1
fi
for f in bin/vsim lib/libvsim.a lib/libvsim.so lib/libvsim.so.0 include/vsim/vsim.h \
         include/vsim/scene.h include/vsim/step.h lib/pkgconfig/libvsim.pc \
         share/man/man1/vsim.1 share/bash-completion/completions/vsim \
         share/zsh/site-functions/_vsim share/doc/vsim/scene-format.md \
         share/doc/vsim/result-file.md share/doc/vsim/LICENSE share/doc/vsim/CHANGELOG.md \
         share/vsim/examples/cloth_sphere.yaml share/vsim/examples/meshes/bunny_like.obj \
         share/vsim/examples/sweeps/cloth_iterations.yaml share/vsim/vsim-scene.schema.json; do
  [ -e "$prefix/$f" ] || bad "make install did not install $f"
done
ok "make install PREFIX=$prefix"

# The shared library exports the functions of the public headers, nothing else.
want=$(grep -ohE '\bvs_[a-z0-9_]+\(' "$prefix"/include/vsim/*.h | tr -d '(' | sort -u)
have=$(nm -D --defined-only "$prefix/lib/libvsim.so" | awk '$2 == "T" {print $3}' | sort -u)
if [ "$want" = "$have" ]; then
  ok "libvsim.so exports the $(echo "$have" | wc -l) public functions and nothing else"
else
  bad "libvsim.so exports differ from the public headers:"
  printf '%s\n' "$want" >"$tmp/want"; printf '%s\n' "$have" >"$tmp/have"
  diff "$tmp/want" "$tmp/have" | sed 's/^/    /'
fi

# The example, with nothing but PKG_CONFIG_PATH (no -I, -L of our own).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
if ! pkg-config --exists libvsim; then
  bad "pkg-config --exists libvsim"
fi
check_drop() { # check_drop BINARY HOW
  out=$("$@" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  if [ $rc -ne 0 ]; then
    bad "examples/drop ($how) exit $rc: $out"
  elif ! printf '%s\n' "$out" | grep -q '^    1.00   ' ||
       ! printf '%s\n' "$last" | grep -Eq '^max \|y - exact\| = [0-9.]+e-(1[0-9]|[2-9][0-9]) m over 100 frames$'; then
    bad "examples/drop ($how) printed: $out"
  else
    ok "examples/drop ($how): $last"
  fi
}
for how in shared static; do
  rm -rf "$tmp/ex" && cp -r "$ROOT/examples" "$tmp/ex" && rm -f "$tmp/ex/drop"
  static=0; [ $how = static ] && static=1
  if ! (cd "$tmp/ex" && env -u CFLAGS -u LDFLAGS $MAKE -s --no-print-directory STATIC=$static drop) >"$tmp/build.log" 2>&1; then
    bad "examples/ ($how) does not build against the installed copy:"; sed 's/^/    /' "$tmp/build.log"
    continue
  fi
  if [ $how = shared ]; then
    lib=$(LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/ex/drop" | awk '/libvsim/ {print $3}')
    [ "$lib" = "$prefix/lib/libvsim.so.0" ] || bad "drop (shared) loads libvsim from '$lib'"
    check_drop env LD_LIBRARY_PATH="$prefix/lib" "$tmp/ex/drop"
  else
    if ldd "$tmp/ex/drop" | grep -q libvsim; then bad "drop (static) loads libvsim.so"; fi
    check_drop "$tmp/ex/drop"
  fi
done

# The installed program.
"$prefix/bin/vsim" --version | grep -q '^vsim ' && ok "installed vsim --version" ||
  bad "installed vsim --version"

# The installed example scenes: every one of configs/ is there, one that
# reads meshes runs from there, and a sweep finds its scene.
ex=$prefix/share/vsim/examples
n_src=$(ls "$ROOT"/configs/*.yaml | wc -l); n_ex=$(ls "$ex"/*.yaml 2>/dev/null | wc -l)
[ "$n_src" -eq "$n_ex" ] || bad "share/vsim/examples holds $n_ex scenes, configs/ $n_src"
if (cd "$tmp" && "$prefix/bin/vsim" run "$ex/mesh_drape.yaml" --frames 2 -q -o "$tmp/ex.h5") &&
   "$prefix/bin/vsim" sweep "$ex/sweeps/cloth_iterations.yaml" --list >/dev/null; then
  ok "installed examples: mesh_drape.yaml runs, sweeps/cloth_iterations.yaml lists its points"
else
  bad "installed examples do not run from $ex"
fi
rm -f "$tmp/ex.h5" "$tmp/ex.xmf"

# The man page: renders without warnings, and holds every command and option.
page="$prefix/share/man/man1/vsim.1"
if ! MANWIDTH=80 man -l "$page" >"$tmp/man.txt" 2>"$tmp/man.err" || [ -s "$tmp/man.err" ] ||
   ! grep -q 'VSIM RUN' "$tmp/man.txt"; then
  bad "man -l $page:"; sed 's/^/    /' "$tmp/man.err"
else
  ok "man -l renders the page ($(wc -l <"$tmp/man.txt") lines)"
fi
commands=$("$prefix/bin/vsim" --help | awk '/^Commands:/{on=1; next} on && /^$/{exit} on && $1 != "help" {print $1}')
[ -n "$commands" ] || bad "no commands in vsim --help"
bash_c="$prefix/share/bash-completion/completions/vsim"
zsh_c="$prefix/share/zsh/site-functions/_vsim"
missing=""
for c in $commands; do
  grep -q "VSIM $(echo "$c" | tr a-z A-Z)" "$tmp/man.txt" || missing="$missing man:$c"
  grep -q "^    $c)" "$bash_c" || missing="$missing bash:$c"
  grep -q "'$c:" "$zsh_c" || missing="$missing zsh:$c"
  opts=$("$prefix/bin/vsim" "$c" --help | sed -n '/^Options:/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
  for o in $opts; do
    # man renders - as a hyphen; the page must hold the option itself
    grep -q -- "$o" "$tmp/man.txt" || missing="$missing man:$c:$o"
    sed -n "/^    $c)/,/;;/p" "$bash_c" | grep -q -- "$o\\b" || missing="$missing bash:$c:$o"
    sed -n "/^        $c)/,/;;/p" "$zsh_c" | sed -e 's/\$help/--help[/' -e 's/\$set_opt/--set=[/' |
      grep -Eq -- "$o([]=+[}])" || missing="$missing zsh:$c:$o"
  done
done
if [ -n "$missing" ]; then
  bad "commands or options missing from the man page or a completion:$missing"
else
  ok "man page, bash and zsh completion cover every command and option of --help"
fi
if bash -n "$bash_c" && bash -c ". '$bash_c'; COMP_WORDS=(vsim sweep --co); COMP_CWORD=2; _vsim; [ \"\${COMPREPLY[*]}\" = --collect ]"; then
  ok "bash -n and a completion of 'vsim sweep --co'"
else
  bad "bash completion"
fi
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$zsh_c" && ok "zsh -n" || bad "zsh -n $zsh_c"
fi

# DESTDIR staging: files under DESTDIR, PREFIX in the .pc; then uninstall.
stage=$tmp/stage
if $MAKE -s --no-print-directory install DESTDIR="$stage" PREFIX=/opt/vsim >"$tmp/stage.log" 2>&1 &&
   [ -x "$stage/opt/vsim/bin/vsim" ] &&
   grep -qx 'prefix=/opt/vsim' "$stage/opt/vsim/lib/pkgconfig/libvsim.pc" &&
   ! grep -q "$stage" "$stage/opt/vsim/lib/pkgconfig/libvsim.pc"; then
  ok "make install DESTDIR=... PREFIX=/opt/vsim"
else
  bad "make install DESTDIR=$stage PREFIX=/opt/vsim"; cat "$tmp/stage.log"
fi
for p in "$prefix" "$stage/opt/vsim"; do
  case $p in "$stage"*) args="DESTDIR=$stage PREFIX=/opt/vsim" ;; *) args="PREFIX=$p" ;; esac
  # shellcheck disable=SC2086
  $MAKE -s --no-print-directory uninstall $args >/dev/null 2>&1 || bad "make uninstall $args"
  left=$(find "$p" -type f -o -type l)
  [ -z "$left" ] && ok "make uninstall $args leaves no file" || bad "make uninstall $args left: $left"
  # vsim's own folders go too; the shared ones (bin, lib, share/man, ...) stay
  left=$(find "$p" -mindepth 1 -type d \( -name vsim -o -name examples \))
  [ -z "$left" ] && ok "make uninstall $args removes vsim's folders" || bad "make uninstall $args left folders: $left"
done

if [ $fails -ne 0 ]; then echo "install-check: $fails FAILED"; exit 1; fi
echo "install-check: passed"
