#!/bin/sh
# SPDX-License-Identifier: MIT
# test-fresh-clone.sh - what a new user does first: clone the repository into an empty
# folder and run `make` there once, with no retry and nothing carried over from this tree
# (libfixmath is fetched again). Tests the committed HEAD, as a clone would see it. Under make
# test the compilations that make run or make test's host build made through ccache
# (tools/with-ccache.sh, build/ccache-host) are taken from its cache when identical (the same
# source, headers and flags); a file the clone lacks fails its compilation all the same.
set -u
cd "$(dirname "$0")/../.." || exit 2
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "SKIPPED fresh clone: this tree is not a git repository"; exit 0
fi
d=$(mktemp -d "${TMPDIR:-/tmp}/qphys-clone.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
cache=$(pwd)/build/ccache-host
git clone -q "$(pwd)" "$d/qphys" || exit 1
cd "$d/qphys" || exit 1
echo "fresh clone of $(git rev-parse --short HEAD) in $d/qphys: make -j2"
if [ -d "$cache" ] && command -v ccache >/dev/null 2>&1 && [ -x /usr/lib/ccache/gcc ]; then
  hits() { CCACHE_DIR=$cache ccache --print-stats 2>/dev/null | awk '$1 ~ /_cache_hit$/ { n += $2 } END { print n + 0 }'; }
  h0=$(hits)
  PATH="/usr/lib/ccache:$PATH" CCACHE_DIR=$cache make -j2 || { echo "FAILED: make in a fresh clone"; exit 1; }
  echo "fresh clone: $(($(hits) - h0)) compilations taken from the host build's (ccache)"
else
  make -j2 || { echo "FAILED: make in a fresh clone"; exit 1; }
fi
[ -x build/host/qphys ] && [ -f build/host/libqphys.a ] || { echo "FAILED: make left no qphys tool or library"; exit 1; }
echo "fresh clone: make succeeded the first time"
