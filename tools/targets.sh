#!/bin/sh
# targets.sh - how to run a program built for a host-side target on this machine.
# Sourced by tools/cross-check.sh and tools/scene-check.sh.
#
#   qp_runner CC FLAGS...   builds a trivial program with CC FLAGS and finds how this machine
#                           runs it: natively (prints nothing), or under the qemu-user emulator
#                           of its instruction set (prints e.g. "qemu-i386"). Returns 1 and
#                           prints the real reason when it cannot be built or run at all.
#
# A kernel without IA-32 emulation cannot execute i386 programs that gcc -m32 links fine
# ("Exec format error"); qemu-i386 (Debian qemu-user, installed by tools/deps.sh) runs
# them instead, so the 32-bit proof never depends on the host kernel.

qp_runner() {
  qr_dir=${TMPDIR:-/tmp}/qp-runner.$$
  mkdir -p "$qr_dir"
  printf 'int main(void) { return 0; }\n' >"$qr_dir/t.c"
  if ! "$@" "$qr_dir/t.c" -o "$qr_dir/t" >"$qr_dir/log" 2>&1; then
    echo "'$*' cannot build a program here: $(head -n 1 "$qr_dir/log")"
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
