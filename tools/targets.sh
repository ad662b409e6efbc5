#!/bin/sh
# SPDX-License-Identifier: MIT
# targets.sh - how to run a program built for a host-side target on this machine.
# Sourced by tests/scripts/cross-check.sh and tests/scripts/scene-check.sh.
#
#   qp_runner CC FLAGS...   builds a trivial program with CC FLAGS and finds how this machine
#                           runs it: natively (prints nothing), or under the qemu-user emulator
#                           of its instruction set (prints e.g. "qemu-i386"). Returns 1 and
#                           prints the real reason when it cannot be built or run at all.
#
# A kernel without IA-32 emulation cannot execute i386 programs ("Exec format error");
# qemu-i386 (Debian qemu-user, installed by tools/deps.sh) runs them instead, so the 32-bit
# proof never depends on the host kernel. i386 is built by Debian's i686 cross gcc, not
# gcc -m32: gcc-multilib conflicts with the other cross compilers in Debian 12.

# qp_target NAME: the compiler (qt_cc, maybe several words), flags (qt_opt) and archiver
# (qt_ar) of a target whose programs run on this machine natively or emulated. Linux programs
# of other instruction sets are linked statically, so qemu-user needs no sysroot; wasm32 is
# clang's wasm32-wasi with Debian's wasi-libc, run by node (tools/wasi-run.cjs).
qp_target() {
  qt_ar=ar
  case $1 in
    host|gcc-O2) qt_cc=gcc; qt_opt=-O2 ;;
    host-O0|gcc-O0) qt_cc=gcc; qt_opt=-O0 ;;
    host-Os|gcc-Os) qt_cc=gcc; qt_opt=-Os ;;
    host-clang|clang-O2) qt_cc=clang; qt_opt=-O2 ;;
    i386) qt_cc=i686-linux-gnu-gcc; qt_opt="-O2 -static" ;;
    aarch64) qt_cc=aarch64-linux-gnu-gcc; qt_opt="-O2 -static" ;;
    riscv64) qt_cc=riscv64-linux-gnu-gcc; qt_opt="-O2 -static" ;;
    s390x) qt_cc=s390x-linux-gnu-gcc; qt_opt="-O2 -static" ;;   # big-endian
    wasm32) qt_cc="clang --target=wasm32-wasi --sysroot=/usr"; qt_opt=-O2; qt_ar=llvm-ar-14 ;;
    wasm32-simd) qt_cc="clang --target=wasm32-wasi --sysroot=/usr"; qt_opt="-O2 -msimd128"; qt_ar=llvm-ar-14 ;;   # SIMD128 row kernels
    *) return 1 ;;
  esac
}

qp_runner() {
  qr_dir=${TMPDIR:-/tmp}/qp-runner.$$
  mkdir -p "$qr_dir"
  printf 'int main(void) { return 0; }\n' >"$qr_dir/t.c"
  if ! "$@" "$qr_dir/t.c" -o "$qr_dir/t" >"$qr_dir/log" 2>&1; then
    echo "'$*' cannot build a program here: $(head -n 1 "$qr_dir/log")"
    rm -rf "$qr_dir"; return 1
  fi
  if [ "$(head -c 4 "$qr_dir/t" | od -An -c | tr -d ' ')" = '\0asm' ]; then
    # WebAssembly: node runs it through its WASI module.
    qr_node=$(pwd)/tools/wasi-run
    if ! command -v node >/dev/null 2>&1; then echo "wasm32 programs need node, which is not installed"
    elif ! $qr_node "$qr_dir/t" >/dev/null 2>&1; then echo "node cannot run wasm32-wasi programs here"
    else rm -rf "$qr_dir"; echo "$qr_node"; return 0; fi
    rm -rf "$qr_dir"; return 1
  fi
  if "$qr_dir/t" >/dev/null 2>&1; then rm -rf "$qr_dir"; return 0; fi
  qr_arch=$(LC_ALL=C readelf -h "$qr_dir/t" 2>/dev/null | sed -n 's/^ *Machine: *//p')
  case $qr_arch in
    *80386*) qr_qemu=qemu-i386 ;;
    *X86-64*) qr_qemu=qemu-x86_64 ;;
    *AArch64*) qr_qemu=qemu-aarch64 ;;
    *ARM*) qr_qemu=qemu-arm ;;
    *RISC-V*) if LC_ALL=C readelf -h "$qr_dir/t" | grep -q ELF32; then qr_qemu=qemu-riscv32; else qr_qemu=qemu-riscv64; fi ;;
    *S/390*) qr_qemu=qemu-s390x ;;
    *PowerPC64*) qr_qemu=qemu-ppc64 ;;
    *PowerPC*) qr_qemu=qemu-ppc ;;
    *) qr_qemu="" ;;
  esac
  if [ -z "$qr_qemu" ]; then
    echo "the kernel cannot execute its programs (machine '$qr_arch') and no emulator is known for it"
    rm -rf "$qr_dir"; return 1
  fi
  if ! command -v "$qr_qemu" >/dev/null 2>&1; then
    echo "the kernel cannot execute its programs ($qr_arch) and $qr_qemu is missing (Debian qemu-user: make deps)"
    rm -rf "$qr_dir"; return 1
  fi
  if ! "$qr_qemu" "$qr_dir/t" >/dev/null 2>&1; then
    echo "neither the kernel nor $qr_qemu can run its programs ($qr_arch)"
    rm -rf "$qr_dir"; return 1
  fi
  rm -rf "$qr_dir"
  echo "$qr_qemu"
}
