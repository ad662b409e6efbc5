#!/bin/sh
# SPDX-License-Identifier: MIT
# level-drive.sh - the car drives tests/scenes/level.scene for 10 s without flipping, falling
# through or leaving its wheels (examples/level_drive.c exits 1 otherwise), and the ASan+UBSan
# build drives it to the same final world hash as the gcc -O2 build.
#
#   sh tests/scripts/level-drive.sh [SANITIZE_FLAGS]   (default: run.sh's ASan+UBSan flags)
set -eu
cd "$(dirname "$0")/../.."
san=${1:--O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all}
make -s build/host/level_drive
host=$(build/host/level_drive) || { printf '%s\n' "$host"; exit 1; }
printf 'host:\n%s\n' "$host"
# The sanitized library is the unit tests' (make test builds it first), so this links one program.
make -s BUILD_TAG=host-san HOST_OPT="$san" build/host-san/level_drive
san_out=$(build/host-san/level_drive) || { printf '%s\n' "$san_out"; exit 1; }
printf 'ASan+UBSan:\n%s\n' "$san_out"
h1=$(printf '%s\n' "$host" | sed -n 's/^final world hash //p')
h2=$(printf '%s\n' "$san_out" | sed -n 's/^final world hash //p')
[ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "level-drive: the hashes differ: host $h1, ASan+UBSan $h2" >&2; exit 1; }
echo "level-drive: both builds end at $h1"
