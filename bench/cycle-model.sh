#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/cycle-model.sh: cycles per instruction of qphys's step on real Cortex-M cores, from the
# instructions an emulated run executed (bench/m4-profile.sh's profile.pcs: address and count)
# and the cores' published instruction timings. docs/porting.md's budget table comes from it.
#
#   sh bench/cycle-model.sh ELF PROFILE
#
# Each executed instruction is classed by its mnemonic (objdump of ELF) and counted; the
# snapshot restore, memset and the per-step world hash of the scene runner are left out (a
# firmware steps, it does not restore or hash each step). Prints the mix and the expected
# cycles per instruction on
#   Cortex-M0+ (TRM r0p1, 3.3): ALU 1, LDR/STR 2, LDM/STM/PUSH/POP 1+N (POP {..,pc} 3+N),
#       MULS 1 (the single-cycle multiplier), B 2, BL 3, BX/BLX 2, Bcc 2 taken / 1 not
#   Cortex-M4 (TRM r0p1, table 3-1): ALU 1, LDR 2, STR 1 (immediate offset), LDRD/STRD 3,
#       LDM/STM/PUSH/POP 1+N (POP {..,pc} 1+N+P), MUL/MLA/UMULL/SMULL/UMLAL/SMLAL 1,
#       UDIV/SDIV 2..12 (7 taken), B/BL/BX 1+P, Bcc and CBZ 1+P taken / 1 not, IT 1 (not folded)
# with P, the pipeline refill after a taken branch, 2 (1..3), and code fetched with no wait
# state (the flash accelerators' and caches' hits). Conditional branches count as taken as often
# as the profile's third column says (bench/m4prof.c: the next instruction was not the one
# after); a profile without it is taken as half taken.
# Conditional non-branch instructions (in IT blocks) count as executed.
set -eu
[ $# = 2 ] || { echo "usage: $0 ELF PROFILE" >&2; exit 2; }
arm-none-eabi-objdump -d --no-show-raw-insn "$1" | awk -v prof="$2" '
  BEGIN { while ((getline l < prof) > 0) { k = split(l, f, " "); n[f[1]] = f[2]; if (k >= 3) j[f[1]] = f[3]; else halves = 1 } }
  /^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
  /^ *[0-9a-f]+:\t/ {
    addr = $1; sub(/:$/, "", addr); sub(/^0+/, "", addr)
    c = n[addr]; if (c == "") next
    if (fn ~ /^(memset|qp_world_restore|get_|read_all|qp_hash_|hash_|qp_world_hash)/) { skipped += c; next }
    split($0, t, "\t"); m = t[2]; ops = t[3]
    sub(/\.[nw]$/, "", m)
    regs = 0
    if (m ~ /^(ldm|stm|push|pop)/) { r = ops; sub(/^[^{]*\{/, "", r); sub(/\}.*/, "", r)
      k = split(r, rr, ","); for (i = 1; i <= k; i++) if (rr[i] ~ /^ *r[0-9]+-r[0-9]+$/) { split(rr[i], ab, "-"); sub(/ *r/, "", ab[1]); sub(/r/, "", ab[2]); regs += ab[2] - ab[1] + 1 } else regs++ }
    if (m ~ /^pop/ && ops ~ /pc/) cls = "pop_pc"
    else if (m ~ /^ldm/ && ops ~ /pc/) cls = "pop_pc"
    else if (m ~ /^(ldm|pop)/) cls = "ldm"
    else if (m ~ /^(stm|push)/) cls = "stm"
    else if (m ~ /^ldrd/) cls = "ldrd"
    else if (m ~ /^strd/) cls = "strd"
    else if (m ~ /^ldr/) cls = "ldr"
    else if (m ~ /^str/) cls = "str"
    else if (m ~ /^(umull|smull|umlal|smlal)/) cls = "mull"
    else if (m ~ /^(mul|mla|mls)/) cls = "mul"
    else if (m ~ /^(udiv|sdiv)/) cls = "div"
    else if (m ~ /^(cbz|cbnz)$/) cls = "bcc"
    else if (m ~ /^bl$|^blx/) cls = "bl"
    else if (m ~ /^bx/) cls = "bx"
    else if (m == "b") cls = "b"
    else if (m ~ /^b(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)$/) cls = "bcc"
    else if (m ~ /^it/) cls = "it"
    else cls = "alu"
    cnt[cls] += c; total += c; rsum[cls] += c * regs
    if (cls == "bcc") taken += (addr in j) ? j[addr] : c / 2
  }
  END {
    printf "instructions counted %d (left out: restore, memset, hash: %d)\n", total, skipped
    split("alu ldr str ldrd strd ldm stm pop_pc mul mull div b bl bx bcc it", order, " ")
    for (i = 1; i in order; i++) { k = order[i]; if (cnt[k]) printf "  %-7s %6.2f%%%s\n", k, 100 * cnt[k] / total,
      (k ~ /ldm|stm|pop_pc/) ? sprintf("  (%.1f registers each)", rsum[k] / cnt[k]) : "" }
    P = 2
    nt = cnt["bcc"] - taken
    printf "conditional branches taken: %.1f%%%s\n", cnt["bcc"] ? 100 * taken / cnt["bcc"] : 0, halves ? " (assumed: no jump counts in the profile)" : ""
    # Cortex-M0+
    m0 = cnt["alu"] + 2 * (cnt["ldr"] + cnt["str"]) + cnt["ldm"] + rsum["ldm"] + cnt["stm"] + rsum["stm"] \
       + 3 * cnt["pop_pc"] + rsum["pop_pc"] + cnt["mul"] + 2 * cnt["b"] + 3 * cnt["bl"] + 2 * cnt["bx"] + 2 * taken + nt
    other0 = cnt["ldrd"] + cnt["strd"] + cnt["mull"] + cnt["div"] + cnt["it"]
    # Cortex-M4
    m4 = cnt["alu"] + 2 * cnt["ldr"] + cnt["str"] + 3 * (cnt["ldrd"] + cnt["strd"]) + cnt["ldm"] + rsum["ldm"] \
       + cnt["stm"] + rsum["stm"] + (1 + P) * cnt["pop_pc"] + rsum["pop_pc"] + cnt["mul"] + cnt["mull"] + 7 * cnt["div"] \
       + (1 + P) * (cnt["b"] + cnt["bl"] + cnt["bx"]) + (1 + P) * taken + nt + cnt["it"]
    if (other0 == 0) printf "Cortex-M0+ cycles per instruction %.2f\n", m0 / total
    else printf "Cortex-M0+: not Armv6-M code (%d Armv7-M instructions)\n", other0
    printf "Cortex-M4 cycles per instruction %.2f\n", m4 / total
  }'
