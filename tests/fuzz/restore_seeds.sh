#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/restore_seeds.sh [QPHYS]: write the restore corpus's seed snapshots anew in this
# build's format (after a change of the snapshot format, whose older files restore refuses at
# the header): every NAME_STEPS.qps of tests/fuzz/corpus/restore/ is `qphys run
# tests/scenes/NAME.scene --steps STEPS --save` (a NAME_STEPS_TAG.qps too: `_full`, `_refused`
# are seeds the fuzz build refuses), and crash-nonminimal-varint is bounce_60.qps with the
# first varint of its stream (after the counts, 4 bytes a body and 2 a shape) written in a
# longer form than the shortest, length and CRC made to match. Snapshots of an older format among the fuzzers' finds are removed (their header's
# format field is not this build's); the inputs that are not snapshots stay.
set -eu
q=${1:-build/host/qphys}
dir=tests/fuzz/corpus/restore
tmp=${TMPDIR:-/tmp}/restore-seeds.$$
trap 'rm -f "$tmp"' EXIT
for f in "$dir"/*.qps; do
  n=$(basename "$f" .qps)
  scene=$(echo "$n" | sed 's/_[0-9][0-9]*\(_[a-z]*\)\{0,1\}$//')
  steps=$(echo "$n" | sed 's/^.*_\([0-9][0-9]*\)\(_[a-z]*\)\{0,1\}$/\1/')
  "$q" run "tests/scenes/$scene.scene" --steps "$steps" --save "$f" >/dev/null
done
format=$(od -An -tu1 -j4 -N1 "$dir/bounce_60.qps" | tr -d ' ')
for f in "$dir"/*; do
  case $(basename "$f") in *.qps | crash-*) continue ;; esac
  if [ "$(head -c 4 "$f")" = QPS6 ] && [ "$(od -An -tu1 -j4 -N1 "$f" | tr -d ' ')" != "$format" ]; then rm "$f"; fi
done
python3 - "$dir/bounce_60.qps" "$dir/crash-nonminimal-varint" <<'PY'
import struct, sys, zlib
s = bytearray(open(sys.argv[1], 'rb').read())
bodies, shapes = struct.unpack_from('<HH', s, 16)
at = 24 + 4 * bodies + 2 * shapes        # the stream's first varint
assert s[at] < 0x80                      # one byte: the same value in two
s[at:at + 1] = bytes([s[at] | 0x80, 0])
payload = bytes(s[16:])
s[8:12] = struct.pack('<I', len(payload))
s[12:16] = struct.pack('<I', zlib.crc32(payload) & 0xffffffff)
open(sys.argv[2], 'wb').write(bytes(s))
PY
