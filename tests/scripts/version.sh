#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/scripts/version.sh: one release number everywhere a user reads it. VERSION (what
# qphys.pc and the CMake package carry) must equal what `qphys --version` prints, the macros of
# include/qphys/version.h as a program compiled against them sees them, and the newest release
# of CHANGELOG.md. Needs `make` first (build/host/qphys). Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
failed=0
fail() { echo "FAIL $*"; failed=1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-version.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

version=$(cat VERSION)
case $version in
  [0-9]*.[0-9]*.[0-9]*) echo "PASS VERSION holds one release number: $version" ;;
  *) fail "VERSION is not MAJOR.MINOR.PATCH: '$version'" ;;
esac

got=$(build/host/qphys --version 2>&1)
if [ "$got" = "qphys $version" ]; then echo "PASS qphys --version prints '$got'"
else fail "qphys --version prints '$got', VERSION says $version"; fi

cat >"$tmp/v.c" <<'C'
#include <stdio.h>
#include "qphys/qphys.h"
#if QP_VERSION != QP_VERSION_AT(QP_VERSION_MAJOR, QP_VERSION_MINOR, QP_VERSION_PATCH)
#error QP_VERSION disagrees with its parts
#endif
int main(void)
{
    printf("%d.%d.%d %s\n", QP_VERSION_MAJOR, QP_VERSION_MINOR, QP_VERSION_PATCH, QP_VERSION_STRING);
    return 0;
}
C
fixdir=$(make -s print-fixmath-dir 2>/dev/null || echo build/deps/libfixmath/libfixmath)
if cc -std=c11 -Wall -Werror -Iinclude -I"$fixdir" -DFIXMATH_NO_CACHE "$tmp/v.c" -o "$tmp/v" 2>"$tmp/cc.log"; then
  got=$("$tmp/v")
  if [ "$got" = "$version $version" ]; then echo "PASS qphys/version.h: QP_VERSION_MAJOR.MINOR.PATCH and QP_VERSION_STRING are $version"
  else fail "qphys/version.h says '$got' (parts, string), VERSION says $version"; fi
else
  fail "a program including qphys/qphys.h does not build:"; head -10 "$tmp/cc.log"
fi

newest=$(sed -n 's/^## \[\{0,1\}\([0-9][0-9.]*\)\]\{0,1\}.*/\1/p' CHANGELOG.md 2>/dev/null | head -n 1)
if [ "$newest" = "$version" ]; then echo "PASS CHANGELOG.md's newest release is $version"
else fail "CHANGELOG.md's newest release is '$newest', VERSION says $version"; fi
exit $failed
