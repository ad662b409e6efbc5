#!/bin/sh
# SPDX-License-Identifier: MIT
# module-deps.sh - the boundaries between the core's modules, from what each source file
# includes (gcc -MM: its headers, followed through every include):
#   1. the geometry layer (shapes, the collide functions, ray casts against one shape, the
#      math and the hash) never sees a world: none of its files reaches qphys/world.h;
#   2. the input log's replayer calls the public API: it reaches no internal header but the
#      joints' (the def checks a replayed entry needs before anything is applied), so the
#      bodies, which log through input_log.h, and the replayer do not depend on each other;
#   3. the public headers hold no stage's scratch: their layouts are in src/scratch.h (and the
#      joint-tree solve's in src/joint_tree.h);
#   4. no source file includes one header for every module (world_internal.h is gone).
# Prints PASS/FAIL lines; exit 0 when all pass.
set -u
cd "$(dirname "$0")/../.." || exit 2
fix=$(make -s --no-print-directory print-fixmath-dir)
failed=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failed=1; }
deps() { gcc -MM -Iinclude -I"$fix" "$1" | tr ' \\' '\n\n' | sed -n 's#^\(src\|include\)/#&#p'; }

for f in src/collide.c src/collide_box.c src/collide_box_box.c src/collide_round.c src/geometry.c \
         src/raycast.c src/shape.c src/math.c src/hash.c; do
  if deps "$f" | grep -q 'qphys/world\.h\|qphys/world_impl\.h'; then
    fail "$f (geometry layer) reaches qphys/world.h: $(deps "$f" | grep -v "^$f$" | tr '\n' ' ')"
  else
    pass "$f (geometry layer) never sees a world"
  fi
done

internal=$(deps src/input_replay.c | grep '^src/.*\.h$' | grep -v '^src/joint\.h$' | tr '\n' ' ')
if [ -z "$internal" ]; then pass "src/input_replay.c calls the public API (internal headers: joint.h only)"
else fail "src/input_replay.c reaches internal headers $internal"; fi
if deps src/body.c | grep -q '^src/input_replay'; then fail "src/body.c reaches the replayer"
else pass "src/body.c logs through input_log.h only"; fi

if grep -n 'qp_pass_scratch\|qp_split_scratch\|qp_predicted_poses\|qp_joint_tree\b\|QP_TREE_LATER\|QP_STATE_LOOSE\|QP_STATE_CUT' \
     include/qphys/*.h; then
  fail "a public header defines a stage's scratch (above)"
else
  pass "no stage's scratch in the public headers"
fi

if grep -ln 'world_internal\.h' src/*.c src/*.h bench/*.c tests/*/*.c 2>/dev/null; then
  fail "files above include world_internal.h (each includes its modules' headers)"
else
  pass "each source file includes its modules' headers"
fi
exit $failed
