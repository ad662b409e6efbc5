#!/bin/sh
# SPDX-License-Identifier: MIT
# Install what qphys needs on a Debian machine, then fetch libfixmath's source.
# Runs apt-get itself when it may (root, or sudo without a password); otherwise
# prints the exact command to run.
set -eu
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
have_cmd cc || need="$need gcc"
have_cmd make || need="$need make"
have_cmd clang || need="$need clang"
have_cmd g++ || need="$need g++"
have_pkg libclang-rt-14-dev || need="$need libclang-rt-14-dev"   # libFuzzer and clang's sanitizers (make fuzz)
have_pkg libcmocka-dev || need="$need libcmocka-dev"
have_cmd arm-none-eabi-gcc || need="$need gcc-arm-none-eabi"
have_pkg libnewlib-arm-none-eabi || need="$need libnewlib-arm-none-eabi"
have_cmd qemu-system-arm || need="$need qemu-system-arm"
# Emulators for Linux programs of other instruction sets (i386 when the kernel cannot run it).
have_cmd qemu-i386 || need="$need qemu-user"
# The cross-target proof's other instruction sets: Linux programs, run natively or under
# qemu-user (i386, aarch64, riscv64, s390x: big-endian; not gcc-multilib, which conflicts
# with these cross compilers in Debian 12) and wasm32 (clang's wasm32-wasi with wasi-libc, run by node).
have_cmd i686-linux-gnu-gcc || need="$need gcc-i686-linux-gnu libc6-dev-i386-cross"
have_cmd aarch64-linux-gnu-gcc || need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
have_cmd riscv64-linux-gnu-gcc || need="$need gcc-riscv64-linux-gnu libc6-dev-riscv64-cross"
have_cmd s390x-linux-gnu-gcc || need="$need gcc-s390x-linux-gnu libc6-dev-s390x-cross"
have_pkg wasi-libc || need="$need wasi-libc"
have_pkg libclang-rt-14-dev-wasm32 || need="$need libclang-rt-14-dev-wasm32"
have_cmd wasm-ld || need="$need lld-14"
have_cmd llvm-ar-14 || need="$need llvm-14"
have_cmd node || need="$need nodejs"
# The bare-metal RV32 board (qemu-virt-rv32): the riscv64-unknown-elf gcc, picolibc, QEMU virt.
have_cmd riscv64-unknown-elf-gcc || need="$need gcc-riscv64-unknown-elf"
have_pkg picolibc-riscv64-unknown-elf || need="$need picolibc-riscv64-unknown-elf"
have_cmd qemu-system-riscv32 || need="$need qemu-system-misc"
have_cmd xz || need="$need xz-utils"
# qphys as a library (tests/scripts/test-install.sh): pkg-config and CMake users.
have_cmd pkg-config || need="$need pkgconf"
have_cmd cmake || need="$need cmake"
have_cmd ccache || need="$need ccache"   # the install check's two CMake builds of the same library share objects
# Pictures: qphys render (libpng, giflib) and the viewer (SDL2); the viewer's test runs it
# under Xvfb, drives it with xdotool and takes screenshots with xwd (x11-apps).
have_pkg libpng-dev || need="$need libpng-dev"
have_pkg libgif-dev || need="$need libgif-dev"
have_pkg libsdl2-dev || need="$need libsdl2-dev"
have_cmd Xvfb || need="$need xvfb"
have_cmd xdotool || need="$need xdotool"
have_cmd xwd || need="$need x11-apps"
# Replay testing at scale (docs/python.md, docs/scale.md): the Python package's tests, numpy,
# Dask's scheduler and workers, pip and venv for `pip install`, mypy for its type hints;
# Debian's python3 runs them.
for p in python3-pytest python3-numpy python3-distributed python3-setuptools python3-pip python3-venv mypy; do
  have_pkg $p || need="$need $p"
done
if [ -n "$need" ]; then
  cmd="apt-get install -y --no-install-recommends$need"
  if [ "$(id -u)" = 0 ]; then sudo=""; elif have_cmd sudo && sudo -n true 2>/dev/null; then sudo="sudo"; else
    echo "deps: missing:$need" >&2
    echo "deps: run: sudo apt-get update && sudo $cmd" >&2
    exit 1
  fi
  echo "deps: installing$need"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo $cmd -qq >/dev/null
fi
if [ -n "${LIBFIXMATH_SRC:-}" ]; then
  [ -f "$LIBFIXMATH_SRC/libfixmath/fix16.c" ] || { echo "deps: LIBFIXMATH_SRC=$LIBFIXMATH_SRC has no libfixmath/fix16.c" >&2; exit 1; }
else
  sh tools/fetch-libfixmath.sh build/deps
fi
