#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what vsim needs to build, test and plot, from Debian's packages.
# Safe to re-run; does nothing when everything is present.
#
#   sh scripts/install-deps.sh                  the native build (make, make test)
#   sh scripts/install-deps.sh --cross aarch64  the arm64 cross build as well
#                                               (make TARGET=aarch64, make golden-check-aarch64)
#
# --cross aarch64 installs gcc-aarch64-linux-gnu and qemu-user, and unpacks
# the arm64 development packages vsim builds against into a sysroot,
# build/aarch64/sysroot (the Makefile and qemu-aarch64 -L point there).
# They are unpacked with dpkg -x, not installed: on Debian 12
# libhdf5-dev:arm64 and libhdf5-dev:amd64 cannot be installed together
# (installing one removes the other), and the native build needs its own.
# This adds arm64 to dpkg's architectures (dpkg --add-architecture), which
# only lets apt download arm64 packages.  The sysroot holds: the headers and
# archives of libyaml-dev, libhdf5-dev, libaec-dev (szip) and zlib1g-dev
# (the cross program links them statically, as the native one does),
# cairo's headers from libcairo2-dev (the program loads cairo with dlopen,
# lib/view/cairo_dl.c, and never links it), check and libsubunit-dev for
# the unit tests, and links to the cross compiler's own arm64 libc, libm
# and libgomp (/usr/aarch64-linux-gnu/lib) for the programs run by qemu.
# `make clean` removes it with the rest of build/: run this again.
set -eu
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

# install_missing PKG...: apt-get install the ones not installed
install_missing() {
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "installing:$missing" >&2
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

# libxml2-utils: xmllint, which validates the JUnit reports (tests/test_junit.c);
# python3-jsonschema, python3-yaml: the example scenes against the scene
# schema (tests/test_schema_cli.c)
install_missing build-essential pkg-config libyaml-dev libhdf5-dev hdf5-tools check \
  python3-h5py python3-numpy python3-matplotlib valgrind libcairo2-dev libxml2-utils \
  python3-jsonschema python3-yaml

[ $# -eq 0 ] && exit 0
if [ $# -ne 2 ] || [ "$1" != --cross ] || [ "$2" != aarch64 ]; then
  echo "usage: sh scripts/install-deps.sh [--cross aarch64]" >&2
  exit 2
fi

# ---- the arm64 cross build ---------------------------------------------------
install_missing gcc-aarch64-linux-gnu qemu-user

SYSROOT=build/aarch64/sysroot
TRIPLET=aarch64-linux-gnu
# the arm64 packages unpacked (their dependencies that the build does not
# use, such as the shared libraries' own runtime packages, are left out)
XPKGS="libyaml-dev libhdf5-dev libaec-dev zlib1g-dev libcairo2-dev check libsubunit-dev"
# the sysroot is up to date when it was made from the same package versions
want=""
if dpkg --print-foreign-architectures | grep -qx arm64; then
  for p in $XPKGS; do
    v=$(apt-cache policy "$p:arm64" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    want="$want $p:arm64=$v"
  done
fi
if [ -n "$want" ] && [ -f "$SYSROOT/.packages" ] && [ "$(cat "$SYSROOT/.packages")" = "$want" ] &&
  [ -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ]; then
  exit 0
fi

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "adding arm64 to dpkg's architectures (to download arm64 packages; none is installed)" >&2
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
want=""
for p in $XPKGS; do
  v=$(apt-cache policy "$p:arm64" | sed -n 's/^ *Candidate: //p')
  if [ -z "$v" ] || [ "$v" = "(none)" ]; then
    echo "install-deps: no $p:arm64 in apt's lists (is arm64 in dpkg --print-foreign-architectures?)" >&2
    exit 1
  fi
  want="$want $p:arm64=$v"
done

echo "unpacking into $SYSROOT:$want" >&2
debs=$(mktemp -d "${TMPDIR:-/tmp}/vsim-arm64-debs-XXXXXX")
trap 'rm -rf "$debs"' EXIT INT TERM
# apt downloads as its _apt user where it can write
chown _apt "$debs" 2>/dev/null || true
# shellcheck disable=SC2086
(cd "$debs" && apt-get download -q $want)
rm -rf "$SYSROOT"
mkdir -p "$SYSROOT/lib/$TRIPLET"
for d in "$debs"/*.deb; do
  dpkg -x "$d" "$SYSROOT"
done
# what Debian's alternatives would link (dpkg -x runs no maintainer script)
ln -sf hdf5-serial.pc "$SYSROOT/usr/lib/$TRIPLET/pkgconfig/hdf5.pc"
# the cross compiler's arm64 runtime, where the dynamic loader looks for it
# under qemu-aarch64 -L "$SYSROOT"
XLIBC=/usr/$TRIPLET/lib
[ -e "$XLIBC/ld-linux-aarch64.so.1" ] || { echo "install-deps: no $XLIBC/ld-linux-aarch64.so.1 (gcc-aarch64-linux-gnu's libc6-arm64-cross)" >&2; exit 1; }
ln -sf "$XLIBC/ld-linux-aarch64.so.1" "$SYSROOT/lib/ld-linux-aarch64.so.1"
for f in "$XLIBC"/*.so.*; do
  ln -sf "$f" "$SYSROOT/lib/$TRIPLET/${f##*/}"
done
echo "$want" > "$SYSROOT/.packages"
echo "arm64 sysroot ready: $SYSROOT" >&2
