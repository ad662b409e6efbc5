/* SPDX-License-Identifier: MIT */
/* The `qphys render` of builds without the picture libraries (cross targets, sanitizer
 * and variant builds): the host build links tools/viewer/render.c instead (mk/tools.mk). */
#include <stdio.h>

int qphys_render(int argc, char **argv);

int qphys_render(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("qphys: render: not built into this qphys (the host build with libpng and giflib has it)\n", stderr);
    return 2;
}
