/* SPDX-License-Identifier: MIT */
/* bench/m4prof.c - counts the instructions of an emulated Cortex-M program by address.
 *
 *   m4prof < LOG          reads QEMU's execution log, as qemu-system-arm -singlestep
 *                         -d exec,nochain writes it: one "Trace N: HOST [CPU/PC/FLAGS/CFLAGS]"
 *                         line per translation block, which -singlestep makes one instruction.
 *                         Prints "PC COUNT JUMPS" (PC in hex, ascending) for every address
 *                         executed: JUMPS counts the times the next instruction was not the
 *                         one after it (PC+2 or PC+4), i.e. a branch taken there (or an exception).
 *   m4prof -f SYMBOLS < PCS   sums those counts by function: SYMBOLS is `nm -S -n` of the
 *                         program (address, size, type, name), text symbols only; prints
 *                         "COUNT SHARE NAME" per function, unsorted ("?" outside them).
 * The total goes to stderr. bench/m4-profile.sh runs both. A host tool: it never runs on a board.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thumb instructions sit on even addresses; the boards' code is in the first 4 MB. */
#define CODE_HALFWORDS (1u << 21)

static uint64_t counts[CODE_HALFWORDS], jumps[CODE_HALFWORDS];

static int count_trace(void)
{
    char line[512];
    uint64_t total = 0, outside = 0;
    unsigned long prev = ~0ul;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "Trace ", 6) != 0) continue;
        const char *open = strchr(line, '[');
        const char *slash = open ? strchr(open, '/') : NULL;
        if (!slash) continue;
        unsigned long pc = strtoul(slash + 1, NULL, 16);
        total++;
        if (pc / 2 < CODE_HALFWORDS) counts[pc / 2]++;
        else outside++;
        if (prev / 2 < CODE_HALFWORDS && pc != prev + 2 && pc != prev + 4) jumps[prev / 2]++;
        prev = pc;
    }
    for (uint32_t i = 0; i < CODE_HALFWORDS; i++)
        if (counts[i]) printf("%" PRIx32 " %" PRIu64 " %" PRIu64 "\n", i * 2, counts[i], jumps[i]);
    fprintf(stderr, "m4prof: %" PRIu64 " instructions", total);
    if (outside) fprintf(stderr, " (%" PRIu64 " above 4 MB, not listed)", outside);
    fprintf(stderr, "\n");
    return total ? 0 : 1;
}

/* Text symbols in address order (nm -n), and each one's instructions. */
#define MAX_SYMBOLS 8192
static struct {
    unsigned long lo, hi;
    char name[256];
    uint64_t count;
} symbols[MAX_SYMBOLS];

static int by_function(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    char line[512], type[8], name[256];
    unsigned long addr, size;
    int n = 0;
    while (fgets(line, sizeof line, f) && n < MAX_SYMBOLS) {
        if (sscanf(line, "%lx %lx %7s %255s", &addr, &size, type, name) != 4) continue;
        if (!strchr("tTwW", type[0]) || size == 0) continue;
        symbols[n].lo = addr & ~1ul;   /* a Thumb function's symbol has its low bit set */
        symbols[n].hi = symbols[n].lo + size;
        snprintf(symbols[n].name, sizeof symbols[n].name, "%s", name);
        n++;
    }
    fclose(f);
    uint64_t total = 0, unknown = 0;
    int s = 0;
    unsigned long pc;
    uint64_t c;
    while (fgets(line, sizeof line, stdin) && sscanf(line, "%lx %" SCNu64, &pc, &c) == 2) { /* ascending */
        total += c;
        while (s < n && symbols[s].hi <= pc) s++;
        if (s < n && symbols[s].lo <= pc) symbols[s].count += c;
        else unknown += c;
    }
    if (total == 0) return 1;
    for (int i = 0; i < n; i++)
        if (symbols[i].count)
            printf("%14" PRIu64 " %6.2f%% %s\n", symbols[i].count, 100.0 * (double)symbols[i].count / (double)total,
                   symbols[i].name);
    if (unknown) printf("%14" PRIu64 " %6.2f%% ?\n", unknown, 100.0 * (double)unknown / (double)total);
    fprintf(stderr, "m4prof: %" PRIu64 " instructions in %d functions\n", total, n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "-f") == 0) return by_function(argv[2]);
    if (argc == 1) return count_trace();
    fprintf(stderr, "usage: m4prof < QEMU_LOG   or   m4prof -f SYMBOLS < PCS\n");
    return 2;
}
