#!/bin/sh
# SPDX-License-Identifier: MIT
# test-api.sh - the public API as a user's program sees it:
#   1. tests/cpp/cpp_api.cpp, C++17 with -Wall -Wextra -Wpedantic -Werror (g++, and clang++
#      when installed), links against build/host/libqphys.a and steps a scene to the hash
#      the qphys tool prints for it;
#   2. the README's C example (its first ```c block) compiled with -Wall -Wextra -pedantic
#      -Werror and run; it is also examples/hello.c, so the two cannot drift apart;
#   3. tests/config/config_mismatch.c built with other pool sizes or options than the library:
#      qp_world_init, qp_scene_load and qp_world_restore refuse with QP_ERR_CONFIG.
# Needs `make` first (build/host/libqphys.a, build/host/qphys). Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
out=build/test-api
mkdir -p "$out"
fix=$(make -s --no-print-directory print-fixmath-dir)
flags="-Iinclude -I$fix -DFIXMATH_NO_CACHE"
lib=build/host/libqphys.a
failed=0
fail() { echo "FAIL $*"; failed=1; }

scene=tests/scenes/stack20.scene
want=$(build/host/qphys run "$scene" --steps 120 | sed -n 's/^hash *//p')
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null 2>&1 || { echo "SKIPPED C++ with $cxx: not installed"; continue; }
  # shellcheck disable=SC2086
  if ! "$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror $flags tests/cpp/cpp_api.cpp "$lib" \
       -o "$out/cpp_api-$cxx" 2>"$out/$cxx.log"; then
    fail "C++17 ($cxx) build of tests/cpp/cpp_api.cpp:"; sed 's/^/    /' "$out/$cxx.log" | head -20; continue
  fi
  got=$("$out/cpp_api-$cxx" "$scene" 120 | sed -n 's/^hash //p')
  if [ -n "$want" ] && [ "$got" = "$want" ]; then echo "PASS C++17 ($cxx): -Wpedantic -Werror clean, links, stack20 hash $got as in C"
  else fail "C++17 ($cxx): hash '$got', the C tool's '$want'"; fi
done

awk '/^```c$/ { on = 1; next } on && /^```/ { exit } on' README.md >"$out/readme_example.c"
if ! cmp -s "$out/readme_example.c" examples/hello.c; then
  fail "README's C example differs from examples/hello.c:"; diff "$out/readme_example.c" examples/hello.c | head -20
fi
# shellcheck disable=SC2086
if gcc -std=c11 -Wall -Wextra -pedantic -Werror $flags "$out/readme_example.c" "$lib" -o "$out/readme_example" \
     2>"$out/readme.log" && "$out/readme_example" >"$out/readme.out"; then
  if grep -q 'asleep' "$out/readme.out"; then echo "PASS README example: -Werror clean, runs: $(cat "$out/readme.out")"
  else fail "README example ran but its box is not asleep: $(cat "$out/readme.out")"; fi
else
  fail "README example does not build with -Werror or fails:"; sed 's/^/    /' "$out/readme.log" | head -20
fi
# A layout other than the library's: refused with QP_ERR_CONFIG, nothing written (under
# AddressSanitizer, so an overrun would also show); the library's own, or other pool sizes
# (the world's pools are the caller's): accepted.
for opts in "-DQP_CFG_MAX_BODIES=16" "-DQP_CFG_LOW_RAM=1" ""; do
  want=expect-ok; [ "$opts" = "-DQP_CFG_LOW_RAM=1" ] && want=expect-config
  # shellcheck disable=SC2086
  if gcc -std=c11 -Wall -Wextra -Werror -fsanitize=address $flags $opts tests/config/config_mismatch.c "$lib" \
       -o "$out/config_mismatch" 2>"$out/config.log" && "$out/config_mismatch" "$want" >"$out/config.out" 2>&1; then
    echo "PASS a program built with '${opts:-the library options}' against the default library: $(cat "$out/config.out")"
  else
    fail "a program built with '${opts:-the library options}' ($want):"; sed 's/^/    /' "$out/config.log" "$out/config.out" | head -20
  fi
done
exit $failed
