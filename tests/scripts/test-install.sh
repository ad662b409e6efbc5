#!/bin/sh
# SPDX-License-Identifier: MIT
# test-install.sh - qphys as a library, the ways another project takes it:
#   1. make install PREFIX=<temp>: a C program outside the tree (tests/install/step_scene.c)
#      built with `pkg-config --cflags --libs qphys` only;
#   2. a C++17 program (tests/install/find-package/) built by CMake with find_package(qphys)
#      against that prefix, linking qphys::qphys;
#   3. the C program built by CMake with add_subdirectory(<this tree>)
#      (tests/install/subdirectory/), which compiles the library itself; and the top-level
#      CMakeLists.txt built and installed alone (cmake --install), used through pkg-config;
#   each steps stack20, mixed, pyramid64 (2081 bodies: a world of its size from the heap) and
#   rocks (24 hulls, more than a default world holds) and must print the per-step hashes of
#   `qphys run --hashes`;
#   4. make lib CPU=cortex-m4f: a hard-float ARM archive whose objects pass the guard (no float
#      helpers, no heap, no FPU arithmetic) and whose ABI is the hard-float one; a hard-float
#      program (examples/hello.c) links against it through its qphys.pc;
#   and every installed tree carries qphys's LICENSE and libfixmath's MIT notice
#   (share/doc/qphys/LICENSE, LICENSE.libfixmath, include/qphys/libfixmath/LICENSE).
# Needs `make` first (build/host/libqphys.a, build/host/qphys). Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
root=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
jobs=${JOBS:-2}
failed=0
fail() { echo "FAIL $*"; failed=1; }
for c in pkg-config cmake c++; do
  command -v $c >/dev/null 2>&1 || { echo "test-install: $c is not installed (make deps)"; exit 2; }
done

# same_hashes WHAT PROGRAM: PROGRAM SCENE N against the qphys tool, for four scenes (pyramid64
# and rocks: more bodies or hulls than a world of the default capacities, in a world of their
# size; pyramid64 for 20 steps). The tool's hashes are computed once, for every program.
scenes="stack20 mixed pyramid64 rocks"
steps_of() { if [ "$1" = pyramid64 ]; then echo 20; else echo 120; fi; }
for s in $scenes; do
  build/host/qphys run "tests/scenes/$s.scene" --hashes --steps "$(steps_of $s)" >"$tmp/want-$s" ||
    { echo "FAIL qphys run $s (build/host/qphys: make first)"; exit 1; }
done
same_hashes() {
  for s in $scenes; do
    n=$(steps_of $s)
    "$2" "tests/scenes/$s.scene" $n >"$tmp/got" 2>&1
    if cmp -s "$tmp/want-$s" "$tmp/got"; then
      echo "PASS $1: $s, $n steps, last hash $(tail -n 1 "$tmp/got" | cut -d' ' -f2), as qphys run --hashes"
    else
      fail "$1: $s hashes differ from qphys run --hashes:"; diff "$tmp/want-$s" "$tmp/got" | head -5
    fi
  done
}

# licensed WHAT PREFIX: qphys's license and libfixmath's notice, whose objects and headers ship
# in the tree, are installed beside them.
licensed() {
  if grep -q 'Copyright (c) .* the qphys authors' "$2/share/doc/qphys/LICENSE" 2>/dev/null &&
     grep -q 'libfixmath is Copyright' "$2/share/doc/qphys/LICENSE.libfixmath" 2>/dev/null &&
     cmp -s "$2/share/doc/qphys/LICENSE.libfixmath" "$2/include/qphys/libfixmath/LICENSE"; then
    echo "PASS $1 installs qphys's LICENSE and libfixmath's MIT notice (share/doc/qphys, include/qphys/libfixmath)"
  else
    fail "$1: the installed tree lacks qphys's LICENSE or libfixmath's notice:"; ls -R "$2/share" "$2/include/qphys/libfixmath" 2>&1 | head -10
  fi
}

# 1. make install, then pkg-config.
prefix=$tmp/prefix
if make -s install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
  echo "PASS make install PREFIX=... ($(cd "$prefix" && find . -type f | wc -l) files)"
else
  fail "make install:"; cat "$tmp/install.log"; exit 1
fi
licensed "make install" "$prefix"
if nm "$prefix/lib/libqphys.a" | grep -q ' T fix16_sqrt$'; then echo "PASS libqphys.a holds libfixmath's objects"
else fail "libqphys.a has no fix16_sqrt: libfixmath is not in the archive"; fi
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags qphys) &&
libs=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs qphys) || fail "pkg-config cannot read qphys.pc"
# shellcheck disable=SC2086
if cc -std=c11 -Wall -Wextra -pedantic -Werror $cflags tests/install/step_scene.c $libs -o "$tmp/step_pc" 2>"$tmp/pc.log"; then
  same_hashes "pkg-config: cc \$(pkg-config --cflags --libs qphys)" "$tmp/step_pc"
else
  fail "C program through pkg-config:"; cat "$tmp/pc.log"
fi

# 2. CMake find_package, C++.
if cmake -S tests/install/find-package -B "$tmp/fp" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/fp.log" 2>&1 &&
   cmake --build "$tmp/fp" >>"$tmp/fp.log" 2>&1; then
  same_hashes "CMake find_package(qphys), C++17" "$tmp/fp/step_scene"
else
  fail "CMake find_package:"; tail -20 "$tmp/fp.log"
fi

# 3 and 3b compile the same sources with the same flags (CMakeLists.txt's, absolute paths): through
# ccache, when installed, in a cache of this test's own, the second build takes the first's
# objects instead of compiling them again. Every other step (configure, link, install) is its own.
launcher=""
if command -v ccache >/dev/null 2>&1; then
  launcher=-DCMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR="$tmp/ccache"
  unset CCACHE_DISABLE CCACHE_RECACHE CCACHE_READONLY
fi
# ccache_hits: how many compilations ccache has answered from its cache so far ("" without ccache).
ccache_hits() { [ -n "$launcher" ] && ccache --print-stats 2>/dev/null | awk '$1 ~ /_cache_hit$/ { n += $2 } END { print n + 0 }'; }

# 3. CMake add_subdirectory, the library built from this tree.
if cmake -S tests/install/subdirectory -B "$tmp/sd" -DQPHYS_DIR="$root" $launcher >"$tmp/sd.log" 2>&1 &&
   cmake --build "$tmp/sd" -j"$jobs" >>"$tmp/sd.log" 2>&1; then
  same_hashes "CMake add_subdirectory(qphys)" "$tmp/sd/step_scene"
else
  fail "CMake add_subdirectory:"; tail -20 "$tmp/sd.log"
fi

# 3b. CMake alone: the top-level CMakeLists.txt built and installed (cmake --install), then used
# through its pkg-config file.
prefix2=$tmp/prefix-cmake
hits0=$(ccache_hits)
if cmake -S . -B "$tmp/top" $launcher >"$tmp/top.log" 2>&1 && cmake --build "$tmp/top" -j"$jobs" >>"$tmp/top.log" 2>&1 &&
   cmake --install "$tmp/top" --prefix "$prefix2" >>"$tmp/top.log" 2>&1; then
  [ -z "$launcher" ] || echo "cmake --build of the top-level CMakeLists.txt: $(($(ccache_hits) - hits0)) objects from the add_subdirectory build's compilations (ccache)"
  licensed "cmake --install" "$prefix2"
  # shellcheck disable=SC2046
  if cc -std=c11 -Wall -Wextra -pedantic -Werror $(PKG_CONFIG_PATH=$prefix2/lib/pkgconfig pkg-config --cflags qphys) \
       tests/install/step_scene.c $(PKG_CONFIG_PATH=$prefix2/lib/pkgconfig pkg-config --libs qphys) -o "$tmp/step_cm" 2>"$tmp/cm.log"; then
    same_hashes "cmake --install, then pkg-config" "$tmp/step_cm"
  else
    fail "C program against the cmake --install tree:"; cat "$tmp/cm.log"
  fi
else
  fail "cmake build and install of the top-level CMakeLists.txt:"; tail -20 "$tmp/top.log"
fi

# 4. An ARM library for firmware, hard-float ABI.
if make -s -j"$jobs" lib CPU=cortex-m4f >"$tmp/lib.log" 2>&1; then
  a=build/lib/cortex-m4f/lib/libqphys.a
  licensed "make lib CPU=cortex-m4f" build/lib/cortex-m4f
  if arm-none-eabi-readelf -A "$a" | grep -q 'Tag_ABI_VFP_args: VFP registers' &&
     grep -q 'objects clean' "$tmp/lib.log"; then
    echo "PASS make lib CPU=cortex-m4f: $a, hard-float ABI, $(sed -n 's/^check-core-symbols: //p' "$tmp/lib.log")"
  else
    fail "make lib CPU=cortex-m4f: not a hard-float archive, or the guard did not run:"; cat "$tmp/lib.log"
  fi
  # Firmware links it: the README's example, hard-float, newlib's stubs standing in for a board.
  pc=build/lib/cortex-m4f/lib/pkgconfig
  # shellcheck disable=SC2046
  if arm-none-eabi-gcc -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 -O2 --specs=nosys.specs \
       $(PKG_CONFIG_PATH=$pc pkg-config --cflags qphys) examples/hello.c \
       $(PKG_CONFIG_PATH=$pc pkg-config --libs qphys) -o "$tmp/hello-m4f.elf" >"$tmp/link.log" 2>&1; then
    echo "PASS a hard-float Cortex-M4F program links against it (examples/hello.c)"
  else
    fail "linking examples/hello.c for the Cortex-M4F:"; tail -20 "$tmp/link.log"
  fi
else
  fail "make lib CPU=cortex-m4f:"; tail -20 "$tmp/lib.log"
fi
exit $failed
