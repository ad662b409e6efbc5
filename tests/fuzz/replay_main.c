/* SPDX-License-Identifier: MIT */
/* replay_main.c - runs a libFuzzer target's LLVMFuzzerTestOneInput on files, with any
 * compiler: the checked-in corpus and every past crash input as regression tests
 * (tests/scripts/test-fuzz-corpus.sh).  replay FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    static uint8_t buf[1 << 20];
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { fprintf(stderr, "replay: cannot open %s\n", argv[i]); return 2; }
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
