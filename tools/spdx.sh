#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/spdx.sh [--check]: every tracked source, header, script and build file carries the
# line "SPDX-License-Identifier: MIT" so that a file copied out of the tree still names its
# license. Without --check it adds the line where it is missing (first line, or second after
# a #! line); with --check it only lists the files without it and fails if there are any.
# Data (scenes, golden hashes, the fuzz corpus, pictures) carries no line.
set -u
cd "$(dirname "$0")/.." || exit 2
mode=${1:-fix}
missing=0

files() {
  git ls-files -- Makefile CMakeLists.txt mk src include port tools tests examples bench boards python |
    grep -v '^tests/fuzz/corpus/' |
    grep -E '(\.(c|h|cpp|sh|mk|ld|awk|cjs|py)|/CMakeLists\.txt|^CMakeLists\.txt|^Makefile|^tools/wasi-run)$'
}

# The files without the line in their first three, read by one awk (not two processes a file).
unlicensed() {
  files | tr '\n' '\0' | xargs -0 awk 'FNR == 1 { if (name != "" && !ok) print name; name = FILENAME; ok = 0 }
    FNR <= 3 && /SPDX-License-Identifier: MIT/ { ok = 1 }
    END { if (name != "" && !ok) print name }'
  for f in $(files); do [ -s "$f" ] || echo "$f"; done   # an empty file has no first line for awk
}

if [ "$mode" = --check ]; then
  for f in $(unlicensed); do echo "no SPDX line: $f"; missing=$((missing + 1)); done
  if [ "$missing" = 0 ]; then echo "PASS $(files | wc -l) source files carry SPDX-License-Identifier: MIT"
  else echo "FAIL $missing source files without an SPDX line (sh tools/spdx.sh adds it)"; exit 1; fi
  exit 0
fi

for f in $(unlicensed); do
  case $f in
    *.c|*.h|*.cpp|*.ld) line='/* SPDX-License-Identifier: MIT */' ;;
    *.cjs) line='// SPDX-License-Identifier: MIT' ;;
    *) line='# SPDX-License-Identifier: MIT' ;;
  esac
  tmp=$f.spdx.$$
  if head -n 1 "$f" | grep -q '^#!'; then
    { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$tmp"
  else
    { echo "$line"; cat "$f"; } >"$tmp"
  fi
  cat "$tmp" >"$f" && rm -f "$tmp"   # cat keeps the file's mode (scripts stay executable)
done
