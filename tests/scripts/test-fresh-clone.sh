#!/bin/sh
# SPDX-License-Identifier: MIT
# test-fresh-clone.sh - what a new user does first: clone the repository into an empty
# folder and run `make` there once, with no retry and nothing carried over from this tree
# (libfixmath is fetched again). Tests the committed HEAD, as a clone would see it.
set -u
cd "$(dirname "$0")/../.." || exit 2
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "SKIPPED fresh clone: this tree is not a git repository"; exit 0
fi
d=$(mktemp -d "${TMPDIR:-/tmp}/qphys-clone.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
git clone -q "$(pwd)" "$d/qphys" || exit 1
cd "$d/qphys" || exit 1
echo "fresh clone of $(git rev-parse --short HEAD) in $d/qphys: make -j2"
make -j2 || { echo "FAILED: make in a fresh clone"; exit 1; }
[ -x build/host/qphys ] && [ -f build/host/libqphys.a ] || { echo "FAILED: make left no qphys tool or library"; exit 1; }
echo "fresh clone: make succeeded the first time"
