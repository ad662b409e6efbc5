#!/bin/sh
# SPDX-License-Identifier: MIT
# verify_scale.sh CORPUS [WORKERS...] - the figures of docs/scale.md: qphys verify -j1 and -j2,
# then examples/dask/verify.py on a local cluster (a scheduler and N single-threaded workers,
# separate processes on 127.0.0.1) for each N given (default 1 2 4). Prints wall-clock and CPU
# seconds; the reports must all be the same. A corpus: tests/scripts/make_corpus.py DIR
# --count 1000 --steps 600.
set -eu
cd "$(dirname "$0")/.."
corpus=$1; shift
[ $# -gt 0 ] || set -- 1 2 4
PY=/usr/bin/python3
q=build/host/qphys
make -s shared "$q"
d=build/verify-scale
rm -rf "$d"; mkdir -p "$d"
export PYTHONPATH="$(pwd)/python" QPHYS_LIBRARY="$(pwd)/build/host/libqphys.so"
for j in 1 2; do
  /usr/bin/time -f "qphys verify -j$j: %e s wall, %U s user" "$q" verify "$corpus" -j $j >"$d/qphys-j$j.txt" 2>"$d/time.txt" || true
  cat "$d/time.txt"
done
pids=""
stop() { for p in $pids; do kill "$p" 2>/dev/null || true; done; sleep 1; for p in $pids; do kill -9 "$p" 2>/dev/null || true; done; pids=""; }
trap stop EXIT
for n in "$@"; do
  rm -f "$d/s.json"
  $PY -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file "$d/s.json" >"$d/s.log" 2>&1 &
  pids="$!"
  i=0; while [ ! -s "$d/s.json" ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
  addr=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["address"])' "$d/s.json")
  k=0
  while [ $k -lt $n ]; do
    $PY -m distributed.cli.dask_worker "$addr" --host 127.0.0.1 --nthreads 1 --no-dashboard --local-directory "$d/w$k" >"$d/w$k.log" 2>&1 &
    pids="$pids $!"; k=$((k + 1))
  done
  timeout 1200 $PY examples/dask/verify.py --scheduler "$addr" --workers "$n" "$corpus" >"$d/dask-$n.txt" 2>"$d/dask-$n.err" || true
  echo "dask, $n workers: $(cat "$d/dask-$n.err")"
  cmp -s "$d/qphys-j1.txt" "$d/dask-$n.txt" || echo "REPORTS DIFFER: $d/qphys-j1.txt $d/dask-$n.txt"
  stop
done
