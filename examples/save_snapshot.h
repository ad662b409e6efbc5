/* SPDX-License-Identifier: MIT */
/* The demos' --save: a world's snapshot into a file, for qphys render (make pictures).
 * A host program may use the heap for its buffer; the engine never does. */
#ifndef QPHYS_EXAMPLES_SAVE_SNAPSHOT_H
#define QPHYS_EXAMPLES_SAVE_SNAPSHOT_H

#include <stdio.h>
#include <stdlib.h>
#include "qphys/qphys.h"

/* 1 when path holds w's snapshot, else 0 with a message naming the demo. */
static int save_snapshot(const qp_world *w, const char *path, const char *demo)
{
    unsigned long n = qp_world_snapshot(w, NULL, 0);
    unsigned char *buf = malloc(n);
    FILE *f = fopen(path, "wb");
    int ok = buf && f && qp_world_snapshot(w, buf, n) == n && fwrite(buf, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(buf);
    if (!ok) fprintf(stderr, "%s: cannot write %s\n", demo, path);
    return ok;
}

#endif
