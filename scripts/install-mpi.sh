#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what `make MPI=1` and the cluster helpers need, from Debian's
# packages: Open MPI (mpicc, mpirun) and GNU parallel.  Kept apart from
# install-deps.sh because a plain build needs neither.  Safe to re-run;
# does nothing when everything is present.
set -eu
PKGS="openmpi-bin libopenmpi-dev parallel"
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
