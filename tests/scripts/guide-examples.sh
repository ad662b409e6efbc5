#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/scripts/guide-examples.sh: the C examples of docs/guide.md, in the order the page gives
# them, compiled into one function with -Wall -Wextra -Werror against the library and run, so
# the guide cannot drift from the API. A few names the examples take as given (post, door,
# copy, play_sound, score) are declared here. And every scene example of the docs (a block
# fenced as ```scene in README.md and docs/*.md) passes `qphys check`. Needs `make` first
# (build/host/libqphys.a, build/host/qphys).
set -u
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-guide.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
blocks=$(grep -c '^```c$' docs/guide.md)
{
  cat <<'C'
#include <stdio.h>
#include "qphys/qphys.h"
static void play_sound(qp_body_id a, qp_body_id b, qp_vec3 p) { (void)a; (void)b; (void)p; }
static void score(qp_body_id v) { (void)v; }
static qp_world copy;
int main(void)
{
    qp_body_id post = qp_null_body(), door = qp_null_body();
C
  awk '/^```c$/ { on = 1; print "    /* docs/guide.md, line " NR + 1 " */"; next } on && /^```/ { on = 0; next } on' docs/guide.md
  # Values the examples compute for the reader and do not use again.
  echo '    (void)one; (void)three; (void)tenth; (void)ok; (void)p; (void)awake; (void)st; (void)t;'
  echo '    (void)hinge; (void)angle; (void)any; (void)h; (void)hb; (void)size; (void)goal; (void)pyramid;'
  echo '    return 0;'
  echo '}'
} >"$tmp/guide.c"
fixdir=$(make -s print-fixmath-dir 2>/dev/null || echo build/deps/libfixmath/libfixmath)
if gcc -std=c11 -Wall -Wextra -Werror -Iinclude -I"$fixdir" -DFIXMATH_NO_CACHE "$tmp/guide.c" \
     build/host/libqphys.a -o "$tmp/guide" 2>"$tmp/cc.log" && "$tmp/guide" >"$tmp/out" 2>&1; then
  echo "PASS docs/guide.md: its $blocks C examples build with -Werror against the library and run"
else
  echo "FAIL docs/guide.md's C examples do not build or run:"; head -20 "$tmp/cc.log" "$tmp/out"; exit 1
fi
# Each scene block into a file named after its page and line, then checked.
failed=0
scenes=0
for page in README.md docs/*.md; do
  awk -v dir="$tmp" -v page="$(basename "$page" .md)" '
    /^```scene$/ { on = 1; f = dir "/" page "_" NR + 1 ".scene"; next }
    on && /^```/ { on = 0; close(f); next }
    on { print > f }' "$page"
done
for f in "$tmp"/*.scene; do
  [ -f "$f" ] || continue
  scenes=$((scenes + 1))
  build/host/qphys check "$f" >"$tmp/check.log" 2>&1 || { echo "FAIL a scene example:"; cat "$tmp/check.log"; failed=1; }
done
[ "$scenes" -ge 4 ] || { echo "FAIL only $scenes scene examples found in the docs (want 4 or more)"; failed=1; }
[ "$failed" = 0 ] && echo "PASS the docs' $scenes scene examples pass qphys check"
exit "$failed"
