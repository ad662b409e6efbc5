#!/bin/sh
# SPDX-License-Identifier: MIT
# check-core-symbols.sh - the ARM guard: the core (src/) and libfixmath, compiled for a
# Cortex-M with -mfloat-abi=soft, must not call any floating-point helper (a float or
# double operation slipped in) nor the heap (malloc & co.).
#
#   NM=arm-none-eabi-nm sh tools/check-core-symbols.sh build/<board>/core/*.o build/<board>/fixmath/*.o
#   OBJDUMP=arm-none-eabi-objdump ...   also scan hard-float objects for FPU instructions (make lib)
#
# Prints one line per offending object and symbol, and exits 1 if there is any. Every board
# and library build runs it: one nm and one awk for all objects, for a process per symbol
# costs seconds a build where starting a process is slow.
set -u
nm=${NM:-arm-none-eabi-nm}
if [ $# -eq 0 ]; then
  echo "check-core-symbols: no objects given" >&2; exit 2
fi
command -v "$nm" >/dev/null 2>&1 || { echo "check-core-symbols: $nm not found" >&2; exit 2; }

# Soft-float helpers (AEABI and libgcc names), float libm calls, and the heap.
float_re='^(__aeabi_(f|d|cf|cd|i2f|i2d|ui2f|ui2d|l2f|l2d|ul2f|ul2d|h2f|f2h)[a-z0-9_]*|__[a-z]*(sf|df|tf|xf|hf)[a-z]*[0-9]?|__(mul|div)(sc|dc|tc|xc)3|(sqrt|sin|cos|tan|atan2|exp|log|pow|fabs|floor|ceil|fmod|round)f?)$'
heap_re='^(_?malloc(_r)?|_?calloc(_r)?|_?realloc(_r)?|_?free(_r)?|aligned_alloc|memalign|posix_memalign|_?sbrk(_r)?)$'

bad=0
missing=0
for obj in "$@"; do
  if [ ! -f "$obj" ]; then
    echo "check-core-symbols: $obj: no such object" >&2; bad=1; missing=1
  fi
done
# nm -A names the object on each line ("OBJ:   U SYMBOL"); a missing object fails it too.
if ! undefined=$("$nm" -A -u "$@" 2>/dev/null) && [ $missing -eq 0 ]; then
  echo "check-core-symbols: $nm failed on the objects given" >&2; bad=1
fi
printf '%s\n' "$undefined" | awk -v float_re="$float_re" -v heap_re="$heap_re" '
  NF < 2 { next }
  {
    sym = $NF; obj = $0
    sub(/:[ \t]+U[ \t]+[^ \t]+$/, "", obj)
    if (sym ~ float_re) {
      print "check-core-symbols: " obj " calls " sym ": floating point in the core (it must be fixed point only)" > "/dev/stderr"; bad = 1
    } else if (sym ~ heap_re) {
      print "check-core-symbols: " obj " calls " sym ": heap use in the core (use static pools, never the heap)" > "/dev/stderr"; bad = 1
    }
  }
  END { exit bad }' || bad=1
# Hard-float objects (OBJDUMP set, Arm): a float operation is an FPU instruction there, not a
# helper call, so their code is scanned too. On a Cortex-M every mnemonic starting with v is an
# FPU one; gcc also uses FPU registers to move 64-bit data (vldr/vstr/vldm/vstm/vpush/vpop, vmov
# between registers), which computes nothing, so only arithmetic, conversions, compares and
# float immediates (vmov.f32 #1.0) count. Up to three are named an object.
if [ -n "${OBJDUMP:-}" ] && [ $missing -eq 0 ]; then
  command -v "$OBJDUMP" >/dev/null 2>&1 || { echo "check-core-symbols: $OBJDUMP not found" >&2; exit 2; }
  "$OBJDUMP" -d "$@" | awk -F'\t' '
    /:[ \t]+file format / { obj = $0; sub(/:[ \t]+file format .*$/, "", obj); next }
    $3 ~ /^v[a-z]/ && $3 !~ /^v(ldr|str|ldm|stm|push|pop)/ && !($3 ~ /^vmov/ && $3 !~ /\.f/) {
      if (!(obj in n)) { n[obj] = 0; order[++objs] = obj }
      if (n[obj] < 3) { fpu[obj] = fpu[obj] $3 " "; n[obj]++ }
    }
    END {
      for (i = 1; i <= objs; i++)
        print "check-core-symbols: " order[i] " computes with the FPU (" fpu[order[i]] "): floating point in the core" > "/dev/stderr"
      exit (objs > 0)
    }' || bad=1
fi
if [ $bad -ne 0 ]; then
  echo "check-core-symbols: FAILED: the core must have no float/double and no heap (see above)" >&2
  exit 1
fi
echo "check-core-symbols: $# objects clean: no float helpers, no heap calls${OBJDUMP:+, no FPU arithmetic}"
