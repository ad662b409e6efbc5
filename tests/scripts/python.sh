#!/bin/sh
# SPDX-License-Identifier: MIT
# python.sh - the Python package (python/qphys, docs/python.md) as a user gets it.
#   1. make shared and the qphys command, then the pytest suite (python/tests) against the
#      package of this checkout, and mypy over its type hints;
#   2. examples/python/test_replays.py, as a game team runs it;
#   3. pip install --no-build-isolation --no-index ./python into a venv that sees Debian's
#      packages (offline: nothing is downloaded), then the same suite against the installed
#      package, run from outside the checkout (QPHYS_TEST_INSTALLED=1), which must load its
#      bundled libqphys.so.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
make -s -j"${JOBS:-2}" shared build/host/qphys
$PY -m pytest -q -p no:cacheprovider python/tests
# The type hints hold (numpy's own are used; ctypes' are typeshed's).
(cd python && $PY -m mypy --no-incremental --cache-dir=/dev/null qphys)

d=build/test-python
rm -rf "$d"
# The example a game team copies: into an empty folder it records a match, which verifies;
# then one qphys record made is added, and both verify.
mkdir -p "$d/replays"
QPHYS_REPLAYS="$d/replays" PYTHONPATH=python $PY -m pytest -q -p no:cacheprovider examples/python/test_replays.py
[ -f "$d/replays/match-001.replay" ] || { echo "FAIL: the example recorded no match"; exit 1; }
build/host/qphys record tests/scenes/slope.scene --steps 120 --inputs 9 -o "$d/replays/cli.replay" >/dev/null
QPHYS_REPLAYS="$d/replays" PYTHONPATH=python $PY -m pytest -q -p no:cacheprovider examples/python/test_replays.py |
  tee "$d/example.txt"
grep -q '^3 passed' "$d/example.txt" || { echo "FAIL: expected the example's 3 tests to pass"; exit 1; }
$PY -m venv --system-site-packages "$d/venv"
"$d/venv/bin/python" -m pip install -q --no-build-isolation --no-index ./python
rm -rf python/build python/qphys.egg-info
root=$(pwd)
cd "$d"
where=$(QPHYS_TEST_INSTALLED=1 venv/bin/python -c 'import qphys; print(qphys.LIBRARY_PATH)')
case "$where" in
  "$root/$d/venv/"*) echo "installed package loads its bundled library: $where" ;;
  *) echo "FAIL: the installed package loads $where, not its bundled copy"; exit 1 ;;
esac
QPHYS=$root/build/host/qphys QPHYS_TEST_INSTALLED=1 venv/bin/python -m pytest -q -p no:cacheprovider \
  --rootdir "$root/$d" "$root/python/tests"
