#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what vsim needs to build, test and plot, from Debian's packages.
# Safe to re-run; does nothing when everything is present.
set -eu
# libxml2-utils: xmllint, which validates the JUnit reports (tests/test_junit.c);
# python3-jsonschema, python3-yaml: the example scenes against the scene
# schema (tests/test_schema_cli.c)
PKGS="build-essential pkg-config libyaml-dev libhdf5-dev hdf5-tools check \
      python3-h5py python3-numpy python3-matplotlib valgrind libcairo2-dev libxml2-utils \
      python3-jsonschema python3-yaml"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
