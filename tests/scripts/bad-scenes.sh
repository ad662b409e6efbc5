#!/bin/sh
# SPDX-License-Identifier: MIT
# bad-scenes.sh - feed every bad scene to `qphys run` and check that each one
# is rejected cleanly: exit status 2 (never a crash, a hang or success) and a
# message FILE:LINE:COLUMN: error: ... on stderr. Each file of tests/bad_scenes
# opens with "# expect LINE:COLUMN TEXT": the message must name that line and
# column and start with TEXT. A 1 MB line and a file of random bytes are made
# here (build/bad_scenes/) rather than checked in. A file too large for a world of the
# default capacities (TEXT names "this world's capacities") is bad for such a world only
# (tests/unit/test_scene.c loads it there): qphys sizes its world to it, and must run it.
#
#   sh tests/scripts/bad-scenes.sh [QPHYS]      (default build/host/qphys)
# Prints PASS/FAIL per file and exits 0 only if every file passes.
set -u
qphys=${1:-build/host/qphys}
[ -x "$qphys" ] || { echo "bad-scenes: $qphys not built (make $qphys)" >&2; exit 2; }
gen=build/bad_scenes
mkdir -p "$gen"

# A 1 MB line: a valid sphere, then 1 MiB of blanks, then an unknown option.
awk 'BEGIN { printf "# expect 2:1048604 unknown option for '"'"'sphere'"'"'\n";
             printf "sphere radius 0.5 pos 0 1 0";
             s = "          "; for (i = 0; i < 17; i++) s = s s;   # 10 * 2^17 = 1310720 blanks
             printf "%s", substr(s, 1, 1048576); printf "bogus\n" }' > "$gen/long_line.scene"
# A 1 MB number (digits only): out of range, not an overflow.
awk 'BEGIN { printf "# expect 2:15 number out of range\nsphere radius ";
             s = "1111111111"; for (i = 0; i < 17; i++) s = s s; printf "%s pos 0 1 0\n", substr(s, 1, 1048576) }' \
  > "$gen/long_number.scene"
# Random bytes after a valid first item (fixed seed: reproducible).
{ printf '# expect 3:1 unexpected byte\nplane\n'
  awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", 128 + int(rand() * 128) }'; } > "$gen/random_bytes.scene"

pass=0 fail=0
for f in tests/bad_scenes/*.scene "$gen"/*.scene; do
  expect=$(head -n 1 "$f" | tr -d '\r' | sed -n 's/^# expect \([0-9]*:[0-9]*\) \(.*\)$/\1 \2/p')
  if [ -z "$expect" ]; then echo "FAIL $f: no '# expect LINE:COLUMN TEXT' first line"; fail=$((fail + 1)); continue; fi
  where=${expect%% *}
  text=${expect#* }
  err=$(timeout 20 "$qphys" run "$f" --steps 1 2>&1 >/dev/null)
  rc=$?
  case $text in
    *"this world's capacit"*)
      if [ "$rc" = 0 ]; then pass=$((pass + 1)); echo "PASS $f: runs in a world sized to it (a default world refuses it)"
      else fail=$((fail + 1)); echo "FAIL $f: exit $rc (want 0: qphys sizes its world to the file): $(printf '%s' "$err" | head -c 300)"; fi
      continue ;;
  esac
  case $err in
    "$f:$where: error: $text"*) okmsg=1 ;;
    *) okmsg=0 ;;
  esac
  if [ "$rc" = 2 ] && [ "$okmsg" = 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ]; then
    pass=$((pass + 1)); echo "PASS $f"
  else
    fail=$((fail + 1)); echo "FAIL $f: exit $rc (want 2), message: $(printf '%s' "$err" | head -c 300)"
    echo "     wanted: $f:$where: error: $text..."
  fi
done
echo "bad-scenes: $pass passed, $fail failed"
[ "$fail" = 0 ]
