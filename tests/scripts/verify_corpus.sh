#!/bin/sh
# SPDX-License-Identifier: MIT
# verify_corpus.sh - qphys verify over a generated corpus (tests/scripts/make_corpus.py: 200
# recordings of 120 steps, 25 of them snapshot-plus-inputs pairs, some damaged, diverged or of
# another version on purpose): every verdict is the planted one (check_report.py), the exit
# status is 2, the summary counts them, and -j1 and -j2 print the same report and write the
# same JUnit file.
set -eu
cd "$(dirname "$0")/../.."
q=build/host/qphys
make -s "$q"
d=build/test-verify-corpus
rm -rf "$d"
/usr/bin/python3 tests/scripts/make_corpus.py "$d/corpus" --count 200 --steps 120 --bad --qphys "$q"
for j in 1 2; do
  set +e
  "$q" verify "$d/corpus" -j $j --junit "$d/j$j.xml" >"$d/report$j.txt"
  rc=$?
  set -e
  [ $rc = 2 ] || { echo "FAIL: -j$j exit $rc, expected 2 (damaged files planted)"; exit 1; }
done
cmp "$d/report1.txt" "$d/report2.txt" || { echo "FAIL: -j1 and -j2 reports differ"; diff "$d/report1.txt" "$d/report2.txt" | head; exit 1; }
cmp "$d/j1.xml" "$d/j2.xml" || { echo "FAIL: -j1 and -j2 JUnit files differ"; exit 1; }
tail -1 "$d/report1.txt"
grep -q '^200 files: 156 matched, 16 diverged, 20 damaged, 8 of another version$' "$d/report1.txt" ||
  { echo "FAIL: summary is not the planted counts"; exit 1; }
grep -c '<testcase ' "$d/j1.xml" | grep -qx 200 || { echo "FAIL: JUnit does not hold 200 test cases"; exit 1; }
/usr/bin/python3 tests/scripts/check_report.py "$d/report1.txt" "$d/corpus/manifest.txt"

# A worker that dies costs its file only: the verifier killed on its first file (a long one,
# first in the order, -j1) is named, the files after it are verified by its replacement.
mkdir -p "$d/kill"
"$q" record tests/scenes/pyramid20.scene --steps 1000 --inputs 30 -o "$d/kill/a-long.replay" >/dev/null
cp "$d"/corpus/set0/m00[0-3]0.replay "$d/kill/"
set +e
"$q" verify "$d/kill" -j 1 >"$d/kill.txt" 2>&1 &
pid=$!
set -e
sleep 0.3
kill -9 $(ps -o pid= --ppid $pid) 2>/dev/null || true
wait $pid || true
if grep -q "^$d/kill/a-long.replay: damaged: its verifier process died (signal 9)" "$d/kill.txt" &&
   [ "$(grep -c ': matched: ' "$d/kill.txt")" = 4 ]; then
  echo "PASS a worker killed on its file: that file reported damaged (signal 9), the 4 after it matched"
else
  echo "FAIL: a killed worker"; cat "$d/kill.txt"; exit 1
fi
