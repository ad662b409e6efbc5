#!/bin/sh
# SPDX-License-Identifier: MIT
# dask_verify.sh - examples/dask/verify.py on a real (local) Dask cluster: a scheduler and two
# workers, separate processes listening on 127.0.0.1 only, verify a generated corpus of 200
# recordings (tests/scripts/make_corpus.py --bad: damaged, diverged and other-version files
# planted). Its report, exit status and JUnit file must equal qphys verify's, in both modes
# (workers reading the files; --ship: the files' bytes sent). Every process it starts is
# stopped on any exit (trap), and every wait is bounded.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
q=build/host/qphys
make -s -j"${JOBS:-2}" shared "$q"
d=build/test-dask
rm -rf "$d"
mkdir -p "$d"
root=$(pwd)
export PYTHONPATH="$root/python"          # the package of this checkout, on every process
export QPHYS_LIBRARY="$root/build/host/libqphys.so"

pids=""
stop() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $pids; do
    # Bounded: a process that has not gone after 10 s is killed.
    i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$p" 2>/dev/null || true
  done
}
trap stop EXIT
trap 'exit 2' INT TERM HUP

$PY tests/scripts/make_corpus.py "$d/corpus" --count 200 --steps 120 --seed 2 --bad --qphys "$q"
set +e
"$q" verify "$d/corpus" --junit "$d/qphys.xml" >"$d/qphys.txt"
qrc=$?
set -e

$PY -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 0 --no-dashboard \
  --scheduler-file "$d/scheduler.json" >"$d/scheduler.log" 2>&1 &
pids="$pids $!"
i=0
while [ ! -s "$d/scheduler.json" ]; do
  sleep 0.2; i=$((i + 1))
  [ $i -lt 150 ] || { echo "FAIL: no scheduler after 30 s"; cat "$d/scheduler.log"; exit 1; }
done
addr=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["address"])' "$d/scheduler.json")
case "$addr" in tcp://127.0.0.1:*) ;; *) echo "FAIL: scheduler at $addr, not 127.0.0.1"; exit 1 ;; esac
for w in 1 2; do
  $PY -m distributed.cli.dask_worker "$addr" --host 127.0.0.1 --nthreads 1 --nworkers 1 --no-dashboard \
    --name "w$w" --local-directory "$d/w$w" >"$d/worker$w.log" 2>&1 &
  pids="$pids $!"
done
echo "scheduler at $addr, two workers"

for mode in files ship; do
  flag=""; [ $mode = ship ] && flag=--ship
  set +e
  timeout 300 $PY examples/dask/verify.py --scheduler "$addr" --workers 2 $flag --junit "$d/dask-$mode.xml" \
    "$d/corpus" >"$d/dask-$mode.txt" 2>"$d/dask-$mode.err"
  drc=$?
  set -e
  cat "$d/dask-$mode.err"
  grep -q "on 2 Dask workers" "$d/dask-$mode.err" || { echo "FAIL ($mode): not run on the two workers"; exit 1; }
  [ $drc = $qrc ] || { echo "FAIL ($mode): exit $drc, qphys verify's $qrc"; exit 1; }
  cmp "$d/qphys.txt" "$d/dask-$mode.txt" ||
    { echo "FAIL ($mode): the reports differ"; diff "$d/qphys.txt" "$d/dask-$mode.txt" | head -20; exit 1; }
  cmp "$d/qphys.xml" "$d/dask-$mode.xml" || { echo "FAIL ($mode): the JUnit files differ"; exit 1; }
  echo "PASS ($mode): the same $(tail -1 "$d/dask-$mode.txt"), exit $drc, the same JUnit bytes"
done
$PY tests/scripts/check_report.py "$d/dask-files.txt" "$d/corpus/manifest.txt"
# The workers and the scheduler listened on 127.0.0.1 only.
if grep -hoE '[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+' "$d"/worker*.log "$d/scheduler.log" | grep -v '^127\.0\.0\.1:'; then
  echo "FAIL: a process listened on another address (above)"; exit 1
fi
