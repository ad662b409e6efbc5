#!/bin/sh
# python.sh - the Python package (python/qphys, docs/python.md) as a user gets it.
#   1. make shared and the qphys command, then the pytest suite (python/tests) against the
#      package of this checkout;
#   2. pip install --no-build-isolation --no-index ./python into a venv that sees Debian's
#      packages (offline: nothing is downloaded), then the same suite against the installed
#      package, run from outside the checkout (QPHYS_TEST_INSTALLED=1), which must load its
#      bundled libqphys.so.
set -eu
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
make -s -j"${JOBS:-2}" shared build/host/qphys
$PY -m pytest -q -p no:cacheprovider python/tests

d=build/test-python
rm -rf "$d"
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
