/* SPDX-License-Identifier: MIT */
/* The release of qphys these headers belong to. The file VERSION at the top of the tree holds the
 * same text; `qphys --version`, qphys.pc and the CMake package read it there, and
 * tests/scripts/version.sh checks that all of them agree. */
#ifndef QPHYS_VERSION_H
#define QPHYS_VERSION_H

#define QP_VERSION_MAJOR 0
#define QP_VERSION_MINOR 1
#define QP_VERSION_PATCH 0
#define QP_VERSION_STRING "0.1.0"

/* One number that grows with every release, for #if QP_VERSION >= QP_VERSION_AT(0, 2, 0). */
#define QP_VERSION_AT(major, minor, patch) ((major) * 10000L + (minor) * 100L + (patch))
#define QP_VERSION QP_VERSION_AT(QP_VERSION_MAJOR, QP_VERSION_MINOR, QP_VERSION_PATCH)

#endif
